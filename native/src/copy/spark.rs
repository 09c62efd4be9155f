//! The copy into a Spark database (created when missing): each table a Parquet table in the
//! server's warehouse, its keys and NOT NULL columns written into its
//! [`CONSTRAINTS_PROPERTY`] (Spark keeps neither for it), its rows sent in Arrow batches
//! and inserted with a cast to each column's type.
//!
//! Spark has no transactions: a copy that fails drops the tables it had created (tables
//! `--replace` dropped stay dropped).

// The client's own error (`SparkError`, 184 bytes) is what its calls return; closures that
// chain them pass it on as it is.
#![allow(clippy::result_large_err)]

use super::{kind_of, precision, select_all, CopyReport, Kind, PROGRESS_EVERY};
use crate::address::{redact, Address};
use crate::spark_db::{open_session, Constraints, CONSTRAINTS_PROPERTY};
use nl2sql_core::adapter::{quote_name, quote_text};
use nl2sql_core::adapter::{Column, Dialect, SchemaSnapshot, Table};
use nl2sql_core::error::Error;
use rusqlite::types::ValueRef;
use spark_connect::row::{Row, Value as Cell};
use spark_connect::{DataType, SparkSession, StructField};
use std::collections::BTreeMap;

/// Rows per batch sent: well under the client's 128 MiB message for any demo-sized row.
const BATCH: usize = 10_000;
/// The session's temporary view each batch is read from.
const STAGE: &str = "nl2sql_copy_rows";

