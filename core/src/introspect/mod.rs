//! Reading a database's structure and statistics (SQLite, PostgreSQL, MySQL/MariaDB,
//! DuckDB) through plain read-only queries, once per dialect for every adapter
//! ([`Metadata`]), so the snapshot any adapter gives is the same kind of snapshot and passes
//! the same guard as any query.
//!
//! Each engine's module reads its own catalogue into a [`Structure`]; the statistics pass
//! here is shared, every name and text in it written for the engine's dialect by the
//! generator's own quoting.

mod duckdb;
pub mod infer;
mod mysql;
mod postgres;
mod sqlite;

use crate::datasource::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame,
};
use crate::lower::{quote_name, quote_text};
use crate::schema::{
    Column, ColumnStats, ForeignKey, SchemaSnapshot, Table, TypeCategory, SAMPLE_ALL_MAX,
    SAMPLE_TOP,
};
use crate::value::Value;

pub use nl2sql_plan::schema::{category_of, ColumnShape, Structure, TableShape};

/// What is read about a datasource, the same way for every adapter of a dialect (SQLite's
/// catalogue for sql.js and rusqlite alike, `pg_catalog` for PostgreSQL, …): implemented
/// for every [`Datasource`], never by one.
pub trait Metadata {
    /// The schema and its statistics, of the tables the datasource shows. When it hides
    /// some, the fingerprint is still the whole database's, as [`Metadata::fingerprint`]
    /// reads it, so the per-run check compares like with like.
    fn introspect(&self) -> LocalBoxFuture<'_, Result<SchemaSnapshot, DatasourceError>>;

    /// The structural fingerprint of what the database holds now (see
    /// [`SchemaSnapshot::fingerprint`]), compared with the indexed snapshot's on every run:
    /// the structure alone, no statistics (two catalogue reads on SQLite).
    fn fingerprint(&self) -> LocalBoxFuture<'_, Result<String, DatasourceError>>;
}

impl<D: Datasource + ?Sized> Metadata for D {
    fn introspect(&self) -> LocalBoxFuture<'_, Result<SchemaSnapshot, DatasourceError>> {
        Box::pin(read(self))
    }

    fn fingerprint(&self) -> LocalBoxFuture<'_, Result<String, DatasourceError>> {
        Box::pin(structure_fingerprint(self))
    }
}

/// Catalogue reads are small; the cap only guards against a pathological catalogue.
const CATALOGUE_LIMITS: ExecLimits = ExecLimits::reading(1_000_000);

/// A datasource's schema and statistics, read in its dialect's way, of the tables it shows
/// (see [`Metadata::introspect`]).
pub async fn read<D: Datasource + ?Sized>(ds: &D) -> Result<SchemaSnapshot, DatasourceError> {
    let (mut snapshot, hid) = match ds.dialect() {
        Dialect::Sqlite => sqlite::read(ds).await?,
        _ => read_server(ds).await?,
    };
    if hid {
        // The whole database's fingerprint, as the per-run check reads it.
        let whole = structure_fingerprint(ds).await?;
        snapshot.version = format!("v{}", whole.get(..8).unwrap_or(&whole));
        snapshot.fingerprint = whole;
    }
    // After the fingerprint: an inferred relationship is not the database's structure.
    for (table, key) in infer::infer(ds, &snapshot).await {
        if let Some(t) = snapshot.tables.iter_mut().find(|t| t.name == table) {
            t.foreign_keys.push(key);
        }
    }
    Ok(snapshot)
}

/// The structural fingerprint of what `ds` holds now, in its dialect's way (see
/// [`Metadata::fingerprint`]).
pub async fn structure_fingerprint<D: Datasource + ?Sized>(
    ds: &D,
) -> Result<String, DatasourceError> {
    match ds.dialect() {
        Dialect::Sqlite => sqlite::fingerprint(ds).await,
        _ => fingerprint(ds).await,
    }
}

