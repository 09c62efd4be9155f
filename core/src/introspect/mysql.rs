//! MySQL's and MariaDB's catalogue: the base tables and views of the connection's current
//! database, or of the databases on its server a datasource is limited to
//! ([`Datasource::schemas`]: MySQL's databases are its schemas), from
//! `information_schema`, whose key-usage view names each foreign key's referenced column
//! directly. A table of the current database keeps its bare name; any other is
//! `database.table`.

use super::{assemble, run, schema_list, Structure};
use crate::datasource::{Datasource, DatasourceError};

/// A database's name as `assemble` takes it: empty for the current one.
fn own(column: &str) -> String {
    format!("CASE WHEN {column} = DATABASE() THEN '' ELSE {column} END")
}

/// Rows come ordered by the names' bytes: `information_schema` compares names without
/// regard to case, and [`assemble`] groups a table's rows by their being next to each other,
/// so `Orders` and `orders` must not interleave.
pub(super) async fn structure<D: Datasource + ?Sized>(
    ds: &D,
) -> Result<Structure, DatasourceError> {
    // The listed databases, else the current one alone.
    let within = |column: &str| match schema_list(ds) {
        Some(list) => format!("{column} IN ({list})"),
        None => format!("{column} = DATABASE()"),
    };
    let columns = run(
        ds,
        &format!(
            "SELECT {}, c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, \
             CASE WHEN c.IS_NULLABLE = 'NO' THEN 1 ELSE 0 END, \
             CASE WHEN t.TABLE_TYPE = 'VIEW' THEN 1 ELSE 0 END \
             FROM information_schema.COLUMNS AS c JOIN information_schema.TABLES AS t \
             ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME \
             WHERE {} AND t.TABLE_TYPE IN ('BASE TABLE', 'VIEW') \
             ORDER BY CAST(c.TABLE_SCHEMA AS BINARY), CAST(c.TABLE_NAME AS BINARY), \
             c.ORDINAL_POSITION",
            own("c.TABLE_SCHEMA"),
            within("c.TABLE_SCHEMA"),
        ),
    )
    .await?;
    let primary_keys = run(
        ds,
        &format!(
            "SELECT {}, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION \
             FROM information_schema.KEY_COLUMN_USAGE \
             WHERE {} AND CONSTRAINT_NAME = 'PRIMARY'",
            own("TABLE_SCHEMA"),
            within("TABLE_SCHEMA"),
        ),
    )
    .await?;
    let foreign_keys = run(
        ds,
        &format!(
            "SELECT {}, TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, {}, REFERENCED_TABLE_NAME, \
             REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE \
             WHERE {} AND {} AND REFERENCED_TABLE_NAME IS NOT NULL \
             ORDER BY CAST(TABLE_SCHEMA AS BINARY), CAST(TABLE_NAME AS BINARY), \
             CONSTRAINT_NAME, ORDINAL_POSITION",
            own("TABLE_SCHEMA"),
            own("REFERENCED_TABLE_SCHEMA"),
            within("TABLE_SCHEMA"),
            within("REFERENCED_TABLE_SCHEMA"),
        ),
    )
    .await?;
    assemble(&columns, &primary_keys, &foreign_keys)
}
