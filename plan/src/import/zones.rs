//! Time zone conversions read as the plan's `CONVERT_TZ(x, from, to)`: PostgreSQL's and
//! DuckDB's `(x AT TIME ZONE from) AT TIME ZONE to` (also as `timezone(to, timezone(from,
//! x))`), Spark's `from_utc_timestamp(x, to)` and `to_utc_timestamp(x, from)`; MySQL's
//! `CONVERT_TZ` is the plan's own name. Read only where `x` has no zone of its own: a
//! value with one (PostgreSQL's `timestamptz`) means something else in the same words.

use super::dates::call_args;
use super::{call, Importer, R};
use crate::dialect::Dialect;
use crate::Expr;
use sqlparser::ast::{self, DataType, Expr as SqlExpr, TimezoneInfo};

impl Importer<'_> {
    /// `(x AT TIME ZONE from) AT TIME ZONE to` as `CONVERT_TZ`; `None` for another shape.
    pub(super) fn zone_conversion(&self, outer: &SqlExpr, to: &SqlExpr) -> R<Option<Expr>> {
        if !matches!(self.dialect, Dialect::Postgres | Dialect::DuckDb) {
            return Ok(None);
        }
        match unnested(outer) {
            SqlExpr::AtTimeZone {
                timestamp,
                time_zone,
            } if self.zone_less(timestamp) => self.converted(timestamp, time_zone, to).map(Some),
            _ => Ok(None),
        }
    }

    /// A function spelling of a conversion; `None` when `f` is none.
    pub(super) fn zone_spelling(&self, f: &ast::Function) -> R<Option<Expr>> {
        let name = f.name.to_string().to_ascii_uppercase();
        let Some(args) = call_args(f) else {
            return Ok(None);
        };
        let utc = SqlExpr::value(ast::Value::SingleQuotedString("UTC".into()));
        match (name.as_str(), args.as_slice(), self.dialect) {
            ("TIMEZONE", [to, SqlExpr::Function(inner)], Dialect::Postgres | Dialect::DuckDb) => {
                let inner_name = inner.name.to_string();
                match call_args(inner).as_deref() {
                    Some([from, x])
                        if inner_name.eq_ignore_ascii_case("timezone") && self.zone_less(x) =>
                    {
                        self.converted(x, from, to).map(Some)
                    }
                    _ => Ok(None),
                }
            }
            ("FROM_UTC_TIMESTAMP", [x, to], Dialect::Spark) => {
                self.converted(x, &utc, to).map(Some)
            }
            ("TO_UTC_TIMESTAMP", [x, from], Dialect::Spark) => {
                self.converted(x, from, &utc).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn converted(&self, x: &SqlExpr, from: &SqlExpr, to: &SqlExpr) -> R<Expr> {
        Ok(call(
            "CONVERT_TZ",
            vec![self.expr(x)?, self.expr(from)?, self.expr(to)?],
        ))
    }

    /// Whether `e` surely has no zone: a cast or a literal of a zone-less timestamp, or a
    /// column every table that has one by its name declares a zone-less timestamp.
    fn zone_less(&self, e: &SqlExpr) -> bool {
        match unnested(e) {
            SqlExpr::Cast { data_type, .. } => zone_less_type(data_type),
            SqlExpr::TypedString(t) => zone_less_type(&t.data_type),
            SqlExpr::Identifier(name) => self.zone_less_column(&name.value),
            SqlExpr::CompoundIdentifier(parts) => parts
                .last()
                .is_some_and(|name| self.zone_less_column(&name.value)),
            _ => false,
        }
    }

    fn zone_less_column(&self, name: &str) -> bool {
        let mut declared = self
            .schema
            .tables
            .iter()
            .filter_map(|t| t.column(name))
            .map(|c| c.declared_type.to_ascii_lowercase())
            .peekable();
        declared.peek().is_some()
            && declared.all(|t| {
                let zoned = t.contains("with time zone") || t.contains("tz");
                (t.starts_with("timestamp") || t.starts_with("datetime")) && !zoned
            })
    }
}

fn unnested(e: &SqlExpr) -> &SqlExpr {
    match e {
        SqlExpr::Nested(inner) => unnested(inner),
        other => other,
    }
}

fn zone_less_type(t: &DataType) -> bool {
    match t {
        DataType::Timestamp(_, tz) => {
            matches!(tz, TimezoneInfo::None | TimezoneInfo::WithoutTimeZone)
        }
        DataType::Datetime(_) | DataType::TimestampNtz(_) => true,
        _ => false,
    }
}