/// A PostgreSQL, MySQL/MariaDB, DuckDB or Spark datasource's structure, then each shown
/// table's row count and column statistics: the others' statistics are never read (a
/// caller may not be allowed to), and foreign keys to them are left out. Says whether it
/// left any out; the fingerprint is of the tables read.
async fn read_server<D: Datasource + ?Sized>(
    ds: &D,
) -> Result<(SchemaSnapshot, bool), DatasourceError> {
    let dialect = ds.dialect();
    let mut tables = Vec::new();
    let mut hid = false;
    for shape in structure(ds).await? {
        if !ds.shows(&shape.name) {
            hid = true;
            continue;
        }
        // Statistics that run past the time limit (or a view's that cannot be read, such
        // as a materialized view never filled) are left out alone: the table stays, with
        // its structure, and says why.
        let view = shape.view;
        match with_statistics(ds, dialect, shape.clone()).await {
            Ok(table) => tables.push(table),
            Err(e) if view || e.kind == DatasourceErrorKind::TimedOut => {
                tables.push(Table {
                    schema: shape.schema.clone(),
                    columns: shape
                        .columns
                        .into_iter()
                        .map(|c| {
                            let category = category_of(&c.declared_type);
                            column(c, category, ColumnStats::default())
                        })
                        .collect(),
                    name: shape.name,
                    foreign_keys: shape.foreign_keys,
                    row_count: 0,
                    view: shape.view,
                    unread: Some(unread(&e)),
                });
            }
            Err(e) => return Err(e),
        }
    }
    drop_keys_to_missing_tables(&mut tables);
    let own = own_schema(ds, dialect).await?;
    Ok((
        SchemaSnapshot::new(ds.id(), dialect, tables).in_schema(own),
        hid,
    ))
}

/// The connection's own schema, whose tables have bare names: PostgreSQL's and DuckDB's
/// current schema, MySQL's and Spark's database; none where the engine has no such thing
/// here (SQLite, SQL Server).
async fn own_schema<D: Datasource + ?Sized>(
    ds: &D,
    dialect: Dialect,
) -> Result<Option<String>, DatasourceError> {
    let sql = match dialect {
        Dialect::Postgres | Dialect::DuckDb => "SELECT current_schema()",
        Dialect::MySql => "SELECT DATABASE()",
        Dialect::Spark => "SELECT current_database()",
        _ => return Ok(None),
    };
    let frame = run(ds, sql).await?;
    let first = frame.rows.first().and_then(|r| r.first());
    Ok(match first {
        Some(Value::Text(own)) if !own.is_empty() => Some(own.clone()),
        _ => None,
    })
}

/// The schemas `ds` is limited to as SQL text literals (`'sales', 'finance'`), in its
/// dialect's quoting (in lower case on DuckDB, whose reader compares them so); `None` when
/// it reads every schema.
fn schema_list<D: Datasource + ?Sized>(ds: &D) -> Option<String> {
    let dialect = ds.dialect();
    let quoted = (ds.schemas()?.iter())
        .map(|s| match dialect {
            Dialect::DuckDb => quote_text(&s.to_lowercase(), dialect),
            _ => quote_text(s, dialect),
        })
        .collect::<Vec<_>>();
    Some(quoted.join(", "))
}

/// A condition's ` AND column IN (…)` limiting `column` to the schemas `ds` is limited to;
/// empty when it reads every schema.
fn in_schemas<D: Datasource + ?Sized>(ds: &D, column: &str) -> String {
    schema_list(ds)
        .map(|list| format!(" AND {column} IN ({list})"))
        .unwrap_or_default()
}

/// Leaves out the foreign keys whose referenced table is not among `tables`.
pub(crate) fn drop_keys_to_missing_tables(tables: &mut [Table]) {
    let names: Vec<String> = tables.iter().map(|t| t.name.clone()).collect();
    for table in tables.iter_mut() {
        table.foreign_keys.retain(|k| {
            names
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&k.referenced_table))
        });
    }
}

