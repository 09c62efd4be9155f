//! The conversation around the latest answer: its earlier turns stacked above it, what the
//! engine asks back as buttons, Right/Wrong under the answer, and the follow-up box.

use crate::state::{AppState, Page};
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::conversation::{ChangeKind, FollowUp as FollowUpRecord};
use nl2sql_core::engine::{QueryResult, Status};
use nl2sql_core::feedback::{Answered, Given, Verdict};
use std::sync::Arc;

/// The thread's earlier turns, oldest first: each question, its answer, and how it
/// followed the one before.
#[component]
pub fn EarlierTurns() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let turns = state.turns.get();
        (!turns.is_empty()).then(|| {
            view! {
                <ol class="turns" id="turns">
                    {turns.into_iter().enumerate().map(|(i, r)| view! { <Turn index=i result=r /> }).collect_view()}
                </ol>
            }
        })
    }
}

#[component]
fn Turn(index: usize, result: Arc<QueryResult>) -> impl IntoView {
    let answer = result
        .final_answer
        .as_ref()
        .map(|a| a.text.clone())
        .or_else(|| result.clarification.as_ref().map(|c| c.question.clone()))
        .or_else(|| {
            result
                .errors
                .first()
                .map(|e| format!("{}: {}", e.error_code, e.message))
        })
        .unwrap_or_default();
    view! {
        <li class="turn" data-turn=index data-status=result.status.as_str()>
            <p class="turn-question">{result.question.clone()}</p>
            {result.follow_up.clone().map(|f| view! { <FollowedAs record=f /> })}
            <p class="turn-answer">{answer}</p>
        </li>
    }
}

/// How a question followed its thread: continued (and what its plan changed) or fresh.
#[component]
pub fn FollowedAs(record: FollowUpRecord) -> impl IntoView {
    let changes: Vec<(String, String)> = record
        .diff
        .iter()
        .flat_map(|d| &d.changes)
        .map(|c| {
            let (sign, kind) = match c.change {
                ChangeKind::Added => ("+", "added"),
                ChangeKind::Removed => ("−", "removed"),
                ChangeKind::Changed => ("~", "changed"),
            };
            (
                kind.to_string(),
                format!("{sign} {}: {}", c.part.as_str(), c.text),
            )
        })
        .collect();
    let said = if record.continued {
        format!("Follow-up: {}", record.reason)
    } else {
        format!("New thread: {}", record.reason)
    };
    view! {
        <div class="follow-up" data-continued=record.continued.to_string()>
            <p class="follow-up-reason">{said}</p>
            {(!changes.is_empty()).then(|| view! {
                <ul class="plan-diff">
                    {changes.into_iter().map(|(kind, text)| view! { <li class="change" data-change=kind>{text}</li> }).collect_view()}
                </ul>
            })}
        </div>
    }
}

/// What the engine asks back, each answer a button that continues the thread.
#[component]
pub fn Clarify(ask: Callback<(String, bool)>) -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let clarification = state.run.with(|r| {
            r.result
                .as_ref()
                .filter(|res| res.status == Status::NeedsClarification)
                .and_then(|res| res.clarification.clone())
        })?;
        Some(view! {
            <section class="clarify" id="clarify" aria-live="polite">
                <p class="clarify-question">{clarification.question.clone()}</p>
                <div class="clarify-options">
                    {clarification.options.into_iter().enumerate().map(|(i, o)| {
                        let next = o.question.clone();
                        view! {
                            <button type="button" class="clarify-option" data-option=i
                                on:click=move |_| ask.run((next.clone(), true))>
                                {o.label}
                            </button>
                        }
                    }).collect_view()}
                </div>
            </section>
        })
    }
}

