//! One datasource's schema: its description, dialect, version and tables.

use super::table::TableItem;
use crate::engine::SourceInfo;
use crate::state::{Engines, RunState};
use leptos::prelude::*;

#[component]
pub fn SchemaOf(source: SourceInfo) -> impl IntoView {
    let engines = expect_context::<Engines>();
    let run = expect_context::<RunState>();
    let id = StoredValue::new(source.id.clone());
    // The tables of this datasource the current plan reads.
    let used = Memo::new(move |_| {
        let Some(result) = run.result.get() else {
            return Vec::new();
        };
        id.with_value(|id| {
            result
                .sub_queries
                .iter()
                .filter(|q| q.datasource_id == *id)
                .filter_map(|q| q.plan.as_ref())
                .flat_map(|p| p.table_names())
                .map(|t| t.to_string())
                .collect::<Vec<String>>()
        })
    });
    let readable = move |table: &str| {
        let role = engines.role.get();
        engines
            .current()
            .is_none_or(|e| id.with_value(|id| e.can_read(&role, id, table)))
    };
    let schema = source.schema;
    view! {
        <article class="schema" data-datasource=source.id>
            <p class="description">{source.description}</p>
            <p class="meta">{format!("{} · schema {}", schema.dialect, schema.version)}</p>
            <ul class="tables">
                {schema.tables.into_iter().map(|t| {
                    let name = StoredValue::new(t.name.clone());
                    let hidden = Signal::derive(move || !name.with_value(|n| readable(n)));
                    let used = Signal::derive(move || {
                        name.with_value(|n| used.with(|u| u.iter().any(|t| t.eq_ignore_ascii_case(n))))
                    });
                    view! { <TableItem table=t hidden=hidden used=used /> }
                }).collect_view()}
            </ul>
        </article>
    }
}
