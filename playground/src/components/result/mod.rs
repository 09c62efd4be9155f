//! What a run produced, part by part: the plan in readable form, the checks, the SQL, the
//! rows, and every error and warning with its code; the rows as soon as they exist.

mod checks;
mod part;
mod sql_block;

pub use checks::{Checks, PlanText, Problems};
pub use sql_block::SqlBlock;

use super::RowsView;
use crate::browser::download;
use crate::state::RunState;
use leptos::prelude::*;
use nl2sql_core::result::QueryResult;
use part::Part;
use std::sync::Arc;

#[component]
pub fn ResultPanels() -> impl IntoView {
    let run = expect_context::<RunState>();
    let preview = Memo::new(move |_| run.view.with(|r| r.preview.clone()));
    move || {
        if let Some(result) = run.result.get() {
            return Some(view! { <Finished result=result /> }.into_any());
        }
        let p = preview.get()?;
        Some(view! {
            <section class="panels">
                {p.sql.map(|sql| view! { <SqlBlock sql=sql /> })}
                <RowsView columns=p.columns rows=p.rows total=p.row_count truncated=false name="preview".to_string() />
            </section>
        }.into_any())
    }
}

#[component]
fn Finished(result: Arc<QueryResult>) -> impl IntoView {
    let several = result.sub_queries.len() > 1;
    let trace = serde_json::to_string_pretty(result.as_ref()).unwrap_or_default();
    view! {
        <section class="panels">
            <div class="panel-actions">
                <button type="button" id="download-trace" on:click=move |_| { let _ = download("nl2sql-trace.json", "application/json", &trace); }>
                    "Download trace (JSON)"
                </button>
            </div>
            <Problems errors=result.errors.clone() warnings=result.warnings.clone() />
            {result.combined.clone().map(|combined| view! {
                <article class="part combined">
                    <h3>"Combined result"</h3>
                    <SqlBlock sql=combined.sql />
                    <RowsView
                        total=combined.rows.len()
                        columns=combined.columns
                        rows=combined.rows
                        truncated=combined.truncated
                        name="combined".to_string() />
                </article>
            })}
            {result.sub_queries.iter().cloned().map(|q| view! { <Part query=q several=several /> }).collect_view()}
        </section>
    }
}
