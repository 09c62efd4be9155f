//! The Ask page: the question, the options, and the run as it happens, with the
//! conversation around the latest answer.

mod banner;
mod form;

use super::{
    AnswerCard, Clarify, EarlierTurns, FollowUp, Judge, ResultPanels, SchemaPanel, Timeline,
};
use crate::engine::Asking;
use crate::state::{AskFailure, Engines, RunState, Settings};
use banner::{Guided, NoKeyBanner};
use form::AskForm;
use leptos::prelude::*;

#[component]
pub fn AskPage() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let settings = expect_context::<Settings>();
    let run = expect_context::<RunState>();
    let (question, set_question) = signal(run.view.with_untracked(|r| r.question.clone()));
    let (datasource, set_datasource) = signal(String::new());
    let (plan_only, set_plan_only) = signal(false);
    let (failure, set_failure) = signal(None::<AskFailure>);
    // Asks a question: continuing the conversation (a follow-up, or the answer to a
    // question asked back), or starting a new one.
    let ask = Callback::new(move |(text, follow): (String, bool)| {
        let Some(engine) = engines.engine() else {
            return;
        };
        let asking = Asking {
            question: text,
            role: engines.role.get_untracked(),
            datasource: Some(datasource.get_untracked()).filter(|d| !d.is_empty()),
            plan_only: plan_only.get_untracked(),
            thread: None,
        };
        let keep = settings.run.with_untracked(|c| c.thread_turns.max(1));
        run.ask(engine, asking, (follow, keep), set_failure);
    });
    view! {
        <div class="ask-page">
            <section class="ask-main">
                <NoKeyBanner />
                <AskForm
                    question=question
                    set_question=set_question
                    set_datasource=set_datasource
                    plan_only=plan_only
                    set_plan_only=set_plan_only
                    failure=failure
                    ask=ask
                />
                <Guided set_question=set_question />
                <EarlierTurns />
                <AnswerCard />
                <Clarify ask=ask />
                <Judge />
                <FollowUp ask=ask />
                <ResultPanels />
            </section>
            <aside class="ask-side">
                <Timeline />
                <SchemaPanel />
            </aside>
        </div>
    }
}
