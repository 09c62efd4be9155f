//! The copy into PostgreSQL: one transaction, so everything lands or nothing does; rows
//! streamed with `COPY … FROM STDIN`.

use super::{
    create_table, foreign_keys, kind_of, precision, select_all, CopyReport, Kind, PROGRESS_EVERY,
};
use crate::address::{redact, Address};
use crate::postgres_db::{connect_config, connect_with, connector, described};
use nl2sql_core::adapter::quote_name;
use nl2sql_core::adapter::{Column, Dialect, SchemaSnapshot, Table};
use nl2sql_core::error::Error;
use postgres::error::SqlState;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::io::Write;
use tokio_postgres_rustls::MakeRustlsConnect;

pub(super) fn copy(
    schema: &SchemaSnapshot,
    rows: &Connection,
    target: &Address,
    replace: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<CopyReport, Error> {
    let (config, secret) =
        connect_config(target).map_err(|e| crate::errors::copy_failed(e.to_string()))?;
    let fail =
        |e: postgres::Error| crate::errors::copy_failed(redact(&described(&e), secret.as_deref()));
    let tls = connector(target).map_err(|e| crate::errors::copy_failed(e.to_string()))?;
    let mut client = match connect_with(&config, &tls) {
        Ok(c) => c,
        Err(e) if e.code() == Some(&SqlState::INVALID_CATALOG_NAME) => {
            create_database(&config, &tls, target).map_err(fail)?;
            connect_with(&config, &tls).map_err(fail)?
        }
        Err(e) => {
            return Err(crate::errors::copy_failed(format!(
                "cannot connect to PostgreSQL at {target}: {}",
                redact(&described(&e), secret.as_deref())
            )))
        }
    };
    let mut tx = client.transaction().map_err(fail)?;
    let q = |name: &str| quote_name(name, Dialect::Postgres);
    for table in &schema.tables {
        let exists = tx
            .query_one("SELECT to_regclass($1) IS NOT NULL", &[&q(&table.name)])
            .map_err(fail)?
            .get::<_, bool>(0);
        match (exists, replace) {
            (true, false) => {
                return Err(crate::errors::copy_failed(format!(
                    "{target} already has a table {}; --replace drops it first",
                    table.name
                )))
            }
            (true, true) => tx
                .batch_execute(&format!("DROP TABLE {} CASCADE", q(&table.name)))
                .map_err(fail)?,
            (false, _) => {}
        }
        tx.batch_execute(&create_table(table, Dialect::Postgres, postgres_type, ""))
            .map_err(fail)?;
    }
    let mut report = CopyReport::default();
    for table in &schema.tables {
        let copied = copy_rows(&mut tx, rows, table, progress).map_err(|e| match e {
            Failure::Source(e) => {
                crate::errors::copy_failed(format!("reading {}: {e}", table.name))
            }
            Failure::Target(e) => crate::errors::copy_failed(format!(
                "writing {}: {}",
                table.name,
                redact(&described(&e), secret.as_deref())
            )),
            Failure::Write(e) => crate::errors::copy_failed(format!("writing {}: {e}", table.name)),
        })?;
        progress(&format!("copied {}: {copied} rows", table.name));
        report.tables.push((table.name.clone(), copied));
    }
    for table in &schema.tables {
        for (add, about) in foreign_keys(table, Dialect::Postgres) {
            // A savepoint per key: SQLite does not check keys, so rows may break one, and
            // PostgreSQL can still hold it unchecked (NOT VALID), which keeps the join path.
            let mut attempt = tx.transaction().map_err(fail)?;
            match attempt.batch_execute(&add) {
                Ok(()) => attempt.commit().map_err(fail)?,
                Err(e) => {
                    drop(attempt);
                    let why = redact(&described(&e), secret.as_deref());
                    let mut unchecked = tx.transaction().map_err(fail)?;
                    match unchecked.batch_execute(&format!("{add} NOT VALID")) {
                        Ok(()) => {
                            unchecked.commit().map_err(fail)?;
                            report
                                .notes
                                .push(format!("{about}: kept unchecked (NOT VALID): {why}"));
                        }
                        Err(e) => report.notes.push(format!(
                            "{about}: not kept: {}",
                            redact(&described(&e), secret.as_deref())
                        )),
                    }
                }
            }
        }
    }
    tx.commit().map_err(fail)?;
    Ok(report)
}

/// Connects to the server's maintenance database and creates the one `target` names.
fn create_database(
    config: &postgres::Config,
    tls: &Option<MakeRustlsConnect>,
    target: &Address,
) -> Result<(), postgres::Error> {
    let name = target.database().unwrap_or_default().to_string();
    let mut admin = config.clone();
    admin.dbname("postgres");
    let mut client = connect_with(&admin, tls)?;
    client.batch_execute(&format!(
        "CREATE DATABASE {}",
        quote_name(&name, Dialect::Postgres)
    ))
}

/// A SQLite column's type as PostgreSQL's nearest: SQLite's integers are 64-bit and its
/// text has no enforced length (so `text`, whatever length was declared).
fn postgres_type(column: &Column) -> String {
    match kind_of(column) {
        Kind::Timestamp => "timestamp".into(),
        Kind::Date => "date".into(),
        Kind::Time => "time".into(),
        Kind::Boolean => "boolean".into(),
        Kind::Integer => "bigint".into(),
        Kind::Text => "text".into(),
        Kind::Bytes => "bytea".into(),
        Kind::Float => "double precision".into(),
        Kind::Decimal => format!("numeric{}", precision(column).unwrap_or_default()),
    }
}

enum Failure {
    Source(rusqlite::Error),
    Target(postgres::Error),
    Write(std::io::Error),
}

/// Streams `table`'s rows into PostgreSQL with `COPY … FROM STDIN` (text format).
fn copy_rows(
    tx: &mut postgres::Transaction<'_>,
    rows: &Connection,
    table: &Table,
    progress: &mut dyn FnMut(&str),
) -> Result<u64, Failure> {
    let q = |name: &str| quote_name(name, Dialect::Postgres);
    let names: Vec<String> = table.columns.iter().map(|c| q(&c.name)).collect();
    let select = select_all(table);
    let mut stmt = rows.prepare(&select).map_err(Failure::Source)?;
    let mut cursor = stmt.query([]).map_err(Failure::Source)?;
    let mut writer = tx
        .copy_in(&format!(
            "COPY {} ({}) FROM STDIN",
            q(&table.name),
            names.join(", ")
        ))
        .map_err(Failure::Target)?;
    let width = table.columns.len();
    let mut count = 0u64;
    let mut line = String::new();
    while let Some(row) = cursor.next().map_err(Failure::Source)? {
        line.clear();
        for i in 0..width {
            if i > 0 {
                line.push('\t');
            }
            copy_field(&mut line, row.get_ref(i).map_err(Failure::Source)?);
        }
        line.push('\n');
        writer.write_all(line.as_bytes()).map_err(Failure::Write)?;
        count += 1;
        if count.is_multiple_of(PROGRESS_EVERY) {
            progress(&format!("{}: {count} rows", table.name));
        }
    }
    writer.finish().map_err(Failure::Target)?;
    Ok(count)
}

/// One field in `COPY`'s text format: `\N` for NULL, backslash escapes for the characters
/// the format reserves, bytes as `bytea`'s hex input.
fn copy_field(out: &mut String, value: ValueRef<'_>) {
    match value {
        ValueRef::Null => out.push_str("\\N"),
        ValueRef::Integer(i) => out.push_str(&i.to_string()),
        ValueRef::Real(r) => out.push_str(&r.to_string()),
        ValueRef::Text(t) => escape(out, &String::from_utf8_lossy(t)),
        ValueRef::Blob(b) => {
            out.push_str("\\\\x");
            for byte in b {
                out.push_str(&format!("{byte:02x}"));
            }
        }
    }
}

fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::column;
    use super::*;
    use nl2sql_core::adapter::TypeCategory;

    #[test]
    fn sqlite_types_map_to_their_nearest_postgres_type() {
        for (sqlite, pg) in [
            ("INTEGER", "bigint"),
            ("NVARCHAR(160)", "text"),
            ("NUMERIC(10,2)", "numeric(10,2)"),
            ("numeric", "numeric"),
            ("DATETIME", "timestamp"),
            ("DATE", "date"),
            ("REAL", "double precision"),
            ("BOOLEAN", "boolean"),
            ("BLOB", "bytea"),
            ("", "text"),
        ] {
            let c = column(sqlite, TypeCategory::Other, "", "");
            assert_eq!(postgres_type(&c), pg, "{sqlite}");
        }
    }

    #[test]
    fn copy_fields_escape_what_the_text_format_reserves() {
        let mut out = String::new();
        copy_field(&mut out, ValueRef::Text(b"a\tb\\c\nd"));
        out.push('|');
        copy_field(&mut out, ValueRef::Null);
        out.push('|');
        copy_field(&mut out, ValueRef::Blob(&[0, 255]));
        assert_eq!(out, "a\\tb\\\\c\\nd|\\N|\\\\x00ff");
    }
}
