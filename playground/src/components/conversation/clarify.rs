//! What the engine asks back, each answer a button that continues the thread.

use crate::state::RunState;
use leptos::prelude::*;
use nl2sql_core::result::Status;

#[component]
pub fn Clarify(ask: Callback<(String, bool)>) -> impl IntoView {
    let run = expect_context::<RunState>();
    let asked_back = Memo::new(move |_| {
        run.result.get().and_then(|res| {
            (res.status == Status::NeedsClarification)
                .then(|| res.clarification.clone())
                .flatten()
        })
    });
    move || {
        let clarification = asked_back.get()?;
        Some(view! {
            <section class="clarify" id="clarify" aria-live="polite">
                <p class="clarify-question">{clarification.question}</p>
                <div class="clarify-options">
                    {clarification.options.into_iter().enumerate().map(|(i, o)| {
                        let next = o.question;
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
