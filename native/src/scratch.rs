//! The aggregator's scratch database natively: a fresh in-memory SQLite per combination,
//! filled with bound parameters, then locked like every datasource before the query runs.

use crate::sqlite_file::SqliteFile;
use nl2sql_core::adapter::{create_statement, insert_statement, Scratch, ScratchTable};
use nl2sql_core::adapter::{
    DatasourceError, DatasourceErrorKind, ExecLimits, LocalBoxFuture, ResultFrame, Value,
};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{params_from_iter, Connection};

/// In-memory SQLite through rusqlite's bundled SQLite.
pub struct MemoryScratch;

impl Scratch for MemoryScratch {
    fn query<'a>(
        &'a self,
        tables: &'a [ScratchTable],
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(std::future::ready(combine(tables, sql, limits)))
    }
}

fn combine(
    tables: &[ScratchTable],
    sql: &str,
    limits: ExecLimits,
) -> Result<ResultFrame, DatasourceError> {
    let unavailable =
        |e: rusqlite::Error| DatasourceError::new(DatasourceErrorKind::Unavailable, e.to_string());
    let mut conn = Connection::open_in_memory().map_err(unavailable)?;
    let tx = conn.transaction().map_err(unavailable)?;
    for table in tables {
        tx.execute(&create_statement(table), [])
            .map_err(unavailable)?;
        let mut insert = tx.prepare(&insert_statement(table)).map_err(unavailable)?;
        for row in &table.rows {
            insert
                .execute(params_from_iter(row.iter().map(Bound)))
                .map_err(unavailable)?;
        }
    }
    tx.commit().map_err(unavailable)?;
    SqliteFile::lock("scratch", conn)?.run(sql, limits)
}

/// A value bound as a parameter.
struct Bound<'v>(&'v Value);

impl rusqlite::ToSql for Bound<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self.0 {
            Value::Null => ValueRef::Null,
            Value::Integer(i) => ValueRef::Integer(*i),
            Value::Real(r) => ValueRef::Real(*r),
            Value::Text(t) => ValueRef::Text(t.as_bytes()),
            Value::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_load_by_binding_and_the_query_stays_read_only() {
        let tables = [ScratchTable {
            name: "q1".into(),
            columns: vec!["name".into(), "n".into()],
            rows: vec![
                vec![
                    Value::Text("Robert'); DROP TABLE q1; --".into()),
                    Value::Integer(2),
                ],
                vec![Value::Text("Ann".into()), Value::Real(1.5)],
            ],
        }];
        let limits = ExecLimits::rows(10);
        let frame = combine(&tables, "SELECT name, n FROM q1 ORDER BY n", limits).unwrap();
        assert_eq!(
            frame.rows[0],
            vec![Value::Text("Ann".into()), Value::Real(1.5)]
        );
        assert_eq!(
            frame.rows[1][0],
            Value::Text("Robert'); DROP TABLE q1; --".into())
        );
        let refused = combine(&tables, "DELETE FROM q1", limits).unwrap_err();
        assert_eq!(refused.kind, DatasourceErrorKind::Refused);
    }
}
