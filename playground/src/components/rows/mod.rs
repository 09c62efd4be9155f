//! Rows: the chart core chose for the result's shape (or why there is none), a switch
//! between it and the table, and a CSV download.

mod csv;
mod grid;

use super::chart::{draw, ChartFigure};
use crate::browser::download;
use grid::Grid;
use leptos::prelude::*;
use nl2sql_core::chart::NoChart;
use nl2sql_core::result::Value;

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
    let (chart, no_chart) = match draw(&columns, &rows) {
        Ok(drawn) => (Some(drawn), None),
        // Saying why there is no chart matters only where one might have been expected.
        Err(e) if rows.len() > 1 && !matches!(e, NoChart::NoMeasure) => {
            (None, Some(format!("No chart: {}.", e.reason())))
        }
        Err(_) => (None, None),
    };
    let (table, set_table) = signal(chart.is_none());
    let csv = csv::to_csv(&columns, &rows);
    let shown = rows.len().min(SHOWN);
    let note = if truncated {
        format!("{total} rows (cut at the row cap)")
    } else if shown < total {
        format!("showing {shown} of {total} rows")
    } else {
        format!("{total} rows")
    };
    view! {
        <div class="rows">
            <div class="rows-bar">
                <span class="row-note" data-rows=total>{note}</span>
                {chart.is_some().then(|| view! { <ViewSwitch table=table set_table=set_table /> })}
                {no_chart.map(|n| view! { <span class="no-chart">{n}</span> })}
                <button type="button" class="download-csv" on:click=move |_| { let _ = download(&format!("{name}.csv"), "text/csv", &csv); }>"Download CSV"</button>
            </div>
            {chart.map(|drawn| view! { <ChartFigure drawn=drawn hidden=table /> })}
            <Grid columns=columns rows=rows shown=SHOWN hidden=Signal::derive(move || !table.get()) />
        </div>
    }
}

/// Chart or table, as toggle buttons.
#[component]
fn ViewSwitch(table: ReadSignal<bool>, set_table: WriteSignal<bool>) -> impl IntoView {
    view! {
        <div class="view-switch" role="group" aria-label="Show the rows as">
            <button type="button" aria-pressed=move || (!table.get()).to_string() on:click=move |_| set_table.set(false)>"Chart"</button>
            <button type="button" aria-pressed=move || table.get().to_string() on:click=move |_| set_table.set(true)>"Table"</button>
        </div>
    }
}
