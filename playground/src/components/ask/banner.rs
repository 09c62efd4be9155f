//! What the Ask page offers before a question: how to add a model, and questions to try.

use crate::guided::GUIDED;
use crate::state::{Engines, Nav, Page, Settings};
use leptos::prelude::*;

/// Says plainly what works without a key, and how to add one (an engine with its own
/// model needs none).
#[component]
pub fn NoKeyBanner() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let settings = expect_context::<Settings>();
    let nav = expect_context::<Nav>();
    let has_model = move || engines.own_model.get() || settings.provider_ok.get();
    move || {
        (!has_model()).then(|| {
            view! {
                <p class="banner" id="no-key">
                    "No model is set up yet. Browsing schemas, SQL mode, routing and the trace viewer work now; to ask questions, "
                    <a href="#" on:click=nav.go(Page::Settings)>"paste an OpenAI or Anthropic key"</a>
                    " or point at a local Ollama (base URL http://localhost:11434/v1). The key stays in this page."
                </p>
            }
        })
    }
}

/// Questions to start from; a click puts one in the box.
#[component]
pub fn Guided(set_question: WriteSignal<String>) -> impl IntoView {
    view! {
        <details class="guided" open>
            <summary>"Try a question"</summary>
            <ul>
                {GUIDED.iter().map(|(ds, q)| {
                    let text = q.to_string();
                    let tag = ds.unwrap_or("across databases");
                    view! {
                        <li>
                            <button type="button" class="guided-question" data-question=text.clone()
                                on:click=move |_| set_question.set(text.clone())>
                                <span class="tag">{tag}</span>" "{*q}
                            </button>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </details>
    }
}
