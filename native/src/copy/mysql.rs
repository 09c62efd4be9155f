//! The copy into MySQL or MariaDB. Their DDL commits by itself, so the copy cannot be one
//! transaction: when it fails, the tables it created are dropped again. Tables use the
//! binary collation, so text compares and sorts as in SQLite (byte by byte, case
//! sensitive); rows go in as multi-row INSERTs with the generator's own escaping.

use super::{
    create_table, foreign_keys, in_a_key, kind_of, precision, select_all, CopyReport, Kind,
    PROGRESS_EVERY,
};
use crate::address::{redact, Address};
use crate::mysql_db::connect_opts;
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use nl2sql_core::adapter::{quote_name, quote_text};
use nl2sql_core::adapter::{Column, Dialect, SchemaSnapshot, Table};
use nl2sql_core::error::Error;
use rusqlite::types::ValueRef;
use rusqlite::Connection;

/// MySQL's "unknown database".
const UNKNOWN_DATABASE: u16 = 1049;
/// Rows per INSERT, and the statement size at which one is sent early (well under the
/// servers' default 16 MB packet).
const ROWS_PER_INSERT: usize = 500;
const BYTES_PER_INSERT: usize = 1 << 20;

pub(super) fn copy(
    schema: &SchemaSnapshot,
    rows: &Connection,
    target: &Address,
    replace: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<CopyReport, Error> {
    let (opts, secret) =
        connect_opts(target).map_err(|e| crate::errors::copy_failed(e.to_string()))?;
    let words = |e: mysql::Error| redact(&e.to_string(), secret.as_deref());
    let mut conn = match Conn::new(opts.clone()) {
        Ok(c) => c,
        Err(mysql::Error::MySqlError(e)) if e.code == UNKNOWN_DATABASE => {
            let name = target.database().unwrap_or_default();
            let mut admin = Conn::new(OptsBuilder::from_opts(opts.clone()).db_name(None::<String>))
                .map_err(|e| crate::errors::copy_failed(words(e)))?;
            admin
                .query_drop(format!(
                    "CREATE DATABASE {} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
                    quote_name(name, Dialect::MySql)
                ))
                .map_err(|e| crate::errors::copy_failed(words(e)))?;
            Conn::new(opts).map_err(|e| crate::errors::copy_failed(words(e)))?
        }
        Err(e) => {
            return Err(crate::errors::copy_failed(format!(
                "cannot connect to MySQL at {target}: {}",
                words(e)
            )))
        }
    };
    let mut created: Vec<String> = Vec::new();
    let outcome = load(
        &mut conn,
        schema,
        rows,
        target,
        replace,
        progress,
        &mut created,
    );
    match outcome {
        Ok(report) => Ok(report),
        Err(why) => {
            for table in created.iter().rev() {
                // Best effort: the copy already failed for the reason given.
                let _ = conn.query_drop(format!(
                    "DROP TABLE IF EXISTS {}",
                    quote_name(table, Dialect::MySql)
                ));
            }
            Err(crate::errors::copy_failed(redact(&why, secret.as_deref())))
        }
    }
}

fn load(
    conn: &mut Conn,
    schema: &SchemaSnapshot,
    rows: &Connection,
    target: &Address,
    replace: bool,
    progress: &mut dyn FnMut(&str),
    created: &mut Vec<String>,
) -> Result<CopyReport, String> {
    let q = |name: &str| quote_name(name, Dialect::MySql);
    // Keys are added after the rows, unchecked, as SQLite kept them.
    conn.query_drop("SET foreign_key_checks = 0")
        .map_err(|e| e.to_string())?;
    for table in &schema.tables {
        let exists: Option<i64> = conn
            .exec_first(
                "SELECT COUNT(*) FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
                (table.name.as_str(),),
            )
            .map_err(|e| e.to_string())?;
        match (exists.unwrap_or(0) > 0, replace) {
            (true, false) => {
                return Err(format!(
                    "{target} already has a table {}; --replace drops it first",
                    table.name
                ))
            }
            (true, true) => conn
                .query_drop(format!("DROP TABLE {}", q(&table.name)))
                .map_err(|e| e.to_string())?,
            (false, _) => {}
        }
        let create = create_table(
            table,
            Dialect::MySql,
            |c| mysql_type(table, c),
            " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
        );
        conn.query_drop(create)
            .map_err(|e| format!("creating {}: {e}", table.name))?;
        created.push(table.name.clone());
    }
    let mut report = CopyReport::default();
    for table in &schema.tables {
        let copied = insert_rows(conn, rows, table, progress)
            .map_err(|e| format!("copying {}: {e}", table.name))?;
        progress(&format!("copied {}: {copied} rows", table.name));
        report.tables.push((table.name.clone(), copied));
    }
    for table in &schema.tables {
        for (add, about) in foreign_keys(table, Dialect::MySql) {
            if let Err(e) = conn.query_drop(&add) {
                report.notes.push(format!("{about}: not kept: {e}"));
            }
        }
    }
    conn.query_drop("SET foreign_key_checks = 1")
        .map_err(|e| e.to_string())?;
    Ok(report)
}

/// A SQLite column's type as MySQL's nearest. Text is `LONGTEXT` (SQLite enforces no
/// length), except in a key, which MySQL indexes only up to a length: `VARCHAR(768)` fits
/// the index limit in utf8mb4.
fn mysql_type(table: &Table, column: &Column) -> String {
    match kind_of(column) {
        Kind::Timestamp => "DATETIME".into(),
        Kind::Date => "DATE".into(),
        Kind::Time => "TIME".into(),
        Kind::Boolean => "BOOLEAN".into(),
        Kind::Integer => "BIGINT".into(),
        Kind::Text if in_a_key(table, column) => "VARCHAR(768)".into(),
        Kind::Text => "LONGTEXT".into(),
        Kind::Bytes => "LONGBLOB".into(),
        Kind::Float => "DOUBLE".into(),
        // A bare NUMERIC holds any number in SQLite; a double is the nearest that does.
        Kind::Decimal => precision(column).map_or("DOUBLE".into(), |p| format!("DECIMAL{p}")),
    }
}

/// Inserts `table`'s rows in multi-row INSERTs.
fn insert_rows(
    conn: &mut Conn,
    rows: &Connection,
    table: &Table,
    progress: &mut dyn FnMut(&str),
) -> Result<u64, String> {
    let q = |name: &str| quote_name(name, Dialect::MySql);
    let names: Vec<String> = table.columns.iter().map(|c| q(&c.name)).collect();
    let head = format!(
        "INSERT INTO {} ({}) VALUES ",
        q(&table.name),
        names.join(", ")
    );
    let mut stmt = rows
        .prepare(&select_all(table))
        .map_err(|e| e.to_string())?;
    let mut cursor = stmt.query([]).map_err(|e| e.to_string())?;
    let width = table.columns.len();
    let (mut count, mut pending) = (0u64, 0usize);
    let mut insert = head.clone();
    while let Some(row) = cursor.next().map_err(|e| e.to_string())? {
        if pending > 0 {
            insert.push_str(", ");
        }
        insert.push('(');
        for i in 0..width {
            if i > 0 {
                insert.push_str(", ");
            }
            literal(&mut insert, row.get_ref(i).map_err(|e| e.to_string())?);
        }
        insert.push(')');
        pending += 1;
        count += 1;
        if pending == ROWS_PER_INSERT || insert.len() >= BYTES_PER_INSERT {
            conn.query_drop(&insert).map_err(|e| e.to_string())?;
            insert.clone_from(&head);
            pending = 0;
        }
        if count.is_multiple_of(PROGRESS_EVERY) {
            progress(&format!("{}: {count} rows", table.name));
        }
    }
    if pending > 0 {
        conn.query_drop(&insert).map_err(|e| e.to_string())?;
    }
    Ok(count)
}

/// A SQLite value as a MySQL literal. MySQL stores no NaN or infinity: they become NULL.
fn literal(out: &mut String, value: ValueRef<'_>) {
    match value {
        ValueRef::Null => out.push_str("NULL"),
        ValueRef::Integer(i) => out.push_str(&i.to_string()),
        ValueRef::Real(r) if r.is_finite() => out.push_str(&format!("{r:?}")),
        ValueRef::Real(_) => out.push_str("NULL"),
        ValueRef::Text(t) => out.push_str(&quote_text(&String::from_utf8_lossy(t), Dialect::MySql)),
        ValueRef::Blob(b) => {
            out.push_str("X'");
            for byte in b {
                out.push_str(&format!("{byte:02x}"));
            }
            out.push('\'');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::column;
    use super::*;
    use nl2sql_core::adapter::TypeCategory;

    #[test]
    fn literals_are_escaped_as_the_generator_escapes_for_mysql() {
        let mut out = String::new();
        for v in [
            ValueRef::Text(b"it's a \\ test"),
            ValueRef::Real(0.1),
            ValueRef::Real(f64::NAN),
            ValueRef::Blob(&[0, 255]),
        ] {
            literal(&mut out, v);
            out.push('|');
        }
        assert_eq!(out, "'it''s a \\\\ test'|0.1|NULL|X'00ff'|");
    }

    #[test]
    fn text_in_a_key_gets_a_length_mysql_can_index() {
        let mut table = Table {
            schema: None,
            name: "t".into(),
            columns: vec![column("TEXT", TypeCategory::Text, "", "")],
            foreign_keys: vec![],
            row_count: 0,
            view: false,
            unread: None,
        };
        assert_eq!(mysql_type(&table, &table.columns[0]), "LONGTEXT");
        table.columns[0].primary_key_position = Some(1);
        assert_eq!(mysql_type(&table, &table.columns[0]), "VARCHAR(768)");
        let numeric = column("NUMERIC(10,2)", TypeCategory::Number, "", "");
        assert_eq!(mysql_type(&table, &numeric), "DECIMAL(10,2)");
    }
}
