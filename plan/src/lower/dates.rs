//! The portable date functions, rendered per dialect.
//!
//! Semantics, the same on every dialect: `DATE_PART` is an integer (weeks are ISO weeks;
//! `dow` is 0 for Sunday, `isodow` 1 for Monday; `epoch` whole seconds, the value read as
//! UTC). `DATE_TRUNC` and `DATE_ADD` keep the value's kind ([`Temporal`]): a date stays a
//! date and a timestamp a timestamp, and a unit shorter than a day gives a timestamp; weeks
//! start on Monday; a month's end clamps when moved (Jan 31 + 1 month is Feb 28/29).
//! `DATE_DIFF` counts unit boundaries crossed, and whole weeks (days / 7, toward zero). On
//! SQLite, which keeps dates as text, a date is `'YYYY-MM-DD'` and a timestamp
//! `'YYYY-MM-DD HH:MM:SS'`.

use super::build::{binary, call, case, case_when, cast, custom_type, int, keyword, nested, text};
use super::temporal::Temporal;
use super::LowerError;
use crate::dialect::Dialect;
use crate::functions::{DateUnit, NameOf};
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

fn to_bigint(e: SqlExpr, dialect: Dialect) -> SqlExpr {
    match dialect {
        Dialect::MySql => cast(e, custom_type("SIGNED", &[])),
        _ => cast(e, custom_type("BIGINT", &[])),
    }
}

fn timestamp(e: SqlExpr) -> SqlExpr {
    cast(e, custom_type("TIMESTAMP", &[]))
}

fn as_date(e: SqlExpr) -> SqlExpr {
    cast(e, custom_type("DATE", &[]))
}

/// `e` as a value of `kind` in a dialect with date types.
fn of_kind(e: SqlExpr, kind: Temporal, d: Dialect) -> SqlExpr {
    match (kind, d) {
        (Temporal::Date, _) => as_date(e),
        (Temporal::Timestamp, Dialect::MySql) => cast(e, custom_type("DATETIME", &[])),
        (Temporal::Timestamp, Dialect::SqlServer) => cast(e, custom_type("DATETIME2", &[])),
        (Temporal::Timestamp, _) => timestamp(e),
    }
}

fn field(unit: DateUnit) -> DateTimeField {
    match unit {
        DateUnit::Year => DateTimeField::Year,
        DateUnit::Quarter => DateTimeField::Quarter,
        DateUnit::Month => DateTimeField::Month,
        DateUnit::Week => DateTimeField::Week(None),
        DateUnit::Day => DateTimeField::Day,
        DateUnit::Hour => DateTimeField::Hour,
        DateUnit::Minute => DateTimeField::Minute,
        DateUnit::Second => DateTimeField::Second,
        DateUnit::DayOfWeek => DateTimeField::Dow,
        DateUnit::IsoDayOfWeek => DateTimeField::Isodow,
        DateUnit::DayOfYear => DateTimeField::Doy,
        DateUnit::Epoch => DateTimeField::Epoch,
    }
}

fn sqlite_format(unit: DateUnit) -> &'static str {
    match unit {
        DateUnit::Year => "%Y",
        DateUnit::Month | DateUnit::Quarter => "%m",
        DateUnit::Week => "%V",
        DateUnit::Day => "%d",
        DateUnit::Hour => "%H",
        DateUnit::Minute => "%M",
        DateUnit::Second => "%S",
        DateUnit::DayOfWeek | DateUnit::IsoDayOfWeek => "%w",
        DateUnit::DayOfYear => "%j",
        DateUnit::Epoch => "%s",
    }
}

fn plus(a: SqlExpr, n: i64) -> SqlExpr {
    binary(a, Op::Plus, int(n))
}

fn modulo(a: SqlExpr, n: i64) -> SqlExpr {
    binary(nested(a), Op::Modulo, int(n))
}

