//! The aggregator's scratch database: an empty in-memory SQLite that holds the sub-queries'
//! results for one combining query, then is thrown away. Adapters live outside core
//! (rusqlite in `nl2sql-cli`, sql.js in `nl2sql-wasm`).

use crate::datasource::{DatasourceError, ExecLimits, LocalBoxFuture, ResultFrame};
use crate::value::Value;

/// One sub-query's result, loaded as a table.
#[derive(Debug, Clone, PartialEq)]
pub struct ScratchTable {
    /// The table's name (a sub-query id, e.g. `q1`).
    pub name: String,
    /// Its columns, untyped: SQLite keeps each value's own type.
    pub columns: Vec<String>,
    /// The rows, bound as parameters when loaded, never spliced into SQL.
    pub rows: Vec<Vec<Value>>,
}

/// Creates a fresh in-memory SQLite, loads `tables`, runs one read-only query on it and
/// discards it. The query must pass [`crate::guard::check_read_only`]; the adapter switches
/// the database to query-only after loading.
pub trait Scratch {
    /// Runs `sql` over `tables`, reading at most `limits.max_rows` rows.
    fn query<'a>(
        &'a self,
        tables: &'a [ScratchTable],
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>>;
}

/// `name` as a SQLite identifier, always quoted.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The statement that creates `table` (columns without types).
pub fn create_statement(table: &ScratchTable) -> String {
    let columns: Vec<String> = table.columns.iter().map(|c| quote(c)).collect();
    format!(
        "CREATE TABLE {} ({})",
        quote(&table.name),
        columns.join(", ")
    )
}

/// The statement that inserts one row of `table`, with `?` for each value.
pub fn insert_statement(table: &ScratchTable) -> String {
    let marks = vec!["?"; table.columns.len()].join(", ");
    format!("INSERT INTO {} VALUES ({marks})", quote(&table.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_and_values_are_never_spliced() {
        let t = ScratchTable {
            name: "q\"1".into(),
            columns: vec!["a b".into(), "c\"d".into()],
            rows: vec![vec![
                Value::Text("'); DROP TABLE x; --".into()),
                Value::Null,
            ]],
        };
        assert_eq!(
            create_statement(&t),
            "CREATE TABLE \"q\"\"1\" (\"a b\", \"c\"\"d\")"
        );
        assert_eq!(insert_statement(&t), "INSERT INTO \"q\"\"1\" VALUES (?, ?)");
    }
}
