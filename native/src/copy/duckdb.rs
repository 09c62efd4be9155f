//! The copy into a DuckDB file (created when missing): one transaction, so everything lands
//! or nothing does; rows go in through DuckDB's appender.
//!
//! DuckDB checks foreign keys as rows arrive and takes them only in `CREATE TABLE` (no
//! `ALTER TABLE … ADD FOREIGN KEY`), so tables are created parents first, a table's rows
//! that point at rows of the same table are appended a generation at a time, and a key
//! that SQLite's rows break, or that closes a cycle between tables, is left out with a note.

use super::{
    create_table, kind_of, precision, select_all, CopyError, CopyReport, Kind, PROGRESS_EVERY,
};
use crate::address::Address;
use duckdb::types::Value as Cell;
use duckdb::{appender_params_from_iter, Connection};
use nl2sql_core::lower::quote_name;
use nl2sql_core::{Column, Dialect, ForeignKey, SchemaSnapshot, Table};
use rusqlite::types::ValueRef;
use std::collections::BTreeSet;

pub(super) fn copy(
    schema: &SchemaSnapshot,
    rows: &rusqlite::Connection,
    target: &Address,
    replace: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<CopyReport, CopyError> {
    let Some(path) = target.path() else {
        return Err(CopyError(format!("{target} is not a file")));
    };
    let existed = path.exists();
    let conn = Connection::open(&path)
        .map_err(|e| CopyError(format!("cannot open {target} as a DuckDB database: {e}")))?;
    let mut report = CopyReport::default();
    let plan = Plan::of(schema, rows, &mut report.notes)
        .map_err(|e| CopyError(format!("reading the source's keys: {e}")))?;
    let outcome = conn
        .execute_batch("BEGIN TRANSACTION")
        .map_err(|e| e.to_string())
        .and_then(|()| load(&conn, &plan, rows, target, replace, progress, &mut report));
    match outcome.and_then(|()| conn.execute_batch("COMMIT").map_err(|e| e.to_string())) {
        Ok(()) => Ok(report),
        Err(why) => {
            // Best effort: the copy already failed for the reason given.
            let _ = conn.execute_batch("ROLLBACK");
            drop(conn);
            if !existed {
                let _ = std::fs::remove_file(&path);
            }
            Err(CopyError(why))
        }
    }
}

/// The tables in the order they can be created, each with the foreign keys it keeps.
struct Plan<'a> {
    tables: Vec<(&'a Table, Vec<&'a ForeignKey>)>,
}

impl<'a> Plan<'a> {
    /// Parents before children. Keys SQLite's rows break are left out, and so is any key
    /// to a table not yet created once nothing else can be (a cycle); each with a note.
    fn of(
        schema: &'a SchemaSnapshot,
        rows: &rusqlite::Connection,
        notes: &mut Vec<String>,
    ) -> Result<Plan<'a>, rusqlite::Error> {
        let mut pending: Vec<(&Table, Vec<&ForeignKey>)> = Vec::new();
        for table in &schema.tables {
            let mut kept = Vec::new();
            for fk in &table.foreign_keys {
                let broken = orphans(rows, table, fk)?;
                if broken > 0 {
                    notes.push(format!(
                        "foreign key {} ({}) → {}: not kept: {broken} rows point at no row",
                        table.name,
                        fk.columns.join(", "),
                        fk.referenced_table
                    ));
                } else {
                    kept.push(fk);
                }
            }
            pending.push((table, kept));
        }
        let mut tables = Vec::new();
        let mut created: BTreeSet<String> = BTreeSet::new();
        while !pending.is_empty() {
            let ready = |(t, keys): &(&Table, Vec<&ForeignKey>)| {
                keys.iter().all(|k| {
                    k.referenced_table.eq_ignore_ascii_case(&t.name)
                        || created.contains(&k.referenced_table.to_ascii_lowercase())
                })
            };
            let next = match pending.iter().position(ready) {
                Some(at) => pending.remove(at),
                // A cycle: the first table waiting goes in without the keys that wait.
                None => {
                    let (table, keys) = pending.remove(0);
                    let (kept, dropped): (Vec<_>, Vec<_>) = keys.into_iter().partition(|k| {
                        k.referenced_table.eq_ignore_ascii_case(&table.name)
                            || created.contains(&k.referenced_table.to_ascii_lowercase())
                    });
                    for k in dropped {
                        notes.push(format!(
                            "foreign key {} ({}) → {}: not kept: the tables' keys form a \
                             cycle, which \
                             DuckDB cannot create",
                            table.name,
                            k.columns.join(", "),
                            k.referenced_table
                        ));
                    }
                    (table, kept)
                }
            };
            created.insert(next.0.name.to_ascii_lowercase());
            tables.push(next);
        }
        Ok(Plan { tables })
    }
}

