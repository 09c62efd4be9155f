//! Lines over time labels in their order (ISO dates sort as text), one per series.

use super::frame::Frame;
use super::marks::Mark;
use super::text::{cell, short, value_text};
use nl2sql_core::chart::{label_of, number_of};
use nl2sql_core::result::Value;

const HEIGHT: f64 = 200.0;

/// The marks of a measure over time (`names`: the series, none for one line) and the
/// drawing's height.
pub fn line(
    rows: &[Vec<Value>],
    (time, value, series): (usize, usize, Option<usize>),
    names: &[String],
) -> (Vec<Mark>, f64) {
    let mut times: Vec<String> = rows.iter().map(|r| label_of(cell(r, time))).collect();
    times.sort();
    times.dedup();
    let values: Vec<f64> = rows
        .iter()
        .filter_map(|r| number_of(cell(r, value)))
        .collect();
    let lo = values.iter().copied().fold(0.0_f64, f64::min);
    let hi = values.iter().copied().fold(lo, f64::max);
    let frame = Frame::new(HEIGHT, (lo, hi), 28.0);
    let step = frame.width() / (times.len().saturating_sub(1)).max(1) as f64;
    let x_of = |t: &str| frame.left + times.iter().position(|x| x == t).unwrap_or(0) as f64 * step;
    let mut marks = frame.y_axis();
    let lines: Vec<Option<&String>> = if names.is_empty() {
        vec![None]
    } else {
        names.iter().map(Some).collect()
    };
    for (k, line) in lines.into_iter().enumerate() {
        let mut points: Vec<(f64, f64, String, String)> = rows
            .iter()
            .filter(|r| match (line, series) {
                (Some(name), Some(s)) => label_of(cell(r, s)) == *name,
                _ => true,
            })
            .filter_map(|r| {
                let t = label_of(cell(r, time));
                let v = number_of(cell(r, value))?;
                Some((x_of(&t), frame.y(v), t, value_text(cell(r, value))))
            })
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let path: Vec<String> = points
            .iter()
            .map(|(x, y, _, _)| format!("{x:.1},{y:.1}"))
            .collect();
        marks.push(Mark::Line {
            points: path.join(" "),
            class: format!("chart-line s{k}"),
        });
        let named = line.map(|n| format!("{n} · ")).unwrap_or_default();
        marks.extend(points.into_iter().map(|(x, y, t, shown)| Mark::Dot {
            at: (x, y),
            r: 2.5,
            class: format!("chart-dot s{k}"),
            title: format!("{named}{t}: {shown}"),
        }));
    }
    // First, middle and last time: more would overlap at 390 px.
    let mut shown: Vec<usize> = vec![0, times.len() / 2, times.len().saturating_sub(1)];
    shown.dedup();
    for i in shown {
        if let Some(t) = times.get(i) {
            let anchor = if i == 0 {
                "start"
            } else if i + 1 == times.len() {
                "end"
            } else {
                "middle"
            };
            marks.push(Mark::Text {
                at: (frame.left + i as f64 * step, frame.bottom + 16.0),
                class: "chart-label",
                anchor: Some(anchor),
                text: short(t),
            });
        }
    }
    (marks, HEIGHT)
}