pub(super) fn copy(
    schema: &SchemaSnapshot,
    rows: &rusqlite::Connection,
    target: &Address,
    replace: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<CopyReport, Error> {
    let Some(database) = target.database() else {
        return Err(crate::errors::copy_failed(format!(
            "{target} names no database; a copy into Spark writes into sc://host:port/database"
        )));
    };
    let (session, secret) =
        open_session(target).map_err(|e| crate::errors::copy_failed(e.to_string()))?;
    let spark = Spark {
        session,
        secret,
        database: database.to_string(),
    };
    spark.run(&format!(
        "CREATE DATABASE IF NOT EXISTS {}",
        quote_name(database, Dialect::Spark)
    ))?;
    let mut report = CopyReport::default();
    let mut created: Vec<String> = Vec::new();
    let outcome = schema.tables.iter().try_for_each(|table| {
        let n = spark.table(table, rows, replace, &mut created, progress)?;
        report.tables.push((table.name.clone(), n));
        Ok(())
    });
    // Best effort either way: the view holds the last batch only.
    let _ = spark.session.catalog().drop_temp_view(STAGE);
    match outcome {
        Ok(()) => Ok(report),
        Err(e) => {
            for name in &created {
                let _ = spark.run(&format!("DROP TABLE IF EXISTS {}", spark.name(name)));
            }
            Err(e)
        }
    }
}

struct Spark {
    session: SparkSession,
    secret: Option<String>,
    database: String,
}

impl Spark {
    /// Runs a statement of the copy's own.
    fn run(&self, sql: &str) -> Result<(), Error> {
        self.session
            .sql(sql)
            .and_then(|f| f.collect())
            .map(|_| ())
            .map_err(|e| crate::errors::copy_failed(redact(&e.to_string(), self.secret.as_deref())))
    }

    /// `table`'s name in the copy's database.
    fn name(&self, table: &str) -> String {
        format!(
            "{}.{}",
            quote_name(&self.database, Dialect::Spark),
            quote_name(table, Dialect::Spark)
        )
    }

    /// Creates `table` and copies its rows in; how many.
    fn table(
        &self,
        table: &Table,
        rows: &rusqlite::Connection,
        replace: bool,
        created: &mut Vec<String>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<u64, Error> {
        let fail = |e: String| crate::errors::copy_failed(format!("copying {}: {e}", table.name));
        let exists = self
            .session
            .catalog()
            .table_exists_with_database(&table.name, Some(&self.database))
            .map_err(|e| fail(redact(&e.to_string(), self.secret.as_deref())))?;
        if exists && !replace {
            return Err(crate::errors::copy_failed(format!(
                "table {} already exists in Spark database {}; --replace drops it first",
                table.name, self.database
            )));
        }
        if exists {
            self.run(&format!("DROP TABLE {}", self.name(&table.name)))?;
        }
        self.run(&create_table(table, &self.name(&table.name)))?;
        created.push(table.name.clone());
        let kinds: Vec<Kind> = table.columns.iter().map(kind_of).collect();
        let insert = insert_from_stage(table, &self.name(&table.name));
        let mut statement = rows
            .prepare(&select_all(table))
            .map_err(|e| fail(e.to_string()))?;
        let mut cursor = statement.query([]).map_err(|e| fail(e.to_string()))?;
        let mut batch: Vec<Row> = Vec::with_capacity(BATCH);
        let mut copied: u64 = 0;
        let fields: Vec<String> = (0..kinds.len()).map(|i| format!("c{i}")).collect();
        while let Some(row) = cursor.next().map_err(|e| fail(e.to_string()))? {
            let mut values = Vec::with_capacity(kinds.len());
            for (i, (kind, column)) in kinds.iter().zip(&table.columns).enumerate() {
                let cell = row.get_ref(i).map_err(|e| fail(e.to_string()))?;
                values.push(staged(*kind, cell).map_err(|why| {
                    fail(format!("row {} of {}: {why}", copied + 1, column.name))
                })?);
            }
            batch.push(Row::new(fields.clone(), values));
            copied += 1;
            if copied.is_multiple_of(PROGRESS_EVERY) {
                progress(&format!("{}: {copied} rows", table.name));
            }
            if batch.len() == BATCH {
                self.send(&batch, &kinds, &insert)
                    .map_err(|e| fail(e.message))?;
                batch.clear();
            }
        }
        if !batch.is_empty() {
            self.send(&batch, &kinds, &insert)
                .map_err(|e| fail(e.message))?;
        }
        progress(&format!("copied {}: {copied} rows", table.name));
        Ok(copied)
    }

    /// Sends one batch as the staging view and inserts it.
    fn send(&self, batch: &[Row], kinds: &[Kind], insert: &str) -> Result<(), Error> {
        let schema = DataType::Struct {
            fields: kinds
                .iter()
                .enumerate()
                .map(|(i, kind)| StructField {
                    name: format!("c{i}"),
                    data_type: staging_type(*kind),
                    nullable: true,
                    metadata: BTreeMap::new(),
                })
                .collect(),
        };
        self.session
            .create_dataframe(batch.to_vec(), schema)
            .and_then(|frame| frame.create_or_replace_temp_view(STAGE))
            .map_err(|e| {
                crate::errors::copy_failed(redact(&e.to_string(), self.secret.as_deref()))
            })?;
        self.run(insert)
    }
}

/// `CREATE TABLE … USING parquet` with each column's type, NOT NULL as declared, and the
/// keys and NOT NULL columns in the table's [`CONSTRAINTS_PROPERTY`].
fn create_table(table: &Table, name: &str) -> String {
    let columns: Vec<String> = table
        .columns
        .iter()
        .map(|c| {
            let not_null = if c.nullable { "" } else { " NOT NULL" };
            format!(
                "{} {}{not_null}",
                quote_name(&c.name, Dialect::Spark),
                spark_type(c)
            )
        })
        .collect();
    let keys = Constraints {
        primary_key: table.primary_key().iter().map(|k| k.to_string()).collect(),
        foreign_keys: table.foreign_keys.clone(),
        not_null: table
            .columns
            .iter()
            .filter(|c| !c.nullable)
            .map(|c| c.name.clone())
            .collect(),
    };
    // Serialising plain strings and lists cannot fail; an empty object stands in if it did.
    let json = serde_json::to_string(&keys).unwrap_or_else(|_| "{}".into());
    format!(
        "CREATE TABLE {name} ({}) USING parquet TBLPROPERTIES ({} = {})",
        columns.join(", "),
        quote_text(CONSTRAINTS_PROPERTY, Dialect::Spark),
        quote_text(&json, Dialect::Spark)
    )
}

/// The Spark type a SQLite column becomes.
fn spark_type(column: &Column) -> String {
    match kind_of(column) {
        Kind::Timestamp => "TIMESTAMP_NTZ".into(),
        Kind::Date => "DATE".into(),
        Kind::Time | Kind::Text => "STRING".into(),
        Kind::Boolean => "BOOLEAN".into(),
        Kind::Integer => "BIGINT".into(),
        Kind::Bytes => "BINARY".into(),
        Kind::Float => "DOUBLE".into(),
        Kind::Decimal => {
            precision(column).map_or_else(|| "DOUBLE".into(), |p| format!("DECIMAL{p}"))
        }
    }
}

/// The type a column's values travel in: numbers as numbers, bytes as bytes, and the rest
/// (dates, exact decimals) as text that the insert casts exactly.
fn staging_type(kind: Kind) -> DataType {
    match kind {
        Kind::Integer | Kind::Boolean => DataType::Long,
        Kind::Float => DataType::Double,
        Kind::Bytes => DataType::Binary,
        // Spark's default collation (byte order, as SQLite's).
        _ => DataType::String {
            collation: "UTF8_BINARY".into(),
        },
    }
}

/// `INSERT INTO name SELECT CAST(c0 AS …), … FROM` the staging view.
fn insert_from_stage(table: &Table, name: &str) -> String {
    let casts: Vec<String> = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| format!("CAST(c{i} AS {})", spark_type(c)))
        .collect();
    format!(
        "INSERT INTO {name} SELECT {} FROM {STAGE}",
        casts.join(", ")
    )
}

/// A SQLite value as it travels for a column of `kind`, or why it cannot.
fn staged(kind: Kind, cell: ValueRef<'_>) -> Result<Cell, String> {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    Ok(match (staging_type(kind), cell) {
        (_, ValueRef::Null) => Cell::Null,
        (DataType::Long, ValueRef::Integer(i)) => Cell::Long(i),
        (DataType::Long, ValueRef::Real(r)) if r.fract() == 0.0 && r.abs() < 9.0e18 => {
            Cell::Long(r as i64)
        }
        (DataType::Long, ValueRef::Text(t)) => match text(t).trim().parse() {
            Ok(i) => Cell::Long(i),
            Err(_) => return Err(format!("{:?} is not a whole number", text(t))),
        },
        (DataType::Long, other) => return Err(format!("{other:?} is not a whole number")),
        (DataType::Double, ValueRef::Integer(i)) => Cell::Double(i as f64),
        (DataType::Double, ValueRef::Real(r)) => Cell::Double(r),
        (DataType::Double, ValueRef::Text(t)) => match text(t).trim().parse() {
            Ok(r) => Cell::Double(r),
            Err(_) => return Err(format!("{:?} is not a number", text(t))),
        },
        (DataType::Double, other) => return Err(format!("{other:?} is not a number")),
        (DataType::Binary, ValueRef::Blob(b) | ValueRef::Text(b)) => Cell::Binary(b.to_vec()),
        (DataType::Binary, ValueRef::Integer(i)) => Cell::Binary(i.to_string().into_bytes()),
        (DataType::Binary, ValueRef::Real(r)) => Cell::Binary(r.to_string().into_bytes()),
        (_, ValueRef::Text(t)) => Cell::String(text(t)),
        (_, ValueRef::Integer(i)) => Cell::String(i.to_string()),
        (_, ValueRef::Real(r)) => Cell::String(r.to_string()),
        (_, ValueRef::Blob(_)) => return Err("bytes where text belongs".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::column;
    use super::*;
    use nl2sql_core::adapter::TypeCategory;

    #[test]
    fn columns_map_to_spark_types_and_values_travel_as_they_are_cast() {
        let c = |t: &str| column(t, TypeCategory::Other, "", "");
        assert_eq!(spark_type(&c("NUMERIC(10,2)")), "DECIMAL(10,2)");
        assert_eq!(spark_type(&c("DATETIME")), "TIMESTAMP_NTZ");
        assert_eq!(spark_type(&c("NVARCHAR(40)")), "STRING");
        assert_eq!(spark_type(&c("INTEGER")), "BIGINT");
        assert_eq!(
            staged(Kind::Integer, ValueRef::Real(3.0)).map_err(|_| ()),
            Ok(Cell::Long(3))
        );
        assert!(staged(Kind::Integer, ValueRef::Real(3.5)).is_err());
        assert!(staged(Kind::Integer, ValueRef::Text(b"x")).is_err());
        assert_eq!(
            staged(Kind::Decimal, ValueRef::Real(0.99)).map_err(|_| ()),
            Ok(Cell::String("0.99".into()))
        );
    }
}
