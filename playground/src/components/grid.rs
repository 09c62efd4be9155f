//! Rows: a grid with bars in numeric columns, a CSV download, and a chart when the
//! result's shape suits one (labels and one number: bars; a time axis: a line).

use crate::browser::download;
use leptos::prelude::*;
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
                        .is_some_and(|v| number(v).is_some() || *v == Value::Null)
                })
                && rows.iter().any(|r| r.get(i).and_then(number).is_some())
        })
        .collect();
    let max: Vec<f64> = (0..columns.len())
        .map(|i| {
            rows.iter()
                .filter_map(|r| number(r.get(i)?))
                .fold(0.0_f64, |m, v| m.max(v.abs()))
        })
        .collect();
    let chart = chart_of(&columns, &rows, &numeric);
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
                <button type="button" class="download-csv" on:click=move |_| { let _ = download(&format!("{name}.csv"), "text/csv", &csv); }>"Download CSV"</button>
            </div>
            {chart}
            <div class="grid-wrap" tabindex="0">
                <table class="grid">
                    <thead><tr>{head.into_iter().map(|c| view! { <th scope="col">{c}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {rows.into_iter().take(SHOWN).map(|row| view! {
                            <tr>
                                {row.into_iter().enumerate().map(|(i, v)| {
                                    let is_num = numeric.get(i).copied().unwrap_or(false);
                                    let width = match (number(&v), max.get(i)) {
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

/// A number cell's value, for bars and charts.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        _ => None,
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

/// A label column and the last numeric column, 2 to 40 rows: a chart. Years or dates as
/// labels make it a line, anything else bars.
fn chart_of(columns: &[String], rows: &[Vec<Value>], numeric: &[bool]) -> Option<AnyView> {
    if columns.len() < 2 || rows.len() < 2 || rows.len() > 40 {
        return None;
    }
    let value = numeric.iter().rposition(|n| *n)?;
    let label = (0..columns.len()).find(|i| *i != value)?;
    let points: Vec<Point> = rows
        .iter()
        .map(|r| Point {
            label: cell_text(&r[label]),
            at: number(&r[value]).unwrap_or(0.0),
            shown: value_text(&r[value]),
        })
        .collect();
    let timeish = points.iter().all(|p| looks_like_time(&p.label));
    let title = format!("{} by {}", columns[value], columns[label]);
    Some(if timeish {
        line_chart(&title, &points)
    } else {
        bar_chart(&title, &points)
    })
}

/// One point of a chart: where it is drawn (a double is close enough to draw with) and
/// the value it shows, exactly (an integer beyond 2^53 is never shown rounded).
struct Point {
    label: String,
    at: f64,
    shown: String,
}

fn looks_like_time(label: &str) -> bool {
    let b = label.as_bytes();
    b.len() >= 4 && b[..4].iter().all(u8::is_ascii_digit) && (b.len() == 4 || b[4] == b'-')
}

fn bar_chart(title: &str, points: &[Point]) -> AnyView {
    let max = points
        .iter()
        .map(|p| p.at.abs())
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let row_h = 22.0;
    let height = row_h * points.len() as f64 + 10.0;
    view! {
        <figure class="chart" data-kind="bar">
            <figcaption>{title.to_string()}</figcaption>
            <svg viewBox=format!("0 0 600 {height}") role="img" aria-label=title.to_string()>
                {points.iter().enumerate().map(|(i, p)| {
                    let y = i as f64 * row_h + 4.0;
                    let w = (p.at.abs() / max) * 380.0;
                    view! {
                        <g>
                            <text x="0" y=y + 14.0 class="chart-label">{truncate(&p.label, 26)}</text>
                            <rect x="200" y=y width=w height=row_h - 6.0 class="chart-bar"></rect>
                            <text x=205.0 + w y=y + 14.0 class="chart-value">{p.shown.clone()}</text>
                        </g>
                    }
                }).collect_view()}
            </svg>
        </figure>
    }
    .into_any()
}

fn line_chart(title: &str, points: &[Point]) -> AnyView {
    let max = points.iter().map(|p| p.at).fold(f64::MIN, f64::max);
    let min = points
        .iter()
        .map(|p| p.at)
        .fold(f64::MAX, f64::min)
        .min(0.0);
    let span = (max - min).max(f64::MIN_POSITIVE);
    let step = 560.0 / (points.len().saturating_sub(1)).max(1) as f64;
    let at = |i: usize, v: f64| (20.0 + i as f64 * step, 180.0 - (v - min) / span * 160.0);
    let path: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (x, y) = at(i, p.at);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    view! {
        <figure class="chart" data-kind="line">
            <figcaption>{title.to_string()}</figcaption>
            <svg viewBox="0 0 600 210" role="img" aria-label=title.to_string()>
                <polyline points=path.join(" ") class="chart-line" fill="none"></polyline>
                {points.iter().enumerate().map(|(i, p)| {
                    let (x, y) = at(i, p.at);
                    view! {
                        <g>
                            <circle cx=x cy=y r="3" class="chart-dot"><title>{format!("{}: {}", p.label, p.shown)}</title></circle>
                            <text x=x y="204" class="chart-label" text-anchor="middle">{truncate(&p.label, 10)}</text>
                        </g>
                    }
                }).collect_view()}
            </svg>
        </figure>
    }
    .into_any()
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let cut: String = s.chars().take(n - 1).collect();
        format!("{cut}…")
    }
}

/// A chart's value label: an integer exactly, a real to two places (whole ones without).
fn value_text(v: &Value) -> String {
    match v {
        Value::Integer(i) => i.to_string(),
        Value::Real(r) if r.fract() == 0.0 && r.abs() < 1e15 => format!("{r:.0}"),
        Value::Real(r) => format!("{r:.2}"),
        other => cell_text(other),
    }
}
