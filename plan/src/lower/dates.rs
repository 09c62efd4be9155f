//! The portable date functions, rendered per dialect.
//!
//! Semantics, the same on every dialect: `DATE_PART` is an integer (weeks are ISO weeks);
//! `DATE_TRUNC` is the period's first day as `'YYYY-MM-DD'` text (weeks start on Monday;
//! hours give `'YYYY-MM-DD HH:00:00'`); `DATE_ADD` is `'YYYY-MM-DD'` text (hours keep the
//! time); `DATE_DIFF` counts year, quarter, month and day boundaries crossed, and whole weeks
//! (days / 7, toward zero) and hours.

use super::build::{binary, call, cast, custom_type, int, keyword, nested, text};
use super::LowerError;
use crate::dialect::Dialect;
use crate::functions::DateUnit;
use sqlparser::ast::{BinaryOperator as Op, DateTimeField, Expr as SqlExpr, ExtractSyntax};

/// An operand some renderings write twice (a quarter's month, a week's start): each use is
/// lowered afresh from the plan, never cloned, so sqlparser's `Clone` for its whole tree
/// stays out of the browser's download.
pub type Operand<'a> = &'a dyn Fn() -> Result<SqlExpr, LowerError>;

fn integer(dialect: Dialect) -> sqlparser::ast::DataType {
    match dialect {
        Dialect::MySql => custom_type("SIGNED", &[]),
        Dialect::SqlServer => custom_type("INT", &[]),
        Dialect::Spark => custom_type("BIGINT", &[]),
        _ => custom_type("INTEGER", &[]),
    }
}

fn to_int(e: SqlExpr, dialect: Dialect) -> SqlExpr {
    cast(e, integer(dialect))
}

fn timestamp(e: SqlExpr) -> SqlExpr {
    cast(e, custom_type("TIMESTAMP", &[]))
}

fn as_date(e: SqlExpr) -> SqlExpr {
    cast(e, custom_type("DATE", &[]))
}

fn field(unit: DateUnit) -> DateTimeField {
    match unit {
        DateUnit::Year => DateTimeField::Year,
        DateUnit::Quarter => DateTimeField::Quarter,
        DateUnit::Month => DateTimeField::Month,
        DateUnit::Week => DateTimeField::Week(None),
        DateUnit::Day => DateTimeField::Day,
        DateUnit::Hour => DateTimeField::Hour,
    }
}

fn sqlite_format(unit: DateUnit) -> &'static str {
    match unit {
        DateUnit::Year => "%Y",
        DateUnit::Month => "%m",
        DateUnit::Week => "%V",
        DateUnit::Day => "%d",
        DateUnit::Hour => "%H",
        DateUnit::Quarter => "%m",
    }
}

/// `DATE_PART(unit, x)`.
pub fn part(unit: DateUnit, x: Operand, d: Dialect) -> Result<SqlExpr, LowerError> {
    let x = x()?;
    Ok(match d {
        Dialect::Sqlite => {
            let n = to_int(call("STRFTIME", vec![text(sqlite_format(unit), d), x]), d);
            if unit == DateUnit::Quarter {
                quarter_of_month(n)
            } else {
                n
            }
        }
        Dialect::Postgres => to_int(
            SqlExpr::Extract {
                field: field(unit),
                syntax: ExtractSyntax::From,
                expr: Box::new(timestamp(x)),
            },
            d,
        ),
        Dialect::DuckDb => to_int(
            call("DATE_PART", vec![text(unit.as_str(), d), timestamp(x)]),
            d,
        ),
        Dialect::MySql => match unit {
            DateUnit::Week => call("WEEK", vec![x, int(3)]),
            _ => call(&unit.as_str().to_ascii_uppercase(), vec![x]),
        },
        Dialect::SqlServer => {
            let unit = if unit == DateUnit::Week {
                "iso_week"
            } else {
                unit.as_str()
            };
            call("DATEPART", vec![SqlExpr::Identifier(keyword(unit)), x])
        }
        // Spark's WEEKOFYEAR is the ISO week.
        Dialect::Spark => {
            let f = match unit {
                DateUnit::Year => "YEAR",
                DateUnit::Quarter => "QUARTER",
                DateUnit::Month => "MONTH",
                DateUnit::Week => "WEEKOFYEAR",
                DateUnit::Day => "DAYOFMONTH",
                DateUnit::Hour => "HOUR",
            };
            to_int(call(f, vec![timestamp(x)]), d)
        }
    })
}

fn quarter_of_month(month: SqlExpr) -> SqlExpr {
    nested(binary(
        nested(binary(month, Op::Plus, int(2))),
        Op::Divide,
        int(3),
    ))
}

