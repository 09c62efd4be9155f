//! Reads a SQLite database's structure and statistics through read-only queries only, so it
//! runs unchanged on every adapter and passes the same guard as any other query.

use crate::sqlite::{quote_ident, quote_literal};
use crate::datasource::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame,
};
use super::Structure;
use super::{catalogue_error, count_at, int_at, text_at, unread};
use crate::schema::{Column, ColumnStats, ForeignKey, SchemaSnapshot, Table, TypeCategory};
use crate::value::Value;

/// Catalogue reads are small; the cap only guards against a pathological file.
const CATALOGUE_LIMITS: ExecLimits = ExecLimits::reading(100_000);

/// Reads every table and view the datasource shows (not SQLite's own tables) with its
/// columns, keys, row count and column statistics: no other table is read (a caller may not
/// be allowed to), and foreign keys to the others are left out. Says whether it left any
/// out; the fingerprint is of the tables read.
pub async fn read<D: Datasource + ?Sized>(
    ds: &D,
) -> Result<(SchemaSnapshot, bool), DatasourceError> {
    let names = run(
        ds,
        "SELECT name, type = 'view' FROM sqlite_master WHERE type IN ('table', 'view') \
         AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name",
    )
    .await?;
    let mut tables = Vec::with_capacity(names.rows.len());
    let mut hid = false;
    for row in &names.rows {
        let name = text_at(row, 0)?;
        if ds.shows(&name) {
            tables.push(read_table(ds, &name, int_at(row, 1)? != 0).await?);
        } else {
            hid = true;
        }
    }
    super::drop_keys_to_missing_tables(&mut tables);
    Ok((SchemaSnapshot::new(ds.id(), ds.dialect(), tables), hid))
}

/// The structural fingerprint alone (names, declared types, nullability, keys), in two
/// catalogue reads and no statistics: cheap enough to compare with the indexed snapshot on
/// every run. Always equal to [`read`]'s fingerprint for the same structure.
pub async fn fingerprint<D: Datasource + ?Sized>(ds: &D) -> Result<String, DatasourceError> {
    match cheap_fingerprint(ds).await {
        Ok(fingerprint) => Ok(fingerprint),
        // A view SQLite cannot read (its table dropped) fails the catalogue join; the full
        // read keeps it, empty, and gives the same fingerprint.
        Err(e) if e.kind == DatasourceErrorKind::InvalidQuery => {
            whole(ds).await.map(|s| s.fingerprint)
        }
        Err(e) => Err(e),
    }
}

/// Every table of `ds`, whatever it shows: what a fingerprint that reads no statistics
/// falls back on.
async fn whole<D: Datasource + ?Sized>(ds: &D) -> Result<SchemaSnapshot, DatasourceError> {
    struct All<'a, D: ?Sized>(&'a D);
    impl<D: Datasource + ?Sized> Datasource for All<'_, D> {
        fn id(&self) -> &str {
            self.0.id()
        }
        fn dialect(&self) -> Dialect {
            self.0.dialect()
        }
        fn execute<'a>(
            &'a self,
            sql: &'a str,
            limits: ExecLimits,
        ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
            self.0.execute(sql, limits)
        }
        fn catalogue(&self) -> LocalBoxFuture<'_, Result<Option<Structure>, DatasourceError>> {
            self.0.catalogue()
        }
    }
    read(&All(ds)).await.map(|(snapshot, _)| snapshot)
}

