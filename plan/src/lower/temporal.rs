//! Which kind of point in time an expression is, so the date functions keep it: a date
//! truncated or moved by days or more stays a date, a timestamp stays a timestamp.

use super::{Lowerer, ResultColumn, Source};
use crate::functions::{date_call, DateCall};
use crate::{CastType, Expr, Literal, Plan};

/// A point in time's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Temporal {
    /// A calendar day.
    Date,
    /// A day and a time of day.
    Timestamp,
}

impl Temporal {
    /// The kind of `x` truncated to, or moved by, `unit`: a time of day makes a timestamp;
    /// otherwise `x`'s kind, when known.
    pub fn after(unit: crate::functions::DateUnit, x: Option<Temporal>) -> Option<Temporal> {
        if unit.is_time_of_day() {
            Some(Temporal::Timestamp)
        } else {
            x
        }
    }
}

impl Lowerer<'_> {
    /// The kind of point in time `e` is, when its type, a cast or a date function says.
    pub(super) fn temporal_kind(&self, e: &Expr) -> Option<Temporal> {
        match e {
            Expr::Column { alias, column } => self.column_kind(alias.as_deref(), column),
            Expr::Cast { to, .. } => match to {
                CastType::Date => Some(Temporal::Date),
                CastType::Timestamp => Some(Temporal::Timestamp),
                _ => None,
            },
            Expr::Literal(Literal::Text(t)) => literal_kind(t),
            Expr::Func(f) if date_call(f).is_some() => match date_call(f)?.ok()? {
                DateCall::CurrentDate | DateCall::Make(..) => Some(Temporal::Date),
                DateCall::CurrentTimestamp | DateCall::ConvertZone(..) => Some(Temporal::Timestamp),
                DateCall::Trunc(unit, x) | DateCall::Add(unit, _, x) => {
                    Temporal::after(unit, self.temporal_kind(x))
                }
                DateCall::Part(..)
                | DateCall::Diff(..)
                | DateCall::Elapsed(..)
                | DateCall::Name(..) => None,
            },
            // A value chosen among values of one kind is of that kind.
            Expr::Func(f)
                if matches!(
                    f.name.to_ascii_uppercase().as_str(),
                    "MIN"
                        | "MAX"
                        | "FIRST_VALUE"
                        | "LAST_VALUE"
                        | "LAG"
                        | "LEAD"
                        | "COALESCE"
                        | "GREATEST"
                        | "LEAST"
                ) =>
            {
                self.temporal_kind(f.args.first()?)
            }
            _ => None,
        }
    }

    /// A column's kind: its declared type's, or the kind a CTE computes it as.
    fn column_kind(&self, alias: Option<&str>, column: &str) -> Option<Temporal> {
        match self.source_of(alias, column)?.source {
            Source::Table(t) => declared_kind(&t.column(column)?.declared_type),
            Source::Cte(name, _) => {
                let ctes = self.ctes.borrow();
                let kinds = self.cte_kinds.borrow();
                let at = ctes
                    .iter()
                    .rposition(|(n, _)| n.eq_ignore_ascii_case(&name))?;
                kinds
                    .get(at)?
                    .iter()
                    .find(|(c, _)| c.eq_ignore_ascii_case(column))
                    .map(|(_, k)| *k)
            }
        }
    }

    /// The kinds of a CTE's named result columns, read in its own scope.
    pub(super) fn result_kinds(
        &self,
        plan: &Plan,
        columns: &[ResultColumn],
    ) -> Vec<(String, Temporal)> {
        if self.push_scope(plan).is_err() {
            return Vec::new();
        }
        let kinds = columns
            .iter()
            .filter_map(|c| {
                let name = c.name.clone()?;
                let item = plan.select_items.get(c.item)?;
                if matches!(&item.expr, Expr::Column { column, .. } if column == "*") {
                    return None;
                }
                Some((name, self.temporal_kind(&item.expr)?))
            })
            .collect();
        self.pop_scope();
        kinds
    }
}

/// A declared type's kind: `DATE` is a date; `TIMESTAMP…` and `DATETIME…` are timestamps.
fn declared_kind(declared: &str) -> Option<Temporal> {
    let t = declared.trim().to_ascii_uppercase();
    if t.starts_with("TIMESTAMP") || t.starts_with("DATETIME") {
        Some(Temporal::Timestamp)
    } else if t == "DATE" {
        Some(Temporal::Date)
    } else {
        None
    }
}

/// A text literal's kind: `YYYY-MM-DD` is a date, `YYYY-MM-DD HH:MM…` a timestamp.
fn literal_kind(t: &str) -> Option<Temporal> {
    let b = t.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    let day = digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10);
    match (day, b.len()) {
        (true, 10) => Some(Temporal::Date),
        (true, n) if n >= 16 && matches!(b.get(10), Some(b' ' | b'T')) && digits(11..13) => {
            Some(Temporal::Timestamp)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_and_literals_tell_dates_from_timestamps() {
        assert_eq!(declared_kind("DATE"), Some(Temporal::Date));
        assert_eq!(declared_kind("datetime"), Some(Temporal::Timestamp));
        assert_eq!(
            declared_kind("timestamp without time zone"),
            Some(Temporal::Timestamp)
        );
        assert_eq!(declared_kind("TEXT"), None);
        assert_eq!(literal_kind("2024-03-01"), Some(Temporal::Date));
        assert_eq!(
            literal_kind("2024-03-01 10:00:00"),
            Some(Temporal::Timestamp)
        );
        assert_eq!(literal_kind("2024-03-01T10:00"), Some(Temporal::Timestamp));
        assert_eq!(literal_kind("March"), None);
        assert_eq!(literal_kind("2024-03-0"), None);
    }
}
