//! Which chart, if any, shows a result honestly: decided by code from the columns' values,
//! never by a model. Each column is a measure (numbers), a time (years, months, dates) or a
//! category (anything else, identifiers included); the shape of the result then picks one
//! chart or none, with the reason.

use crate::value::Value;
use std::collections::BTreeSet;

/// At most this many bars in a bar chart: more would be a table drawn badly.
pub const MAX_BARS: usize = 30;
/// At most this many groups, and series in each, in a grouped bar chart.
pub const MAX_GROUPS: usize = 12;
pub const MAX_SERIES: usize = 6;
/// At most this many points on a line or in a scatter plot.
pub const MAX_POINTS: usize = 500;

/// A chart of a result, by column position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chart {
    /// One category, one measure: a bar per row.
    Bar { label: usize, value: usize },
    /// A measure over time, one line per value of `series` when there is one.
    Line {
        time: usize,
        value: usize,
        series: Option<usize>,
    },
    /// Two categories and a measure: a group of bars per value of `group`, one bar per
    /// value of `series`.
    GroupedBar {
        group: usize,
        series: usize,
        value: usize,
    },
    /// Two measures against each other, each point named by `label` when there is one.
    Scatter {
        x: usize,
        y: usize,
        label: Option<usize>,
    },
}

/// Why a result has no chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoChart {
    /// Fewer than two rows (three for a scatter plot): a chart would show one number.
    TooFewRows,
    /// No column holds numbers to draw.
    NoMeasure,
    /// More categories (or points) than a chart can show readably.
    TooMany { what: &'static str, count: usize },
    /// Three or more measures, whose units may differ: one axis would mislead.
    MixedMeasures,
    /// A shape no chart fits (three categories, a measure with two times…).
    Shape,
}

impl NoChart {
    /// The reason in words, for the page to show beside the table.
    pub fn reason(&self) -> String {
        match self {
            NoChart::TooFewRows => "too few rows to chart".into(),
            NoChart::NoMeasure => "no column of numbers to chart".into(),
            NoChart::TooMany { what, count } => format!("{count} {what}: too many to chart"),
            NoChart::MixedMeasures => "three or more number columns, whose units may differ".into(),
            NoChart::Shape => "no chart fits these columns".into(),
        }
    }
}

/// What a column holds, judged from its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Measure,
    Time,
    Category,
    /// Bytes: never charted, never a label.
    Blob,
}

/// The chart for `columns` and `rows`, or why there is none.
pub fn choose(columns: &[String], rows: &[Vec<Value>]) -> Result<Chart, NoChart> {
    if rows.len() < 2 {
        return Err(NoChart::TooFewRows);
    }
    // A row of another width (a hand-edited trace) has no place on any axis; the drawing
    // may then read every chosen cell of every row.
    if rows.iter().any(|r| r.len() != columns.len()) {
        return Err(NoChart::Shape);
    }
    let kinds: Vec<ColumnKind> = (0..columns.len())
        .map(|i| kind_of(&columns[i], rows, i))
        .collect();
    let of =
        |k: ColumnKind| -> Vec<usize> { (0..kinds.len()).filter(|i| kinds[*i] == k).collect() };
    let (measures, times, categories) = (
        of(ColumnKind::Measure),
        of(ColumnKind::Time),
        of(ColumnKind::Category),
    );
    match (measures.as_slice(), times.as_slice(), categories.as_slice()) {
        ([], _, _) => Err(NoChart::NoMeasure),
        ([_, _, _, ..], _, _) => Err(NoChart::MixedMeasures),
        ([x, y], t, c) if t.len() + c.len() <= 1 => {
            if rows.len() < 3 {
                return Err(NoChart::TooFewRows);
            }
            at_most(rows.len(), MAX_POINTS, "points")?;
            Ok(Chart::Scatter {
                x: *x,
                y: *y,
                label: t.first().or(c.first()).copied(),
            })
        }
        ([_, _], _, _) => Err(NoChart::Shape),
        ([value], [time], []) => {
            at_most(rows.len(), MAX_POINTS, "points")?;
            Ok(Chart::Line {
                time: *time,
                value: *value,
                series: None,
            })
        }
        ([value], [time], [series]) => {
            at_most(distinct(rows, *series), MAX_SERIES, "series")?;
            at_most(rows.len(), MAX_POINTS, "points")?;
            Ok(Chart::Line {
                time: *time,
                value: *value,
                series: Some(*series),
            })
        }
        ([value], [], [label]) => {
            at_most(rows.len(), MAX_BARS, "bars")?;
            Ok(Chart::Bar {
                label: *label,
                value: *value,
            })
        }
        ([value], [], [group, series]) => {
            // The column with fewer values is the series: fewer colours to tell apart.
            let (group, series) = if distinct(rows, *series) <= distinct(rows, *group) {
                (*group, *series)
            } else {
                (*series, *group)
            };
            at_most(distinct(rows, group), MAX_GROUPS, "groups")?;
            at_most(distinct(rows, series), MAX_SERIES, "series")?;
            Ok(Chart::GroupedBar {
                group,
                series,
                value: *value,
            })
        }
        _ => Err(NoChart::Shape),
    }
}

