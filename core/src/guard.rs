//! The read-only guard every adapter runs before it executes anything.
//!
//! SQL reaches a datasource from model plans, verified queries and people typing in the
//! playground, so the adapter must not trust it. The guard parses the text and lets through
//! exactly one query that reads: no second statement, no writes or DDL, no PRAGMA or ATTACH,
//! no data-modifying CTE, no `SELECT … INTO`, no row locks. Text it cannot parse never runs.
//! Adapters add the database's own read-only switches behind it (defence in depth).

use crate::datasource::{DatasourceError, DatasourceErrorKind};
use sqlparser::ast::{Query, Select, Statement, Visit, Visitor};
use sqlparser::dialect::SQLiteDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};
use std::ops::ControlFlow;

/// Returns `Ok` when `sql` is exactly one read-only query in SQLite's dialect.
///
/// A parse failure is [`DatasourceErrorKind::InvalidQuery`] (the query is wrong and a
/// corrected one may run); anything that parses but is not a single read-only query is
/// [`DatasourceErrorKind::Refused`].
pub fn check_read_only(sql: &str) -> Result<(), DatasourceError> {
    if sql.trim().trim_matches(';').trim().is_empty() {
        return Err(refused("there is no query to run"));
    }
    let statements = Parser::parse_sql(&SQLiteDialect {}, sql).map_err(|e| {
        // A statement the parser does not know (e.g. some PRAGMA forms) is still refused
        // by its keyword, so the person reads why rather than a syntax complaint.
        match leading_keyword(sql) {
            Some(word) if NOT_QUERIES.contains(&word.as_str()) => refused(&format!(
                "only read-only queries may run, and this is a {word} statement"
            )),
            _ => DatasourceError::new(
                DatasourceErrorKind::InvalidQuery,
                format!("the query does not parse: {e}"),
            ),
        }
    })?;
    let [statement] = statements.as_slice() else {
        return Err(refused(&format!(
            "exactly one statement may run, and this text holds {}",
            statements.len()
        )));
    };
    if !matches!(statement, Statement::Query(_)) {
        return Err(refused(&format!(
            "only read-only queries may run, and this is a {} statement",
            statement_keyword(statement)
        )));
    }
    match statement.visit(&mut ReadOnlyVisitor { statements: 0 }) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(reason) => Err(refused(reason)),
    }
}

fn refused(reason: &str) -> DatasourceError {
    DatasourceError::new(
        DatasourceErrorKind::Refused,
        format!("refused: {reason}; this datasource runs exactly one read-only query"),
    )
}

/// Leading keywords of SQLite statements that are not queries.
const NOT_QUERIES: &[&str] = &[
    "ALTER",
    "ANALYZE",
    "ATTACH",
    "BEGIN",
    "COMMIT",
    "CREATE",
    "DELETE",
    "DETACH",
    "DROP",
    "END",
    "INSERT",
    "PRAGMA",
    "REINDEX",
    "RELEASE",
    "REPLACE",
    "ROLLBACK",
    "SAVEPOINT",
    "UPDATE",
    "UPSERT",
    "VACUUM",
];

/// The first word of the text, comments skipped, upper-cased.
fn leading_keyword(sql: &str) -> Option<String> {
    let tokens = Tokenizer::new(&SQLiteDialect {}, sql).tokenize().ok()?;
    tokens.into_iter().find_map(|t| match t {
        Token::Whitespace(_) => None,
        Token::Word(w) => Some(Some(w.value.to_ascii_uppercase())),
        _ => Some(None),
    })?
}

/// The statement's leading keyword(s) as SQL writes them, e.g. `DELETE` or `CREATE TABLE`.
fn statement_keyword(statement: &Statement) -> String {
    let text = statement.to_string();
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("unknown").to_ascii_uppercase();
    match first.as_str() {
        "CREATE" | "DROP" | "ALTER" => {
            let second = words.next().unwrap_or_default().to_ascii_uppercase();
            format!("{first} {second}")
        }
        _ => first,
    }
}

/// Walks the whole tree, subqueries and CTEs included.
struct ReadOnlyVisitor {
    statements: usize,
}

impl Visitor for ReadOnlyVisitor {
    type Break = &'static str;

    fn pre_visit_statement(&mut self, _statement: &Statement) -> ControlFlow<Self::Break> {
        self.statements += 1;
        if self.statements > 1 {
            // Only a data-modifying CTE or set operand nests a statement inside a query.
            return ControlFlow::Break("the query embeds a statement that modifies data");
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<Self::Break> {
        if !query.locks.is_empty() {
            return ControlFlow::Break("the query locks rows (FOR UPDATE / FOR SHARE)");
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<Self::Break> {
        if select.into.is_some() {
            return ControlFlow::Break("SELECT … INTO creates a table");
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(sql: &str) -> Option<DatasourceErrorKind> {
        check_read_only(sql).err().map(|e| e.kind)
    }

    #[test]
    fn plain_reads_pass() {
        for sql in [
            "SELECT 1",
            "select * from Track where Name = 'x; DROP TABLE Track'",
            "WITH t AS (SELECT 1 AS a) SELECT a FROM t",
            "SELECT a FROM (SELECT 1 AS a) UNION ALL SELECT 2",
            "SELECT name FROM pragma_table_info('Album')",
            "SELECT 1;",
        ] {
            assert_eq!(kind(sql), None, "{sql}");
        }
    }

    #[test]
    fn everything_else_is_refused() {
        for sql in [
            "",
            " ; ",
            "INSERT INTO Genre (Name) VALUES ('x')",
            "UPDATE Track SET Name = 'x'",
            "DELETE FROM Track",
            "DROP TABLE Track",
            "CREATE TABLE x (a int)",
            "ATTACH DATABASE 'other.db' AS other",
            "PRAGMA query_only = OFF",
            "SELECT 1; SELECT 2",
            "SELECT 1; DELETE FROM Track",
            "SELECT * INTO copy FROM Track",
            "/* hidden */ PRAGMA writable_schema = ON",
            "VACUUM",
        ] {
            assert_eq!(kind(sql), Some(DatasourceErrorKind::Refused), "{sql}");
        }
    }

    #[test]
    fn refusals_name_the_statement() {
        let err = check_read_only("drop table Track").unwrap_err();
        assert!(err.message.contains("DROP TABLE"), "{}", err.message);
        let err = check_read_only("SELECT 1; SELECT 2").unwrap_err();
        assert!(err.message.contains("holds 2"), "{}", err.message);
    }

    #[test]
    fn unparseable_text_is_an_invalid_query_and_never_runs() {
        assert_eq!(kind("SELEC 1"), Some(DatasourceErrorKind::InvalidQuery));
        assert_eq!(
            kind("SELECT 1; DELET"),
            Some(DatasourceErrorKind::InvalidQuery)
        );
        assert_eq!(
            kind("SELECT 'unterminated"),
            Some(DatasourceErrorKind::InvalidQuery)
        );
    }
}