/// How many of `table`'s rows name, through `fk`, a row its referenced table lacks.
fn orphans(
    rows: &rusqlite::Connection,
    table: &Table,
    fk: &ForeignKey,
) -> Result<i64, rusqlite::Error> {
    let q = nl2sql_core::sqlite::quote_ident;
    let on: Vec<String> = fk
        .columns
        .iter()
        .zip(&fk.referenced_columns)
        .map(|(c, r)| format!("p.{} = c.{}", q(r), q(c)))
        .collect();
    let present: Vec<String> = fk
        .columns
        .iter()
        .map(|c| format!("c.{} IS NOT NULL", q(c)))
        .collect();
    let first = fk
        .referenced_columns
        .first()
        .map_or("rowid".into(), |c| q(c));
    rows.query_row(
        &format!(
            "SELECT COUNT(*) FROM {} AS c LEFT JOIN {} AS p ON {} WHERE {} AND p.{first} IS NULL",
            q(&table.name),
            q(&fk.referenced_table),
            on.join(" AND "),
            present.join(" AND ")
        ),
        [],
        |r| r.get(0),
    )
}

fn load(
    conn: &Connection,
    plan: &Plan,
    rows: &rusqlite::Connection,
    target: &Address,
    replace: bool,
    progress: &mut dyn FnMut(&str),
    report: &mut CopyReport,
) -> Result<(), String> {
    let q = |name: &str| quote_name(name, Dialect::DuckDb);
    // Children first, so no table still referenced is dropped.
    for (table, _) in plan.tables.iter().rev() {
        let exists: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM duckdb_tables() WHERE database_name = current_database() \
                 AND schema_name = current_schema() AND lower(table_name) = lower(?)",
                [&table.name],
                |r| r.get(0),
            )
            .map_err(|e| e.to_string())?;
        match (exists > 0, replace) {
            (true, false) => {
                return Err(format!(
                    "{target} already has a table {}; --replace drops it first",
                    table.name
                ))
            }
            (true, true) => conn
                .execute_batch(&format!("DROP TABLE {}", q(&table.name)))
                .map_err(|e| format!("dropping {}: {e}", table.name))?,
            (false, _) => {}
        }
    }
    for (table, keys) in &plan.tables {
        let mut create = create_table(table, Dialect::DuckDb, duckdb_type, "");
        if !keys.is_empty() {
            // The keys go inside the column list, before its closing parenthesis.
            create.pop();
            for fk in keys {
                let list =
                    |names: &[String]| names.iter().map(|c| q(c)).collect::<Vec<_>>().join(", ");
                create.push_str(&format!(
                    ", FOREIGN KEY ({}) REFERENCES {} ({})",
                    list(&fk.columns),
                    q(&fk.referenced_table),
                    list(&fk.referenced_columns)
                ));
            }
            create.push(')');
        }
        conn.execute_batch(&create)
            .map_err(|e| format!("creating {}: {e}", table.name))?;
    }
    for (table, keys) in &plan.tables {
        let copied = append_rows(conn, rows, table, keys, progress)
            .map_err(|e| format!("copying {}: {e}", table.name))?;
        progress(&format!("copied {}: {copied} rows", table.name));
        report.tables.push((table.name.clone(), copied));
    }
    Ok(())
}

/// A SQLite column's type as DuckDB's nearest.
fn duckdb_type(column: &Column) -> String {
    match kind_of(column) {
        Kind::Timestamp => "TIMESTAMP".into(),
        Kind::Date => "DATE".into(),
        Kind::Time => "TIME".into(),
        Kind::Boolean => "BOOLEAN".into(),
        Kind::Integer => "BIGINT".into(),
        Kind::Text => "VARCHAR".into(),
        Kind::Bytes => "BLOB".into(),
        Kind::Float => "DOUBLE".into(),
        // A bare NUMERIC holds any number in SQLite; a double is the nearest that does.
        Kind::Decimal => precision(column).map_or("DOUBLE".into(), |p| format!("DECIMAL{p}")),
    }
}

