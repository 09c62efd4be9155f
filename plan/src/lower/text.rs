//! `SPLIT_PART(text, delimiter, n)`: the n-th of the pieces the delimiter cuts the text
//! into, counted from 1, found left to right; `''` past the last piece; NULL for a NULL
//! text. Native on PostgreSQL, DuckDB and Spark. MySQL finds the n-th delimiter with
//! `SUBSTRING_INDEX`, which gives the last piece past the end, so the pieces are counted
//! first. SQLite cuts the pieces before the n-th off one at a time.
//!
//! `LPAD`/`RPAD(text, width, fill)`: the text filled with one character on the left (right)
//! to `width` characters, or cut to its first `width`; NULL for a NULL text. Native where
//! the dialect has it (the text cast first, as PostgreSQL and DuckDB pad text only);
//! SQLite prefixes (appends) as much of a literal of `width` fill characters as is missing.

use super::build::{binary, call, case_when, cast, custom_type, int, nested, text};
use super::dates::Operand;
use super::{fail, LowerError};
use crate::dialect::Dialect;
use sqlparser::ast::{BinaryOperator as Op, Expr as SqlExpr};

/// The n-th piece of `x` (`delimiter` non-empty, `n` from 1; see `split_part_args`).
pub(super) fn split_part(
    x: Operand,
    delimiter: &str,
    n: i64,
    d: Dialect,
) -> Result<SqlExpr, LowerError> {
    let delim = || text(delimiter, d);
    let width = delimiter.chars().count() as i64;
    Ok(match d {
        Dialect::Postgres | Dialect::DuckDb | Dialect::Spark => {
            call("SPLIT_PART", vec![x()?, delim(), int(n)])
        }
        Dialect::MySql => {
            // The characters the delimiters take: fewer than n - 1 of them, no n-th piece.
            let taken = binary(
                call("CHAR_LENGTH", vec![x()?]),
                Op::Minus,
                call(
                    "CHAR_LENGTH",
                    vec![call("REPLACE", vec![x()?, delim(), text("", d)])],
                ),
            );
            let first_n = call("SUBSTRING_INDEX", vec![x()?, delim(), int(n)]);
            case_when(
                vec![(
                    binary(nested(taken), Op::Lt, int((n - 1) * width)),
                    text("", d),
                )],
                call("SUBSTRING_INDEX", vec![first_n, delim(), int(-1)]),
            )
        }
        Dialect::Sqlite => {
            let end = binary(
                call("INSTR", vec![sqlite_rest(x, n, delimiter, d)?, delim()]),
                Op::Minus,
                int(1),
            );
            call(
                "SUBSTR",
                vec![sqlite_rest(x, n, delimiter, d)?, int(1), end],
            )
        }
        Dialect::SqlServer => {
            return fail(
                "SPLIT_PART has no exact form on SQL Server: STRING_SPLIT's order is not \
                 guaranteed before SQL Server 2022.",
            )
        }
    })
}

/// SQLite: `x` and a delimiter after it, so every piece, the last too, ends at one, with
/// the `k - 1` pieces in front dropped (an exhausted text stays empty). Each use is built
/// afresh, as `Operand` asks.
fn sqlite_rest(x: Operand, k: i64, delimiter: &str, d: Dialect) -> Result<SqlExpr, LowerError> {
    if k <= 1 {
        return Ok(nested(binary(x()?, Op::StringConcat, text(delimiter, d))));
    }
    let found = call(
        "INSTR",
        vec![sqlite_rest(x, k - 1, delimiter, d)?, text(delimiter, d)],
    );
    let after = binary(found, Op::Plus, int(delimiter.chars().count() as i64));
    Ok(call(
        "SUBSTR",
        vec![sqlite_rest(x, k - 1, delimiter, d)?, after],
    ))
}

/// `x` padded to `width` with `fill`, on the left when `left` (see `pad_args`).
pub(super) fn pad(
    x: Operand,
    width: i64,
    fill: char,
    left: bool,
    d: Dialect,
) -> Result<SqlExpr, LowerError> {
    let name = if left { "LPAD" } else { "RPAD" };
    let fill_text = fill.to_string();
    Ok(match d {
        Dialect::Postgres | Dialect::DuckDb => {
            let as_text = cast(x()?, custom_type("TEXT", &[]));
            call(name, vec![as_text, int(width), text(&fill_text, d)])
        }
        Dialect::MySql | Dialect::Spark => call(name, vec![x()?, int(width), text(&fill_text, d)]),
        Dialect::Sqlite => {
            let missing = binary(int(width), Op::Minus, call("LENGTH", vec![x()?]));
            let padding = call(
                "SUBSTR",
                vec![text(&fill_text.repeat(width as usize), d), int(1), missing],
            );
            let padded = if left {
                binary(padding, Op::StringConcat, x()?)
            } else {
                binary(x()?, Op::StringConcat, padding)
            };
            case_when(
                vec![(
                    binary(call("LENGTH", vec![x()?]), Op::GtEq, int(width)),
                    call("SUBSTR", vec![x()?, int(1), int(width)]),
                )],
                padded,
            )
        }
        Dialect::SqlServer => {
            return fail(format!(
                "{name} has no exact form on SQL Server: LEN ignores trailing spaces, so the \
                 missing width cannot be counted."
            ))
        }
    })
}