async fn cheap_fingerprint<D: Datasource + ?Sized>(ds: &D) -> Result<String, DatasourceError> {
    const TABLES: &str = "FROM sqlite_master AS m WHERE m.type IN ('table', 'view') \
                          AND substr(m.name, 1, 7) <> 'sqlite_'";
    let columns = run(
        ds,
        &format!(
            "SELECT m.name, p.name, p.type, p.\"notnull\", p.pk, m.type = 'view' {TABLES_JOIN} \
             ORDER BY m.name, p.cid",
            TABLES_JOIN = TABLES.replacen("AS m", "AS m JOIN pragma_table_info(m.name) AS p", 1)
        ),
    )
    .await?;
    let keys = run(
        ds,
        &format!(
            "SELECT m.name, f.id, f.\"table\", f.\"from\", f.\"to\" {TABLES_JOIN} ORDER BY m.name, f.id, f.seq",
            TABLES_JOIN = TABLES.replacen("AS m", "AS m JOIN pragma_foreign_key_list(m.name) AS f", 1)
        ),
    )
    .await?;
    let mut infos: Vec<(String, bool, Vec<ColumnInfo>)> = Vec::new();
    for row in &columns.rows {
        let table = text_at(row, 0)?;
        let info = ColumnInfo {
            name: text_at(row, 1)?,
            declared_type: text_at(row, 2)?,
            not_null: int_at(row, 3)? != 0,
            pk: u32::try_from(int_at(row, 4)?).unwrap_or(0),
        };
        match infos.last_mut() {
            Some((name, _, cols)) if *name == table => cols.push(info),
            _ => infos.push((table, int_at(row, 5)? != 0, vec![info])),
        }
    }
    let mut tables = Vec::with_capacity(infos.len());
    for (name, view, cols) in &infos {
        let rows: Vec<&[Value]> = keys
            .rows
            .iter()
            .filter(|r| matches!(r.first(), Some(Value::Text(t)) if t == name))
            .map(|r| r.get(1..).unwrap_or_default())
            .collect();
        let foreign_keys = foreign_keys(&rows, |referenced| {
            let pk = infos
                .iter()
                // SQLite matches table names without regard to case, as `pragma_table_info`.
                .find(|(t, _, _)| t.eq_ignore_ascii_case(&referenced))
                .map(|(_, _, cols)| primary_key_names(cols))
                .unwrap_or_default();
            async move { Ok(pk) }
        })
        .await?;
        let single_pk = single_pk(cols);
        tables.push(Table {
            schema: None,
            name: name.clone(),
            columns: cols
                .iter()
                .map(|info| Column {
                    name: info.name.clone(),
                    declared_type: info.declared_type.clone(),
                    category: TypeCategory::Other,
                    nullable: nullable(info, single_pk),
                    primary_key_position: (info.pk > 0).then_some(info.pk),
                    stats: ColumnStats::default(),
                })
                .collect(),
            foreign_keys,
            row_count: 0,
            view: *view,
            unread: None,
        });
    }
    Ok(SchemaSnapshot::new(ds.id(), ds.dialect(), tables).fingerprint)
}

/// A table's primary key columns, in key order.
fn primary_key_names(cols: &[ColumnInfo]) -> Vec<String> {
    let mut pk: Vec<&ColumnInfo> = cols.iter().filter(|c| c.pk > 0).collect();
    pk.sort_by_key(|c| c.pk);
    pk.into_iter().map(|c| c.name.clone()).collect()
}

fn single_pk(cols: &[ColumnInfo]) -> bool {
    cols.iter().filter(|i| i.pk > 0).count() == 1
}

/// Whether a column may hold NULL. An INTEGER PRIMARY KEY is the rowid and can never be
/// NULL, NOT NULL or not.
fn nullable(info: &ColumnInfo, single_pk: bool) -> bool {
    let rowid_alias =
        single_pk && info.pk == 1 && info.declared_type.eq_ignore_ascii_case("INTEGER");
    !info.not_null && !rowid_alias
}

async fn run<D: Datasource + ?Sized>(ds: &D, sql: &str) -> Result<ResultFrame, DatasourceError> {
    ds.execute(sql, CATALOGUE_LIMITS).await
}

/// A column as `pragma_table_info` describes it, before statistics.
struct ColumnInfo {
    name: String,
    declared_type: String,
    not_null: bool,
    pk: u32,
}

