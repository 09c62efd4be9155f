//! Two measures against each other, each axis from its least to its greatest value.

use super::frame::Frame;
use super::marks::Mark;
use super::text::{cell, compact, short, value_text, W};
use nl2sql_core::chart::{label_of, number_of};
use nl2sql_core::result::Value;

const HEIGHT: f64 = 240.0;

/// The marks of `x` against `y` (each point named by `label` when there is one), the
/// axes named `x_name` and `y_name`, and the drawing's height.
pub fn scatter(
    rows: &[Vec<Value>],
    (x, y, label): (usize, usize, Option<usize>),
    (x_name, y_name): (&str, &str),
) -> (Vec<Mark>, f64) {
    let xs: Vec<f64> = rows.iter().filter_map(|r| number_of(cell(r, x))).collect();
    let ys: Vec<f64> = rows.iter().filter_map(|r| number_of(cell(r, y))).collect();
    let (x_lo, x_hi) = range(&xs);
    let frame = Frame::new(HEIGHT, range(&ys), 40.0);
    let x_span = (x_hi - x_lo).max(f64::MIN_POSITIVE);
    let x_at = |v: f64| frame.left + (v - x_lo) / x_span * frame.width();
    let mut marks = frame.y_axis();
    for r in rows {
        let (Some(a), Some(b)) = (number_of(cell(r, x)), number_of(cell(r, y))) else {
            continue;
        };
        let name = label
            .map(|l| format!("{}: ", label_of(cell(r, l))))
            .unwrap_or_default();
        marks.push(Mark::Dot {
            at: (x_at(a), frame.y(b)),
            r: 3.0,
            class: "chart-dot s0".to_string(),
            title: format!(
                "{name}{x_name} {}, {y_name} {}",
                value_text(cell(r, x)),
                value_text(cell(r, y))
            ),
        });
    }
    let below = frame.bottom + 16.0;
    let text = |at, class, anchor, text| Mark::Text {
        at,
        class,
        anchor,
        text,
    };
    marks.extend([
        text((frame.left, below), "chart-label", None, compact(x_lo)),
        text((W - 4.0, below), "chart-label", Some("end"), compact(x_hi)),
        text(
            (frame.left + frame.width() / 2.0, frame.bottom + 32.0),
            "chart-axis-name",
            Some("middle"),
            short(x_name),
        ),
        text(
            (4.0, 10.0),
            "chart-axis-name",
            None,
            format!("↑ {}", short(y_name)),
        ),
    ]);
    (marks, HEIGHT)
}

/// From the least value to the greatest (0 to 1 when there are none).
fn range(v: &[f64]) -> (f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}
