//! The timeline: one entry per node execution, live while the run goes; a click opens the
//! node's inputs, outputs, errors and every model call.

use super::{RetrievalTables, RoutingTables};
use crate::run::{Step, StepStatus};
use crate::state::AppState;
use leptos::prelude::*;
use nl2sql_core::engine::LlmCall;
use nl2sql_core::engine::NodeRecord;
use nl2sql_core::error::{Node, PipelineError};
use nl2sql_core::provider::Role;
use serde_json::Value as Json;

#[component]
pub fn Timeline() -> impl IntoView {
    let state = expect_context::<AppState>();
    let open = RwSignal::new(None::<usize>);
    let steps = move || state.run.with(|r| r.steps.clone());
    view! {
        <section class="timeline" aria-label="Timeline">
            <h2>"Timeline"</h2>
            {move || steps().is_empty().then(|| view! { <p class="muted">"Each step of a run shows here as it happens."</p> })}
            <ol class="steps" aria-live="polite" aria-relevant="additions text">
                {move || steps().into_iter().enumerate().map(|(i, step)| view! { <StepItem step=step index=i open=open /> }).collect_view()}
            </ol>
            {move || open.get().map(|i| view! { <NodeDetails index=i on_close=move || open.set(None) /> })}
        </section>
    }
}

#[component]
fn StepItem(step: Step, index: usize, open: RwSignal<Option<usize>>) -> impl IntoView {
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
                on:click=move |_| open.update(|o| *o = if *o == Some(index) { None } else { Some(index) })
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

/// Everything the trace holds about one node execution.
#[component]
fn NodeDetails(index: usize, on_close: impl Fn() + 'static + Copy) -> impl IntoView {
    let state = expect_context::<AppState>();
    let body = move || {
        state.run.with(|r| {
            let step = r.steps.get(index)?.clone();
            let Some(result) = &r.result else {
                return Some(
                    view! { <p class="muted">"The details appear when the run ends."</p> }
                        .into_any(),
                );
            };
            let Some(record) = step.trace_index.and_then(|i| result.trace.get(i)).cloned() else {
                return Some(view! { <p class="muted">"This step did not run."</p> }.into_any());
            };
            let special = match step.node {
                Node::DatasourceResolver => result
                    .routing
                    .clone()
                    .map(|routing| view! { <RoutingTables routing=routing /> }.into_any()),
                Node::SchemaRetriever => result
                    .retrieval
                    .clone()
                    .map(|retrieval| view! { <RetrievalTables retrieval=retrieval /> }.into_any()),
                _ => None,
            };
            Some(view! { <Record record=record /> {special} }.into_any())
        })
    };
    view! {
        <div class="node-details" role="region" aria-label="Step details">
            <button type="button" class="close" on:click=move |_| on_close() aria-label="Close the details">"×"</button>
            {body}
        </div>
    }
}

#[component]
fn Record(record: NodeRecord) -> impl IntoView {
    let status = StepStatus::from(record.status).as_str();
    view! {
        <h3>{record.node().to_string().replace('_', " ")}</h3>
        <p class="muted">
            {format!(
                "attempt {} · {status} · started at {} ms · {} ms",
                record.attempt + 1,
                record.started_ms,
                record.duration_ms
            )}
        </p>
        {record.errors.into_iter().map(|e| view! { <ErrorLine error=e /> }).collect_view()}
        <h4>"Outputs"</h4>
        <pre class="json">{serde_json::to_string_pretty(&record.output).unwrap_or_default()}</pre>
        {record.llm_calls.into_iter().enumerate().map(|(i, c)| view! { <ModelCall call=c number=i + 1 /> }).collect_view()}
    }
}

#[component]
pub fn ErrorLine(error: PipelineError) -> impl IntoView {
    let code = error.error_code.as_str();
    let words = error
        .provider_response
        .map(|w| format!(" The provider said: {w}"));
    view! {
        <p class="error-line" data-code=code>
            <code>{code}</code>" "{error.message}{words}
        </p>
    }
}

#[component]
fn ModelCall(call: LlmCall, number: usize) -> impl IntoView {
    let n = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
    let summary = format!(
        "Model call {number}: {} · {} ms · {} in ({} cached) / {} out",
        call.model,
        call.latency_ms,
        n(call.usage.input),
        n(call.usage.cached),
        n(call.usage.output)
    );
    // A structured answer is JSON: shown parsed too, for reading.
    let parsed = call
        .response
        .as_deref()
        .and_then(|r| serde_json::from_str::<Json>(r).ok());
    view! {
        <details class="model-call">
            <summary>{summary}</summary>
            {call.error.map(|e| view! { <p class="error">{e}</p> })}
            <h5>"System prompt"</h5>
            <pre class="prompt">{call.system}</pre>
            {call.messages.into_iter().map(|m| view! {
                <h5>{format!("Message ({})", match m.role { Role::User => "user", Role::Assistant => "assistant" })}</h5>
                <pre class="prompt">{m.content}</pre>
            }).collect_view()}
            <h5>"Raw response"</h5>
            <pre class="prompt">{call.response.unwrap_or_else(|| "(none)".to_string())}</pre>
            {parsed.map(|p| view! { <h5>"Parsed"</h5><pre class="json">{pretty(&p)}</pre> })}
        </details>
    }
}

pub fn pretty(v: &Json) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