async fn read_table<D: Datasource + ?Sized>(
    ds: &D,
    name: &str,
    view: bool,
) -> Result<Table, DatasourceError> {
    let info = match run(
        ds,
        &format!(
            "SELECT name, type, \"notnull\", pk FROM pragma_table_info({}) ORDER BY cid",
            quote_literal(name)
        ),
    )
    .await
    {
        Ok(info) => info,
        // A view over a table since dropped cannot be read at all; it stays, empty, saying
        // why, and the rest of the database is read.
        Err(e) if view => {
            return Ok(Table {
                schema: None,
                name: name.to_string(),
                columns: Vec::new(),
                foreign_keys: Vec::new(),
                row_count: 0,
                view,
                unread: Some(format!("it cannot be read: {}", e.message)),
            })
        }
        Err(e) => return Err(e),
    };
    let mut columns = Vec::with_capacity(info.rows.len());
    for row in &info.rows {
        columns.push(ColumnInfo {
            name: text_at(row, 0)?,
            declared_type: text_at(row, 1)?,
            not_null: int_at(row, 2)? != 0,
            pk: u32::try_from(int_at(row, 3)?).unwrap_or(0),
        });
    }
    let foreign_keys = read_foreign_keys(ds, name).await?;
    let single = single_pk(&columns);
    let shapes: Vec<Column> = columns
        .iter()
        .map(|info| Column {
            name: info.name.clone(),
            declared_type: info.declared_type.clone(),
            category: category_of(&info.declared_type),
            nullable: nullable(info, single),
            primary_key_position: (info.pk > 0).then_some(info.pk),
            stats: ColumnStats::default(),
        })
        .collect();
    // Statistics that run past the time limit (or a view's that cannot be read) are left
    // out alone: the table stays, with its structure, and says why.
    let (row_count, columns, unread) = match read_stats(ds, name, columns).await {
        Ok((rows, columns)) => (rows, columns, None),
        Err(e) if view || e.kind == DatasourceErrorKind::TimedOut => (0, shapes, Some(unread(&e))),
        Err(e) => return Err(e),
    };
    Ok(Table {
        schema: None,
        name: name.to_string(),
        columns,
        foreign_keys,
        row_count,
        view,
        unread,
    })
}

async fn read_foreign_keys<D: Datasource + ?Sized>(
    ds: &D,
    table: &str,
) -> Result<Vec<ForeignKey>, DatasourceError> {
    let frame = run(
        ds,
        &format!(
            "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list({}) ORDER BY id, seq",
            quote_literal(table)
        ),
    )
    .await?;
    let rows: Vec<&[Value]> = frame.rows.iter().map(Vec::as_slice).collect();
    foreign_keys(&rows, |referenced| async move {
        primary_key_of(ds, &referenced).await
    })
    .await
}

/// Groups `pragma_foreign_key_list` rows (`id, table, from, to`) into keys; a key that names
/// only the referenced table means that table's primary key, which `primary_key` reads.
async fn foreign_keys<F, Fut>(
    rows: &[&[Value]],
    primary_key: F,
) -> Result<Vec<ForeignKey>, DatasourceError>
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Result<Vec<String>, DatasourceError>>,
{
    let mut keys: Vec<(i64, ForeignKey)> = Vec::new();
    for row in rows {
        let id = int_at(row, 0)?;
        let referenced_table = text_at(row, 1)?;
        let from = text_at(row, 2)?;
        // `to` is NULL when the key names only the table: it then means that table's primary key.
        let to = match row.get(3) {
            Some(Value::Text(t)) => Some(t.clone()),
            _ => None,
        };
        match keys.last_mut() {
            Some((last, key)) if *last == id => {
                key.columns.push(from);
                key.referenced_columns.extend(to);
            }
            _ => keys.push((
                id,
                ForeignKey {
                    source: Default::default(),
                    columns: vec![from],
                    referenced_table,
                    referenced_columns: to.into_iter().collect(),
                },
            )),
        }
    }
    let mut out = Vec::with_capacity(keys.len());
    for (_, mut key) in keys {
        if key.referenced_columns.len() != key.columns.len() {
            key.referenced_columns = primary_key(key.referenced_table.clone()).await?;
        }
        out.push(key);
    }
    // SQLite lists keys newest first; declaration order reads better and is stable.
    out.reverse();
    Ok(out)
}

async fn primary_key_of<D: Datasource + ?Sized>(
    ds: &D,
    table: &str,
) -> Result<Vec<String>, DatasourceError> {
    let frame = run(
        ds,
        &format!(
            "SELECT name FROM pragma_table_info({}) WHERE pk > 0 ORDER BY pk",
            quote_literal(table)
        ),
    )
    .await?;
    frame.rows.iter().map(|row| text_at(row, 0)).collect()
}

/// SQLite returns at most 2,000 result columns; each column costs [`AGGREGATES`] of them.
const COLUMNS_PER_PASS: usize = 300;
/// Aggregates read per column: non-null count, distinct count, min, max, ISO-date count.
const AGGREGATES: usize = 5;

/// The raw aggregates of one column.
struct Aggregates {
    non_null: u64,
    distinct: u64,
    min: Value,
    max: Value,
    date_like: u64,
}

