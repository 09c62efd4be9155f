//! The answer card: the answer as it streams, then what it rests on — rows, checks, time,
//! model calls, tokens, cost, and which datasources answered and why.

mod facts;

use super::FollowedAs;
use crate::state::RunState;
use facts::Facts;
use leptos::prelude::*;
use nl2sql_core::result::MatchReason;

#[component]
pub fn AnswerCard() -> impl IntoView {
    let run = expect_context::<RunState>();
    let live = run.view;
    let has_run = Memo::new(move |_| run.running.get() || run.result.with(Option::is_some));
    let status = move || match run.result.get() {
        None => "running".to_string(),
        Some(res) => res.status.as_str().to_string(),
    };
    let text = move || {
        live.with(
            |r| match (r.answer.is_empty() && r.running, r.preview.is_some()) {
                (true, true) => "Writing the answer…".to_string(),
                (true, false) => "Working on it…".to_string(),
                (false, _) => r.answer.clone(),
            },
        )
    };
    move || {
        has_run.get().then(|| {
            view! {
                <article class="answer-card" data-status=status aria-live="polite">
                    <h2 class="question">{move || live.with(|r| r.question.clone())}</h2>
                    {move || run.result.get().and_then(|res| res.follow_up.clone())
                        .map(|f| view! { <FollowedAs record=f /> })}
                    <VerifiedBadge />
                    <p class="answer-text">{text}</p>
                    <Headline />
                    <Facts />
                </article>
            }
        })
    }
}

/// The first blocking error, in plain words, when the run did not succeed.
#[component]
fn Headline() -> impl IntoView {
    let run = expect_context::<RunState>();
    move || {
        let res = run.result.get()?;
        let e = res.errors.first()?;
        let code = e.error_code.as_str();
        Some(view! {
            <p class="headline-error" data-code=code>
                <code>{code}</code>" "{e.message.clone()}
            </p>
        })
    }
}

/// A verified query answered: say so, and which one.
#[component]
fn VerifiedBadge() -> impl IntoView {
    let run = expect_context::<RunState>();
    move || {
        let res = run.result.get()?;
        let curated = res.curated.as_ref().filter(|c| c.matched)?;
        let choice = curated.choice.clone().unwrap_or_default();
        let by = if curated.reason == MatchReason::Code {
            "matched by the engine, no model call"
        } else {
            "picked by the model"
        };
        Some(view! {
            <p class="verified" data-choice=choice.clone()>
                "✔ Verified query " <code>{choice.clone()}</code> " (" {by} ")"
            </p>
        })
    }
}
