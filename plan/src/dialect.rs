//! The SQL dialects the engine renders and reads, and the sqlparser dialect that reads each.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The SQL dialect a datasource speaks. The generator renders for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// SQLite 3 (sql.js in the browser, rusqlite natively).
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL 8.
    #[serde(rename = "mysql")]
    MySql,
    /// DuckDB.
    #[serde(rename = "duckdb")]
    DuckDb,
    /// Microsoft SQL Server (T-SQL).
    #[serde(rename = "sqlserver")]
    SqlServer,
    /// Apache Spark SQL (through Spark Connect), which Databricks SQL also speaks.
    Spark,
}

impl Dialect {
    /// Every dialect the generator renders.
    pub const ALL: [Dialect; 6] = [
        Dialect::Sqlite,
        Dialect::Postgres,
        Dialect::MySql,
        Dialect::DuckDb,
        Dialect::SqlServer,
        Dialect::Spark,
    ];

    /// Whether an ordering in `direction` puts NULLs first when it does not say.
    pub fn nulls_first(self, direction: crate::Direction) -> bool {
        match self {
            // NULL is larger than every value.
            Dialect::Postgres => direction == crate::Direction::Desc,
            // NULLs last both ways (DuckDB's `default_null_order`, since 0.8).
            Dialect::DuckDb => false,
            // NULL is smaller than every value.
            Dialect::Sqlite | Dialect::MySql | Dialect::SqlServer | Dialect::Spark => {
                direction == crate::Direction::Asc
            }
        }
    }

    /// Whether aggregates take `FILTER (WHERE …)` (SQLite since 3.30, Spark since 3.0).
    pub fn has_aggregate_filter(self) -> bool {
        !matches!(self, Dialect::MySql | Dialect::SqlServer)
    }

    /// Whether ORDER BY takes `NULLS FIRST/LAST` (SQLite since 3.30).
    pub fn has_nulls_ordering(self) -> bool {
        !matches!(self, Dialect::MySql | Dialect::SqlServer)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dialect::Sqlite => f.write_str("sqlite"),
            Dialect::Postgres => f.write_str("postgres"),
            Dialect::MySql => f.write_str("mysql"),
            Dialect::DuckDb => f.write_str("duckdb"),
            Dialect::SqlServer => f.write_str("sqlserver"),
            Dialect::Spark => f.write_str("spark"),
        }
    }
}

/// The sqlparser dialect that reads a dialect's SQL.
pub fn sql_dialect(dialect: Dialect) -> &'static dyn sqlparser::dialect::Dialect {
    use sqlparser::dialect::{DuckDbDialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect};
    static SQLITE: SQLiteDialect = SQLiteDialect {};
    static POSTGRES: PostgreSqlDialect = PostgreSqlDialect {};
    static MYSQL: MySqlDialect = MySqlDialect {};
    static DUCKDB: DuckDbDialect = DuckDbDialect {};
    match dialect {
        Dialect::Sqlite => &SQLITE,
        Dialect::Postgres => &POSTGRES,
        Dialect::MySql => &MYSQL,
        Dialect::DuckDb => &DUCKDB,
        Dialect::SqlServer => sql_server(),
        Dialect::Spark => spark(),
    }
}

/// T-SQL's dialect natively. A browser never reads SQL Server's SQL (it has no SQL Server
/// datasource; a server reached from the page parses its own), and MsSqlDialect's hooks for
/// T-SQL blocks would put sqlparser's whole statement parser in the page's download, so
/// there the generic dialect stands in.
#[cfg(not(target_arch = "wasm32"))]
fn sql_server() -> &'static dyn sqlparser::dialect::Dialect {
    static MSSQL: sqlparser::dialect::MsSqlDialect = sqlparser::dialect::MsSqlDialect {};
    &MSSQL
}

#[cfg(target_arch = "wasm32")]
fn sql_server() -> &'static dyn sqlparser::dialect::Dialect {
    static GENERIC: sqlparser::dialect::GenericDialect = sqlparser::dialect::GenericDialect {};
    &GENERIC
}

/// Spark SQL natively, as Spark tokenises it ([`spark_sql`]). A browser never reaches
/// Spark (the same reason as T-SQL's).
#[cfg(not(target_arch = "wasm32"))]
fn spark() -> &'static dyn sqlparser::dialect::Dialect {
    static SPARK: crate::spark_sql::SparkSql =
        crate::spark_sql::SparkSql(sqlparser::dialect::SparkSqlDialect {});
    &SPARK
}

#[cfg(target_arch = "wasm32")]
fn spark() -> &'static dyn sqlparser::dialect::Dialect {
    sql_server()
}