/// Right or Wrong under the answer; "Right" proposes a verified query, kept in this browser.
#[component]
pub fn Judge() -> impl IntoView {
    let state = expect_context::<AppState>();
    let said = RwSignal::new(None::<(String, String)>);
    // The answer it was said of: what is said shows under that answer only.
    let said_of = StoredValue::new(None::<Arc<QueryResult>>);
    let judge = move |verdict: Verdict| {
        let Some(result) = state.run.with_untracked(|r| r.result.clone()) else {
            return;
        };
        said_of.set_value(Some(Arc::clone(&result)));
        if let Some(remote) = state.server.get_untracked() {
            judge_on_server(remote, result, verdict, said);
            return;
        }
        let Some(session) = state.session() else {
            return;
        };
        let mut book = state.feedback.get_untracked();
        let at = js_sys::Date::new_0()
            .to_iso_string()
            .as_string()
            .unwrap_or_default();
        let by = state.role.get_untracked();
        let recorded = session.feedback(
            &mut book,
            Given {
                answered: Answered::of(&result),
                verdict,
                comment: None,
                by: &by,
                at: &at,
            },
        );
        let message = match (&recorded.proposal, &recorded.entry.not_proposed) {
            (Some(p), _) => format!(
                "Thanks. Proposed verified query {}.{}: an approver can approve it on the Verified queries page.",
                p.datasource, p.query.id
            ),
            (None, Some(why)) => format!("Thanks, noted. No verified query was proposed: {why}."),
            (None, None) => "Thanks, noted.".to_string(),
        };
        let kind = match verdict {
            Verdict::Right => "right",
            Verdict::Wrong => "wrong",
        };
        spawn_local(async move {
            match state.keep_feedback(book).await {
                Ok(()) => said.set(Some((kind.to_string(), message))),
                Err(e) => said.set(Some((
                    "error".to_string(),
                    format!("The feedback was not kept: {e}"),
                ))),
            }
        });
    };
    move || {
        let answered = state.run.with(|r| {
            !r.running
                && r.result
                    .as_ref()
                    .is_some_and(|res| res.status == Status::Success)
        });
        answered.then(|| {
            view! {
                <section class="judge" id="judge">
                    <span>"Is this answer right?"</span>
                    <button type="button" id="right" on:click=move |_| judge(Verdict::Right)>"👍 Right"</button>
                    <button type="button" id="wrong" on:click=move |_| judge(Verdict::Wrong)>"👎 Wrong"</button>
                    {move || {
                        let current = state.run.with(|r| r.result.clone());
                        let same = said_of.with_value(|of| match (of, &current) {
                            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                            _ => false,
                        });
                        said.get().filter(|_| same)
                    }.map(|(kind, text)| view! {
                        <p class="judged" data-verdict=kind>{text}" "
                            <a href="#" on:click=move |ev| { ev.prevent_default(); state.page.set(Page::Verified); }>"Verified queries"</a>
                        </p>
                    })}
                </section>
            }
        })
    }
}

/// With a server as the engine, feedback goes to it (and is kept there).
fn judge_on_server(
    remote: nl2sql_wasm::Remote,
    result: Arc<QueryResult>,
    verdict: Verdict,
    said: RwSignal<Option<(String, String)>>,
) {
    // As on the page itself: only one datasource's answer to a question standing alone.
    let standalone = !result.follow_up.as_ref().is_some_and(|f| f.continued);
    let (Some(sub), None, true) = (
        result
            .sub_queries
            .first()
            .cloned()
            .filter(|_| result.sub_queries.len() == 1),
        &result.combined,
        standalone,
    ) else {
        said.set(Some((
            "noted".to_string(),
            "Only one datasource's answer to a question standing alone goes to the server; ask it as one whole question to propose it.".to_string(),
        )));
        return;
    };
    let request = nl2sql_core::api::FeedbackRequest {
        question: result.question.clone(),
        datasource: sub.datasource_id,
        sql: sub.sql,
        verdict,
        comment: None,
        role: None,
    };
    spawn_local(async move {
        let transport = nl2sql_wasm::FetchTransport::default();
        match remote.feedback(&transport, &request).await {
            Ok(recorded) => {
                let text = match recorded.proposal {
                    Some(p) => format!(
                        "Thanks. The server proposed verified query {}.{}.",
                        p.datasource, p.query.id
                    ),
                    None => "Thanks, the server noted it.".to_string(),
                };
                said.set(Some(("server".to_string(), text)));
            }
            Err(e) => said.set(Some((
                "error".to_string(),
                format!("{}: {}", e.code, e.message),
            ))),
        }
    });
}

/// The follow-up box under the latest answer, and a way to start over.
#[component]
pub fn FollowUp(ask: Callback<(String, bool)>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let text = RwSignal::new(String::new());
    let send = move || {
        let q = text.get_untracked();
        if !q.trim().is_empty() {
            ask.run((q, true));
            text.set(String::new());
        }
    };
    let new_thread = move |_| {
        state
            .thread
            .set(nl2sql_core::conversation::Thread::default());
        state.turns.set(Vec::new());
        state.run.set(crate::run::RunView::default());
    };
    move || {
        // Open under any finished answer of a thread (a failed follow-up too: the thread
        // is kept, and the next one continues it); a question asked back has its buttons.
        let open = state.run.with(|r| {
            !r.running
                && r.result
                    .as_ref()
                    .is_some_and(|res| res.status != Status::NeedsClarification)
        }) && state.thread.with(|t| !t.turns.is_empty());
        open.then(|| {
            view! {
                <form class="follow-up-box" on:submit=move |ev| { ev.prevent_default(); send(); }>
                    <label for="follow-up" class="visually-hidden">"A follow-up question"</label>
                    <input id="follow-up" type="text" placeholder="Follow up: “and only for 2012?”, “now by month”…"
                        prop:value=move || text.get()
                        on:input=move |ev| text.set(event_target_value(&ev)) />
                    <button type="submit" class="primary" id="ask-follow-up">"Ask follow-up"</button>
                    <button type="button" id="new-thread" on:click=new_thread>"New thread"</button>
                    <span class="hint">{move || format!("{} turns in this thread", state.thread.with(|t| t.turns.len()))}</span>
                </form>
            }
        })
    }
}
