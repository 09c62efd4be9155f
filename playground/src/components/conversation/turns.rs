//! The thread's earlier turns, oldest first: each question, its answer, and how it
//! followed the one before.

use super::FollowedAs;
use crate::state::RunState;
use leptos::prelude::*;
use nl2sql_core::result::QueryResult;
use std::sync::Arc;

#[component]
pub fn EarlierTurns() -> impl IntoView {
    let run = expect_context::<RunState>();
    move || {
        let turns = run.turns.get();
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
