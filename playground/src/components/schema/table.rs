//! One table: a summary line that opens to its columns (native `<details>`, so it works
//! with the keyboard and screen readers as is).

use super::column::ColumnRow;
use leptos::prelude::*;
use nl2sql_core::result::{Column, Table};

#[component]
pub fn TableItem(table: Table, hidden: Signal<bool>, used: Signal<bool>) -> impl IntoView {
    let pk_len = table.primary_key().len();
    let references = |column: &str| {
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
            let key = key_label(c, pk_len, references(&c.name));
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

/// A column's key: its place in the primary key, and what it references.
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
