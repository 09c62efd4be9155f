//! Horizontal bars from zero, each group under its name, values written past the bar's
//! end within the view box (a value is never cut at the edge).

use super::marks::Mark;
use super::text::{short, value_text, CHAR, W};
use nl2sql_core::chart::number_of;
use nl2sql_core::result::Value;

/// Bars under a group's name (none for a plain bar chart): each bar's label and value.
pub type Group<'a> = (Option<String>, Vec<(String, &'a Value)>);

/// The marks of `groups` (`series`: the legend's names, none for a plain bar chart) and
/// the drawing's height.
pub fn bars(groups: &[Group], series: &[String]) -> (Vec<Mark>, f64) {
    let all = || groups.iter().flat_map(|(_, bars)| bars.iter());
    let grouped = !series.is_empty();
    let widest = |f: &dyn Fn(&(String, &Value)) -> usize| all().map(f).max().unwrap_or(1) as f64;
    let label_w = if grouped {
        0.0
    } else {
        (widest(&|(l, _)| short(l).chars().count()) * CHAR + 8.0).clamp(32.0, 150.0)
    };
    let value_w = widest(&|(_, v)| value_text(v).chars().count()) * CHAR + 8.0;
    let (lo, hi) = all()
        .filter_map(|(_, v)| number_of(v))
        .fold((0.0_f64, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let area = (W - label_w - value_w).max(60.0);
    let zero = label_w + area * (-lo / span);
    let (bar_h, gap, group_gap) = if grouped {
        (12.0, 2.0, 22.0)
    } else {
        (14.0, 6.0, 0.0)
    };
    let mut marks = Vec::new();
    let mut y = 4.0;
    for (name, bars) in groups {
        if let Some(name) = name {
            y += group_gap;
            marks.push(Mark::text((1.0, y - 6.0), "chart-group", short(name)));
        }
        for (label, value) in bars {
            let v = number_of(value).unwrap_or(0.0);
            let (x, w) = if v < 0.0 {
                (zero - area * (-v / span), area * (-v / span))
            } else {
                (zero, area * (v / span))
            };
            let colour = series.iter().position(|s| s == label).unwrap_or(0);
            let shown = value_text(value);
            let base = y + bar_h - 3.0;
            if !grouped {
                marks.push(Mark::text((1.0, base), "chart-label", short(label)));
            }
            marks.push(Mark::Bar {
                at: (x, y),
                size: (w.max(0.5), bar_h),
                class: format!("chart-bar s{colour}"),
                title: format!("{label}: {shown}"),
            });
            marks.push(Mark::text(
                (zero.max(x + w) + 4.0, base),
                "chart-value",
                shown,
            ));
            y += bar_h + gap;
        }
    }
    marks.push(Mark::Rule {
        from: (zero, 0.0),
        to: (zero, y),
        class: "chart-axis",
    });
    (marks, y + 4.0)
}
