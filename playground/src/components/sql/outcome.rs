//! What SQL mode gave: the checks and problems, the plan, the SQL as rendered, the rows.

use crate::components::{Checks, PlanText, Problems, RowsView, SqlBlock};
use leptos::prelude::*;
use nl2sql_core::result::{SqlRun, SqlStatus};

#[component]
pub fn SqlOutcome(outcome: SqlRun) -> impl IntoView {
    let ok = outcome.status == SqlStatus::Ok;
    view! {
        <section class="panels sql-outcome" data-ok=ok.to_string()>
            <Problems errors=outcome.errors warnings=outcome.warnings />
            {outcome.plan.map(|p| view! { <PlanText plan=p.to_string() /> })}
            <Checks checks=outcome.checks />
            {outcome.sql.map(|s| view! { <SqlBlock sql=s /> })}
            {ok.then(|| view! {
                <RowsView
                    total=outcome.rows.len()
                    columns=outcome.columns
                    rows=outcome.rows
                    truncated=outcome.truncated
                    name="sql".to_string() />
            })}
        </section>
    }
}
