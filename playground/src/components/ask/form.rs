//! The question box, its options, Ask and Cancel, and why the last question got no answer.

use crate::state::{AskFailure, Engines, Nav, Page, RunState};
use leptos::prelude::*;

#[component]
pub fn AskForm(
    question: ReadSignal<String>,
    set_question: WriteSignal<String>,
    set_datasource: WriteSignal<String>,
    plan_only: ReadSignal<bool>,
    set_plan_only: WriteSignal<bool>,
    failure: ReadSignal<Option<AskFailure>>,
    ask: Callback<(String, bool)>,
) -> impl IntoView {
    let engines = expect_context::<Engines>();
    let run = expect_context::<RunState>();
    let send = move || ask.run((question.get_untracked(), false));
    view! {
        <form class="ask" on:submit=move |ev| { ev.prevent_default(); send(); }>
            <label for="question" class="visually-hidden">"Your question"</label>
            <textarea
                id="question"
                rows="2"
                placeholder="Ask about the music store, the support desk or the website traffic…"
                prop:value=question
                on:input=move |ev| set_question.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                        ev.prevent_default();
                        send();
                    }
                }
            ></textarea>
            <div class="ask-options">
                <label>
                    "Datasource "
                    <select id="datasource" on:change=move |ev| set_datasource.set(event_target_value(&ev))>
                        <option value="">"auto (routing)"</option>
                        {move || engines.sources.get().into_iter().map(|s| view! {
                            <option value=s.id.clone()>{s.id.clone()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label class="check">
                    <input type="checkbox" id="plan-only" prop:checked=plan_only
                        on:change=move |ev| set_plan_only.set(event_target_checked(&ev)) />
                    " Plan only"
                </label>
                <span class="spacer"></span>
                <button type="submit" class="primary" id="ask" disabled=move || run.running.get() || !engines.ready.get()>
                    "Ask"
                </button>
                <button type="button" id="cancel" disabled=move || !run.running.get() on:click=move |_| run.cancel()>"Cancel"</button>
                <span class="hint">"Ctrl/⌘ + Enter"</span>
            </div>
            <Failed failure=failure />
        </form>
    }
}

/// A question that could not start sends the person to the settings; one the engine
/// stopped says its code.
#[component]
fn Failed(failure: ReadSignal<Option<AskFailure>>) -> impl IntoView {
    let nav = expect_context::<Nav>();
    move || {
        failure.get().map(|f| match f {
            AskFailure::NotStarted(f) => view! {
                <p class="config-error" role="alert" data-code=f.code>
                    {f.message} " " <a href="#" on:click=nav.go(Page::Settings)>"Open the settings"</a>
                </p>
            }
            .into_any(),
            AskFailure::Stopped(f) => view! {
                <p class="config-error" role="alert" id="server-error" data-code=f.code.clone()>
                    <code>{f.code.clone()}</code> " " {f.message}
                </p>
            }
            .into_any(),
        })
    }
}
