use crate::state::{AppState, SourceInfo};
use leptos::prelude::*;
use nl2sql_core::{Column, Table};

/// The schema of one datasource (chosen here): tables, columns, types, keys and sample
/// values; tables the current plan uses are marked, tables the role may not read are
/// shown as hidden.
#[component]
pub fn SchemaPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let current = move || {
        let id = state.schema_of.get();
        state
            .sources
            .with(|all| all.iter().find(|s| s.id == id).or(all.first()).cloned())
    };
    view! {
        <section class="schema-panel" aria-label="Schema">
            <h2>"Schema"</h2>
            <div class="switcher" role="group" aria-label="Datasources">
                {move || state.sources.get().into_iter().map(|s| {
                    let id = s.id.clone();
                    let id2 = id.clone();
                    let summary = format!(
                        "{} tables · {} rows",
                        s.schema.tables.len(),
                        s.schema.tables.iter().map(|t| t.row_count).sum::<u64>()
                    );
                    view! {
                        <button type="button" class="datasource" data-id=id.clone()
                            aria-pressed=move || (current().map(|c| c.id) == Some(id2.clone())).to_string()
                            on:click=move |_| state.schema_of.set(id.clone())>
                            <span class="name">{s.id.clone()}</span>
                            <span class="summary">{summary}</span>
                        </button>
                    }
                }).collect_view()}
            </div>
            {move || current().map(|d| view! { <SchemaOf source=d /> })}
        </section>
    }
}

#[component]
fn SchemaOf(source: SourceInfo) -> impl IntoView {
    let state = expect_context::<AppState>();
    let id = source.id.clone();
    let readable = {
        let id = id.clone();
        move |table: &str| {
            let role = state.role.get();
            state
                .session()
                .is_none_or(|s| s.workspace().policies().scope(&[role]).can_read(&id, table))
        }
    };
    let used = {
        let id = id.clone();
        move |table: &str| {
            state.run.with(|r| {
                r.result.as_ref().is_some_and(|res| {
                    res.sub_queries.iter().any(|q| {
                        q.datasource_id == id
                            && q.plan.as_ref().is_some_and(|p| {
                                p.table_names()
                                    .iter()
                                    .any(|t| t.eq_ignore_ascii_case(table))
                            })
                    })
                })
            })
        }
    };
    let schema = source.schema;
    view! {
        <article class="schema" data-datasource=id.clone()>
            <p class="description">{source.description}</p>
            <p class="meta">{format!("{} · schema {}", schema.dialect, schema.version)}</p>
            <ul class="tables">
                {schema.tables.into_iter().map(|t| {
                    let name = t.name.clone();
                    let n2 = name.clone();
                    let readable = readable.clone();
                    let used = used.clone();
                    view! { <TableItem table=t hidden=Signal::derive(move || !readable(&name)) used=Signal::derive(move || used(&n2)) /> }
                }).collect_view()}
            </ul>
        </article>
    }
}

/// One table: a summary line that opens to its columns (native `<details>`, so it works
/// with the keyboard and screen readers as is).
#[component]
fn TableItem(table: Table, hidden: Signal<bool>, used: Signal<bool>) -> impl IntoView {
    let pk: Vec<String> = table.primary_key().into_iter().map(String::from).collect();
    let references = move |column: &str| {
        table
            .foreign_keys
            .iter()
            .find(|fk| fk.columns.iter().any(|c| c == column))
            .map(|fk| {
                let i = fk.columns.iter().position(|c| c == column).unwrap_or(0);
                let target = fk.referenced_columns.get(i).cloned().unwrap_or_default();
                format!("→ {}.{}", fk.referenced_table, target)
            })
    };
    let rows: Vec<_> = table
        .columns
        .iter()
        .map(|c| {
            let key = key_label(c, pk.len(), references(&c.name));
            view! { <ColumnRow column=c.clone() key=key /> }
        })
        .collect();
    view! {
        <li class="table" data-table=table.name.clone() data-hidden=move || hidden.get().to_string() data-used=move || used.get().to_string()>
            <details>
                <summary>
                    <span class="table-name">{table.name.clone()}</span>
                    {move || hidden.get().then(|| view! { <span class="badge hidden-badge" title="The chosen role may not read this table">"hidden"</span> })}
                    {move || used.get().then(|| view! { <span class="badge used-badge" title="The current plan reads this table">"used"</span> })}
                    <span class="row-count" data-rows=table.row_count>{format!("{} rows", table.row_count)}</span>
                </summary>
                <table class="columns">
                    <thead>
                        <tr><th>"Column"</th><th>"Type"</th><th>"Key"</th><th>"Values"</th></tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        </li>
    }
}

fn key_label(c: &Column, pk_len: usize, reference: Option<String>) -> String {
    let pk = c.primary_key_position.map(|p| {
        if pk_len > 1 {
            format!("PK ({p} of {pk_len})")
        } else {
            "PK".to_string()
        }
    });
    [pk, reference]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
}

#[component]
fn ColumnRow(column: Column, key: String) -> impl IntoView {
    let stats = &column.stats;
    let values = if !stats.sample_values.is_empty() {
        stats.sample_values.join(", ")
    } else if let (Some(min), Some(max)) = (&stats.min, &stats.max) {
        format!("{min} … {max}")
    } else {
        String::new()
    };
    let nulls =
        (stats.null_fraction > 0.0).then(|| format!("{:.0}% empty", stats.null_fraction * 100.0));
    let category = format!("{:?}", column.category).to_lowercase();
    view! {
        <tr>
            <th scope="row">{column.name.clone()}</th>
            <td>
                <code>{column.declared_type.clone()}</code>
                " "
                <span class="category">{category}</span>
                {(!column.nullable).then(|| view! { " " <span class="not-null">"not null"</span> })}
            </td>
            <td class="key">{key}</td>
            <td class="values">
                <span class="distinct">{format!("{} distinct", stats.distinct_count)}</span>
                {nulls.map(|n| view! { " · " <span>{n}</span> })}
                <div class="samples">{values}</div>
            </td>
        </tr>
    }
}