/// `DATE_TRUNC(unit, x)`.
pub fn trunc(unit: DateUnit, operand: Operand, d: Dialect) -> Result<SqlExpr, LowerError> {
    let x = operand()?;
    Ok(match d {
        Dialect::Sqlite => {
            let modifiers: &[&str] = match unit {
                DateUnit::Year => &["start of year"],
                DateUnit::Month => &["start of month"],
                DateUnit::Day => &[],
                DateUnit::Week => &["-6 days", "weekday 1"],
                DateUnit::Hour => {
                    return Ok(call("STRFTIME", vec![text("%Y-%m-%d %H:00:00", d), x]));
                }
                DateUnit::Quarter => {
                    // Back to the month that starts the quarter: (month - 1) % 3 months.
                    let month = part(DateUnit::Month, operand, d)?;
                    let back = binary(
                        binary(
                            text("-", d),
                            Op::StringConcat,
                            nested(binary(
                                nested(binary(month, Op::Minus, int(1))),
                                Op::Modulo,
                                int(3),
                            )),
                        ),
                        Op::StringConcat,
                        text(" months", d),
                    );
                    return Ok(call("DATE", vec![x, text("start of month", d), back]));
                }
            };
            let mut args = vec![x];
            args.extend(modifiers.iter().map(|m| text(m, d)));
            call("DATE", args)
        }
        Dialect::Postgres => call(
            "TO_CHAR",
            vec![
                call("DATE_TRUNC", vec![text(unit.as_str(), d), timestamp(x)]),
                text(day_or_hour(unit, "YYYY-MM-DD", "YYYY-MM-DD HH24:00:00"), d),
            ],
        ),
        Dialect::DuckDb => call(
            "STRFTIME",
            vec![
                call("DATE_TRUNC", vec![text(unit.as_str(), d), timestamp(x)]),
                text(day_or_hour(unit, "%Y-%m-%d", "%Y-%m-%d %H:00:00"), d),
            ],
        ),
        Dialect::MySql => match unit {
            DateUnit::Year => call("DATE_FORMAT", vec![x, text("%Y-01-01", d)]),
            DateUnit::Month => call("DATE_FORMAT", vec![x, text("%Y-%m-01", d)]),
            DateUnit::Day => call("DATE_FORMAT", vec![x, text("%Y-%m-%d", d)]),
            DateUnit::Hour => call("DATE_FORMAT", vec![x, text("%Y-%m-%d %H:00:00", d)]),
            DateUnit::Week => call(
                "DATE_FORMAT",
                vec![
                    call(
                        "DATE_SUB",
                        vec![
                            x,
                            interval(call("WEEKDAY", vec![operand()?]), Some(DateTimeField::Day)),
                        ],
                    ),
                    text("%Y-%m-%d", d),
                ],
            ),
            DateUnit::Quarter => {
                let first_month = binary(
                    binary(
                        nested(binary(call("QUARTER", vec![operand()?]), Op::Minus, int(1))),
                        Op::Multiply,
                        int(3),
                    ),
                    Op::Plus,
                    int(1),
                );
                call(
                    "CONCAT",
                    vec![
                        call("YEAR", vec![x]),
                        text("-", d),
                        call("LPAD", vec![first_month, int(2), text("0", d)]),
                        text("-01", d),
                    ],
                )
            }
        },
        Dialect::SqlServer => {
            let unit_name = if unit == DateUnit::Week {
                "iso_week"
            } else {
                unit.as_str()
            };
            call(
                "FORMAT",
                vec![
                    call(
                        "DATETRUNC",
                        vec![SqlExpr::Identifier(keyword(unit_name)), x],
                    ),
                    text(day_or_hour(unit, "yyyy-MM-dd", "yyyy-MM-dd HH:00:00"), d),
                ],
            )
        }
        // Spark's weeks start on Monday too.
        Dialect::Spark => call(
            "DATE_FORMAT",
            vec![
                call("DATE_TRUNC", vec![text(unit.as_str(), d), timestamp(x)]),
                text(day_or_hour(unit, "yyyy-MM-dd", "yyyy-MM-dd HH:00:00"), d),
            ],
        ),
    })
}

fn day_or_hour(unit: DateUnit, day: &'static str, hour: &'static str) -> &'static str {
    if unit == DateUnit::Hour {
        hour
    } else {
        day
    }
}

fn interval(value: SqlExpr, unit: Option<DateTimeField>) -> SqlExpr {
    SqlExpr::Interval(sqlparser::ast::Interval {
        value: Box::new(value),
        leading_field: unit,
        leading_precision: None,
        last_field: None,
        fractional_seconds_precision: None,
    })
}

