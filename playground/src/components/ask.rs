//! The Ask page: the question, the options, and the run as it happens.

use super::{
    AnswerCard, Clarify, EarlierTurns, FollowUp, Judge, ResultPanels, SchemaPanel, Timeline,
};
use crate::browser::mark;
use crate::catalog::now_ms;
use crate::guided::GUIDED;
use crate::run::RunView;
use crate::state::{AppState, Page};
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::engine::{Event, Events, TraceForm};
use nl2sql_core::service::Question;
use nl2sql_wasm::{FetchTransport, Remote};
use std::rc::Rc;

#[component]
pub fn AskPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let question = RwSignal::new(state.run.get_untracked().question);
    let datasource = RwSignal::new(String::new());
    let plan_only = RwSignal::new(false);
    let config_error = RwSignal::new(None::<String>);
    // The server's refusal of an ask (its code, its words), when a server is the engine.
    let server_error = RwSignal::new(None::<(String, String)>);
    // Cancel stops the run this page started, not every run of the session (with a
    // server: closes the stream, which cancels the run there).
    let current = StoredValue::new_local(None::<Rc<dyn Fn()>>);
    let running = move || state.run.with(|r| r.running);

    // Asks `q`: continuing the conversation (a follow-up, or the answer to a question asked
    // back), or starting a new one.
    let ask_text = move |q: String, follow: bool| {
        let q = q.trim().to_string();
        if q.is_empty() || state.run.with_untracked(|r| r.running) {
            return;
        }
        server_error.set(None);
        let thread = follow.then(|| state.thread.get_untracked());
        // The latest answer moves up into the thread's earlier turns; a new conversation
        // clears them.
        let latest = state.run.with_untracked(|r| r.result.clone());
        let keep = state.run_config.with_untracked(|c| c.thread_turns.max(1));
        state.turns.update(|turns| match (follow, latest) {
            (true, Some(latest)) => {
                turns.push(latest);
                // As many earlier turns as the thread keeps.
                let extra = turns.len().saturating_sub(keep);
                turns.drain(..extra);
            }
            (true, None) => {}
            (false, _) => turns.clear(),
        });
        if let Some(remote) = state.server.get_untracked() {
            let request = Question {
                question: q.clone(),
                datasource: Some(datasource.get_untracked()).filter(|d| !d.is_empty()),
                plan_only: plan_only.get_untracked(),
                thread,
                // The server's key decides the role, and the server cleans the trace.
                ..Question::default()
            };
            ask_server(state, remote, request, current, server_error);
            return;
        }
        let Some(session) = state.session() else {
            return;
        };
        // The request is registered before the run starts, so Cancel always reaches it.
        let request = session.request(Question {
            question: q.clone(),
            roles: vec![state.role.get_untracked()],
            datasource: Some(datasource.get_untracked()).filter(|d| !d.is_empty()),
            plan_only: plan_only.get_untracked(),
            // The page's user owns the data they opened.
            trace: TraceForm::Full,
            thread,
        });
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                config_error.set(Some(e.to_string()));
                return;
            }
        };
        config_error.set(None);
        let token = request.canceller();
        current.set_value(Some(Rc::new(move || token.cancel())));
        let asked = now_ms();
        mark("ask-ms", asked);
        state.run.set(RunView::start(&q, asked));
        let events = Events(Rc::new(move |event: &Event| {
            let now = now_ms();
            state.run.update(|r| {
                if r.first_update_ms.is_none() {
                    mark("first-update-ms", now);
                }
                r.apply(event, now);
            });
        }));
        spawn_local(async move {
            let result = session.ask(request, Some(events)).await;
            finished(state, result);
            mark("done-ms", now_ms());
        });
    };
    let ask = move || ask_text(question.get_untracked(), false);
    let ask_next = Callback::new(move |(text, follow): (String, bool)| ask_text(text, follow));
    let cancel = move |_| {
        if let Some(cancel) = current.get_value() {
            cancel();
        }
    };

    view! {
        <div class="ask-page">
            <section class="ask-main">
                <NoKeyBanner />
                <form class="ask" on:submit=move |ev| { ev.prevent_default(); ask(); }>
                    <label for="question" class="visually-hidden">"Your question"</label>
                    <textarea
                        id="question"
                        rows="2"
                        placeholder="Ask about the music store, the support desk or the website traffic…"
                        prop:value=move || question.get()
                        on:input=move |ev| question.set(event_target_value(&ev))
                        on:keydown=move |ev| {
                            if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                                ev.prevent_default();
                                ask();
                            }
                        }
                    ></textarea>
                    <div class="ask-options">
                        <label>
                            "Datasource "
                            <select id="datasource" on:change=move |ev| datasource.set(event_target_value(&ev))>
                                <option value="">"auto (routing)"</option>
                                {move || state.sources.get().into_iter().map(|s| {
                                    let id = s.id.clone();
                                    view! { <option value=id.clone()>{id.clone()}</option> }
                                }).collect_view()}
                            </select>
                        </label>
                        <label class="check">
                            <input type="checkbox" id="plan-only" prop:checked=move || plan_only.get()
                                on:change=move |ev| plan_only.set(event_target_checked(&ev)) />
                            " Plan only"
                        </label>
                        <span class="spacer"></span>
                        <button type="submit" class="primary" id="ask" disabled=move || running() || !matches!(state.load.get(), crate::state::Load::Ready { .. })>
                            "Ask"
                        </button>
                        <button type="button" id="cancel" disabled=move || !running() on:click=cancel>"Cancel"</button>
                        <span class="hint">"Ctrl/⌘ + Enter"</span>
                    </div>
                    {move || config_error.get().map(|e| view! {
                        <p class="config-error" role="alert" data-code="CONFIG_INVALID">
                            {e} " " <a href="#" on:click=move |ev| { ev.prevent_default(); state.page.set(Page::Settings); }>"Open the settings"</a>
                        </p>
                    })}
                    {move || server_error.get().map(|(code, message)| view! {
                        <p class="config-error" role="alert" id="server-error" data-code=code.clone()>
                            <code>{code.clone()}</code> " " {message}
                        </p>
                    })}
                </form>
                <Guided question=question />
                <EarlierTurns />
                <AnswerCard />
                <Clarify ask=ask_next />
                <Judge />
                <FollowUp ask=ask_next />
                <ResultPanels />
            </section>
            <aside class="ask-side">
                <Timeline />
                <SchemaPanel />
            </aside>
        </div>
    }
}