/// The structural fingerprint alone, from the catalogue reads and no statistics; always
/// equal to [`introspect`]'s for the same structure. Keys to a table the catalogue does not
/// give (a schema not listed, a table the login may not select) are left out, as reading
/// leaves them out.
async fn fingerprint<D: Datasource + ?Sized>(ds: &D) -> Result<String, DatasourceError> {
    let mut tables: Vec<Table> = structure(ds)
        .await?
        .into_iter()
        .map(|shape| Table {
            schema: shape.schema,
            columns: shape
                .columns
                .into_iter()
                .map(|c| column(c, TypeCategory::Other, ColumnStats::default()))
                .collect(),
            name: shape.name,
            foreign_keys: shape.foreign_keys,
            row_count: 0,
            view: shape.view,
            unread: None,
        })
        .collect();
    drop_keys_to_missing_tables(&mut tables);
    Ok(SchemaSnapshot::new(ds.id(), ds.dialect(), tables).fingerprint)
}

/// The structure the adapter reads itself ([`Datasource::catalogue`]), else the engine's
/// catalogue read with SQL.
async fn structure<D: Datasource + ?Sized>(ds: &D) -> Result<Structure, DatasourceError> {
    if let Some(read) = ds.catalogue().await? {
        return Ok(read);
    }
    match ds.dialect() {
        Dialect::Postgres => postgres::structure(ds).await,
        Dialect::MySql => mysql::structure(ds).await,
        Dialect::DuckDb => duckdb::structure(ds).await,
        other => Err(catalogue_error(&format!(
            "no catalogue reader for {other} here"
        ))),
    }
}

fn column(shape: ColumnShape, category: TypeCategory, stats: ColumnStats) -> Column {
    Column {
        name: shape.name,
        declared_type: shape.declared_type,
        category,
        nullable: shape.nullable,
        primary_key_position: shape.primary_key_position,
        stats,
    }
}

/// Result columns per statistics pass; each column costs [`AGGREGATES`] of them, well under
/// every engine's limit on a select list (PostgreSQL's 1,664 is the lowest).
const COLUMNS_PER_PASS: usize = 300;
/// Aggregates read per column: non-null count, distinct count, min, max.
const AGGREGATES: usize = 4;

/// The row count and each column's statistics: one aggregate pass per [`COLUMNS_PER_PASS`]
/// columns, then one grouped read per text column for its sample values. Min and max are
/// read only where they mean something (numbers and dates), and distinct counts only for
/// kinds every engine can compare (not JSON, arrays or blobs).
async fn with_statistics<D: Datasource + ?Sized>(
    ds: &D,
    dialect: Dialect,
    shape: TableShape,
) -> Result<Table, DatasourceError> {
    let table = quote_table(shape.schema.as_deref(), shape.bare_name(), dialect);
    let categories: Vec<TypeCategory> = shape
        .columns
        .iter()
        .map(|c| category_of(&c.declared_type))
        .collect();
    let mut row_count = 0;
    let mut raw = Vec::with_capacity(shape.columns.len());
    let described: Vec<(&ColumnShape, TypeCategory)> = shape
        .columns
        .iter()
        .zip(categories.iter().copied())
        .collect();
    for chunk in described.chunks(COLUMNS_PER_PASS) {
        let mut terms = vec!["COUNT(*)".to_string()];
        for (col, category) in chunk {
            let q = quote_name(&col.name, dialect);
            let ranged = matches!(category, TypeCategory::Number | TypeCategory::Temporal);
            terms.push(format!("COUNT({q})"));
            terms.push(if *category == TypeCategory::Other {
                "0".into()
            } else {
                format!("COUNT(DISTINCT {q})")
            });
            terms.push(if ranged {
                format!("MIN({q})")
            } else {
                "NULL".into()
            });
            terms.push(if ranged {
                format!("MAX({q})")
            } else {
                "NULL".into()
            });
        }
        let frame = run(ds, &format!("SELECT {} FROM {table}", terms.join(", "))).await?;
        let row = frame
            .rows
            .first()
            .ok_or_else(|| catalogue_error("the statistics query returned no row"))?;
        row_count = count_at(row, 0)?;
        for i in 0..chunk.len() {
            let at = 1 + i * AGGREGATES;
            let value = |k: usize| row.get(at + k).cloned().unwrap_or(Value::Null);
            raw.push((
                count_at(row, at)?,
                count_at(row, at + 1)?,
                value(2),
                value(3),
            ));
        }
    }
    let mut columns = Vec::with_capacity(shape.columns.len());
    for ((col, category), (non_null, distinct, min, max)) in
        shape.columns.into_iter().zip(categories).zip(raw)
    {
        let present = |v: Value| (v != Value::Null).then_some(v);
        let sample_values = if category == TypeCategory::Text && distinct > 0 {
            sample_values(ds, dialect, &table, &col.name, distinct).await?
        } else {
            Vec::new()
        };
        let stats = ColumnStats {
            null_fraction: if row_count == 0 {
                0.0
            } else {
                (row_count - non_null.min(row_count)) as f64 / row_count as f64
            },
            distinct_count: distinct,
            min: present(min),
            max: present(max),
            sample_values,
        };
        columns.push(column(col, category, stats));
    }
    Ok(Table {
        name: shape.name,
        schema: shape.schema,
        columns,
        foreign_keys: shape.foreign_keys,
        row_count,
        view: shape.view,
        unread: None,
    })
}

