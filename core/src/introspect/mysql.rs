//! MySQL's and MariaDB's catalogue: the base tables and views of the connection's current
//! database (its own schema: a MySQL server's other databases are other datasources),
//! from `information_schema`, whose key-usage view names each foreign key's referenced
//! column directly.

use super::{assemble, run, Structure};
use crate::datasource::{Datasource, DatasourceError};

pub(super) async fn structure<D: Datasource + ?Sized>(
    ds: &D,
) -> Result<Structure, DatasourceError> {
    let columns = run(
        ds,
        "SELECT '', c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, \
         CASE WHEN c.IS_NULLABLE = 'NO' THEN 1 ELSE 0 END, \
         CASE WHEN t.TABLE_TYPE = 'VIEW' THEN 1 ELSE 0 END \
         FROM information_schema.COLUMNS AS c JOIN information_schema.TABLES AS t \
         ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME \
         WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE IN ('BASE TABLE', 'VIEW') \
         ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION",
    )
    .await?;
    let primary_keys = run(
        ds,
        "SELECT '', TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION \
         FROM information_schema.KEY_COLUMN_USAGE \
         WHERE TABLE_SCHEMA = DATABASE() AND CONSTRAINT_NAME = 'PRIMARY'",
    )
    .await?;
    let foreign_keys = run(
        ds,
        "SELECT '', TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, '', REFERENCED_TABLE_NAME, \
         REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE \
         WHERE TABLE_SCHEMA = DATABASE() AND REFERENCED_TABLE_SCHEMA = DATABASE() \
         AND REFERENCED_TABLE_NAME IS NOT NULL \
         ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION",
    )
    .await?;
    assemble(&columns, &primary_keys, &foreign_keys)
}
