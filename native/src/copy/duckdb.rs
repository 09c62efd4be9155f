//! The copy into a DuckDB file (created when missing): one transaction, so everything lands
//! or nothing does; rows go in through DuckDB's appender.
//!
//! DuckDB checks foreign keys as rows arrive, takes them only in `CREATE TABLE` (no
//! `ALTER TABLE … ADD FOREIGN KEY`) and only to a primary key, so tables are created parents
//! first and a table's rows that point at rows of the same table are appended a generation
//! at a time (that table held in memory to order it); a key that SQLite's rows break, that
//! names other columns, or that closes a cycle, is left out with a note.

use super::{
    create_table, key_about, key_clause, kind_of, precision, select_all, CopyReport, Kind,
    PROGRESS_EVERY,
};
use crate::address::Address;
use duckdb::types::Value as Cell;
use duckdb::{appender_params_from_iter, Connection};
use nl2sql_core::adapter::quote_name;
use nl2sql_core::adapter::{Column, Dialect, ForeignKey, SchemaSnapshot, Table};
use nl2sql_core::error::Error;
use rusqlite::types::ValueRef;
use std::collections::BTreeSet;

pub(super) fn copy(
    schema: &SchemaSnapshot,
    rows: &rusqlite::Connection,
    target: &Address,
    replace: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<CopyReport, Error> {
    let Some(path) = target.path() else {
        return Err(crate::errors::copy_failed(format!(
            "{target} is not a file"
        )));
    };
    let existed = path.exists();
    let conn = Connection::open(&path).map_err(|e| {
        crate::errors::copy_failed(format!("cannot open {target} as a DuckDB database: {e}"))
    })?;
    let mut report = CopyReport::default();
    let plan = Plan::of(schema, rows, &mut report.notes)
        .map_err(|e| crate::errors::copy_failed(format!("reading the source's keys: {e}")))?;
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
            Err(crate::errors::copy_failed(why))
        }
    }
}

/// The tables in the order they can be created, each with the foreign keys it keeps and,
/// for a table whose kept keys point at itself, its rows in the generations they are
/// appended in.
struct Plan<'a> {
    tables: Vec<Planned<'a>>,
}

struct Planned<'a> {
    table: &'a Table,
    keys: Vec<&'a ForeignKey>,
    /// The rows, a generation each (rows that point at rows of the same table come after
    /// them); `None`: streamed as they are read.
    generations: Option<Vec<Vec<Vec<Cell>>>>,
}