/// A table's name for SQL text: `"schema"."table"` outside the connection's own schema.
fn quote_table(schema: Option<&str>, table: &str, dialect: Dialect) -> String {
    match schema {
        Some(schema) => format!(
            "{}.{}",
            quote_name(schema, dialect),
            quote_name(table, dialect)
        ),
        None => quote_name(table, dialect),
    }
}

/// A text column's values: all of them up to [`SAMPLE_ALL_MAX`] distinct, else the
/// [`SAMPLE_TOP`] most frequent. Ties are broken in byte order on every engine (whatever the
/// column's collation), so every engine gives SQLite's list.
pub(crate) async fn sample_values<D: Datasource + ?Sized>(
    ds: &D,
    dialect: Dialect,
    table: &str,
    column: &str,
    distinct_count: u64,
) -> Result<Vec<String>, DatasourceError> {
    let limit = if distinct_count <= SAMPLE_ALL_MAX {
        SAMPLE_ALL_MAX
    } else {
        SAMPLE_TOP
    };
    let q = quote_name(column, dialect);
    let bytewise = match dialect {
        // Through text, so a type with no collation (`uuid`) orders too.
        Dialect::Postgres => format!("CAST({q} AS TEXT) COLLATE \"C\""),
        Dialect::MySql => format!("CAST({q} AS BINARY)"),
        _ => q.clone(),
    };
    let frame = run(
        ds,
        &format!(
            "SELECT {q}, COUNT(*) AS n FROM {table} WHERE {q} IS NOT NULL \
             GROUP BY {q} ORDER BY n DESC, {bytewise} LIMIT {limit}"
        ),
    )
    .await?;
    Ok(frame
        .rows
        .iter()
        .filter_map(|row| row.first())
        .map(|v| match v {
            Value::Text(s) => s.clone(),
            other => other.to_string(),
        })
        .collect())
}

async fn run<D: Datasource + ?Sized>(ds: &D, sql: &str) -> Result<ResultFrame, DatasourceError> {
    ds.execute(sql, CATALOGUE_LIMITS).await
}

/// Why a table's statistics are missing: its read stopped at the time limit.
pub(crate) fn unread(e: &DatasourceError) -> String {
    format!("its statistics were not read: {}", e.message)
}

/// A catalogue read that did not give what it must (shared with [`crate::sqlite`]'s).
pub(crate) fn catalogue_error(message: &str) -> DatasourceError {
    DatasourceError::new(
        DatasourceErrorKind::Unavailable,
        format!("could not read the schema: {message}"),
    )
}

pub(crate) fn text_at(row: &[Value], i: usize) -> Result<String, DatasourceError> {
    match row.get(i) {
        Some(Value::Text(s)) => Ok(s.clone()),
        Some(Value::Null) => Ok(String::new()),
        other => Err(catalogue_error(&format!("expected text, found {other:?}"))),
    }
}

