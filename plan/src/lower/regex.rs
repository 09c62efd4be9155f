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
use crate::regex::Pattern;
use sqlparser::ast::{BinaryOperator as Op, Expr as SqlExpr};

/// `call` on `x` (the text, lowered afresh each time it is asked for).
pub(super) fn regex(call_: &RegexCall, x: Operand, d: Dialect) -> Result<SqlExpr, LowerError> {
    let spelt = |p: &Pattern| match p.spelt(d) {
        Some(s) => Ok(text(&s, d)),
        None => fail(format!(
            "Regular expressions have no built-in form in {d}; REGEXP_LIKE, REGEXP_REPLACE and \
             REGEXP_SUBSTR run on PostgreSQL, MySQL, MariaDB, DuckDB and Spark."
        )),
    };
    let matches = |p: &Pattern| -> Result<SqlExpr, LowerError> {
        let pattern = spelt(p)?;
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
        RegexCall::Like(_, p) => matches(p)?,
        RegexCall::Substr(_, p) if d == Dialect::MySql && p.matches_empty => {
            return fail(empty_on_mysql("REGEXP_SUBSTR"))
        }
        RegexCall::Substr(_, p) => match d {
            Dialect::Postgres => call("SUBSTRING", vec![x()?, spelt(p)?]),
            // MariaDB's gives '' where nothing matches, MySQL's NULL.
            Dialect::MySql => case_when(
                vec![(matches(p)?, call("REGEXP_SUBSTR", vec![x()?, spelt(p)?]))],
                null(),
            ),
            Dialect::Spark => case_when(
                vec![(
                    matches(p)?,
                    call(
                        "REGEXP_EXTRACT",
                        vec![x()?, spelt(p)?, super::build::int(0)],
                    ),
                )],
                null(),
            ),
            _ => case_when(
                vec![(matches(p)?, call("REGEXP_EXTRACT", vec![x()?, spelt(p)?]))],
                null(),
            ),
        },
        RegexCall::Replace {
            pattern,
            replacement,
            all,
            ..
        } => {
            let mut args = vec![x()?, spelt(pattern)?, text(replacement, d)];
            match d {
                Dialect::MySql if pattern.matches_empty => {
                    return fail(empty_on_mysql("REGEXP_REPLACE"))
                }
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

/// Why a pattern that can match the empty text is refused on MySQL and MariaDB: MySQL
/// gives an empty text back unsearched, and MariaDB replaces no empty match
/// (`REGEXP_REPLACE('bc', '^a*', 'X')` is `'bc'` there, `'Xbc'` elsewhere).
fn empty_on_mysql(name: &str) -> String {
    format!(
        "{name} of a pattern that can match the empty text has no exact form on MySQL or \
         MariaDB, which leave an empty match unreplaced; make the pattern match at least one \
         character."
    )
}