impl<'a> Plan<'a> {
    /// Parents before children. A key is left out, with a note, when SQLite's rows break
    /// it, when it names other columns than its table's primary key (DuckDB keeps only
    /// those), when it closes a cycle between tables, or when rows of one table point at
    /// each other in a cycle.
    fn of(
        schema: &'a SchemaSnapshot,
        rows: &rusqlite::Connection,
        notes: &mut Vec<String>,
    ) -> Result<Plan<'a>, rusqlite::Error> {
        let mut pending: Vec<(&Table, Vec<&ForeignKey>)> = Vec::new();
        for table in &schema.tables {
            let mut kept = Vec::new();
            for fk in &table.foreign_keys {
                let to_key = schema.table(&fk.referenced_table).is_some_and(|parent| {
                    same_names(&parent.primary_key(), &fk.referenced_columns)
                });
                let broken = orphans(rows, table, fk)?;
                if !to_key {
                    notes.push(format!(
                        "{}: not kept: DuckDB keeps a key only to its table's primary key",
                        key_about(table, fk)
                    ));
                } else if broken > 0 {
                    notes.push(format!(
                        "{}: not kept: {broken} rows point at no row",
                        key_about(table, fk)
                    ));
                } else {
                    kept.push(fk);
                }
            }
            pending.push((table, kept));
        }
        let mut tables = Vec::new();
        let mut created: BTreeSet<String> = BTreeSet::new();
        let waits = |(t, keys): &(&Table, Vec<&ForeignKey>), created: &BTreeSet<String>| {
            keys.iter()
                .filter(|k| !k.referenced_table.eq_ignore_ascii_case(&t.name))
                .filter(|k| !created.contains(&k.referenced_table.to_ascii_lowercase()))
                .map(|k| k.referenced_table.to_ascii_lowercase())
                .collect::<Vec<_>>()
        };
        while !pending.is_empty() {
            let at = match pending.iter().position(|p| waits(p, &created).is_empty()) {
                Some(at) => at,
                // Every table left waits: follow what the first waits on until a table
                // comes round again, which is on a cycle; it goes in without the keys that
                // wait.
                None => {
                    let mut seen: Vec<usize> = Vec::new();
                    let mut at = 0;
                    while !seen.contains(&at) {
                        seen.push(at);
                        let next = waits(&pending[at], &created).into_iter().find_map(|name| {
                            pending
                                .iter()
                                .position(|(t, _)| t.name.eq_ignore_ascii_case(&name))
                        });
                        match next {
                            Some(next) => at = next,
                            None => break,
                        }
                    }
                    let waiting = waits(&pending[at], &created);
                    let (table, keys) = &mut pending[at];
                    keys.retain(|k| {
                        let cut = waiting.contains(&k.referenced_table.to_ascii_lowercase());
                        if cut {
                            notes.push(format!(
                                "{}: not kept: the tables' keys form a cycle, which DuckDB \
                                 cannot create",
                                key_about(table, k)
                            ));
                        }
                        !cut
                    });
                    at
                }
            };
            let (table, mut keys) = pending.remove(at);
            created.insert(table.name.to_ascii_lowercase());
            let own: Vec<&ForeignKey> = keys
                .iter()
                .copied()
                .filter(|k| k.referenced_table.eq_ignore_ascii_case(&table.name))
                .collect();
            let generations = if own.is_empty() {
                None
            } else {
                let all = read_rows(rows, table)?;
                match generations(table, &own, all) {
                    Ok(generations) => Some(generations),
                    Err(all) => {
                        for k in &own {
                            notes.push(format!(
                                "{}: not kept: rows of the table point at each other in a \
                                 cycle",
                                key_about(table, k)
                            ));
                        }
                        keys.retain(|k| !k.referenced_table.eq_ignore_ascii_case(&table.name));
                        Some(vec![all])
                    }
                }
            };
            tables.push(Planned {
                table,
                keys,
                generations,
            });
        }
        Ok(Plan { tables })
    }
}

/// Whether two lists name the same columns (in any order, case aside).
fn same_names(a: &[&str], b: &[String]) -> bool {
    let lower = |names: &mut dyn Iterator<Item = &str>| {
        let mut v: Vec<String> = names.map(str::to_ascii_lowercase).collect();
        v.sort();
        v
    };
    !a.is_empty() && lower(&mut a.iter().copied()) == lower(&mut b.iter().map(String::as_str))
}

/// Every row of `table`, as the appender takes them.
fn read_rows(
    rows: &rusqlite::Connection,
    table: &Table,
) -> Result<Vec<Vec<Cell>>, rusqlite::Error> {
    let mut stmt = rows.prepare(&select_all(table))?;
    let width = table.columns.len();
    let mut cursor = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(row) = cursor.next()? {
        let mut cells = Vec::with_capacity(width);
        for i in 0..width {
            cells.push(cell(row.get_ref(i)?));
        }
        out.push(cells);
    }
    Ok(out)
}

