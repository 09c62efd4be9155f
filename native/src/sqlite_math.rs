//! SQLite's math functions for the bundled SQLite, which is built without them.
//!
//! The plan renders `CEIL`, `FLOOR`, `TRUNC`, `SQRT`, `POWER`, `LN`, `LOG10` and `EXP` on
//! SQLite as SQLite's own math functions (and a standard deviation as a square root); sql.js and most system SQLites
//! have them, the bundled one here does not (`SQLITE_ENABLE_MATH_FUNCTIONS` is off and a
//! build flag would not follow a plain `cargo install`). Registering them on each
//! connection gives every native SQLite the same functions, with SQLite's meaning: NULL in,
//! NULL out; an integer's ceiling, floor or truncation is itself; a result that is not a
//! number (the square root or logarithm of a negative) is NULL.

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::Connection;

/// Adds `ceil`/`ceiling`, `floor`, `trunc`, `sqrt`, `ln`, `log10`/`log`, `exp` and
/// `power`/`pow` to `conn`.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    for name in ["ceil", "ceiling"] {
        conn.create_scalar_function(name, 1, flags, |ctx| Ok(rounded(ctx, f64::ceil)))?;
    }
    conn.create_scalar_function("floor", 1, flags, |ctx| Ok(rounded(ctx, f64::floor)))?;
    conn.create_scalar_function("trunc", 1, flags, |ctx| Ok(rounded(ctx, f64::trunc)))?;
    // SQLite's one-argument `log` is base 10, as analysts' SQLite queries use it.
    let unary: [(&str, Unary); 5] = [
        ("sqrt", f64::sqrt),
        ("ln", f64::ln),
        ("log10", f64::log10),
        ("log", f64::log10),
        ("exp", f64::exp),
    ];
    for (name, f) in unary {
        conn.create_scalar_function(name, 1, flags, move |ctx| {
            Ok(number(ctx.get_raw(0)).map_or(Value::Null, |x| real(f(x))))
        })?;
    }
    for name in ["power", "pow"] {
        conn.create_scalar_function(name, 2, flags, |ctx| {
            Ok(match (number(ctx.get_raw(0)), number(ctx.get_raw(1))) {
                (Some(x), Some(y)) => real(x.powf(y)),
                _ => Value::Null,
            })
        })?;
    }
    Ok(())
}

/// A math function of one number.
type Unary = fn(f64) -> f64;

/// `ceil`/`floor`: an integer is already whole and stays an integer, as in SQLite.
fn rounded(ctx: &Context<'_>, round: fn(f64) -> f64) -> Value {
    match ctx.get_raw(0) {
        ValueRef::Integer(i) => Value::Integer(i),
        other => number(other).map_or(Value::Null, |x| real(round(x))),
    }
}

/// The argument as SQLite's math functions read it: NULL stays NULL, text is read as a
/// number as far as it looks like one (and as 0 when it does not), a blob counts as 0.
fn number(value: ValueRef<'_>) -> Option<f64> {
    match value {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(r) => Some(r),
        ValueRef::Text(t) => Some(leading_number(&String::from_utf8_lossy(t))),
        ValueRef::Blob(_) => Some(0.0),
    }
}

/// The longest prefix of `text` (after spaces) that reads as a number, else 0.
fn leading_number(text: &str) -> f64 {
    let text = text.trim_start();
    (1..=text.len())
        .rev()
        .filter(|&end| text.is_char_boundary(end))
        .find_map(|end| text[..end].trim_end().parse::<f64>().ok())
        .filter(|x| x.is_finite())
        .unwrap_or(0.0)
}

/// A real result; NaN (SQLite has none) becomes NULL.
fn real(x: f64) -> Value {
    if x.is_nan() {
        Value::Null
    } else {
        Value::Real(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(conn: &Connection, sql: &str) -> Value {
        conn.query_row(sql, [], |row| row.get(0)).expect(sql)
    }

    #[test]
    fn the_math_functions_mean_what_sqlites_own_mean() {
        let conn = Connection::open_in_memory().expect("in memory");
        register(&conn).expect("registered");
        assert_eq!(one(&conn, "SELECT ceil(2.1)"), Value::Real(3.0));
        assert_eq!(one(&conn, "SELECT ceiling(-2.9)"), Value::Real(-2.0));
        assert_eq!(one(&conn, "SELECT floor(-2.1)"), Value::Real(-3.0));
        assert_eq!(one(&conn, "SELECT ceil(7)"), Value::Integer(7));
        assert_eq!(one(&conn, "SELECT floor('2.5 apples')"), Value::Real(2.0));
        assert_eq!(one(&conn, "SELECT sqrt(16)"), Value::Real(4.0));
        assert_eq!(one(&conn, "SELECT sqrt(-1)"), Value::Null);
        assert_eq!(one(&conn, "SELECT sqrt(NULL)"), Value::Null);
        assert_eq!(one(&conn, "SELECT power(2, 10)"), Value::Real(1024.0));
        assert_eq!(one(&conn, "SELECT pow(2, NULL)"), Value::Null);
        assert_eq!(one(&conn, "SELECT floor('x')"), Value::Real(0.0));
        assert_eq!(one(&conn, "SELECT trunc(-2.7)"), Value::Real(-2.0));
        assert_eq!(one(&conn, "SELECT trunc(5)"), Value::Integer(5));
        assert_eq!(one(&conn, "SELECT ln(1)"), Value::Real(0.0));
        assert_eq!(one(&conn, "SELECT log10(1000)"), Value::Real(3.0));
        assert_eq!(one(&conn, "SELECT exp(0)"), Value::Real(1.0));
        assert_eq!(one(&conn, "SELECT ln(-1)"), Value::Null);
    }
}