/// Passes over the table (one per [`COLUMNS_PER_PASS`] columns) for the row count and each
/// column's counts, min/max and date-likeness, then one grouped read per text column for
/// its sample values.
async fn read_stats<D: Datasource + ?Sized>(
    ds: &D,
    table: &str,
    infos: Vec<ColumnInfo>,
) -> Result<(u64, Vec<Column>), DatasourceError> {
    let mut row_count = 0;
    let mut aggregates = Vec::with_capacity(infos.len());
    for chunk in infos.chunks(COLUMNS_PER_PASS) {
        let mut terms = vec!["COUNT(*)".to_string()];
        for info in chunk {
            let q = quote_ident(&info.name);
            terms.push(format!("COUNT({q})"));
            terms.push(format!("COUNT(DISTINCT {q})"));
            terms.push(format!("MIN({q})"));
            terms.push(format!("MAX({q})"));
            terms.push(format!(
                "SUM(CASE WHEN typeof({q}) = 'text' AND {q} LIKE '____-__-__%' \
                 AND date({q}) IS NOT NULL THEN 1 ELSE 0 END)"
            ));
        }
        let sql = format!("SELECT {} FROM {}", terms.join(", "), quote_ident(table));
        let frame = run(ds, &sql).await?;
        let row = frame
            .rows
            .first()
            .ok_or_else(|| catalogue_error("the statistics query returned no row"))?;
        row_count = count_at(row, 0)?;
        for i in 0..chunk.len() {
            let at = 1 + i * AGGREGATES;
            let value = |k: usize| row.get(at + k).cloned().unwrap_or(Value::Null);
            aggregates.push(Aggregates {
                non_null: count_at(row, at)?,
                distinct: count_at(row, at + 1)?,
                min: value(2),
                max: value(3),
                date_like: count_at(row, at + 4)?,
            });
        }
    }

    let single_pk = single_pk(&infos);
    let mut columns = Vec::with_capacity(infos.len());
    for (info, agg) in infos.into_iter().zip(aggregates) {
        let mut category = category_of(&info.declared_type);
        if category == TypeCategory::Text && agg.non_null > 0 && agg.date_like == agg.non_null {
            category = TypeCategory::Temporal;
        }
        let ranged = matches!(category, TypeCategory::Number | TypeCategory::Temporal);
        let bound = |v: Value| (ranged && v != Value::Null).then_some(v);
        let sample_values = if category == TypeCategory::Text && agg.distinct > 0 {
            super::sample_values(
                ds,
                Dialect::Sqlite,
                &quote_ident(table),
                &info.name,
                agg.distinct,
            )
            .await?
        } else {
            Vec::new()
        };
        columns.push(Column {
            nullable: nullable(&info, single_pk),
            primary_key_position: (info.pk > 0).then_some(info.pk),
            stats: ColumnStats {
                null_fraction: if row_count == 0 {
                    0.0
                } else {
                    (row_count - agg.non_null.min(row_count)) as f64 / row_count as f64
                },
                distinct_count: agg.distinct,
                min: bound(agg.min),
                max: bound(agg.max),
                sample_values,
            },
            name: info.name,
            declared_type: info.declared_type,
            category,
        });
    }
    Ok((row_count, columns))
}

/// SQLite's column-affinity rules, refined: dates and booleans get their own category.
fn category_of(declared_type: &str) -> TypeCategory {
    let t = declared_type.to_ascii_uppercase();
    let has = |word: &str| t.contains(word);
    if has("DATE") || has("TIME") {
        TypeCategory::Temporal
    } else if has("BOOL") {
        TypeCategory::Boolean
    } else if has("INT") {
        TypeCategory::Number
    } else if has("CHAR") || has("CLOB") || has("TEXT") {
        TypeCategory::Text
    } else if ["REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL"]
        .iter()
        .any(|w| has(w))
    {
        TypeCategory::Number
    } else {
        TypeCategory::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_map_to_categories() {
        assert_eq!(category_of("NVARCHAR(160)"), TypeCategory::Text);
        assert_eq!(category_of("INTEGER"), TypeCategory::Number);
        assert_eq!(category_of("NUMERIC(10,2)"), TypeCategory::Number);
        assert_eq!(category_of("DATETIME"), TypeCategory::Temporal);
        assert_eq!(category_of("boolean"), TypeCategory::Boolean);
        assert_eq!(category_of(""), TypeCategory::Other);
        assert_eq!(category_of("BLOB"), TypeCategory::Other);
    }
}
