//! The rows as a table (the first `shown`), numeric columns with a bar behind each value.

use super::csv::cell_text;
use leptos::prelude::*;
use nl2sql_core::chart::number_of;
use nl2sql_core::result::Value;

#[component]
pub fn Grid(
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
    shown: usize,
    hidden: Signal<bool>,
) -> impl IntoView {
    let numeric = numeric_columns(columns.len(), &rows);
    let max: Vec<f64> = (0..columns.len())
        .map(|i| {
            rows.iter()
                .filter_map(|r| number_of(r.get(i)?))
                .fold(0.0_f64, |m, v| m.max(v.abs()))
        })
        .collect();
    let cell = move |i: usize, v: Value| {
        let is_num = numeric.get(i).copied().unwrap_or(false);
        let width = match (number_of(&v), max.get(i)) {
            (Some(x), Some(m)) if is_num && *m > 0.0 => format!("{:.1}%", x.abs() / m * 100.0),
            _ => String::new(),
        };
        view! {
            <td class:num=is_num>
                {is_num.then(|| view! { <span class="bar" style:width=width></span> })}
                <span class="cell">{cell_text(&v)}</span>
            </td>
        }
    };
    view! {
        <div class="grid-wrap" tabindex="0" role="region" aria-label="Rows" hidden=hidden>
            <table class="grid">
                <thead><tr>{columns.into_iter().map(|c| view! { <th scope="col">{c}</th> }).collect_view()}</tr></thead>
                <tbody>
                    {rows.into_iter().take(shown).map(|row| view! {
                        <tr>{row.into_iter().enumerate().map(|(i, v)| cell(i, v)).collect_view()}</tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// Which columns hold numbers (or nothing) in every row, and a number in at least one.
fn numeric_columns(count: usize, rows: &[Vec<Value>]) -> Vec<bool> {
    (0..count)
        .map(|i| {
            !rows.is_empty()
                && rows.iter().all(|r| {
                    r.get(i)
                        .is_some_and(|v| number_of(v).is_some() || *v == Value::Null)
                })
                && rows.iter().any(|r| r.get(i).and_then(number_of).is_some())
        })
        .collect()
}