/// Appends `table`'s rows. A table whose kept keys point at itself gets its rows a
/// generation at a time (rows pointing at no row or at rows already in first), flushed in
/// between, since DuckDB checks each chunk against the rows already appended.
fn append_rows(
    conn: &Connection,
    rows: &rusqlite::Connection,
    table: &Table,
    keys: &[&ForeignKey],
    progress: &mut dyn FnMut(&str),
) -> Result<u64, String> {
    let mut appender = conn.appender(&table.name).map_err(|e| e.to_string())?;
    let mut stmt = rows
        .prepare(&select_all(table))
        .map_err(|e| e.to_string())?;
    let width = table.columns.len();
    let mut cursor = stmt.query([]).map_err(|e| e.to_string())?;
    let own: Vec<&ForeignKey> = keys
        .iter()
        .copied()
        .filter(|k| k.referenced_table.eq_ignore_ascii_case(&table.name))
        .collect();
    let mut held: Vec<Vec<Cell>> = Vec::new();
    let mut count = 0u64;
    while let Some(row) = cursor.next().map_err(|e| e.to_string())? {
        let mut cells = Vec::with_capacity(width);
        for i in 0..width {
            cells.push(cell(row.get_ref(i).map_err(|e| e.to_string())?));
        }
        if own.is_empty() {
            appender
                .append_row(appender_params_from_iter(cells))
                .map_err(|e| e.to_string())?;
            count += 1;
            if count.is_multiple_of(PROGRESS_EVERY) {
                progress(&format!("{}: {count} rows", table.name));
            }
        } else {
            held.push(cells);
        }
    }
    if !own.is_empty() {
        count = append_by_generation(&mut appender, table, &own, held)?;
    }
    appender.flush().map_err(|e| e.to_string())?;
    Ok(count)
}

/// Appends rows whose references to their own table are all satisfied, generation by
/// generation. Keys were checked against SQLite's rows first, so every row finds its place
/// unless the rows themselves form a cycle, which is reported.
fn append_by_generation(
    appender: &mut duckdb::Appender<'_>,
    table: &Table,
    own: &[&ForeignKey],
    mut held: Vec<Vec<Cell>>,
) -> Result<u64, String> {
    let position = |name: &str| table.columns.iter().position(|c| c.name == name);
    let pairs: Vec<Vec<(usize, usize)>> = own
        .iter()
        .map(|k| {
            k.columns
                .iter()
                .zip(&k.referenced_columns)
                .filter_map(|(c, r)| Some((position(c)?, position(r)?)))
                .collect()
        })
        .collect();
    // The keys already appended, per key, written out so they can be looked up.
    let key = |row: &[Cell], columns: &mut dyn Iterator<Item = usize>| -> Option<String> {
        let cells: Vec<&Cell> = columns.map(|i| &row[i]).collect();
        (!cells.iter().any(|c| **c == Cell::Null)).then(|| format!("{cells:?}"))
    };
    let mut inserted: Vec<BTreeSet<String>> = vec![BTreeSet::new(); pairs.len()];
    let mut count = 0u64;
    while !held.is_empty() {
        let (ready, waiting): (Vec<_>, Vec<_>) = held.into_iter().partition(|row| {
            pairs.iter().zip(&inserted).all(|(pair, done)| {
                key(row, &mut pair.iter().map(|(from, _)| *from))
                    .is_none_or(|wanted| done.contains(&wanted))
            })
        });
        if ready.is_empty() {
            return Err(format!(
                "{} rows of {} point at each other in a cycle",
                waiting.len(),
                table.name
            ));
        }
        for row in ready {
            for (pair, done) in pairs.iter().zip(inserted.iter_mut()) {
                if let Some(k) = key(&row, &mut pair.iter().map(|(_, to)| *to)) {
                    done.insert(k);
                }
            }
            appender
                .append_row(appender_params_from_iter(row))
                .map_err(|e| e.to_string())?;
            count += 1;
        }
        appender.flush().map_err(|e| e.to_string())?;
        held = waiting;
    }
    Ok(count)
}

/// A SQLite value as the appender takes it; DuckDB casts it to the column's type.
fn cell(v: ValueRef<'_>) -> Cell {
    match v {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(i) => Cell::BigInt(i),
        ValueRef::Real(r) => Cell::Double(r),
        ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
    }
}
