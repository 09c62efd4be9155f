//! `CONVERT_TZ(x, from, to)`: the wall-clock time in zone `to` at the moment when the
//! wall clock in zone `from` showed `x`. Zones are IANA names (`'UTC'`, `'Europe/Paris'`),
//! as literals or read from a column; the value has no zone of its own (one that has is
//! read in the session's zone first, as every date function reads it).
//!
//! Only engines that carry the zone database render it: PostgreSQL, DuckDB (its ICU time
//! zones) and Spark. MySQL gives NULL for a named zone unless its server's time zone
//! tables were loaded, SQLite has no zones, and SQL Server names them the Windows way: a
//! NULL or an error in place of the time would be a different answer, so those refuse.

use super::build::{call, cast, custom_type, nested};
use super::{fail, LowerError};
use crate::dialect::Dialect;
use sqlparser::ast::Expr as SqlExpr;

/// `x` moved from zone `from`'s wall clock to zone `to`'s, lowered for `d`.
pub(super) fn convert(
    x: SqlExpr,
    from: SqlExpr,
    to: SqlExpr,
    d: Dialect,
) -> Result<SqlExpr, LowerError> {
    let local = cast(x, custom_type("TIMESTAMP", &[]));
    match d {
        // A zone-less timestamp AT TIME ZONE is the moment; a moment AT TIME ZONE is the
        // wall-clock time there.
        Dialect::Postgres | Dialect::DuckDb => Ok(at_zone(nested(at_zone(local, from)), to)),
        Dialect::Spark => Ok(call(
            "FROM_UTC_TIMESTAMP",
            vec![call("TO_UTC_TIMESTAMP", vec![local, from]), to],
        )),
        Dialect::MySql => fail(
            "CONVERT_TZ has no exact form on MySQL or MariaDB: a named time zone gives NULL \
             unless the server's time zone tables are loaded.",
        ),
        Dialect::Sqlite => fail("CONVERT_TZ has no form on SQLite: it has no time zones."),
        Dialect::SqlServer => fail(
            "CONVERT_TZ has no exact form on SQL Server: its AT TIME ZONE takes Windows zone \
             names, not IANA ones.",
        ),
    }
}

fn at_zone(timestamp: SqlExpr, time_zone: SqlExpr) -> SqlExpr {
    SqlExpr::AtTimeZone {
        timestamp: Box::new(timestamp),
        time_zone: Box::new(time_zone),
    }
}
