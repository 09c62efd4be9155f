use crate::catalog::LoadedDatasource;
use leptos::prelude::*;
use nl2sql_core::{Column, Table};

/// A datasource's description and its tables, each expandable to its columns.
#[component]
pub fn SchemaPanel(datasource: LoadedDatasource) -> impl IntoView {
    let introspect_ms = datasource.introspect_ms;
    let body = match datasource.schema {
        Ok(schema) => view! {
            <p class="meta" data-introspect-ms=format!("{introspect_ms:.0}")>
                {format!(
                    "{} · schema {} · read in {introspect_ms:.0} ms",
                    schema.dialect, schema.version
                )}
            </p>
            <ul class="tables">
                {schema.tables.into_iter().map(|t| view! { <TableItem table=t /> }).collect_view()}
            </ul>
        }
        .into_any(),
        Err(message) => view! { <p class="error">{message}</p> }.into_any(),
    };
    view! {
        <article class="schema" data-datasource=datasource.demo.id>
            <h2>{datasource.demo.id}</h2>
            <p class="description">{datasource.demo.description}</p>
            {body}
        </article>
    }
}

/// One table: a summary line that opens to its columns (native `<details>`, so it works
/// with the keyboard and screen readers as is).
#[component]
fn TableItem(table: Table) -> impl IntoView {
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
        <li class="table" data-table=table.name.clone()>
            <details>
                <summary>
                    <span class="table-name">{table.name.clone()}</span>
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
