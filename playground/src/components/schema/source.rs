//! One datasource's schema: its description, dialect, version and tables; where it reads
//! several schemas, its tables grouped by schema (the connection's own first).

use super::table::TableItem;
use crate::engine::SourceInfo;
use crate::state::{Engines, RunState};
use leptos::prelude::*;
use nl2sql_core::result::Table;

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
    let meta = format!("{} · schema {}", schema.dialect, schema.version);
    let items = move |tables: Vec<Table>| {
        tables
            .into_iter()
            .map(|t| {
                let name = StoredValue::new(t.name.clone());
                let hidden = Signal::derive(move || !name.with_value(|n| readable(n)));
                let used = Signal::derive(move || {
                    name.with_value(|n| used.with(|u| u.iter().any(|t| t.eq_ignore_ascii_case(n))))
                });
                view! { <TableItem table=t hidden=hidden used=used /> }
            })
            .collect_view()
    };
    let mut groups = by_schema(schema.tables);
    let tables = if groups.len() < 2 {
        let tables = groups.pop().map(|(_, tables)| tables).unwrap_or_default();
        view! { <ul class="tables">{items(tables)}</ul> }.into_any()
    } else {
        let own = schema
            .schema
            .unwrap_or_else(|| "(the connection's own)".into());
        view! {
            <ul class="schemas">
                {groups.into_iter().map(|(name, tables)| {
                    let count = match tables.len() {
                        1 => "1 table".to_string(),
                        n => format!("{n} tables"),
                    };
                    let (name, hint) = match name {
                        Some(name) => (name, count),
                        None => (own.clone(), format!("{count} · bare names")),
                    };
                    let schema = name.clone();
                    view! {
                        <li class="schema-group" data-schema=schema>
                            <details open>
                                <summary>
                                    <span class="schema-name">{name}</span>
                                    <span class="summary">{hint}</span>
                                </summary>
                                <ul class="tables">{items(tables)}</ul>
                            </details>
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
        .into_any()
    };
    view! {
        <article class="schema" data-datasource=source.id>
            <p class="description">{source.description}</p>
            <p class="meta">{meta}</p>
            {tables}
        </article>
    }
}

/// `tables` grouped by their schema, in their order within each: the connection's own
/// schema (`None`) first, then the others by name.
fn by_schema(tables: Vec<Table>) -> Vec<(Option<String>, Vec<Table>)> {
    let mut groups: Vec<(Option<String>, Vec<Table>)> = Vec::new();
    for table in tables {
        match groups
            .iter_mut()
            .find(|(schema, _)| *schema == table.schema)
        {
            Some((_, group)) => group.push(table),
            None => groups.push((table.schema.clone(), vec![table])),
        }
    }
    // `None` orders first.
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    groups
}