fn at_most(count: usize, max: usize, what: &'static str) -> Result<(), NoChart> {
    if count > max {
        Err(NoChart::TooMany { what, count })
    } else {
        Ok(())
    }
}

fn distinct(rows: &[Vec<Value>], column: usize) -> usize {
    rows.iter()
        .filter_map(|r| r.get(column).map(label_of))
        .collect::<BTreeSet<_>>()
        .len()
}

/// A value as a chart labels it.
pub fn label_of(v: &Value) -> String {
    match v {
        Value::Null => "(none)".into(),
        Value::Blob(b) => format!("<{} bytes>", b.len()),
        other => other.to_string(),
    }
}

/// A value as a chart places it, when it is a number.
pub fn number_of(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Real(r) if r.is_finite() => Some(*r),
        _ => None,
    }
}

/// What column `i` holds: numbers are a measure unless the column is named as an
/// identifier (`TrackId`, `id`) or a year; text that reads as years, months or dates is a
/// time; bytes are never drawn.
pub fn kind_of(name: &str, rows: &[Vec<Value>], i: usize) -> ColumnKind {
    let values: Vec<&Value> = rows
        .iter()
        .filter_map(|r| r.get(i))
        .filter(|v| **v != Value::Null)
        .collect();
    if values.iter().any(|v| matches!(v, Value::Blob(_))) {
        return ColumnKind::Blob;
    }
    let lower = name.to_ascii_lowercase();
    let numbers = !values.is_empty() && values.iter().all(|v| number_of(v).is_some());
    if numbers {
        let years = values
            .iter()
            .all(|v| matches!(v, Value::Integer(y) if (1000..=9999).contains(y)));
        if years && lower.contains("year") {
            return ColumnKind::Time;
        }
        if lower.ends_with("id") && !lower.ends_with("paid") {
            return ColumnKind::Category;
        }
        return ColumnKind::Measure;
    }
    let times = !values.is_empty()
        && values
            .iter()
            .all(|v| matches!(v, Value::Text(t) if looks_like_time(t)));
    if times {
        ColumnKind::Time
    } else {
        ColumnKind::Category
    }
}

