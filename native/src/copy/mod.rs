//! `nl2sql copy`: a SQLite database copied into a server or a DuckDB file, so anyone can
//! load Chinook (or their own file) into their own PostgreSQL, MySQL, MariaDB, DuckDB or
//! Spark and try the engine there.
//!
//! Tables are created with their types mapped to the server's nearest and their primary
//! keys, rows streamed in, then the foreign keys added (held unchecked, or left out with a
//! note, when SQLite's rows break them: SQLite does not check keys by default).

#[cfg(feature = "duckdb")]
mod duckdb;
mod mysql;
mod postgres;
#[cfg(feature = "spark")]
mod spark;

use crate::address::{Address, Engine};
use nl2sql_core::adapter::quote_name;
use nl2sql_core::adapter::{Column, Dialect, ForeignKey, SchemaSnapshot, Table, TypeCategory};
use nl2sql_core::error::Error;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// What a copy did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CopyReport {
    /// Each table copied, with its rows.
    pub tables: Vec<(String, u64)>,
    /// Foreign keys the target could not hold as checked constraints, and views left
    /// behind, each with why.
    pub notes: Vec<String>,
}

/// Rows between progress lines for a large table.
const PROGRESS_EVERY: u64 = 100_000;

/// Copies the SQLite file `source` into `target`. Without `replace`, a table that already
/// exists there stops the copy; with it, the table is dropped first. A database the server
/// does not have yet is created. `progress` receives a line per table and per
/// [`PROGRESS_EVERY`] rows.
pub fn copy(
    source: &Path,
    target: &Address,
    replace: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<CopyReport, Error> {
    let reader = crate::SqliteFile::open("source", source)
        .map_err(|e| crate::errors::copy_failed(e.to_string()))?;
    let mut schema = pollster::block_on(nl2sql_core::adapter::Metadata::introspect(&reader))
        .map_err(|e| crate::errors::copy_failed(e.to_string()))?;
    let rows =
        Connection::open_with_flags(source, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|e| {
            crate::errors::copy_failed(format!("cannot open {}: {e}", source.display()))
        })?;
    // A view's definition is SQLite's SQL, which the target may read otherwise: views stay
    // behind, each named in a note.
    let views: Vec<String> = schema
        .tables
        .iter()
        .filter(|t| t.view)
        .map(|t| t.name.clone())
        .collect();
    schema.tables.retain(|t| !t.view);
    settle_dates(&mut schema, &rows)
        .map_err(|e| crate::errors::copy_failed(format!("reading dates: {e}")))?;
    let copied = match target.engine() {
        Engine::Postgres => postgres::copy(&schema, &rows, target, replace, progress),
        Engine::MySql => mysql::copy(&schema, &rows, target, replace, progress),
        #[cfg(feature = "duckdb")]
        Engine::DuckDb => duckdb::copy(&schema, &rows, target, replace, progress),
        #[cfg(not(feature = "duckdb"))]
        Engine::DuckDb => Err(crate::errors::copy_failed(
            "this nl2sql was built without DuckDB (the `duckdb` feature)",
        )),
        #[cfg(feature = "spark")]
        Engine::Spark => spark::copy(&schema, &rows, target, replace, progress),
        #[cfg(not(feature = "spark"))]
        Engine::Spark => Err(crate::errors::copy_failed(
            "this nl2sql was built without Spark (the `spark` feature)",
        )),
        Engine::Sqlite => Err(crate::errors::copy_failed(
            "the target is a SQLite file: copy writes into a server (a postgres://, \
             mysql:// or sc:// address) or a DuckDB file (.duckdb)",
        )),
    };
    copied.map(|mut report| {
        report.notes.extend(
            views
                .iter()
                .map(|v| format!("view {v}: not copied (its SQL is SQLite's)")),
        );
        report
    })
}

/// Gives each text column whose values are all ISO dates a declared date type: `DATE` when
/// every value is a bare date (so no time is cut off), else `DATETIME`.
fn settle_dates(schema: &mut SchemaSnapshot, rows: &Connection) -> Result<(), rusqlite::Error> {
    for table in &mut schema.tables {
        for column in &mut table.columns {
            let t = column.declared_type.to_ascii_uppercase();
            if column.category != TypeCategory::Temporal || t.contains("DATE") || t.contains("TIME")
            {
                continue;
            }
            let q = nl2sql_core::adapter::sqlite::quote_ident(&column.name);
            let longer: i64 = rows.query_row(
                &format!(
                    "SELECT COUNT(*) FROM {} WHERE {q} IS NOT NULL AND length({q}) <> 10",
                    nl2sql_core::adapter::sqlite::quote_ident(&table.name)
                ),
                [],
                |r| r.get(0),
            )?;
            column.declared_type = if longer == 0 { "DATE" } else { "DATETIME" }.into();
        }
    }
    Ok(())
}

/// A SELECT of every column of `table`, for SQLite.
fn select_all(table: &Table) -> String {
    let columns: Vec<String> = table
        .columns
        .iter()
        .map(|c| nl2sql_core::adapter::sqlite::quote_ident(&c.name))
        .collect();
    format!(
        "SELECT {} FROM {}",
        columns.join(", "),
        nl2sql_core::adapter::sqlite::quote_ident(&table.name)
    )
}

/// What a SQLite column holds, in the words both targets' type maps decide by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Timestamp,
    Date,
    Time,
    Boolean,
    Integer,
    Text,
    Bytes,
    Float,
    /// `NUMERIC(p,s)` as declared, or bare `NUMERIC`.
    Decimal,
}

