//! From a result to a drawn chart: the chart core chose, its title, its marks and legend.

use super::bars::{bars, Group};
use super::line::line;
use super::marks::Mark;
use super::scatter::scatter;
use super::text::cell;
use nl2sql_core::chart::{label_of, Chart, NoChart};
use nl2sql_core::result::Value;

/// A drawn chart: its kind (`data-kind`), caption, height, marks and the series' names.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub kind: &'static str,
    pub title: String,
    pub height: f64,
    pub marks: Vec<Mark>,
    pub legend: Vec<String>,
}

/// The chart for a result, or why there is none.
pub fn draw(columns: &[String], rows: &[Vec<Value>]) -> Result<Drawn, NoChart> {
    let chart = nl2sql_core::chart::choose(columns, rows)?;
    let name = |i: usize| columns.get(i).cloned().unwrap_or_default();
    let drawn = |kind, title, (marks, height), legend| Drawn {
        kind,
        title,
        height,
        marks,
        legend,
    };
    Ok(match chart {
        Chart::Bar { label, value } => {
            let plain: Vec<(String, &Value)> = rows
                .iter()
                .map(|r| (label_of(cell(r, label)), cell(r, value)))
                .collect();
            let title = format!("{} by {}", name(value), name(label));
            drawn("bar", title, bars(&[(None, plain)], &[]), Vec::new())
        }
        Chart::GroupedBar {
            group,
            series,
            value,
        } => {
            let names = distinct_labels(rows, series);
            let groups = grouped(rows, (group, series, value), &names);
            let title = format!("{} by {} and {}", name(value), name(group), name(series));
            drawn("grouped-bar", title, bars(&groups, &names), names)
        }
        Chart::Line {
            time,
            value,
            series,
        } => {
            let names = series.map(|s| distinct_labels(rows, s)).unwrap_or_default();
            let title = format!("{} over {}", name(value), name(time));
            drawn(
                "line",
                title,
                line(rows, (time, value, series), &names),
                names,
            )
        }
        Chart::Scatter { x, y, label } => {
            let title = format!("{} against {}", name(y), name(x));
            drawn(
                "scatter",
                title,
                scatter(rows, (x, y, label), (&name(x), &name(y))),
                Vec::new(),
            )
        }
    })
}

/// The bars under each group's name, each bar in its series' place in the legend (so it
/// takes that series' colour).
fn grouped<'a>(
    rows: &'a [Vec<Value>],
    (group, series, value): (usize, usize, usize),
    names: &[String],
) -> Vec<Group<'a>> {
    let mut groups: Vec<Group> = Vec::new();
    for r in rows {
        let g = label_of(cell(r, group));
        let bar = (label_of(cell(r, series)), cell(r, value));
        match groups
            .iter_mut()
            .find(|(name, _)| name.as_deref() == Some(&g))
        {
            Some((_, bars)) => bars.push(bar),
            None => groups.push((Some(g), vec![bar])),
        }
    }
    for (_, bars) in &mut groups {
        bars.sort_by_key(|(s, _)| names.iter().position(|n| n == s));
    }
    groups
}

fn distinct_labels(rows: &[Vec<Value>], column: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rows {
        let l = label_of(cell(r, column));
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}
