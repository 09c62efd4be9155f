//! One column: its type, key, and what its values look like.

use leptos::prelude::*;
use nl2sql_core::result::Column;

#[component]
pub fn ColumnRow(column: Column, key: String) -> impl IntoView {
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
    let distinct = format!("{} distinct", stats.distinct_count);
    let category = format!("{:?}", column.category).to_lowercase();
    view! {
        <tr>
            <th scope="row">{column.name}</th>
            <td>
                <code>{column.declared_type}</code>
                " "
                <span class="category">{category}</span>
                {(!column.nullable).then(|| view! { " " <span class="not-null">"not null"</span> })}
            </td>
            <td class="key">{key}</td>
            <td class="values">
                <span class="distinct">{distinct}</span>
                {nulls.map(|n| view! { " · " <span>{n}</span> })}
                <div class="samples">{values}</div>
            </td>
        </tr>
    }
}