/// Asks through the server: its events fold into the timeline as the page's own do, and
/// its result (cleaned, as the server sends it) finishes the run.
fn ask_server(
    state: AppState,
    remote: Remote,
    request: Question,
    current: StoredValue<Option<Rc<dyn Fn()>>, LocalStorage>,
    server_error: RwSignal<Option<(String, String)>>,
) {
    let transport = Rc::new(FetchTransport::default());
    current.set_value(Some(Rc::new(transport.canceller())));
    let asked = now_ms();
    mark("ask-ms", asked);
    state.run.set(RunView::start(&request.question, asked));
    spawn_local(async move {
        let on_event = |event: &Event| {
            let now = now_ms();
            state.run.update(|r| {
                if r.first_update_ms.is_none() {
                    mark("first-update-ms", now);
                }
                r.apply(event, now);
            });
        };
        match remote.ask(&transport, &request, &on_event).await {
            Ok(result) => finished(state, result),
            Err(e) => {
                state.run.update(|r| r.running = false);
                server_error.set(Some((e.code.to_string(), e.message)));
            }
        }
        mark("done-ms", now_ms());
    });
}

/// A run ended: its result is shown, its thread is the one the next follow-up continues,
/// and a question that started fresh leaves no earlier turns above it.
fn finished(state: AppState, result: nl2sql_core::engine::QueryResult) {
    if result.follow_up.as_ref().is_some_and(|f| !f.continued) {
        state.turns.set(Vec::new());
    }
    state.thread.set(result.thread.clone());
    state.run.update(|r| r.finish(result));
}

/// Says plainly what works without a key, and how to add one.
#[component]
fn NoKeyBanner() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        (!state.has_provider()).then(|| {
            view! {
                <p class="banner" id="no-key">
                    "No model is set up yet. Browsing schemas, SQL mode, routing and the trace viewer work now; to ask questions, "
                    <a href="#" on:click=move |ev| { ev.prevent_default(); state.page.set(Page::Settings); }>"paste an OpenAI or Anthropic key"</a>
                    " or point at a local Ollama (base URL http://localhost:11434/v1). The key stays in this page."
                </p>
            }
        })
    }
}

/// Questions to start from; a click puts one in the box.
#[component]
fn Guided(question: RwSignal<String>) -> impl IntoView {
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
                                on:click=move |_| question.set(text.clone())>
                                <span class="tag">{tag}</span>" "{*q}
                            </button>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </details>
    }
}
