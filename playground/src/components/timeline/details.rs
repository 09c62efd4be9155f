//! Everything the trace holds about one node execution: its record, and for the router
//! and the retriever their tables.

use super::model_call::{ErrorLine, ModelCall};
use crate::components::{RetrievalTables, RoutingTables};
use crate::run::StepStatus;
use crate::state::RunState;
use leptos::prelude::*;
use nl2sql_core::error::Node;
use nl2sql_core::result::NodeRecord;

#[component]
pub fn NodeDetails(index: usize, on_close: impl Fn() + 'static + Copy) -> impl IntoView {
    let run = expect_context::<RunState>();
    let body = move || {
        let step = run.view.with(|r| r.steps.get(index).cloned())?;
        let Some(result) = run.result.get() else {
            return Some(
                view! { <p class="muted">"The details appear when the run ends."</p> }.into_any(),
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
