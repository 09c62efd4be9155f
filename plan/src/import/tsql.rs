//! SQL Server's own spellings, read as the plan's functions where their meaning is the
//! plan's: `DATEADD`, `DATEDIFF` (boundaries crossed, as the plan counts them, but for
//! weeks), `DATEPART` in the parts that do not hang on the server's `DATEFIRST`, `EOMONTH`,
//! `GETDATE`, `CHARINDEX` and `ISNULL`. (`TOP n` is read with the SELECT it belongs to.)

use super::dates::{dialect_call, month_end, unit_text};
use super::{call, unsupported, Importer, R};
use crate::dialect::Dialect;
use crate::functions::DateUnit;
use crate::Expr;
use sqlparser::ast::{self, Expr as SqlExpr};

/// A `DATEADD`/`DATEDIFF`/`DATEPART` unit, by any of its T-SQL names.
#[derive(Clone, Copy)]
enum Unit {
    /// One the plan has under the same meaning.
    Plain(DateUnit),
    /// `week`: weeks that start on the server's `DATEFIRST` day.
    Week,
    /// `iso_week`: the plan's weeks.
    IsoWeek,
    /// `weekday`: counted from the server's `DATEFIRST` day.
    Weekday,
}

fn unit(e: &SqlExpr) -> Option<Unit> {
    let SqlExpr::Identifier(word) = e else {
        return None;
    };
    Some(match word.value.to_ascii_lowercase().as_str() {
        "year" | "yy" | "yyyy" => Unit::Plain(DateUnit::Year),
        "quarter" | "qq" | "q" => Unit::Plain(DateUnit::Quarter),
        "month" | "mm" | "m" => Unit::Plain(DateUnit::Month),
        "day" | "dd" | "d" => Unit::Plain(DateUnit::Day),
        "dayofyear" | "dy" | "y" => Unit::Plain(DateUnit::DayOfYear),
        "hour" | "hh" => Unit::Plain(DateUnit::Hour),
        "minute" | "mi" | "n" => Unit::Plain(DateUnit::Minute),
        "second" | "ss" | "s" => Unit::Plain(DateUnit::Second),
        "week" | "wk" | "ww" => Unit::Week,
        "iso_week" | "isowk" | "isoww" => Unit::IsoWeek,
        "weekday" | "dw" | "w" => Unit::Weekday,
        _ => return None,
    })
}

impl Importer<'_> {
    /// `f` as the plan spells it, when it is one of SQL Server's functions above; `None`
    /// otherwise (or in another dialect).
    pub(super) fn tsql_spelling(&self, f: &ast::Function) -> R<Option<Expr>> {
        let Some((name, args)) = dialect_call(f, Dialect::SqlServer, self.dialect) else {
            return Ok(None);
        };
        let unit_of = |e: &SqlExpr| {
            unit(e).map_or_else(|| unsupported(format!("{name} in the unit {e}")), Ok)
        };
        Ok(Some(match (name.as_str(), args.as_slice()) {
            ("DATEADD", [u, n, x]) => {
                // A day of the year or of the week added is a day; a week is 7 days however
                // it is counted.
                let unit = match unit_of(u)? {
                    Unit::Plain(DateUnit::DayOfYear) | Unit::Weekday => DateUnit::Day,
                    Unit::Week | Unit::IsoWeek => DateUnit::Week,
                    Unit::Plain(other) => other,
                };
                call(
                    "DATE_ADD",
                    vec![unit_text(unit), self.expr(n)?, self.expr(x)?],
                )
            }
            ("DATEDIFF", [u, a, b]) => {
                // Boundaries crossed, as the plan counts them, but for weeks: SQL Server
                // counts Sundays crossed, the plan whole weeks.
                let unit = match unit_of(u)? {
                    Unit::Plain(DateUnit::DayOfYear) | Unit::Weekday => DateUnit::Day,
                    Unit::Plain(unit) => unit,
                    Unit::Week | Unit::IsoWeek => {
                        return unsupported(
                            "DATEDIFF in weeks, which counts the Sundays crossed where the \
                             plan counts whole weeks",
                        )
                    }
                };
                call(
                    "DATE_DIFF",
                    vec![unit_text(unit), self.expr(a)?, self.expr(b)?],
                )
            }
            ("DATEPART", [u, x]) => {
                let unit = match unit_of(u)? {
                    Unit::Plain(unit) => unit,
                    Unit::IsoWeek => DateUnit::Week,
                    Unit::Week | Unit::Weekday => {
                        return unsupported(format!(
                            "DATEPART({u}, …), which depends on the server's DATEFIRST setting"
                        ))
                    }
                };
                call("DATE_PART", vec![unit_text(unit), self.expr(x)?])
            }
            ("EOMONTH", [x]) => month_end(self.expr(x)?),
            ("GETDATE" | "SYSDATETIME", []) => call("CURRENT_TIMESTAMP", vec![]),
            ("CHARINDEX", [part, text]) => call("INSTR", vec![self.expr(text)?, self.expr(part)?]),
            ("ISNULL", [x, otherwise]) => {
                call("COALESCE", vec![self.expr(x)?, self.expr(otherwise)?])
            }
            _ => return Ok(None),
        }))
    }
}