pub(crate) fn int_at(row: &[Value], i: usize) -> Result<i64, DatasourceError> {
    match row.get(i) {
        Some(Value::Integer(n)) => Ok(*n),
        // Some drivers give a catalogue's numbers as text or as exact decimals.
        Some(Value::Text(t)) => t
            .trim()
            .parse()
            .map_err(|_| catalogue_error(&format!("expected an integer, found {t:?}"))),
        Some(Value::Real(r)) if r.fract() == 0.0 => Ok(*r as i64),
        other => Err(catalogue_error(&format!(
            "expected an integer, found {other:?}"
        ))),
    }
}

/// Counts are integers, except a count over nothing, which some engines give as NULL.
pub(crate) fn count_at(row: &[Value], i: usize) -> Result<u64, DatasourceError> {
    match row.get(i) {
        Some(Value::Null) => Ok(0),
        _ => Ok(u64::try_from(int_at(row, i)?).unwrap_or(0)),
    }
}

/// Builds the structure from three catalogue reads every engine can give in the same shape,
/// each row led by the table's schema (empty for the connection's own): columns (`schema,
/// table, column, declared type, not null as 0/1, view as 0/1`) in declaration order,
/// primary key columns (`schema, table, column, position`) and foreign-key columns
/// (`schema, table, key name, column, referenced schema, referenced table, referenced
/// column`) in key order.
fn assemble(
    columns: &ResultFrame,
    primary_keys: &ResultFrame,
    foreign_keys: &ResultFrame,
) -> Result<Structure, DatasourceError> {
    let named = |row: &[Value], at: usize| -> Result<String, DatasourceError> {
        let (schema, table) = (text_at(row, at)?, text_at(row, at + 1)?);
        Ok(TableShape::named(Some(&schema), &table).0)
    };
    let mut tables: Structure = Vec::new();
    for row in &columns.rows {
        let (schema, table) = (text_at(row, 0)?, text_at(row, 1)?);
        let (name, schema) = TableShape::named(Some(&schema), &table);
        let col = ColumnShape {
            name: text_at(row, 2)?,
            declared_type: text_at(row, 3)?,
            nullable: int_at(row, 4)? == 0,
            primary_key_position: None,
        };
        match tables.last_mut() {
            Some(t) if t.name == name => t.columns.push(col),
            _ => tables.push(TableShape {
                name,
                schema,
                columns: vec![col],
                foreign_keys: Vec::new(),
                view: int_at(row, 5)? != 0,
            }),
        }
    }
    for row in &primary_keys.rows {
        let (table, name) = (named(row, 0)?, text_at(row, 2)?);
        let position = u32::try_from(int_at(row, 3)?).unwrap_or(0);
        if let Some(col) = tables
            .iter_mut()
            .find(|t| t.name == table)
            .and_then(|t| t.columns.iter_mut().find(|c| c.name == name))
        {
            col.primary_key_position = (position > 0).then_some(position);
        }
    }
    let mut last_key: Option<(String, String)> = None;
    for row in &foreign_keys.rows {
        let (table, key) = (named(row, 0)?, text_at(row, 2)?);
        let (from, referenced_table, to) = (text_at(row, 3)?, named(row, 4)?, text_at(row, 6)?);
        let Some(shape) = tables.iter_mut().find(|t| t.name == table) else {
            continue;
        };
        let same = last_key.as_ref() == Some(&(table.clone(), key.clone()));
        match shape.foreign_keys.last_mut() {
            Some(fk) if same => {
                fk.columns.push(from);
                fk.referenced_columns.push(to);
            }
            _ => shape.foreign_keys.push(ForeignKey {
                source: Default::default(),
                columns: vec![from],
                referenced_table,
                referenced_columns: vec![to],
            }),
        }
        last_key = Some((table, key));
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_type_names_map_to_categories_by_name_not_by_substring() {
        for (t, want) in [
            ("integer", TypeCategory::Number),
            ("numeric(10,2)", TypeCategory::Number),
            ("double precision", TypeCategory::Number),
            ("int(11) unsigned", TypeCategory::Number),
            ("DECIMAL(10,2)", TypeCategory::Number),
            ("HUGEINT", TypeCategory::Number),
            ("character varying(200)", TypeCategory::Text),
            ("varchar(40)", TypeCategory::Text),
            ("VARCHAR", TypeCategory::Text),
            ("longtext", TypeCategory::Text),
            ("timestamp without time zone", TypeCategory::Temporal),
            ("datetime", TypeCategory::Temporal),
            ("TIMESTAMP WITH TIME ZONE", TypeCategory::Temporal),
            ("date", TypeCategory::Temporal),
            ("boolean", TypeCategory::Boolean),
            ("timestamp_ntz", TypeCategory::Temporal),
            ("decimal(10,2)", TypeCategory::Number),
            ("array<int>", TypeCategory::Other),
            ("map<string,int>", TypeCategory::Other),
            ("struct<a:int>", TypeCategory::Other),
            ("interval", TypeCategory::Other),
            ("point", TypeCategory::Other),
            ("jsonb", TypeCategory::Other),
            ("integer[]", TypeCategory::Other),
            ("INTEGER[3]", TypeCategory::Other),
            ("bytea", TypeCategory::Other),
        ] {
            assert_eq!(category_of(t), want, "{t}");
        }
    }

    fn frame(rows: Vec<Vec<Value>>) -> ResultFrame {
        ResultFrame {
            rows,
            ..ResultFrame::default()
        }
    }

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn catalogue_rows_assemble_into_tables_keys_and_multi_column_foreign_keys() {
        let (no, yes) = (Value::Integer(0), Value::Integer(1));
        let here = || t("");
        let columns = frame(vec![
            vec![here(), t("a"), t("x"), t("integer"), yes.clone(), no.clone()],
            vec![here(), t("a"), t("y"), t("integer"), yes.clone(), no.clone()],
            vec![here(), t("b"), t("ax"), t("integer"), no.clone(), no.clone()],
            vec![here(), t("b"), t("ay"), t("integer"), no.clone(), no.clone()],
            vec![here(), t("v"), t("x"), t("integer"), no.clone(), yes],
            vec![t("sales"), t("a"), t("z"), t("integer"), no.clone(), no.clone()],
        ]);
        let pks = frame(vec![
            vec![here(), t("a"), t("y"), Value::Integer(2)],
            vec![here(), t("a"), t("x"), t("1")],
        ]);
        let fks = frame(vec![
            vec![here(), t("b"), t("k"), t("ax"), here(), t("a"), t("x")],
            vec![here(), t("b"), t("k"), t("ay"), here(), t("a"), t("y")],
            vec![here(), t("gone"), t("k"), t("q"), here(), t("a"), t("x")],
            vec![t("sales"), t("a"), t("k"), t("z"), here(), t("a"), t("x")],
        ]);
        let s = assemble(&columns, &pks, &fks).unwrap();
        assert_eq!(s.len(), 4);
        assert!(!s[0].view && s[2].view, "the third is a view");
        // A table of another schema is named with it, and so is a key to or from one.
        assert_eq!(
            (s[3].name.as_str(), s[3].schema.as_deref(), s[3].bare_name()),
            ("sales.a", Some("sales"), "a")
        );
        assert_eq!(s[3].foreign_keys[0].referenced_table, "a");
        assert_eq!(s[0].schema, None);
        assert_eq!(s[0].columns[0].primary_key_position, Some(1));
        assert_eq!(s[0].columns[1].primary_key_position, Some(2));
        assert!(!s[0].columns[0].nullable && s[1].columns[0].nullable);
        assert_eq!(
            s[1].foreign_keys,
            vec![ForeignKey {
                source: Default::default(),
                columns: vec!["ax".into(), "ay".into()],
                referenced_table: "a".into(),
                referenced_columns: vec!["x".into(), "y".into()],
            }]
        );
        let bad = frame(vec![vec![here(), t("a"), Value::Integer(3), t("int"), t("no"), no]]);
        assert!(assemble(&bad, &pks, &fks).is_err());
    }
}
