//! The drawing's width, and how labels and values are written in it.

use nl2sql_core::chart::label_of;
use nl2sql_core::result::Value;

/// The view box's width.
pub const W: f64 = 360.0;
/// About how wide one character of the 11 px chart font is, in view-box units.
pub const CHAR: f64 = 6.4;
const MAX_LABEL: usize = 22;

/// Row `r`'s value in column `i` (nothing where the row is short).
pub fn cell(r: &[Value], i: usize) -> &Value {
    const NOTHING: &Value = &Value::Null;
    r.get(i).unwrap_or(NOTHING)
}

/// A label cut to fit beside a bar.
pub fn short(s: &str) -> String {
    if s.chars().count() <= MAX_LABEL {
        s.to_string()
    } else {
        let cut: String = s.chars().take(MAX_LABEL - 1).collect();
        format!("{cut}…")
    }
}

/// A value exactly as a bar's label shows it: integers whole, reals to two places.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Integer(i) => i.to_string(),
        Value::Real(r) if r.fract() == 0.0 && r.abs() < 1e15 => format!("{r:.0}"),
        Value::Real(r) => format!("{r:.2}"),
        other => label_of(other),
    }
}

/// An axis tick: short (`1.2k`, `3.4M`), since only the ticks are rounded.
pub fn compact(v: f64) -> String {
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
