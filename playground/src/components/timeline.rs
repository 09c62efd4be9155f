//! The timeline: one entry per node execution, live while the run goes; a click opens the
//! node's inputs, outputs, errors and every model call.

use super::{RetrievalTables, RoutingTables};
use crate::run::Step;
use crate::state::AppState;
use leptos::prelude::*;
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
            <ol class="steps">
                {move || steps().into_iter().enumerate().map(|(i, step)| view! { <StepItem step=step index=i open=open /> }).collect_view()}
            </ol>
            {move || open.get().map(|i| view! { <NodeDetails index=i on_close=move || open.set(None) /> })}
        </section>
    }
}

#[component]
fn StepItem(step: Step, index: usize, open: RwSignal<Option<usize>>) -> impl IntoView {
    let status = step.status.as_str();
    let mut label = step.node.replace('_', " ");
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
        <li class="step" data-node=step.node.clone() data-status=status data-attempt=step.attempt>
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
            let Some(record) = step
                .trace_index
                .and_then(|i| result["trace"].get(i))
                .cloned()
            else {
                return Some(view! { <p class="muted">"This step did not run."</p> }.into_any());
            };
            let special = match step.node.as_str() {
                "datasource_resolver" => result["routing"].is_object().then(|| {
                    view! { <RoutingTables routing=result["routing"].clone() /> }.into_any()
                }),
                "schema_retriever" => result["retrieval"].is_object().then(|| {
                    view! { <RetrievalTables retrieval=result["retrieval"].clone() /> }.into_any()
                }),
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
fn Record(record: Json) -> impl IntoView {
    let errors = record["errors"].as_array().cloned().unwrap_or_default();
    let calls = record["llm_calls"].as_array().cloned().unwrap_or_default();
    view! {
        <h3>{record["node"].as_str().unwrap_or("?").replace('_', " ")}</h3>
        <p class="muted">
            {format!(
                "attempt {} · {} · started at {} ms · {} ms",
                record["attempt"].as_u64().unwrap_or(0) + 1,
                record["status"].as_str().unwrap_or("?"),
                record["started_ms"].as_u64().unwrap_or(0),
                record["duration_ms"].as_u64().unwrap_or(0)
            )}
        </p>
        {errors.into_iter().map(|e| view! { <ErrorLine error=e /> }).collect_view()}
        <h4>"Outputs"</h4>
        <pre class="json">{pretty(&record["outputs"])}</pre>
        {calls.into_iter().enumerate().map(|(i, c)| view! { <ModelCall call=c number=i + 1 /> }).collect_view()}
    }
}

#[component]
pub fn ErrorLine(error: Json) -> impl IntoView {
    let code = error["error_code"]
        .as_str()
        .or(error["code"].as_str())
        .unwrap_or_default()
        .to_string();
    let code_attr = code.clone();
    let words = error["provider_response"]
        .as_str()
        .map(|w| format!(" The provider said: {w}"));
    view! {
        <p class="error-line" data-code=code_attr>
            <code>{code}</code>" "{error["message"].as_str().unwrap_or_default().to_string()}{words}
        </p>
    }
}

#[component]
fn ModelCall(call: Json, number: usize) -> impl IntoView {
    let usage = &call["usage"];
    let n = |k: &str| usage[k].as_u64().map_or("?".to_string(), |v| v.to_string());
    let summary = format!(
        "Model call {number}: {} · {} ms · {} in ({} cached) / {} out",
        call["model"].as_str().unwrap_or("?"),
        call["latency_ms"].as_u64().unwrap_or(0),
        n("input"),
        n("cached"),
        n("output")
    );
    let messages = call["messages"].as_array().cloned().unwrap_or_default();
    let parsed = call["response"]
        .as_str()
        .and_then(|r| serde_json::from_str::<Json>(r).ok());
    view! {
        <details class="model-call">
            <summary>{summary}</summary>
            {call["error"].as_str().map(|e| view! { <p class="error">{e.to_string()}</p> })}
            <h5>"System prompt"</h5>
            <pre class="prompt">{call["system"].as_str().unwrap_or_default().to_string()}</pre>
            {messages.into_iter().map(|m| view! {
                <h5>{format!("Message ({})", m["role"].as_str().unwrap_or("?"))}</h5>
                <pre class="prompt">{m["content"].as_str().unwrap_or_default().to_string()}</pre>
            }).collect_view()}
            <h5>"Raw response"</h5>
            <pre class="prompt">{call["response"].as_str().unwrap_or("(none)").to_string()}</pre>
            {parsed.map(|p| view! { <h5>"Parsed"</h5><pre class="json">{pretty(&p)}</pre> })}
        </details>
    }
}

pub fn pretty(v: &Json) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