/// How many of the smaller unit one `unit` step is, for the dialects that only count in
/// months and days.
fn step(unit: DateUnit) -> (i64, &'static str) {
    match unit {
        DateUnit::Year => (1, "year"),
        DateUnit::Quarter => (3, "month"),
        DateUnit::Month => (1, "month"),
        DateUnit::Week => (7, "day"),
        DateUnit::Day => (1, "day"),
        DateUnit::Hour => (1, "hour"),
    }
}

fn times(n: SqlExpr, k: i64) -> SqlExpr {
    if k == 1 {
        n
    } else {
        nested(binary(nested(n), Op::Multiply, int(k)))
    }
}

/// `DATE_ADD(unit, n, x)`.
pub fn add(unit: DateUnit, n: SqlExpr, x: SqlExpr, d: Dialect) -> SqlExpr {
    let (k, small) = step(unit);
    let n = times(n, k);
    match d {
        Dialect::Sqlite => {
            let modifier = binary(
                cast(n, custom_type("TEXT", &[])),
                Op::StringConcat,
                text(&format!(" {small}s"), d),
            );
            let f = if unit == DateUnit::Hour {
                "DATETIME"
            } else {
                "DATE"
            };
            let mut args = vec![x, modifier];
            if matches!(small, "month" | "year") {
                // Jan 31 + 1 month is Feb 28/29 in the other databases; SQLite runs over into
                // March unless told to clamp (the `floor` modifier, SQLite 3.46+).
                args.push(text("floor", d));
            }
            call(f, args)
        }
        Dialect::Postgres | Dialect::DuckDb => {
            let moved = binary(
                timestamp(x),
                Op::Plus,
                binary(
                    nested(n),
                    Op::Multiply,
                    interval(text(&format!("1 {small}"), d), None),
                ),
            );
            let (f, day, hour) = if d == Dialect::Postgres {
                ("TO_CHAR", "YYYY-MM-DD", "YYYY-MM-DD HH24:MI:SS")
            } else {
                ("STRFTIME", "%Y-%m-%d", "%Y-%m-%d %H:%M:%S")
            };
            call(f, vec![moved, text(day_or_hour(unit, day, hour), d)])
        }
        // Spark wants the interval's unit outside its quotes, and clamps a month's end as
        // the others do (Jan 31 + 1 month is Feb 28/29).
        Dialect::Spark => {
            let field = match small {
                "year" => DateTimeField::Year,
                "month" => DateTimeField::Month,
                "hour" => DateTimeField::Hour,
                _ => DateTimeField::Day,
            };
            let moved = binary(
                timestamp(x),
                Op::Plus,
                binary(nested(n), Op::Multiply, interval(int(1), Some(field))),
            );
            call(
                "DATE_FORMAT",
                vec![
                    moved,
                    text(day_or_hour(unit, "yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss"), d),
                ],
            )
        }
        Dialect::MySql => {
            let field = match small {
                "year" => DateTimeField::Year,
                "month" => DateTimeField::Month,
                "hour" => DateTimeField::Hour,
                _ => DateTimeField::Day,
            };
            call(
                "DATE_FORMAT",
                vec![
                    call("DATE_ADD", vec![x, interval(n, Some(field))]),
                    text(day_or_hour(unit, "%Y-%m-%d", "%Y-%m-%d %H:%i:%s"), d),
                ],
            )
        }
        Dialect::SqlServer => call(
            "FORMAT",
            vec![
                call("DATEADD", vec![SqlExpr::Identifier(keyword(small)), n, x]),
                text(day_or_hour(unit, "yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss"), d),
            ],
        ),
    }
}

fn minus(a: SqlExpr, b: SqlExpr) -> SqlExpr {
    nested(binary(a, Op::Minus, b))
}

/// Months (or quarters) since year zero, for boundary counting from parts.
fn ordinal(unit: DateUnit, x: Operand, d: Dialect) -> Result<SqlExpr, LowerError> {
    let per_year = if unit == DateUnit::Quarter { 4 } else { 12 };
    Ok(nested(binary(
        binary(part(DateUnit::Year, x, d)?, Op::Multiply, int(per_year)),
        Op::Plus,
        part(unit, x, d)?,
    )))
}

