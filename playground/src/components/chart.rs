//! The chart core chose (`nl2sql_core::chart`), drawn as SVG sized for a phone: a view box
//! 360 wide, so labels stay readable at 390 px and are never drawn larger than about
//! one and a half times that on a wide screen. Every label is escaped text; nothing a model
//! wrote is drawn but values.

use nl2sql_core::chart::{label_of, number_of, Chart, NoChart};
use nl2sql_core::Value;
use std::fmt::Write;

/// A drawn chart: its kind (`data-kind`), caption, SVG markup and the series' names.
pub struct Drawn {
    pub kind: &'static str,
    pub title: String,
    pub svg: String,
    pub legend: Vec<String>,
}

/// Bars under a group's name (none for a plain bar chart): each bar's label and value.
type Group<'a> = (Option<String>, Vec<(String, &'a Value)>);

const W: f64 = 360.0;
/// About how wide one character of the 11 px chart font is, in view-box units.
const CHAR: f64 = 6.4;
const MAX_LABEL: usize = 22;

/// The chart for a result, or why there is none.
pub fn draw(columns: &[String], rows: &[Vec<Value>]) -> Result<Drawn, NoChart> {
    let chart = nl2sql_core::chart::choose(columns, rows)?;
    let name = |i: usize| columns.get(i).cloned().unwrap_or_default();
    Ok(match chart {
        Chart::Bar { label, value } => {
            let bars: Vec<(String, &Value)> = rows
                .iter()
                .map(|r| (label_of(&r[label]), &r[value]))
                .collect();
            Drawn {
                kind: "bar",
                title: format!("{} by {}", name(value), name(label)),
                svg: bars_svg(&[(None, bars)], &[]),
                legend: Vec::new(),
            }
        }
        Chart::GroupedBar {
            group,
            series,
            value,
        } => {
            let names = distinct_labels(rows, series);
            let mut groups: Vec<Group> = Vec::new();
            for r in rows {
                let g = label_of(&r[group]);
                let bar = (label_of(&r[series]), &r[value]);
                match groups
                    .iter_mut()
                    .find(|(name, _)| name.as_deref() == Some(&g))
                {
                    Some((_, bars)) => bars.push(bar),
                    None => groups.push((Some(g), vec![bar])),
                }
            }
            // Each bar takes its series' colour, by the series' place in the legend.
            for (_, bars) in &mut groups {
                bars.sort_by_key(|(s, _)| names.iter().position(|n| n == s));
            }
            Drawn {
                kind: "grouped-bar",
                title: format!("{} by {} and {}", name(value), name(group), name(series)),
                svg: bars_svg(&groups, &names),
                legend: names,
            }
        }
        Chart::Line {
            time,
            value,
            series,
        } => {
            let names = series.map(|s| distinct_labels(rows, s)).unwrap_or_default();
            Drawn {
                kind: "line",
                title: format!("{} over {}", name(value), name(time)),
                svg: line_svg(rows, time, value, series, &names),
                legend: names,
            }
        }
        Chart::Scatter { x, y, label } => Drawn {
            kind: "scatter",
            title: format!("{} against {}", name(y), name(x)),
            svg: scatter_svg(rows, x, y, label, &name(x), &name(y)),
            legend: Vec::new(),
        },
    })
}

