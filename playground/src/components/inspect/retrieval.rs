//! What retrieval would send the planner.

use leptos::prelude::*;
use nl2sql_core::result::Retrieval;

#[component]
pub fn RetrievalTables(retrieval: Retrieval) -> impl IntoView {
    let Retrieval {
        datasource,
        tables,
        columns,
        values,
        full_snapshot,
        notes,
    } = retrieval;
    view! {
        <div class="retrieval" data-datasource=datasource.clone()>
            <h4>{format!("Retrieval from {datasource}")}</h4>
            <p>{if full_snapshot { "The whole readable schema is sent." } else { "Searched:" }}</p>
            <p class="retrieved-tables">"Tables: " {tables.join(", ")}</p>
            <p class="retrieved-columns">"Columns: " {columns.join(", ")}</p>
            {(!values.is_empty()).then(|| view! {
                <table class="grid">
                    <thead><tr><th>"Words"</th><th>"Value"</th><th>"Match"</th><th>"Score"</th></tr></thead>
                    <tbody>{values.into_iter().map(|v| view! {
                        <tr>
                            <td>{v.span}</td>
                            <td>{format!("{}.{} = '{}'", v.table, v.column, v.value)}</td>
                            <td>{v.matched.as_str()}</td>
                            <td class="num">{format!("{:.2}", v.score)}</td>
                        </tr>
                    }).collect_view()}</tbody>
                </table>
            })}
            {(!notes.is_empty()).then(|| view! {
                <ul class="retrieved-notes">
                    {notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                </ul>
            })}
        </div>
    }
}
