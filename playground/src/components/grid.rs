//! Rows: a grid with bars in numeric columns, a CSV download, and the chart core chose for
//! the result's shape, with a switch between the chart and the table.

use super::chart::{draw, Drawn};
use crate::browser::download;
use leptos::prelude::*;
use nl2sql_core::chart::number_of;
use nl2sql_core::Value;

/// Rows the grid draws; the CSV always has them all.
const SHOWN: usize = 200;

#[component]
pub fn RowsView(
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
    /// How many rows exist (more than `rows` in a preview).
    total: usize,
    truncated: bool,
    /// The CSV file's name, without `.csv`.
    name: String,
) -> impl IntoView {
    let numeric: Vec<bool> = (0..columns.len())
        .map(|i| {
            !rows.is_empty()
                && rows.iter().all(|r| {
                    r.get(i)
                        .is_some_and(|v| number_of(v).is_some() || *v == Value::Null)
                })
                && rows.iter().any(|r| r.get(i).and_then(number_of).is_some())
        })
        .collect();
    let max: Vec<f64> = (0..columns.len())
        .map(|i| {
            rows.iter()
                .filter_map(|r| number_of(r.get(i)?))
                .fold(0.0_f64, |m, v| m.max(v.abs()))
        })
        .collect();
    let (chart, no_chart) = match draw(&columns, &rows) {
        Ok(drawn) => (Some(drawn), None),
        // Saying why there is no chart matters only where one might have been expected.
        Err(e) if rows.len() > 1 && !matches!(e, nl2sql_core::chart::NoChart::NoMeasure) => {
            (None, Some(format!("No chart: {}.", e.reason())))
        }
        Err(_) => (None, None),
    };
    let table = RwSignal::new(chart.is_none());
    let switch = chart.is_some().then(|| {
        view! {
            <div class="view-switch" role="group" aria-label="Show the rows as">
                <button type="button" aria-pressed=move || (!table.get()).to_string() on:click=move |_| table.set(false)>"Chart"</button>
                <button type="button" aria-pressed=move || table.get().to_string() on:click=move |_| table.set(true)>"Table"</button>
            </div>
        }
    });
    let chart = chart.map(
        |Drawn {
             kind,
             title,
             svg,
             legend,
         }| {
            view! {
                <figure class="chart" data-kind=kind hidden=move || table.get()>
                    <figcaption>{title.clone()}</figcaption>
                    <div class="chart-svg" role="img" aria-label=title inner_html=svg></div>
                    {(!legend.is_empty()).then(|| view! {
                        <ul class="legend">
                            {legend.into_iter().enumerate().map(|(k, name)| view! {
                                <li><span class=format!("swatch s{k}")></span>{name}</li>
                            }).collect_view()}
                        </ul>
                    })}
                </figure>
            }
        },
    );
    let csv = to_csv(&columns, &rows);
    let shown = rows.len().min(SHOWN);
    let note = if truncated {
        format!("{total} rows (cut at the row cap)")
    } else if shown < total {
        format!("showing {shown} of {total} rows")
    } else {
        format!("{total} rows")
    };
    let head = columns.clone();
    view! {
        <div class="rows">
            <div class="rows-bar">
                <span class="row-note" data-rows=total>{note}</span>
                {switch}
                {no_chart.map(|n| view! { <span class="no-chart">{n}</span> })}
                <button type="button" class="download-csv" on:click=move |_| { let _ = download(&format!("{name}.csv"), "text/csv", &csv); }>"Download CSV"</button>
            </div>
            {chart}
            <div class="grid-wrap" tabindex="0" role="region" aria-label="Rows" hidden=move || !table.get()>
                <table class="grid">
                    <thead><tr>{head.into_iter().map(|c| view! { <th scope="col">{c}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {rows.into_iter().take(SHOWN).map(|row| view! {
                            <tr>
                                {row.into_iter().enumerate().map(|(i, v)| {
                                    let is_num = numeric.get(i).copied().unwrap_or(false);
                                    let width = match (number_of(&v), max.get(i)) {
                                        (Some(x), Some(m)) if is_num && *m > 0.0 => format!("{:.1}%", x.abs() / m * 100.0),
                                        _ => String::new(),
                                    };
                                    view! {
                                        <td class:num=is_num>
                                            {is_num.then(|| view! { <span class="bar" style:width=width.clone()></span> })}
                                            <span class="cell">{cell_text(&v)}</span>
                                        </td>
                                    }
                                }).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </div>
    }
}

/// A cell as the grid shows it; a blob by its size (its bytes would be noise).
pub fn cell_text(v: &Value) -> String {
    match v {
        Value::Blob(bytes) => format!("<{} bytes>", bytes.len()),
        other => other.to_string(),
    }
}

fn to_csv(columns: &[String], rows: &[Vec<Value>]) -> String {
    let field = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = columns
        .iter()
        .map(|c| field(c))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .map(|v| {
                if *v == Value::Null {
                    String::new()
                } else {
                    field(&cell_text(v))
                }
            })
            .collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}