/// `2012`, `2012-03`, `2012-03-04`, `2012-03-04 10:00:00`.
fn looks_like_time(text: &str) -> bool {
    let b = text.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    match b.len() {
        4 => digits(0..4),
        7 => digits(0..4) && b[4] == b'-' && digits(5..7),
        n if n >= 10 => {
            digits(0..4)
                && b[4] == b'-'
                && digits(5..7)
                && b[7] == b'-'
                && digits(8..10)
                && (n == 10 || matches!(b[10], b' ' | b'T'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }
    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }
    fn i(n: i64) -> Value {
        Value::Integer(n)
    }

    #[test]
    fn one_category_and_one_measure_is_a_bar_chart() {
        let rows = vec![vec![t("Rock"), i(1297)], vec![t("Jazz"), i(130)]];
        assert_eq!(
            choose(&cols(&["Genre", "tracks"]), &rows),
            Ok(Chart::Bar { label: 0, value: 1 })
        );
    }

    #[test]
    fn a_measure_over_dates_is_a_line() {
        let rows = vec![vec![t("2012-01"), i(5)], vec![t("2012-02"), i(7)]];
        assert_eq!(
            choose(&cols(&["month", "invoices"]), &rows),
            Ok(Chart::Line {
                time: 0,
                value: 1,
                series: None
            })
        );
        // A year column of integers is time too, when it is named so.
        let rows = vec![vec![i(2011), i(5)], vec![i(2012), i(7)]];
        assert!(matches!(
            choose(&cols(&["year", "invoices"]), &rows),
            Ok(Chart::Line { time: 0, .. })
        ));
    }

    #[test]
    fn two_categories_are_grouped_bars_with_the_smaller_as_series() {
        let mut rows = Vec::new();
        for country in ["USA", "Canada", "France"] {
            for kind in ["a", "b"] {
                rows.push(vec![t(kind), t(country), i(3)]);
            }
        }
        assert_eq!(
            choose(&cols(&["kind", "country", "n"]), &rows),
            Ok(Chart::GroupedBar {
                group: 1,
                series: 0,
                value: 2
            })
        );
    }

    #[test]
    fn two_measures_are_a_scatter_plot() {
        let rows: Vec<Vec<Value>> = (0..5)
            .map(|k| vec![t(&format!("g{k}")), i(k), Value::Real(k as f64 * 1.5)])
            .collect();
        assert_eq!(
            choose(&cols(&["genre", "tracks", "revenue"]), &rows),
            Ok(Chart::Scatter {
                x: 1,
                y: 2,
                label: Some(0)
            })
        );
    }

    #[test]
    fn misleading_charts_are_not_drawn() {
        let one = vec![vec![t("Rock"), i(1)]];
        assert_eq!(choose(&cols(&["g", "n"]), &one), Err(NoChart::TooFewRows));
        let many: Vec<Vec<Value>> = (0..31).map(|k| vec![t(&format!("c{k}")), i(k)]).collect();
        assert_eq!(
            choose(&cols(&["c", "n"]), &many),
            Err(NoChart::TooMany {
                what: "bars",
                count: 31
            })
        );
        let mixed = vec![vec![i(1), i(2), i(3)], vec![i(4), i(5), i(6)]];
        assert_eq!(
            choose(&cols(&["a", "b", "c"]), &mixed),
            Err(NoChart::MixedMeasures)
        );
        let text = vec![vec![t("a")], vec![t("b")]];
        assert_eq!(choose(&cols(&["a"]), &text), Err(NoChart::NoMeasure));
    }

    #[test]
    fn identifiers_are_categories_not_measures() {
        let rows = vec![vec![i(1), i(10)], vec![i(2), i(20)]];
        assert_eq!(
            choose(&cols(&["CustomerId", "total"]), &rows),
            Ok(Chart::Bar { label: 0, value: 1 })
        );
        assert_eq!(kind_of("AmountPaid", &rows, 1), ColumnKind::Measure);
    }

    #[test]
    fn times_are_read_strictly() {
        for yes in [
            "2012",
            "2012-03",
            "2012-03-04",
            "2012-03-04 10:00:00",
            "2012-03-04T10:00",
        ] {
            assert!(looks_like_time(yes), "{yes}");
        }
        for no in [
            "",
            "12",
            "2012-3",
            "20120304",
            "2012/03/04",
            "Rock",
            "2012-03-04x",
        ] {
            assert!(!looks_like_time(no), "{no}");
        }
    }
}
