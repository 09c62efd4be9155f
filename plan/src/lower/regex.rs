//! `REGEXP_LIKE`, `REGEXP_REPLACE` and `REGEXP_SUBSTR` (see [`crate::regex`] for what a
//! pattern may hold). PostgreSQL's `~`, `regexp_replace` and `substring(x, pattern)` (every
//! group is spelt non-capturing, so it gives the whole match); DuckDB's `regexp_matches`,
//! `regexp_replace` and `regexp_extract`; Spark's `RLIKE`, `regexp_replace` and
//! `regexp_extract(x, p, 0)`; MySQL's and MariaDB's `REGEXP`, `REGEXP_REPLACE` and
//! `REGEXP_SUBSTR`. DuckDB's, Spark's and MariaDB's extraction give `''` where nothing
//! matches, so they are asked only where something does. MySQL, MariaDB and Spark replace
//! every match: the first alone is exact there only for a pattern anchored at the start.
//! SQLite and SQL Server have no regular expressions built in.

use super::build::{call, case_when, nested, null, text};
use super::dates::Operand;
use super::{fail, LowerError};
use crate::dialect::Dialect;
use crate::functions::RegexCall;
use crate::regex::{Flags, Pattern};
use sqlparser::ast::{BinaryOperator as Op, Expr as SqlExpr};

/// `call` on `x` (the text, lowered afresh each time it is asked for).
pub(super) fn regex(call_: &RegexCall, x: Operand, d: Dialect) -> Result<SqlExpr, LowerError> {
    let spelt = |p: &Pattern, flags: Flags| match p.spelt(d, flags) {
        Some(s) => Ok(text(&s, d)),
        None => fail(format!(
            "Regular expressions have no built-in form in {d}; REGEXP_LIKE, REGEXP_REPLACE and \
             REGEXP_SUBSTR run on PostgreSQL, MySQL, MariaDB, DuckDB and Spark."
        )),
    };
    let matches = |p: &Pattern, flags: Flags| -> Result<SqlExpr, LowerError> {
        let pattern = spelt(p, flags)?;
        Ok(match d {
            Dialect::Postgres => nested(super::build::binary(x()?, Op::PGRegexMatch, pattern)),
            Dialect::MySql | Dialect::Spark => nested(SqlExpr::RLike {
                negated: false,
                expr: Box::new(x()?),
                pattern: Box::new(pattern),
                regexp: d == Dialect::MySql,
            }),
            _ => call("REGEXP_MATCHES", vec![x()?, pattern]),
        })
    };
    Ok(match call_ {
        RegexCall::Like(_, p, flags) => matches(p, *flags)?,
        RegexCall::Substr(_, p, flags) => match d {
            Dialect::Postgres => call("SUBSTRING", vec![x()?, spelt(p, *flags)?]),
            // MariaDB's gives '' where nothing matches, MySQL's NULL.
            Dialect::MySql => case_when(
                vec![(
                    matches(p, *flags)?,
                    call("REGEXP_SUBSTR", vec![x()?, spelt(p, *flags)?]),
                )],
                null(),
            ),
            Dialect::Spark => case_when(
                vec![(
                    matches(p, *flags)?,
                    call(
                        "REGEXP_EXTRACT",
                        vec![x()?, spelt(p, *flags)?, super::build::int(0)],
                    ),
                )],
                null(),
            ),
            _ => case_when(
                vec![(
                    matches(p, *flags)?,
                    call("REGEXP_EXTRACT", vec![x()?, spelt(p, *flags)?]),
                )],
                null(),
            ),
        },
        RegexCall::Replace {
            pattern,
            replacement,
            all,
            flags,
            ..
        } => {
            let mut args = vec![x()?, spelt(pattern, *flags)?, text(replacement, d)];
            match d {
                Dialect::Postgres | Dialect::DuckDb if *all => args.push(text("g", d)),
                Dialect::MySql | Dialect::Spark if !*all && !pattern.anchored => {
                    return fail(format!(
                        "REGEXP_REPLACE of the first match alone has no exact form in {d}, \
                         which replaces every match; pass 'g' to replace them all, or anchor \
                         the pattern at the start with ^."
                    ))
                }
                _ => {}
            }
            call("REGEXP_REPLACE", args)
        }
    })
}
