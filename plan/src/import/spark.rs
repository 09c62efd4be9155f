//! Spark SQL's own date spellings, read as the plan's functions where their meaning is the
//! plan's: `add_months` and `last_day` and `trunc(x, 'MM')` (dates, whatever they are
//! given), `to_date(x)`, `weekofyear` (ISO weeks). Its `date_add(x, n)`, `datediff` and
//! `dayofweek` are read with MySQL's (dates.rs).

use super::dates::{as_date, dialect_call, month_end, text_of, unit_text};
use super::{call, unsupported, Importer, R};
use crate::dialect::Dialect;
use crate::functions::DateUnit;
use crate::Expr;
use sqlparser::ast;

impl Importer<'_> {
    /// `f` as the plan spells it, when it is one of Spark's functions above; `None`
    /// otherwise (or in another dialect).
    pub(super) fn spark_spelling(&self, f: &ast::Function) -> R<Option<Expr>> {
        let Some((name, args)) = dialect_call(f, Dialect::Spark, self.dialect) else {
            return Ok(None);
        };
        Ok(Some(match (name.as_str(), args.as_slice()) {
            // add_months gives a date, even of a timestamp.
            ("ADD_MONTHS", [x, n]) => call(
                "DATE_ADD",
                vec![
                    unit_text(DateUnit::Month),
                    self.expr(n)?,
                    as_date(self.expr(x)?),
                ],
            ),
            ("LAST_DAY", [x]) => month_end(self.expr(x)?),
            ("TRUNC", [x, unit]) => {
                let unit = match text_of(unit).map(str::to_ascii_uppercase).as_deref() {
                    Some("YEAR" | "YYYY" | "YY") => DateUnit::Year,
                    Some("QUARTER") => DateUnit::Quarter,
                    Some("MONTH" | "MON" | "MM") => DateUnit::Month,
                    Some("WEEK") => DateUnit::Week,
                    _ => return unsupported(format!("trunc to {unit}")),
                };
                call("DATE_TRUNC", vec![unit_text(unit), as_date(self.expr(x)?)])
            }
            ("TO_DATE", [x]) => as_date(self.expr(x)?),
            ("WEEKOFYEAR", [x]) => {
                call("DATE_PART", vec![unit_text(DateUnit::Week), self.expr(x)?])
            }
            _ => return Ok(None),
        }))
    }
}