/// A day of the week counted from Sunday = 0 made ISO (Monday = 1 … Sunday = 7).
fn iso_from_sunday_zero(dow: SqlExpr) -> SqlExpr {
    nested(plus(modulo(plus(dow, 6), 7), 1))
}

/// `DATE_PART(unit, x)`.
pub fn part(unit: DateUnit, x: Operand, d: Dialect) -> Result<SqlExpr, LowerError> {
    let x = x()?;
    Ok(match d {
        Dialect::Sqlite => {
            let n = to_int(call("STRFTIME", vec![text(sqlite_format(unit), d), x]), d);
            match unit {
                DateUnit::Quarter => quarter_of_month(n),
                DateUnit::IsoDayOfWeek => iso_from_sunday_zero(n),
                _ => n,
            }
        }
        Dialect::Postgres => {
            let extracted = SqlExpr::Extract {
                field: field(unit),
                syntax: ExtractSyntax::From,
                expr: Box::new(timestamp(x)),
            };
            match unit {
                // Seconds and the epoch come with a fraction; a cast would round it.
                DateUnit::Second => to_int(call("FLOOR", vec![extracted]), d),
                DateUnit::Epoch => to_bigint(call("FLOOR", vec![extracted]), d),
                _ => to_int(extracted, d),
            }
        }
        Dialect::DuckDb => {
            let extracted = call("DATE_PART", vec![text(unit.as_str(), d), timestamp(x)]);
            match unit {
                DateUnit::Epoch => to_bigint(call("FLOOR", vec![extracted]), d),
                _ => to_int(extracted, d),
            }
        }
        Dialect::MySql => match unit {
            DateUnit::Week => call("WEEK", vec![x, int(3)]),
            DateUnit::DayOfWeek => nested(binary(call("DAYOFWEEK", vec![x]), Op::Minus, int(1))),
            DateUnit::IsoDayOfWeek => nested(plus(call("WEEKDAY", vec![x]), 1)),
            DateUnit::DayOfYear => call("DAYOFYEAR", vec![x]),
            // UNIX_TIMESTAMP reads the value in the session's time zone.
            DateUnit::Epoch => call(
                "TIMESTAMPDIFF",
                vec![
                    SqlExpr::Identifier(keyword("SECOND")),
                    text("1970-01-01 00:00:00", d),
                    x,
                ],
            ),
            _ => call(&unit.as_str().to_ascii_uppercase(), vec![x]),
        },
        Dialect::SqlServer => {
            // Day counts from a known Sunday (1900-01-07) and Monday (1900-01-01): DATEPART's
            // weekday depends on the session's DATEFIRST.
            let days_since = |from: &str, x| {
                call(
                    "DATEDIFF",
                    vec![SqlExpr::Identifier(keyword("day")), text(from, d), x],
                )
            };
            match unit {
                DateUnit::DayOfWeek => modulo(plus(modulo(days_since("19000107", x), 7), 7), 7),
                DateUnit::IsoDayOfWeek => nested(plus(
                    modulo(plus(modulo(days_since("19000101", x), 7), 7), 7),
                    1,
                )),
                DateUnit::Epoch => call(
                    "DATEDIFF_BIG",
                    vec![
                        SqlExpr::Identifier(keyword("second")),
                        text("19700101", d),
                        x,
                    ],
                ),
                _ => {
                    let name = match unit {
                        DateUnit::Week => "iso_week",
                        DateUnit::DayOfYear => "dayofyear",
                        u => u.as_str(),
                    };
                    call("DATEPART", vec![SqlExpr::Identifier(keyword(name)), x])
                }
            }
        }
        // Spark's WEEKOFYEAR is the ISO week; DAYOFWEEK is 1 for Sunday.
        Dialect::Spark => {
            let f = match unit {
                DateUnit::Year => "YEAR",
                DateUnit::Quarter => "QUARTER",
                DateUnit::Month => "MONTH",
                DateUnit::Week => "WEEKOFYEAR",
                DateUnit::Day => "DAYOFMONTH",
                DateUnit::Hour => "HOUR",
                DateUnit::Minute => "MINUTE",
                DateUnit::Second => "SECOND",
                DateUnit::DayOfYear => "DAYOFYEAR",
                DateUnit::DayOfWeek | DateUnit::IsoDayOfWeek => "DAYOFWEEK",
                DateUnit::Epoch => {
                    return Ok(call(
                        "TIMESTAMPDIFF",
                        vec![
                            SqlExpr::Identifier(keyword("SECOND")),
                            timestamp(text("1970-01-01 00:00:00", d)),
                            timestamp(x),
                        ],
                    ))
                }
            };
            let n = to_int(call(f, vec![timestamp(x)]), d);
            match unit {
                DateUnit::DayOfWeek => nested(binary(n, Op::Minus, int(1))),
                DateUnit::IsoDayOfWeek => {
                    iso_from_sunday_zero(nested(binary(n, Op::Minus, int(1))))
                }
                _ => n,
            }
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

/// The strftime pattern that cuts a timestamp to `unit` (units below a day).
fn clock_format(unit: DateUnit, d: Dialect) -> &'static str {
    match (unit, d) {
        (DateUnit::Hour, Dialect::MySql) => "%Y-%m-%d %H:00:00",
        (DateUnit::Minute, Dialect::MySql) => "%Y-%m-%d %H:%i:00",
        (_, Dialect::MySql) => "%Y-%m-%d %H:%i:%s",
        (DateUnit::Hour, _) => "%Y-%m-%d %H:00:00",
        (DateUnit::Minute, _) => "%Y-%m-%d %H:%M:00",
        _ => "%Y-%m-%d %H:%M:%S",
    }
}

/// `DATE_TRUNC(unit, x)`, giving a value of `kind`. A value of no known kind (text, an
/// expression) is cut as a date on SQLite and MySQL, which keep dates as text, and as a
/// timestamp elsewhere (its value, whatever its type).
pub fn trunc(
    unit: DateUnit,
    operand: Operand,
    kind: Option<Temporal>,
    d: Dialect,
) -> Result<SqlExpr, LowerError> {
    let x = operand()?;
    Ok(match d {
        Dialect::Sqlite => {
            if unit.is_time_of_day() {
                return Ok(call("STRFTIME", vec![text(clock_format(unit, d), d), x]));
            }
            let f = match kind {
                Some(Temporal::Timestamp) => "DATETIME",
                _ => "DATE",
            };
            let modifiers: &[&str] = match unit {
                DateUnit::Year => &["start of year"],
                DateUnit::Month => &["start of month"],
                DateUnit::Day => &["start of day"],
                DateUnit::Week => &["start of day", "-6 days", "weekday 1"],
                _ => {
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
                    return Ok(call(f, vec![x, text("start of month", d), back]));
                }
            };
            let mut args = vec![x];
            args.extend(modifiers.iter().map(|m| text(m, d)));
            call(f, args)
        }
        Dialect::Postgres | Dialect::DuckDb | Dialect::Spark => {
            let cut = call("DATE_TRUNC", vec![text(unit.as_str(), d), timestamp(x)]);
            match kind {
                Some(Temporal::Date) => as_date(cut),
                _ => cut,
            }
        }
        Dialect::MySql => {
            let cut = match unit {
                DateUnit::Year => call("DATE_FORMAT", vec![x, text("%Y-01-01", d)]),
                DateUnit::Month => call("DATE_FORMAT", vec![x, text("%Y-%m-01", d)]),
                DateUnit::Day => call("DATE_FORMAT", vec![x, text("%Y-%m-%d", d)]),
                DateUnit::Week => call(
                    "DATE_FORMAT",
                    vec![
                        call(
                            "DATE_SUB",
                            vec![
                                x,
                                interval(
                                    call("WEEKDAY", vec![operand()?]),
                                    Some(DateTimeField::Day),
                                ),
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
                _ => call("DATE_FORMAT", vec![x, text(clock_format(unit, d), d)]),
            };
            match kind {
                Some(kind) => of_kind(cut, kind, d),
                None => cut,
            }
        }
        Dialect::SqlServer => {
            let name = if unit == DateUnit::Week {
                "iso_week"
            } else {
                unit.as_str()
            };
            let x = match kind {
                Some(Temporal::Timestamp) => of_kind(x, Temporal::Timestamp, d),
                _ => x,
            };
            let cut = call("DATETRUNC", vec![SqlExpr::Identifier(keyword(name)), x]);
            match kind {
                Some(Temporal::Date) => as_date(cut),
                _ => cut,
            }
        }
    })
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

/// A `range` frame's offset of `n` units, as the dialect writes an interval (SQLite,
/// whose window orders by [`millis`] there, as milliseconds).
pub fn frame_offset(unit: DateUnit, n: i64, d: Dialect) -> Result<SqlExpr, LowerError> {
    if !unit.is_period() {
        return Err(crate::Error::unbuildable(format!(
            "A frame's offsets count periods; {unit} is a part."
        )));
    }
    let out_of_range =
        || crate::Error::unbuildable(format!("The frame offset {n} {unit}s is too large."));
    let (k, small) = step(unit);
    let amount = n.checked_mul(k).ok_or_else(out_of_range)?;
    Ok(match d {
        Dialect::Sqlite => {
            let seconds = match unit {
                DateUnit::Week => 604_800,
                DateUnit::Day => 86_400,
                DateUnit::Hour => 3_600,
                DateUnit::Minute => 60,
                DateUnit::Second => 1,
                _ => {
                    return Err(crate::Error::unbuildable(format!(
                        "SQLite's RANGE frames count numbers, so a frame of {unit}s (whose \
                         length varies) has no exact form there; count days instead."
                    )))
                }
            };
            let millis = n.checked_mul(seconds * 1_000).ok_or_else(out_of_range)?;
            int(millis)
        }
        Dialect::Postgres | Dialect::DuckDb => {
            interval(text(&format!("{amount} {small}s"), d), None)
        }
        Dialect::MySql | Dialect::Spark => interval(int(amount), Some(step_field(small))),
        Dialect::SqlServer => {
            return Err(crate::Error::unbuildable(
                "SQL Server's RANGE frames take no offsets; count rows (ROWS) instead.",
            ))
        }
    })
}

/// A SQLite moment as whole milliseconds since 1970 (exact to the millisecond: a Julian day
/// number's double resolves about 50 microseconds).
pub fn millis(x: SqlExpr) -> SqlExpr {
    to_int(
        call(
            "ROUND",
            vec![binary(
                nested(binary(
                    call("JULIANDAY", vec![x]),
                    Op::Minus,
                    SqlExpr::Value(sqlparser::ast::Value::Number("2440587.5".into(), false).into()),
                )),
                Op::Multiply,
                int(86_400_000),
            )],
        ),
        Dialect::Sqlite,
    )
}

/// How many of the smaller unit one `unit` step is, for the dialects that only count in
/// months and days.
fn step(unit: DateUnit) -> (i64, &'static str) {
    match unit {
        DateUnit::Year => (1, "year"),
        DateUnit::Quarter => (3, "month"),
        DateUnit::Week => (7, "day"),
        DateUnit::Hour => (1, "hour"),
        DateUnit::Minute => (1, "minute"),
        DateUnit::Second => (1, "second"),
        DateUnit::Day => (1, "day"),
        _ => (1, "month"),
    }
}

fn step_field(small: &str) -> DateTimeField {
    match small {
        "year" => DateTimeField::Year,
        "month" => DateTimeField::Month,
        "hour" => DateTimeField::Hour,
        "minute" => DateTimeField::Minute,
        "second" => DateTimeField::Second,
        _ => DateTimeField::Day,
    }
}

fn times(n: SqlExpr, k: i64) -> SqlExpr {
    if k == 1 {
        n
    } else {
        nested(binary(nested(n), Op::Multiply, int(k)))
    }
}

/// `DATE_ADD(unit, n, x)`, giving a value of `kind`; one of no known kind as
/// [`trunc`] does.
pub fn add(unit: DateUnit, n: SqlExpr, x: SqlExpr, kind: Option<Temporal>, d: Dialect) -> SqlExpr {
    let (k, small) = step(unit);
    let n = times(n, k);
    match d {
        Dialect::Sqlite => {
            let modifier = binary(
                cast(n, custom_type("TEXT", &[])),
                Op::StringConcat,
                text(&format!(" {small}s"), d),
            );
            let f = match kind {
                Some(Temporal::Timestamp) => "DATETIME",
                _ => "DATE",
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
            match kind {
                Some(Temporal::Date) => as_date(moved),
                _ => moved,
            }
        }
        // Spark wants the interval's unit outside its quotes, and clamps a month's end as
        // the others do.
        Dialect::Spark => {
            let moved = binary(
                timestamp(x),
                Op::Plus,
                binary(
                    nested(n),
                    Op::Multiply,
                    interval(int(1), Some(step_field(small))),
                ),
            );
            match kind {
                Some(Temporal::Date) => as_date(moved),
                _ => moved,
            }
        }
        Dialect::MySql => {
            let moved = call("DATE_ADD", vec![x, interval(n, Some(step_field(small)))]);
            match kind {
                Some(kind) => of_kind(moved, kind, d),
                None => moved,
            }
        }
        Dialect::SqlServer => {
            let x = match kind {
                Some(Temporal::Timestamp) => of_kind(x, Temporal::Timestamp, d),
                _ => x,
            };
            let moved = call("DATEADD", vec![SqlExpr::Identifier(keyword(small)), n, x]);
            match kind {
                Some(Temporal::Date) => as_date(moved),
                _ => moved,
            }
        }
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
        DateUnit::Hour | DateUnit::Minute | DateUnit::Second => {
            clock_between(unit, first()?, second()?, d)
        }
        _ => {
            return Err(crate::Error::unbuildable(format!(
                "DATE_DIFF counts periods; {unit} is a part."
            )))
        }
    })
}

/// Whole weeks from `a` to `b`: days / 7, toward zero.
fn weeks_between(a: SqlExpr, b: SqlExpr, d: Dialect) -> SqlExpr {
    toward_zero(days_between(a, b, d), 7, d)
}

/// A whole number divided by `n`, toward zero.
fn toward_zero(whole: SqlExpr, n: i64, d: Dialect) -> SqlExpr {
    match d {
        // Integer division already truncates toward zero here.
        Dialect::Sqlite | Dialect::Postgres | Dialect::SqlServer => {
            nested(binary(whole, Op::Divide, int(n)))
        }
        Dialect::MySql => call("TRUNCATE", vec![binary(whole, Op::Divide, int(n)), int(0)]),
        Dialect::DuckDb => to_int(call("TRUNC", vec![binary(whole, Op::Divide, int(n))]), d),
        // `DIV` truncates toward zero.
        Dialect::Spark => nested(binary(whole, Op::MyIntegerDivide, int(n))),
    }
}

/// `ELAPSED(unit, a, b)`: whole units from `a` to `b`, toward zero. Calendar units count
/// months the way PostgreSQL's `AGE` and MySQL's `TIMESTAMPDIFF` do; the others are the
/// whole seconds between, divided by the unit's length.
pub fn elapsed(
    unit: DateUnit,
    first: Operand,
    second: Operand,
    d: Dialect,
) -> Result<SqlExpr, LowerError> {
    let seconds = || -> Result<SqlExpr, LowerError> {
        Ok(clock_between(DateUnit::Second, first()?, second()?, d))
    };
    let (whole, per) = match unit {
        // MySQL's TIMESTAMPDIFF counts exactly this, in every unit.
        _ if d == Dialect::MySql && unit.is_period() => {
            return Ok(call(
                "TIMESTAMPDIFF",
                vec![
                    SqlExpr::Identifier(keyword(&unit.as_str().to_ascii_uppercase())),
                    first()?,
                    second()?,
                ],
            ))
        }
        DateUnit::Month => return months_elapsed(first, second, d),
        DateUnit::Year => (months_elapsed(first, second, d)?, 12),
        DateUnit::Quarter => (months_elapsed(first, second, d)?, 3),
        DateUnit::Second => return seconds(),
        DateUnit::Minute => (seconds()?, 60),
        DateUnit::Hour => (seconds()?, 3_600),
        DateUnit::Day => (seconds()?, 86_400),
        DateUnit::Week => (seconds()?, 604_800),
        _ => {
            return Err(crate::Error::unbuildable(format!(
                "ELAPSED counts periods; {unit} is a part."
            )))
        }
    };
    Ok(toward_zero(whole, per, d))
}

/// Whole months from `a` to `b`: the months between their calendar months, less one when
/// `b`'s day and time of the month have not reached `a`'s (Jan 31 to Feb 29 is no month),
/// counted the same way backwards when `b` comes first.
fn months_elapsed(a: Operand, b: Operand, d: Dialect) -> Result<SqlExpr, LowerError> {
    let months = || -> Result<SqlExpr, LowerError> {
        Ok(minus(
            ordinal(DateUnit::Month, b, d)?,
            ordinal(DateUnit::Month, a, d)?,
        ))
    };
    // Seconds into the month, from whole parts.
    let into_month = |x: Operand| -> Result<SqlExpr, LowerError> {
        let scaled = |unit, n| -> Result<SqlExpr, LowerError> {
            Ok(binary(part(unit, x, d)?, Op::Multiply, int(n)))
        };
        let clock = binary(
            binary(
                scaled(DateUnit::Day, 86_400)?,
                Op::Plus,
                scaled(DateUnit::Hour, 3_600)?,
            ),
            Op::Plus,
            binary(
                scaled(DateUnit::Minute, 60)?,
                Op::Plus,
                part(DateUnit::Second, x, d)?,
            ),
        );
        Ok(nested(clock))
    };
    let short = |months_cmp: Op, clock_cmp: Op| -> Result<SqlExpr, LowerError> {
        Ok(binary(
            binary(months()?, months_cmp, int(0)),
            Op::And,
            binary(into_month(b)?, clock_cmp, into_month(a)?),
        ))
    };
    let correction = case_when(
        vec![
            (short(Op::Gt, Op::Lt)?, int(1)),
            (short(Op::Lt, Op::Gt)?, int(-1)),
        ],
        int(0),
    );
    Ok(minus(months()?, correction))
}

/// Hour, minute or second boundaries crossed from `a` to `b`: the two cut to the unit,
/// their difference in seconds, divided by the unit's length (exact: both are cut).
fn clock_between(unit: DateUnit, a: SqlExpr, b: SqlExpr, d: Dialect) -> SqlExpr {
    let seconds = match unit {
        DateUnit::Hour => 3600,
        DateUnit::Minute => 60,
        _ => 1,
    };
    let per = |e: SqlExpr| {
        if seconds == 1 {
            e
        } else {
            nested(binary(e, Op::Divide, int(seconds)))
        }
    };
    let name = unit.as_str();
    match d {
        Dialect::Sqlite => {
            let epoch = |x| {
                to_int(
                    call(
                        "STRFTIME",
                        vec![
                            text("%s", d),
                            call("STRFTIME", vec![text(clock_format(unit, d), d), x]),
                        ],
                    ),
                    d,
                )
            };
            per(minus(epoch(b), epoch(a)))
        }
        Dialect::Postgres => {
            let cut = |x| call("DATE_TRUNC", vec![text(name, d), timestamp(x)]);
            to_bigint(
                binary(
                    SqlExpr::Extract {
                        field: DateTimeField::Epoch,
                        syntax: ExtractSyntax::From,
                        expr: Box::new(minus(cut(b), cut(a))),
                    },
                    Op::Divide,
                    int(seconds),
                ),
                d,
            )
        }
        Dialect::DuckDb => call("DATE_DIFF", vec![text(name, d), timestamp(a), timestamp(b)]),
        Dialect::MySql => {
            let cut = |x| call("DATE_FORMAT", vec![x, text(clock_format(unit, d), d)]);
            call(
                "TIMESTAMPDIFF",
                vec![
                    SqlExpr::Identifier(keyword(&name.to_ascii_uppercase())),
                    cut(a),
                    cut(b),
                ],
            )
        }
        Dialect::SqlServer => call(
            if unit == DateUnit::Second {
                "DATEDIFF_BIG"
            } else {
                "DATEDIFF"
            },
            vec![SqlExpr::Identifier(keyword(name)), a, b],
        ),
        Dialect::Spark => {
            let cut = |x| call("DATE_TRUNC", vec![text(name, d), timestamp(x)]);
            call(
                "TIMESTAMPDIFF",
                vec![
                    SqlExpr::Identifier(keyword(&name.to_ascii_uppercase())),
                    cut(a),
                    cut(b),
                ],
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

/// `CURRENT_TIMESTAMP`: the start of the pinned day when the `today` setting gives one,
/// else the database's clock, without a time zone (SQLite's is UTC).
pub fn current_timestamp(today: Option<&str>, d: Dialect) -> SqlExpr {
    match (today, d) {
        (Some(day), Dialect::Sqlite) => text(&format!("{day} 00:00:00"), d),
        (Some(day), _) => of_kind(text(&format!("{day} 00:00:00"), d), Temporal::Timestamp, d),
        (None, Dialect::Sqlite) => call("DATETIME", vec![text("now", d)]),
        (None, Dialect::SqlServer) => of_kind(call("GETDATE", vec![]), Temporal::Timestamp, d),
        (None, Dialect::MySql) => call("NOW", vec![]),
        (None, Dialect::Postgres) => super::build::bare_call("LOCALTIMESTAMP"),
        (None, _) => timestamp(super::build::bare_call("CURRENT_TIMESTAMP")),
    }
}

/// `DAY_NAME(x)` or `MONTH_NAME(x)`: chosen by the day's or month's number, so the name is
/// English whatever the database's language setting.
pub fn name(of: NameOf, x: Operand, d: Dialect) -> Result<SqlExpr, LowerError> {
    const DAYS: [&str; 7] = [
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
    ];
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let (unit, names, first) = match of {
        NameOf::Day => (DateUnit::DayOfWeek, &DAYS[..], 0),
        NameOf::Month => (DateUnit::Month, &MONTHS[..], 1),
    };
    let arms = (first..)
        .zip(names)
        .map(|(k, name)| (int(k), text(name, d)))
        .collect();
    Ok(case(Some(part(unit, x, d)?), arms, None))
}

/// `MAKE_DATE(y, m, d)`: the parts as whole numbers (PostgreSQL's `make_date` takes
/// integers only, and `EXTRACT` gives numerics there; MySQL would print a decimal's `.0`).
pub fn make(y: SqlExpr, m: SqlExpr, day: SqlExpr, d: Dialect) -> SqlExpr {
    match d {
        Dialect::Sqlite => call("PRINTF", vec![text("%04d-%02d-%02d", d), y, m, day]),
        Dialect::MySql => call(
            "STR_TO_DATE",
            vec![
                call(
                    "CONCAT_WS",
                    vec![text("-", d), to_int(y, d), to_int(m, d), to_int(day, d)],
                ),
                text("%Y-%c-%e", d),
            ],
        ),
        Dialect::SqlServer => call(
            "DATEFROMPARTS",
            vec![to_int(y, d), to_int(m, d), to_int(day, d)],
        ),
        Dialect::Spark => call("MAKE_DATE", vec![y, m, day]),
        Dialect::Postgres | Dialect::DuckDb => call(
            "MAKE_DATE",
            vec![to_int(y, d), to_int(m, d), to_int(day, d)],
        ),
    }
}
