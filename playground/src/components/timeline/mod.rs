//! The timeline: one entry per node execution, live while the run goes; a click opens the
//! node's inputs, outputs, errors and every model call.

mod details;
mod model_call;

pub use model_call::ErrorLine;

use crate::run::Step;
use crate::state::RunState;
use details::NodeDetails;
use leptos::prelude::*;

#[component]
pub fn Timeline() -> impl IntoView {
    let run = expect_context::<RunState>();
    let (open, set_open) = signal(None::<usize>);
    let steps = Memo::new(move |_| run.view.with(|r| r.steps.clone()));
    view! {
        <section class="timeline" aria-label="Timeline">
            <h2>"Timeline"</h2>
            {move || steps.with(Vec::is_empty).then(|| view! { <p class="muted">"Each step of a run shows here as it happens."</p> })}
            <ol class="steps" aria-live="polite" aria-relevant="additions text">
                {move || steps.get().into_iter().enumerate().map(|(i, step)| view! {
                    <StepItem step=step index=i open=open set_open=set_open />
                }).collect_view()}
            </ol>
            {move || open.get().map(|i| view! { <NodeDetails index=i on_close=move || set_open.set(None) /> })}
        </section>
    }
}

#[component]
fn StepItem(
    step: Step,
    index: usize,
    open: ReadSignal<Option<usize>>,
    set_open: WriteSignal<Option<usize>>,
) -> impl IntoView {
    let status = step.status.as_str();
    let mut label = step.node.to_string().replace('_', " ");
    if let Some(sub) = &step.sub_query {
        label = format!("{label} · {sub}");
    }
    if step.attempt > 0 {
        label = format!("{label} · attempt {}", step.attempt + 1);
    }
    let duration = step
        .duration_ms
        .map(|d| format!("{d} ms"))
        .unwrap_or_default();
    let calls = (step.model_calls > 0).then(|| {
        let noun = if step.model_calls == 1 {
            "call"
        } else {
            "calls"
        };
        format!("{} model {noun}", step.model_calls)
    });
    view! {
        <li class="step" data-node=step.node.to_string() data-status=status data-attempt=step.attempt>
            <button
                type="button"
                aria-expanded=move || (open.get() == Some(index)).to_string()
                on:click=move |_| set_open.update(|o| *o = if *o == Some(index) { None } else { Some(index) })
            >
                <span class="dot" aria-hidden="true"></span>
                <span class="step-name">{label}</span>
                <span class="step-status">{status}</span>
                <span class="step-time">{duration}</span>
                {calls.map(|c| view! { <span class="step-calls">{c}</span> })}
            </button>
        </li>
    }
}
