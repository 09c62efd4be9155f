//! A window frame's bounds: whole numbers of rows or values, or intervals (`RANGE BETWEEN
//! INTERVAL '24 hours' PRECEDING …`) read as numbers of one unit the frame counts in.

use super::dates::interval_amount;
use super::{failed, unsupported, R};
use crate::functions::DateUnit;
use crate::FrameBound;
use sqlparser::ast::{self, Expr as SqlExpr, Value};

/// An offset as written: the amount and, for an interval, its unit.
type Offset = (u64, Option<DateUnit>);

/// One bound as written.
enum Written {
    UnboundedPreceding,
    Preceding(Offset),
    CurrentRow,
    Following(Offset),
    UnboundedFollowing,
}

impl Written {
    fn offset(&self) -> Option<Offset> {
        match self {
            Written::Preceding(o) | Written::Following(o) => Some(*o),
            _ => None,
        }
    }
}

/// The frame's two bounds and the unit their offsets count in when they are intervals: the
/// common unit (seconds for weeks and shorter, months for longer) when they differ.
pub(super) fn frame_bounds(
    start: &ast::WindowFrameBound,
    end: Option<&ast::WindowFrameBound>,
) -> R<(FrameBound, FrameBound, Option<DateUnit>)> {
    let start = written(start)?;
    let end = match end {
        Some(b) => written(b)?,
        None => Written::CurrentRow,
    };
    let units: Vec<Option<DateUnit>> = [&start, &end]
        .iter()
        .filter_map(|b| b.offset().map(|(_, u)| u))
        .collect();
    let unit = match units.as_slice() {
        [] | [None] | [None, None] => None,
        [Some(u)] => Some(*u),
        [Some(a), Some(b)] if a == b => Some(*a),
        [Some(a), Some(b)] if a.is_fixed_length() && b.is_fixed_length() => Some(DateUnit::Second),
        [Some(a), Some(b)] if !a.is_fixed_length() && !b.is_fixed_length() => Some(DateUnit::Month),
        [Some(_), Some(_)] => {
            return unsupported("A frame whose offsets mix calendar months and fixed lengths")
        }
        _ => return unsupported("A frame whose offsets mix a number and an interval"),
    };
    let bound = |b: Written| -> R<FrameBound> {
        Ok(match b {
            Written::UnboundedPreceding => FrameBound::UnboundedPreceding,
            Written::CurrentRow => FrameBound::CurrentRow,
            Written::UnboundedFollowing => FrameBound::UnboundedFollowing,
            Written::Preceding((n, from)) => FrameBound::Preceding {
                offset: scaled(n, from, unit)?,
            },
            Written::Following((n, from)) => FrameBound::Following {
                offset: scaled(n, from, unit)?,
            },
        })
    };
    Ok((bound(start)?, bound(end)?, unit))
}

/// `n` of `from` counted in `to`.
fn scaled(n: u64, from: Option<DateUnit>, to: Option<DateUnit>) -> R<u64> {
    let per = |u: Option<DateUnit>| -> u64 {
        match u {
            Some(DateUnit::Week) => 604_800,
            Some(DateUnit::Day) => 86_400,
            Some(DateUnit::Hour) => 3_600,
            Some(DateUnit::Minute) => 60,
            Some(DateUnit::Year) => 12,
            Some(DateUnit::Quarter) => 3,
            _ => 1,
        }
    };
    if from == to {
        return Ok(n);
    }
    n.checked_mul(per(from) / per(to))
        .ok_or_else(|| failed(format!("The frame offset {n} is out of range.")))
}

fn written(b: &ast::WindowFrameBound) -> R<Written> {
    Ok(match b {
        ast::WindowFrameBound::CurrentRow => Written::CurrentRow,
        ast::WindowFrameBound::Preceding(None) => Written::UnboundedPreceding,
        ast::WindowFrameBound::Following(None) => Written::UnboundedFollowing,
        ast::WindowFrameBound::Preceding(Some(e)) => Written::Preceding(offset(e)?),
        ast::WindowFrameBound::Following(Some(e)) => Written::Following(offset(e)?),
    })
}

/// A bound's offset: a whole number, or an interval of one unit.
fn offset(e: &SqlExpr) -> R<Offset> {
    match e {
        SqlExpr::Value(v) => match &v.value {
            Value::Number(s, _) => s
                .parse::<u64>()
                .map(|n| (n, None))
                .map_err(|_| failed(format!("A frame offset must be a whole number, not {s}."))),
            _ => unsupported("A frame offset that is not a number or an interval"),
        },
        SqlExpr::Interval(i) => match interval_amount(i) {
            Some((n, unit)) if unit.is_period() => u64::try_from(n)
                .map(|n| (n, Some(unit)))
                .map_err(|_| failed(format!("A frame offset must not be negative, not {e}."))),
            _ => unsupported(format!(
                "The frame offset {e} (one whole number of one unit)"
            )),
        },
        _ => unsupported("A frame offset that is not a number or an interval"),
    }
}