fn days_between(a: SqlExpr, b: SqlExpr, d: Dialect) -> SqlExpr {
    match d {
        Dialect::Sqlite => to_int(
            minus(
                call("JULIANDAY", vec![call("DATE", vec![b])]),
                call("JULIANDAY", vec![call("DATE", vec![a])]),
            ),
            d,
        ),
        Dialect::Postgres => to_int(minus(as_date(b), as_date(a)), d),
        Dialect::DuckDb => call("DATE_DIFF", vec![text("day", d), as_date(a), as_date(b)]),
        Dialect::MySql => call("DATEDIFF", vec![b, a]),
        Dialect::SqlServer => call("DATEDIFF", vec![SqlExpr::Identifier(keyword("day")), a, b]),
        Dialect::Spark => call("DATEDIFF", vec![as_date(b), as_date(a)]),
    }
}

/// `DATE_DIFF(unit, a, b)`.
pub fn diff(
    unit: DateUnit,
    first: Operand,
    second: Operand,
    d: Dialect,
) -> Result<SqlExpr, LowerError> {
    Ok(match unit {
        DateUnit::Year => minus(part(unit, second, d)?, part(unit, first, d)?),
        DateUnit::Quarter | DateUnit::Month => {
            minus(ordinal(unit, second, d)?, ordinal(unit, first, d)?)
        }
        DateUnit::Day => days_between(first()?, second()?, d),
        DateUnit::Week => weeks_between(first()?, second()?, d),
        DateUnit::Hour => hours_between(first()?, second()?, d),
    })
}

/// Whole weeks from `a` to `b`: days / 7, toward zero.
fn weeks_between(a: SqlExpr, b: SqlExpr, d: Dialect) -> SqlExpr {
    let days = days_between(a, b, d);
    match d {
        // Integer division already truncates toward zero here.
        Dialect::Sqlite | Dialect::Postgres | Dialect::SqlServer => {
            nested(binary(days, Op::Divide, int(7)))
        }
        Dialect::MySql => call("TRUNCATE", vec![binary(days, Op::Divide, int(7)), int(0)]),
        Dialect::DuckDb => to_int(call("TRUNC", vec![binary(days, Op::Divide, int(7))]), d),
        // `DIV` truncates toward zero.
        Dialect::Spark => nested(binary(days, Op::MyIntegerDivide, int(7))),
    }
}

/// Hour boundaries crossed from `a` to `b`.
fn hours_between(a: SqlExpr, b: SqlExpr, d: Dialect) -> SqlExpr {
    match d {
        Dialect::Sqlite => {
            let hour = |x| {
                call(
                    "JULIANDAY",
                    vec![call("STRFTIME", vec![text("%Y-%m-%d %H:00:00", d), x])],
                )
            };
            to_int(
                call(
                    "ROUND",
                    vec![binary(minus(hour(b), hour(a)), Op::Multiply, int(24))],
                ),
                d,
            )
        }
        Dialect::Postgres => {
            let hour = |x| call("DATE_TRUNC", vec![text("hour", d), timestamp(x)]);
            to_int(
                binary(
                    SqlExpr::Extract {
                        field: DateTimeField::Epoch,
                        syntax: ExtractSyntax::From,
                        expr: Box::new(minus(hour(b), hour(a))),
                    },
                    Op::Divide,
                    int(3600),
                ),
                d,
            )
        }
        Dialect::DuckDb => call(
            "DATE_DIFF",
            vec![text("hour", d), timestamp(a), timestamp(b)],
        ),
        Dialect::MySql => {
            let hour = |x| call("DATE_FORMAT", vec![x, text("%Y-%m-%d %H:00:00", d)]);
            call(
                "TIMESTAMPDIFF",
                vec![SqlExpr::Identifier(keyword("HOUR")), hour(a), hour(b)],
            )
        }
        Dialect::SqlServer => call("DATEDIFF", vec![SqlExpr::Identifier(keyword("hour")), a, b]),
        Dialect::Spark => {
            let hour = |x| call("DATE_TRUNC", vec![text("hour", d), timestamp(x)]);
            call(
                "TIMESTAMPDIFF",
                vec![SqlExpr::Identifier(keyword("HOUR")), hour(a), hour(b)],
            )
        }
    }
}

/// `CURRENT_DATE`: the pinned day when the `today` setting gives one, else the database's.
pub fn current_date(today: Option<&str>, d: Dialect) -> SqlExpr {
    match (today, d) {
        (Some(day), Dialect::Sqlite) => text(day, d),
        (Some(day), _) => as_date(text(day, d)),
        (None, Dialect::Sqlite) => call("DATE", vec![text("now", d)]),
        (None, Dialect::SqlServer) => as_date(call("GETDATE", vec![])),
        (None, Dialect::MySql) => call("CURDATE", vec![]),
        (None, _) => super::build::bare_call("CURRENT_DATE"),
    }
}
