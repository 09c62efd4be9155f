//! PostgreSQL's catalogue: the tables the login may read in every schema it may use
//! (ordinary and partitioned tables, not their partitions, and views, materialized ones
//! included), the system's own schemas excepted, read from `pg_catalog` so that declared
//! types come as PostgreSQL writes them (`format_type`) and keys keep their column order.
//! A table of the connection's current schema keeps its bare name; any other is
//! `schema.table`. A datasource limited to some schemas ([`Datasource::schemas`]) reads
//! only theirs.

use super::{assemble, in_schemas, run, Structure};
use crate::datasource::{Datasource, DatasourceError};

/// Tables of every schema the login may use, as a join's first lines (the schema list's
/// condition follows).
const TABLES: &str = "FROM pg_catalog.pg_class AS c \
     JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace \
     AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
     AND n.nspname NOT LIKE 'pg\\_%' AND has_schema_privilege(n.oid, 'USAGE') \
     AND has_table_privilege(c.oid, 'SELECT')";

const KINDS: &str = "c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition";

pub(super) async fn structure<D: Datasource + ?Sized>(
    ds: &D,
) -> Result<Structure, DatasourceError> {
    // A schema's name as `assemble` takes it: empty for the current schema.
    let own = |n: &str| {
        format!("CASE WHEN {n}.nspname = current_schema() THEN '' ELSE {n}.nspname::text END")
    };
    let (schema, referenced) = (own("n"), own("rn"));
    let tables = format!("{TABLES}{}", in_schemas(ds, "n.nspname"));
    let columns = run(
        ds,
        &format!(
            "SELECT {schema}, c.relname::text, a.attname::text, \
             format_type(a.atttypid, a.atttypmod), \
             CASE WHEN a.attnotnull THEN 1 ELSE 0 END, \
             CASE WHEN c.relkind IN ('v', 'm') THEN 1 ELSE 0 END \
             {tables} JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid \
             WHERE {KINDS} AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY n.nspname, c.relname, a.attnum"
        ),
    )
    .await?;
    let primary_keys = run(
        ds,
        &format!(
            "SELECT {schema}, c.relname::text, a.attname::text, \
             array_position(k.conkey, a.attnum) \
             {tables} JOIN pg_catalog.pg_constraint AS k ON k.conrelid = c.oid AND k.contype = 'p' \
             JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = ANY (k.conkey) \
             WHERE {KINDS}"
        ),
    )
    .await?;
    // One row per key column: the key's i-th column and the referenced table's i-th.
    let foreign_keys = run(
        ds,
        &format!(
            "SELECT {schema}, c.relname::text, k.conname::text, a.attname::text, \
             {referenced}, r.relname::text, ra.attname::text \
             {tables} JOIN pg_catalog.pg_constraint AS k ON k.conrelid = c.oid AND k.contype = 'f' \
             JOIN pg_catalog.pg_class AS r ON r.oid = k.confrelid \
             JOIN pg_catalog.pg_namespace AS rn ON rn.oid = r.relnamespace \
             JOIN generate_series(1, 32) AS i(pos) ON i.pos <= array_length(k.conkey, 1) \
             JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = k.conkey[i.pos] \
             JOIN pg_catalog.pg_attribute AS ra ON ra.attrelid = r.oid AND ra.attnum = k.confkey[i.pos] \
             WHERE {KINDS} ORDER BY n.nspname, c.relname, k.oid, i.pos"
        ),
    )
    .await?;
    assemble(&columns, &primary_keys, &foreign_keys)
}