fn distinct_labels(rows: &[Vec<Value>], column: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rows {
        let l = label_of(&r[column]);
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

/// Horizontal bars from zero, each group under its name, values written past the bar's end
/// within the view box (a value is never cut at the edge).
fn bars_svg(groups: &[Group], series: &[String]) -> String {
    let all = || groups.iter().flat_map(|(_, bars)| bars.iter());
    let grouped = !series.is_empty();
    let label_w = if grouped {
        0.0
    } else {
        (all()
            .map(|(l, _)| short(l).chars().count())
            .max()
            .unwrap_or(1) as f64
            * CHAR
            + 8.0)
            .clamp(32.0, 150.0)
    };
    let value_w = all()
        .map(|(_, v)| value_text(v).chars().count())
        .max()
        .unwrap_or(1) as f64
        * CHAR
        + 8.0;
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
    let mut body = String::new();
    let mut y = 4.0;
    for (name, bars) in groups {
        if let Some(name) = name {
            y += group_gap;
            let _ = write!(
                body,
                r#"<text x="1" y="{:.1}" class="chart-group">{}</text>"#,
                y - 6.0,
                esc(&short(name))
            );
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
            if !grouped {
                let _ = write!(
                    body,
                    r#"<text x="1" y="{:.1}" class="chart-label">{}</text>"#,
                    y + bar_h - 3.0,
                    esc(&short(label))
                );
            }
            let _ = write!(
                body,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{bar_h}" class="chart-bar s{colour}"><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" class="chart-value">{}</text>"#,
                w.max(0.5),
                esc(label),
                esc(&shown),
                zero.max(x + w) + 4.0,
                y + bar_h - 3.0,
                esc(&shown)
            );
            y += bar_h + gap;
        }
    }
    let _ = write!(
        body,
        r#"<line x1="{zero:.1}" x2="{zero:.1}" y1="0" y2="{y:.1}" class="chart-axis"></line>"#
    );
    svg(y + 4.0, &body)
}

/// Lines over time labels in their order (ISO dates sort as text), one per series.
fn line_svg(
    rows: &[Vec<Value>],
    time: usize,
    value: usize,
    series: Option<usize>,
    names: &[String],
) -> String {
    let mut times: Vec<String> = rows.iter().map(|r| label_of(&r[time])).collect();
    times.sort();
    times.dedup();
    let values: Vec<f64> = rows.iter().filter_map(|r| number_of(&r[value])).collect();
    let lo = values.iter().copied().fold(0.0_f64, f64::min);
    let hi = values.iter().copied().fold(lo, f64::max);
    let frame = Frame::new(200.0, (lo, hi), 28.0);
    let step = frame.width() / (times.len().saturating_sub(1)).max(1) as f64;
    let x_of = |t: &str| frame.left + times.iter().position(|x| x == t).unwrap_or(0) as f64 * step;
    let mut body = frame.y_axis();
    let lines: Vec<Option<&String>> = if names.is_empty() {
        vec![None]
    } else {
        names.iter().map(Some).collect()
    };
    for (k, line) in lines.iter().enumerate() {
        let mut points: Vec<(f64, f64, String, String)> = rows
            .iter()
            .filter(|r| match (line, series) {
                (Some(name), Some(s)) => label_of(&r[s]) == **name,
                _ => true,
            })
            .filter_map(|r| {
                let t = label_of(&r[time]);
                let v = number_of(&r[value])?;
                Some((x_of(&t), frame.y(v), t, value_text(&r[value])))
            })
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let path: Vec<String> = points
            .iter()
            .map(|(x, y, _, _)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = write!(
            body,
            r#"<polyline points="{}" class="chart-line s{k}" fill="none"></polyline>"#,
            path.join(" ")
        );
        for (x, y, t, shown) in &points {
            let _ = write!(
                body,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="2.5" class="chart-dot s{k}"><title>{}{}: {}</title></circle>"#,
                line.map(|n| format!("{} · ", esc(n))).unwrap_or_default(),
                esc(t),
                esc(shown)
            );
        }
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
            let _ = write!(
                body,
                r#"<text x="{:.1}" y="{:.1}" class="chart-label" text-anchor="{anchor}">{}</text>"#,
                frame.left + i as f64 * step,
                frame.bottom + 16.0,
                esc(&short(t))
            );
        }
    }
    svg(200.0, &body)
}

/// Two measures against each other, each axis from its least to its greatest value.
fn scatter_svg(
    rows: &[Vec<Value>],
    x: usize,
    y: usize,
    label: Option<usize>,
    x_name: &str,
    y_name: &str,
) -> String {
    let xs: Vec<f64> = rows.iter().filter_map(|r| number_of(&r[x])).collect();
    let ys: Vec<f64> = rows.iter().filter_map(|r| number_of(&r[y])).collect();
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() {
            (lo, hi)
        } else {
            (0.0, 1.0)
        }
    };
    let (x_lo, x_hi) = range(&xs);
    let frame = Frame::new(240.0, range(&ys), 40.0);
    let x_span = (x_hi - x_lo).max(f64::MIN_POSITIVE);
    let x_at = |v: f64| frame.left + (v - x_lo) / x_span * frame.width();
    let mut body = frame.y_axis();
    for r in rows {
        let (Some(a), Some(b)) = (number_of(&r[x]), number_of(&r[y])) else {
            continue;
        };
        let name = label
            .map(|l| format!("{}: ", esc(&label_of(&r[l]))))
            .unwrap_or_default();
        let _ = write!(
            body,
            r#"<circle cx="{:.1}" cy="{:.1}" r="3" class="chart-dot s0"><title>{name}{} {}, {} {}</title></circle>"#,
            x_at(a),
            frame.y(b),
            esc(x_name),
            esc(&value_text(&r[x])),
            esc(y_name),
            esc(&value_text(&r[y]))
        );
    }
    let _ = write!(
        body,
        r#"<text x="{:.1}" y="{:.1}" class="chart-label">{}</text><text x="{:.1}" y="{:.1}" class="chart-label" text-anchor="end">{}</text><text x="{:.1}" y="{:.1}" class="chart-axis-name" text-anchor="middle">{}</text><text x="4" y="10" class="chart-axis-name">↑ {}</text>"#,
        frame.left,
        frame.bottom + 16.0,
        compact(x_lo),
        W - 4.0,
        frame.bottom + 16.0,
        compact(x_hi),
        frame.left + frame.width() / 2.0,
        frame.bottom + 32.0,
        esc(&short(x_name)),
        esc(&short(y_name))
    );
    svg(240.0, &body)
}

/// The plotting area of a line or scatter chart and its value axis.
struct Frame {
    left: f64,
    top: f64,
    bottom: f64,
    lo: f64,
    hi: f64,
}

impl Frame {
    fn new(height: f64, (lo, hi): (f64, f64), below: f64) -> Frame {
        let ticks = [compact(lo), compact(hi)];
        let widest = ticks.iter().map(|t| t.chars().count()).max().unwrap_or(1);
        Frame {
            left: widest as f64 * CHAR + 10.0,
            top: 24.0,
            bottom: height - below,
            lo,
            hi: if hi > lo { hi } else { lo + 1.0 },
        }
    }
    fn width(&self) -> f64 {
        W - self.left - 8.0
    }
    fn y(&self, v: f64) -> f64 {
        self.bottom - (v - self.lo) / (self.hi - self.lo) * (self.bottom - self.top)
    }
    /// The value axis: lowest, middle and highest value, with faint rules.
    fn y_axis(&self) -> String {
        let mut out = String::new();
        for v in [self.lo, (self.lo + self.hi) / 2.0, self.hi] {
            let y = self.y(v);
            let _ = write!(
                out,
                r#"<line x1="{:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" class="chart-rule"></line><text x="{:.1}" y="{:.1}" class="chart-label" text-anchor="end">{}</text>"#,
                self.left,
                W - 8.0,
                self.left - 4.0,
                y + 4.0,
                compact(v)
            );
        }
        out
    }
}

fn svg(height: f64, body: &str) -> String {
    format!(r#"<svg viewBox="0 0 {W} {height:.0}" focusable="false">{body}</svg>"#)
}

/// A label cut to fit beside a bar.
fn short(s: &str) -> String {
    if s.chars().count() <= MAX_LABEL {
        s.to_string()
    } else {
        let cut: String = s.chars().take(MAX_LABEL - 1).collect();
        format!("{cut}…")
    }
}

/// A value exactly as a bar's label shows it: integers whole, reals to two places.
fn value_text(v: &Value) -> String {
    match v {
        Value::Integer(i) => i.to_string(),
        Value::Real(r) if r.fract() == 0.0 && r.abs() < 1e15 => format!("{r:.0}"),
        Value::Real(r) => format!("{r:.2}"),
        other => label_of(other),
    }
}

/// An axis tick: short (`1.2k`, `3.4M`), since only the ticks are rounded.
fn compact(v: f64) -> String {
    let a = v.abs();
    let (n, unit) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    if n.fract() == 0.0 || n.abs() >= 100.0 {
        format!("{n:.0}{unit}")
    } else {
        format!("{n:.1}{unit}")
    }
}

/// Text for SVG markup.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
