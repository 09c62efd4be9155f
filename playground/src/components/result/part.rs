//! One sub-query of a result: where it ran, its plan, checks, SQL and rows.

use super::{Checks, PlanText, SqlBlock};
use crate::components::RowsView;
use leptos::prelude::*;
use nl2sql_core::result::{PlanSource, SubQuery};

#[component]
pub fn Part(query: SubQuery, several: bool) -> impl IntoView {
    let SubQuery {
        id,
        datasource_id: ds,
        plan,
        sql,
        validation,
        columns,
        rows,
        truncated,
        retry_count: retries,
        plan_source,
    } = query;
    let title = if several {
        format!("{id} · {ds}")
    } else {
        format!("From {ds}")
    };
    let name = format!("{ds}-{id}");
    let has_rows = !columns.is_empty();
    view! {
        <article class="part" data-sub-query=id data-datasource=ds>
            <h3>{title}
                {(retries > 0).then(|| view! { <span class="retries">{format!(" · {retries} retries")}</span> })}
                {(plan_source == PlanSource::Cache).then(|| view! { <span class="plan-source" data-plan-source="cache">" · plan from the cache (planner skipped)"</span> })}
            </h3>
            {plan.map(|p| view! { <PlanText plan=p.to_string() /> })}
            <Checks checks=validation />
            {sql.map(|s| view! { <SqlBlock sql=s /> })}
            {has_rows.then(|| view! {
                <RowsView total=rows.len() columns=columns rows=rows truncated=truncated name=name />
            })}
        </article>
    }
}
