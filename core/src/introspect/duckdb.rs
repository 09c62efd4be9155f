//! DuckDB's catalogue: the tables and views of every schema of the connection's current
//! database (its `information_schema` and `pg_catalog` excepted), from DuckDB's own
//! catalogue functions, which give declared types as DuckDB writes them (`VARCHAR`,
//! `DECIMAL(10,2)`) and every key's columns as lists in key order. A table of the current
//! schema keeps its bare name; any other is `schema.table`. A datasource limited to some
//! schemas ([`Datasource::schemas`]) reads only theirs.

use super::{assemble, in_schemas, run, Structure};
use crate::datasource::{Datasource, DatasourceError};

/// The rows of a catalogue function that belong to the current database's own schemas.
const HERE: &str = "database_name = current_database() \
     AND schema_name NOT IN ('information_schema', 'pg_catalog')";
/// The same for the columns' catalogue, joined to the tables'.
const COLUMNS_HERE: &str = "c.database_name = current_database() \
     AND c.schema_name NOT IN ('information_schema', 'pg_catalog')";
/// A schema's name as `assemble` takes it: empty for the current schema.
const SCHEMA: &str = "CASE WHEN schema_name = current_schema() THEN '' ELSE schema_name END";

pub(super) async fn structure<D: Datasource + ?Sized>(
    ds: &D,
) -> Result<Structure, DatasourceError> {
    // DuckDB's names are read without regard to case, its schemas' too.
    let here = format!("{HERE}{}", in_schemas(ds, "lower(schema_name)"));
    let columns_here = format!("{COLUMNS_HERE}{}", in_schemas(ds, "lower(c.schema_name)"));
    let columns = run(
        ds,
        &format!(
            "SELECT CASE WHEN c.schema_name = current_schema() THEN '' ELSE c.schema_name END, \
             c.table_name, c.column_name, c.data_type, \
             CASE WHEN c.is_nullable THEN 0 ELSE 1 END, \
             CASE WHEN v.view_oid IS NULL THEN 0 ELSE 1 END \
             FROM duckdb_columns() AS c \
             LEFT JOIN duckdb_tables() AS t ON t.table_oid = c.table_oid \
             LEFT JOIN duckdb_views() AS v ON v.view_oid = c.table_oid AND NOT v.internal \
             WHERE {columns_here} AND NOT c.internal \
             AND (t.table_oid IS NOT NULL OR v.view_oid IS NOT NULL) \
             ORDER BY c.schema_name, c.table_name, c.column_index"
        ),
    )
    .await?;
    // One row per key column, its position from the list's subscripts.
    let primary_keys = run(
        ds,
        &format!(
            "SELECT {SCHEMA}, table_name, unnest(constraint_column_names), \
             generate_subscripts(constraint_column_names, 1) \
             FROM duckdb_constraints() WHERE {here} AND constraint_type = 'PRIMARY KEY'"
        ),
    )
    .await?;
    // A key refers to a table of its own schema.
    let foreign_keys = run(
        ds,
        &format!(
            "SELECT {SCHEMA}, table_name, CAST(constraint_index AS VARCHAR), \
             unnest(constraint_column_names), {SCHEMA}, referenced_table, \
             unnest(referenced_column_names), \
             generate_subscripts(constraint_column_names, 1) AS position \
             FROM duckdb_constraints() WHERE {here} AND constraint_type = 'FOREIGN KEY' \
             ORDER BY schema_name, table_name, constraint_index, position"
        ),
    )
    .await?;
    assemble(&columns, &primary_keys, &foreign_keys)
}