/// A SQLite column's kind, by its declared type ([`settle_dates`] declares the text columns
/// that hold dates).
fn kind_of(column: &Column) -> Kind {
    let t = column.declared_type.trim().to_ascii_uppercase();
    let has = |w: &str| t.contains(w);
    if has("DATETIME") || has("TIMESTAMP") {
        Kind::Timestamp
    } else if has("DATE") {
        Kind::Date
    } else if has("TIME") {
        Kind::Time
    } else if has("BOOL") {
        Kind::Boolean
    } else if has("INT") {
        Kind::Integer
    } else if has("CHAR") || has("CLOB") || has("TEXT") {
        Kind::Text
    } else if has("BLOB") {
        Kind::Bytes
    } else if has("REAL") || has("FLOA") || has("DOUB") {
        Kind::Float
    } else if has("NUMERIC") || has("DECIMAL") {
        Kind::Decimal
    } else {
        Kind::Text
    }
}

/// `(p,s)` of a declared `NUMERIC(p,s)`, when declared as digits: the declared type is
/// the source file's text, and only these characters may reach the server's DDL.
fn precision(column: &Column) -> Option<String> {
    let t = column.declared_type.trim();
    let inner = t.get(t.find('(')? + 1..)?.strip_suffix(')')?;
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    let digits = |p: &&str| !p.is_empty() && p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit());
    (matches!(parts.len(), 1 | 2) && parts.iter().all(digits))
        .then(|| format!("({})", parts.join(",")))
}

/// Whether `column` is part of `table`'s primary key or one of its foreign keys.
fn in_a_key(table: &Table, column: &Column) -> bool {
    column.primary_key_position.is_some()
        || table
            .foreign_keys
            .iter()
            .any(|k| k.columns.iter().any(|c| c == &column.name))
}

/// `CREATE TABLE` for `table` in `dialect`: each column with the type `type_of` maps it
/// to, NOT NULL as declared, the primary key, and `options` after the column list.
fn create_table(
    table: &Table,
    dialect: Dialect,
    type_of: impl Fn(&Column) -> String,
    options: &str,
) -> String {
    let q = |name: &str| quote_name(name, dialect);
    let mut parts: Vec<String> = table
        .columns
        .iter()
        .map(|c| {
            let not_null = if c.nullable { "" } else { " NOT NULL" };
            format!("{} {}{not_null}", q(&c.name), type_of(c))
        })
        .collect();
    let pk: Vec<String> = table.primary_key().iter().map(|c| q(c)).collect();
    if !pk.is_empty() {
        parts.push(format!("PRIMARY KEY ({})", pk.join(", ")));
    }
    format!(
        "CREATE TABLE {} ({}){options}",
        q(&table.name),
        parts.join(", ")
    )
}

/// Each foreign key of `table` as an `ALTER TABLE … ADD CONSTRAINT` in `dialect` (named
/// after the table, numbered in declaration order), with the words a note about it uses.
fn foreign_keys(table: &Table, dialect: Dialect) -> Vec<(String, String)> {
    let q = |name: &str| quote_name(name, dialect);
    table
        .foreign_keys
        .iter()
        .enumerate()
        .map(|(n, fk)| {
            let add = format!(
                "ALTER TABLE {} ADD CONSTRAINT {} {}",
                q(&table.name),
                q(&format!("fk_{}_{:02}", table.name, n + 1)),
                key_clause(fk, dialect)
            );
            (add, key_about(table, fk))
        })
        .collect()
}

/// `FOREIGN KEY (…) REFERENCES … (…)` in `dialect`.
fn key_clause(fk: &ForeignKey, dialect: Dialect) -> String {
    let q = |name: &str| quote_name(name, dialect);
    let list = |names: &[String]| names.iter().map(|c| q(c)).collect::<Vec<_>>().join(", ");
    format!(
        "FOREIGN KEY ({}) REFERENCES {} ({})",
        list(&fk.columns),
        q(&fk.referenced_table),
        list(&fk.referenced_columns)
    )
}

/// How a note names a key of `table`: `Track (AlbumId) → Album`.
fn key_about(table: &Table, fk: &ForeignKey) -> String {
    format!(
        "foreign key {} ({}) → {}",
        table.name,
        fk.columns.join(", "),
        fk.referenced_table
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use nl2sql_core::adapter::Value;

    pub(super) fn column(declared: &str, category: TypeCategory, min: &str, max: &str) -> Column {
        Column {
            name: "c".into(),
            declared_type: declared.into(),
            category,
            nullable: true,
            primary_key_position: None,
            stats: nl2sql_core::adapter::ColumnStats {
                min: Some(Value::Text(min.into())),
                max: Some(Value::Text(max.into())),
                ..Default::default()
            },
        }
    }

    #[test]
    fn declared_types_map_to_kinds_and_only_digits_make_a_precision() {
        let declared = |t: &str| kind_of(&column(t, TypeCategory::Other, "", ""));
        assert_eq!(declared("NVARCHAR(160)"), Kind::Text);
        assert_eq!(declared("NUMERIC(10,2)"), Kind::Decimal);
        assert_eq!(declared(""), Kind::Text);
        let p = |t: &str| precision(&column(t, TypeCategory::Number, "", ""));
        assert_eq!(p("NUMERIC(10, 2)").as_deref(), Some("(10,2)"));
        assert_eq!(
            p("NUMERIC(1)); DROP TABLE users; CREATE TABLE z (a numeric(1)"),
            None
        );
        assert_eq!(p("NUMERIC(a,b)"), None);
    }
}