/// The rows in generations: first those whose keys `own` (which point at the table itself)
/// name no row, then those naming only rows of earlier generations, and so on, each row
/// visited once. The rows back, whole, when some point at each other in a cycle (a row
/// naming itself included).
fn generations(
    table: &Table,
    own: &[&ForeignKey],
    all: Vec<Vec<Cell>>,
) -> Result<Vec<Vec<Vec<Cell>>>, Vec<Vec<Cell>>> {
    let position = |name: &str| {
        table
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    };
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
    if pairs.iter().any(Vec::is_empty) {
        return Err(all);
    }
    // A key written out, so it can be looked up; none when a column of it is NULL.
    let key = |row: &[Cell], at: &mut dyn Iterator<Item = usize>| -> Option<String> {
        let cells: Vec<&Cell> = at.map(|i| &row[i]).collect();
        (!cells.iter().any(|c| **c == Cell::Null)).then(|| format!("{cells:?}"))
    };
    // Per key and row: the key the row names, and the one it offers to others.
    let mut unmet = vec![0usize; all.len()];
    let mut waiting: std::collections::HashMap<(usize, String), Vec<usize>> = Default::default();
    for (r, row) in all.iter().enumerate() {
        for (k, pair) in pairs.iter().enumerate() {
            if let Some(wanted) = key(row, &mut pair.iter().map(|(from, _)| *from)) {
                unmet[r] += 1;
                waiting.entry((k, wanted)).or_default().push(r);
            }
        }
    }
    let mut generations: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = (0..all.len()).filter(|r| unmet[*r] == 0).collect();
    let mut placed = 0;
    while !current.is_empty() {
        placed += current.len();
        let mut next = Vec::new();
        for &r in &current {
            for (k, pair) in pairs.iter().enumerate() {
                let Some(offered) = key(&all[r], &mut pair.iter().map(|(_, to)| *to)) else {
                    continue;
                };
                for w in waiting.remove(&(k, offered)).unwrap_or_default() {
                    unmet[w] -= 1;
                    if unmet[w] == 0 {
                        next.push(w);
                    }
                }
            }
        }
        generations.push(std::mem::replace(&mut current, next));
    }
    if placed < all.len() {
        return Err(all);
    }
    let mut cells: Vec<Option<Vec<Cell>>> = all.into_iter().map(Some).collect();
    Ok(generations
        .into_iter()
        .map(|g| g.into_iter().filter_map(|r| cells[r].take()).collect())
        .collect())
}

/// How many of `table`'s rows name, through `fk`, a row its referenced table lacks.
fn orphans(
    rows: &rusqlite::Connection,
    table: &Table,
    fk: &ForeignKey,
) -> Result<i64, rusqlite::Error> {
    let q = nl2sql_core::adapter::sqlite::quote_ident;
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
    for Planned { table, .. } in plan.tables.iter().rev() {
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
    for Planned { table, keys, .. } in &plan.tables {
        let mut create = create_table(table, Dialect::DuckDb, duckdb_type, "");
        if !keys.is_empty() {
            // The keys go inside the column list, before its closing parenthesis.
            create.pop();
            for fk in keys {
                create.push_str(", ");
                create.push_str(&key_clause(fk, Dialect::DuckDb));
            }
            create.push(')');
        }
        conn.execute_batch(&create)
            .map_err(|e| format!("creating {}: {e}", table.name))?;
    }
    for planned in &plan.tables {
        let table = planned.table;
        let copied = append_rows(conn, rows, planned, progress)
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

/// Appends the rows of `planned`'s table: streamed, or a generation at a time (flushed in
/// between, since DuckDB checks each chunk against the rows already appended).
fn append_rows(
    conn: &Connection,
    rows: &rusqlite::Connection,
    planned: &Planned,
    progress: &mut dyn FnMut(&str),
) -> Result<u64, String> {
    let table = planned.table;
    let mut appender = conn.appender(&table.name).map_err(|e| e.to_string())?;
    let mut count = 0u64;
    if let Some(generations) = &planned.generations {
        for generation in generations {
            for row in generation {
                appender
                    .append_row(appender_params_from_iter(row.iter().cloned()))
                    .map_err(|e| e.to_string())?;
                count += 1;
            }
            appender.flush().map_err(|e| e.to_string())?;
        }
        return Ok(count);
    }
    let mut stmt = rows
        .prepare(&select_all(table))
        .map_err(|e| e.to_string())?;
    let width = table.columns.len();
    let mut cursor = stmt.query([]).map_err(|e| e.to_string())?;
    while let Some(row) = cursor.next().map_err(|e| e.to_string())? {
        let mut cells = Vec::with_capacity(width);
        for i in 0..width {
            cells.push(cell(row.get_ref(i).map_err(|e| e.to_string())?));
        }
        appender
            .append_row(appender_params_from_iter(cells))
            .map_err(|e| e.to_string())?;
        count += 1;
        if count.is_multiple_of(PROGRESS_EVERY) {
            progress(&format!("{}: {count} rows", table.name));
        }
    }
    appender.flush().map_err(|e| e.to_string())?;
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
