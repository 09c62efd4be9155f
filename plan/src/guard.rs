//! The read-only guard every adapter runs before it executes anything.
//!
//! SQL reaches a datasource from model plans, verified queries and people typing in the
//! playground, so the adapter must not trust it. The guard parses the text and lets through
//! exactly one query that reads: no second statement, no writes or DDL, no PRAGMA or ATTACH,
//! no data-modifying CTE, no `SELECT … INTO`, no row locks. Text it cannot parse never runs.
//! Adapters add the database's own read-only switches behind it (defence in depth).

use crate::{Error, ErrorKind};
use sqlparser::ast::{ObjectName, ObjectNamePart, Query, Select, Statement, Visit, Visitor};
use sqlparser::dialect::SQLiteDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, Tokenizer};
use std::ops::ControlFlow;

/// At most this deep a chain of operators. sqlparser builds a chain (`1+1+…`) into a
/// left-deep tree without a depth limit, and walking or dropping that tree recurses: a chain
/// of about 20,000 overflows a 1 MiB stack (the browser's) in a debug build. Chains inside
/// parentheses add up, since each one hangs below the one around it.
const MAX_OPERATOR_CHAIN: usize = 1_000;
/// At most this many tokens: bounds the parser's time on hostile input.
const MAX_TOKENS: usize = 100_000;
/// At most this many set operators (`UNION`, `INTERSECT`, `EXCEPT`): sqlparser chains them
/// into a left-deep tree without a limit, which walking or dropping would recurse through.
const MAX_SET_OPERATIONS: usize = 100;

/// Returns `Ok` when `sql` is exactly one read-only query in SQLite's dialect.
///
/// A parse failure is [`ErrorKind::Unreadable`] (the query is wrong and a
/// corrected one may run), unless a statement in it starts with a writing keyword; anything
/// that parses but is not a single read-only query is [`ErrorKind::Refused`], and so
/// is a query too large to analyse safely.
pub fn check_read_only(sql: &str) -> Result<(), Error> {
    parse_read_only(sql, &SQLiteDialect {}).map(|_| ())
}

/// [`check_read_only`] for a datasource that speaks `dialect`: the text parsed as that
/// engine will read it.
///
/// On Spark, which has no read-only session, the guard is the only barrier, so it also
/// refuses what reaches past the tables from inside a read: a table named by a file format
/// and a path (csv.`/etc/passwd`), calls into Java (`reflect`, `java_method`), and
/// Databricks' functions that read files, secrets or the network or call a model.
pub fn check_read_only_in(sql: &str, dialect: crate::dialect::Dialect) -> Result<(), Error> {
    let sql_dialect = crate::dialect::sql_dialect(dialect);
    let spark = dialect == crate::dialect::Dialect::Spark;
    if spark && raw_string(sql, sql_dialect) {
        return Err(refused(
            "Spark reads R'…' as a raw string, whose end the guard cannot be sure of",
        ));
    }
    let query = parse_read_only(sql, sql_dialect)?;
    if spark {
        if let ControlFlow::Break(reason) = walk(&query, &mut spark_reach) {
            return Err(refused(reason));
        }
    }
    Ok(())
}

/// Whether the text holds what Spark reads as a raw string (`R'…'`, `r"…"`: a backslash
/// there escapes nothing), which the tokenizer reads as a name and an escaped string, so
/// the two would end the string in different places.
fn raw_string(sql: &str, dialect: &dyn sqlparser::dialect::Dialect) -> bool {
    let Ok(tokens) = Tokenizer::new(dialect, sql).tokenize() else {
        return false;
    };
    tokens.windows(2).any(|pair| match pair {
        [Token::Word(w), Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)] => {
            w.quote_style.is_none() && w.value.eq_ignore_ascii_case("r")
        }
        _ => false,
    })
}

/// Spark's data sources that read a path given as a table's name (parquet.`/data`).
const SPARK_FILE_FORMATS: &[&str] = &[
    "avro",
    "binaryfile",
    "csv",
    "delta",
    "hive",
    "image",
    "jdbc",
    "json",
    "libsvm",
    "orc",
    "parquet",
    "text",
    "xml",
];

/// Functions that reach outside the query on Spark or Databricks, and `IDENTIFIER(…)`,
/// which names a table or a function by a computed string no check can read.
const SPARK_OUTSIDE: &[&str] = &[
    "ai_query",
    "cloud_files_state",
    "http_request",
    "identifier",
    "java_method",
    "list_secrets",
    "read_files",
    "read_kafka",
    "read_kinesis",
    "read_pubsub",
    "read_pulsar",
    "read_state_metadata",
    "read_statestore",
    "reflect",
    "secret",
    "try_reflect",
    "try_secret",
];

/// Why a Spark query reaches outside its tables, if it does.
fn spark_reach(met: Met<'_>) -> ControlFlow<&'static str> {
    let last = |name: &ObjectName| {
        name.0
            .last()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.to_ascii_lowercase())
    };
    let file_format = |name: &str| SPARK_FILE_FORMATS.contains(&name.to_ascii_lowercase().as_str());
    match met {
        // `TABLE csv.`/path`` names its table outside any relation the walk meets.
        Met::Query(query) if table_form(&query.body, &file_format) => {
            ControlFlow::Break("the query reads a file directly, not a table")
        }
        Met::Relation(name) => {
            let first = name.0.first().and_then(|p| p.as_ident());
            let format = first.is_some_and(|i| file_format(&i.value));
            if name.0.len() > 1 && format {
                return ControlFlow::Break("the query reads a file directly, not a table");
            }
            if last(name).is_some_and(|n| SPARK_OUTSIDE.contains(&n.as_str())) {
                return ControlFlow::Break(
                    "the query calls a function that reaches outside the database",
                );
            }
            ControlFlow::Continue(())
        }
        Met::Function(name) if last(name).is_some_and(|n| SPARK_OUTSIDE.contains(&n.as_str())) => {
            ControlFlow::Break("the query calls a function that reaches outside the database")
        }
        _ => ControlFlow::Continue(()),
    }
}

/// Whether a query body, or a set operation's side, is `TABLE schema.name` with a schema
/// that `is_format` names.
fn table_form(body: &sqlparser::ast::SetExpr, is_format: &dyn Fn(&str) -> bool) -> bool {
    use sqlparser::ast::SetExpr;
    match body {
        SetExpr::Table(t) => t.schema_name.as_ref().is_some_and(|s| is_format(&s.value)),
        SetExpr::SetOperation { left, right, .. } => {
            table_form(left, is_format) || table_form(right, is_format)
        }
        _ => false,
    }
}

/// [`check_read_only`] in any sqlparser dialect, returning the query it parsed.
pub fn parse_read_only(
    sql: &str,
    dialect: &dyn sqlparser::dialect::Dialect,
) -> Result<Query, Error> {
    let tokens = Tokenizer::new(dialect, sql).tokenize().map_err(|e| {
        Error::new(
            ErrorKind::Unreadable,
            format!("the query does not parse: {e}"),
        )
    })?;
    let scan = Scan::of(&tokens);
    if scan.words == 0 {
        return Err(refused("there is no query to run"));
    }
    if tokens.len() > MAX_TOKENS
        || scan.operator_chain > MAX_OPERATOR_CHAIN
        || scan.set_operations > MAX_SET_OPERATIONS
    {
        return Err(refused(&format!(
            "the query is too large to check (at most {MAX_TOKENS} tokens, chains of at most \
             {MAX_OPERATOR_CHAIN} operators, and at most {MAX_SET_OPERATIONS} set operations)"
        )));
    }
    // Statements are told apart by their first words, and only a query is ever parsed:
    // sqlparser's statement parser (DDL, DML and every dialect's commands) is a third of
    // its code, and the page would download it only to refuse what it parses.
    // A writing statement anywhere is refused, whatever else the text holds.
    if let (Some(word), None) = (&scan.unknown_start, &scan.writing_keyword) {
        return Err(Error::new(
            ErrorKind::Unreadable,
            format!("the query does not parse: expected a statement, found {word}"),
        ));
    }
    if scan.statements > 1 {
        return Err(refused(&format!(
            "exactly one statement may run, and this text holds {}",
            scan.statements
        )));
    }
    if let Some(keyword) = &scan.first_statement {
        return Err(refused(&format!(
            "only read-only queries may run, and this is a {keyword} statement"
        )));
    }
    let mut parser = Parser::new(dialect).with_tokens(tokens);
    let query = finish_query(&mut parser).map_err(|e| match &scan.writing_keyword {
        // A writing statement inside the query's text (`WITH … REPLACE`) is refused by its
        // keyword, so the person reads why, not a syntax complaint.
        Some(word) => refused(&format!(
            "only read-only queries may run, and this is a {word} statement"
        )),
        None => Error::new(
            ErrorKind::Unreadable,
            format!("the query does not parse: {e}"),
        ),
    })?;
    if let ControlFlow::Break(reason) = walk(&query, &mut read_only) {
        return Err(refused(reason));
    }
    Ok(query)
}

/// One query parsed from the parser's tokens, with nothing after it but semicolons.
fn finish_query(parser: &mut Parser) -> Result<Query, ParserError> {
    let query = parser.parse_query()?;
    while parser.consume_token(&Token::SemiColon) {}
    let next = parser.peek_token();
    if next.token == Token::EOF {
        Ok(*query)
    } else {
        parser.expected("the end of the query (one query, nothing after it)", next)
    }
}

/// The tables a statement reads, by name (none when it does not parse).
pub fn tables_read(sql: &str) -> Vec<String> {
    // Through the guard, whose bounds come before any parsing: a verified query's text is
    // walked like any other.
    let Ok(query) = parse_read_only(sql, &sqlparser::dialect::GenericDialect {}) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    let _ = walk(&query, &mut |met| {
        if let Met::Relation(name) = met {
            // Each part's own text (`"Sales"."Deals"` is `Sales.Deals`).
            let parts = name.0.iter().map(|part| match part {
                ObjectNamePart::Identifier(id) => id.value.clone(),
                other => other.to_string(),
            });
            let table = parts.collect::<Vec<_>>().join(".");
            if !names.contains(&table) {
                names.push(table);
            }
        }
        ControlFlow::Continue(())
    });
    names
}

/// What [`walk`] meets in a parsed query.
pub(crate) enum Met<'a> {
    /// A statement nested in the query (a data-modifying CTE or set operand).
    Statement,
    Query(&'a Query),
    Select(&'a Select),
    /// A table or view read (also a table function's name).
    Relation(&'a ObjectName),
    /// A function called in an expression.
    Function(&'a ObjectName),
}

/// Calls `f` on everything of interest in `query`, subqueries and CTEs included, until it
/// breaks. Every caller shares this one walk: sqlparser's visitor is generic over the
/// visitor type, and each instance is a copy of the whole tree walk in the download.
pub(crate) fn walk(
    query: &Query,
    f: &mut dyn FnMut(Met<'_>) -> ControlFlow<&'static str>,
) -> ControlFlow<&'static str> {
    query.visit(&mut Walk { f })
}

struct Walk<'f> {
    f: &'f mut dyn FnMut(Met<'_>) -> ControlFlow<&'static str>,
}

impl Visitor for Walk<'_> {
    type Break = &'static str;

    fn pre_visit_statement(&mut self, _statement: &Statement) -> ControlFlow<Self::Break> {
        (self.f)(Met::Statement)
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<Self::Break> {
        (self.f)(Met::Query(query))
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<Self::Break> {
        (self.f)(Met::Select(select))
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<Self::Break> {
        (self.f)(Met::Relation(relation))
    }

    fn pre_visit_expr(&mut self, expr: &sqlparser::ast::Expr) -> ControlFlow<Self::Break> {
        match expr {
            sqlparser::ast::Expr::Function(f) => (self.f)(Met::Function(&f.name)),
            _ => ControlFlow::Continue(()),
        }
    }
}

/// Why a parsed query may not run, if it may not.
fn read_only(met: Met<'_>) -> ControlFlow<&'static str> {
    match met {
        Met::Statement => ControlFlow::Break("the query embeds a statement that modifies data"),
        Met::Query(query) if !query.locks.is_empty() => {
            ControlFlow::Break("the query locks rows (FOR UPDATE / FOR SHARE)")
        }
        Met::Select(select) if select.into.is_some() => {
            ControlFlow::Break("SELECT … INTO creates a table")
        }
        _ => ControlFlow::Continue(()),
    }
}

/// What one pass over the tokens tells before parsing.
struct Scan {
    /// Words (keywords and identifiers): none means there is no statement at all.
    words: usize,
    /// The longest chain of binary operators, counting the chains of enclosing parentheses
    /// too: a bound on how deep the parsed expression tree can be.
    operator_chain: usize,
    /// A writing keyword where a statement starts: first in the text, after `;`, or after
    /// a `)` at the top level (the body of `WITH … AS (…)`).
    writing_keyword: Option<String>,
    /// `UNION`, `INTERSECT` and `EXCEPT` words, anywhere.
    set_operations: usize,
    /// Statements in the text: its `;`-separated parts that hold a token.
    statements: usize,
    /// The first statement's keyword(s), when it is not a query (`DROP TABLE`, `PRAGMA`).
    first_statement: Option<String>,
    /// A statement's first token when it starts no statement at all (`SELEC`).
    unknown_start: Option<String>,
}

impl Scan {
    fn of(tokens: &[Token]) -> Scan {
        let mut scan = Scan {
            words: 0,
            operator_chain: 0,
            writing_keyword: None,
            set_operations: 0,
            statements: 0,
            first_statement: None,
            unknown_start: None,
        };
        // One running chain length per open parenthesis, plus the top level.
        let mut chains: Vec<usize> = vec![0];
        let mut statement_may_start = true;
        let mut piece_starts = true;
        let mut naming = false;
        for token in tokens {
            if matches!(token, Token::Whitespace(_)) {
                continue;
            }
            if std::mem::take(&mut naming) {
                if let (Token::Word(w), Some(first)) = (token, scan.first_statement.as_mut()) {
                    first.push(' ');
                    first.push_str(&w.value.to_ascii_uppercase());
                }
            }
            if std::mem::take(&mut piece_starts) && *token != Token::SemiColon {
                scan.statements += 1;
                naming = scan.start(token);
            }
            if *token == Token::SemiColon {
                piece_starts = true;
            }
            let mut operator = is_operator(token);
            match token {
                Token::Word(w) => {
                    scan.words += 1;
                    let upper = w.value.to_ascii_uppercase();
                    let unquoted = w.quote_style.is_none();
                    operator = unquoted && OPERATOR_WORDS.contains(&upper.as_str());
                    if unquoted && matches!(upper.as_str(), "UNION" | "INTERSECT" | "EXCEPT") {
                        scan.set_operations += 1;
                    }
                    if unquoted && CHAIN_BREAKERS.contains(&upper.as_str()) {
                        if let Some(top) = chains.last_mut() {
                            *top = 0;
                        }
                    }
                    if unquoted
                        && statement_may_start
                        && scan.writing_keyword.is_none()
                        && NOT_QUERIES.contains(&upper.as_str())
                    {
                        scan.writing_keyword = Some(upper);
                    }
                }
                Token::LParen => chains.push(0),
                Token::RParen if chains.len() > 1 => {
                    chains.pop();
                }
                Token::Comma | Token::SemiColon => {
                    if let Some(top) = chains.last_mut() {
                        *top = 0;
                    }
                }
                _ => {}
            }
            if operator {
                if let Some(top) = chains.last_mut() {
                    *top += 1;
                }
                scan.operator_chain = scan.operator_chain.max(chains.iter().sum());
            }
            statement_may_start = match token {
                Token::SemiColon => true,
                Token::RParen => chains.len() == 1,
                _ => false,
            };
        }
        scan
    }

    /// Notes how a statement starts; true when its second word names it too (`DROP TABLE`).
    fn start(&mut self, token: &Token) -> bool {
        let unknown = match token {
            Token::LParen => return false,
            Token::Word(w) if w.quote_style.is_none() => {
                let upper = w.value.to_ascii_uppercase();
                if QUERY_STARTS.contains(&upper.as_str()) {
                    return false;
                }
                if w.keyword == Keyword::NoKeyword && !NOT_QUERIES.contains(&upper.as_str()) {
                    w.value.clone()
                } else {
                    let named_by_two = matches!(upper.as_str(), "CREATE" | "DROP" | "ALTER");
                    self.first_statement = Some(upper);
                    return named_by_two;
                }
            }
            other => other.to_string(),
        };
        self.unknown_start.get_or_insert(unknown);
        false
    }
}

/// The words a query starts with (DuckDB's queries may start with `FROM`).
const QUERY_STARTS: &[&str] = &["SELECT", "WITH", "VALUES", "TABLE", "FROM"];

/// Keywords that end an expression: the operators after them start a new chain.
const CHAIN_BREAKERS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "OFFSET",
    "ON",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "JOIN",
];

/// Keywords that join two operands.
const OPERATOR_WORDS: &[&str] = &[
    "AND", "OR", "LIKE", "GLOB", "IS", "IN", "BETWEEN", "MATCH", "REGEXP", "COLLATE", "ESCAPE",
];

fn is_operator(token: &Token) -> bool {
    matches!(
        token,
        Token::Plus
            | Token::Minus
            | Token::Mul
            | Token::Div
            | Token::Mod
            | Token::StringConcat
            | Token::Eq
            | Token::DoubleEq
            | Token::Neq
            | Token::Lt
            | Token::Gt
            | Token::LtEq
            | Token::GtEq
            | Token::Spaceship
            | Token::Ampersand
            | Token::Pipe
            | Token::Caret
            | Token::ShiftLeft
            | Token::ShiftRight
    )
}

fn refused(reason: &str) -> Error {
    Error::new(
        ErrorKind::Refused,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(sql: &str) -> Option<ErrorKind> {
        check_read_only(sql).err().map(|e| e.kind)
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn on_spark_nothing_reaches_past_the_tables() {
        use crate::dialect::Dialect;
        let spark = |sql: &str| check_read_only_in(sql, Dialect::Spark).map_err(|e| e.kind);
        for read in [
            "SELECT t.Name FROM Track AS t WHERE t.Name = 'it\\'s' LIMIT 5",
            "SELECT 7 DIV 2, \"a; DROP TABLE t\" FROM t /* a /* nested */ ; DROP */",
            "SELECT * FROM sales.orders",
            "SELECT 'the r' FROM t",
        ] {
            assert_eq!(spark(read), Ok(()), "{read}");
        }
        for hostile in [
            "SELECT * FROM csv.`/etc/passwd`",
            "SELECT * FROM Parquet.`s3://bucket/x`",
            "TABLE text.`/etc/passwd`",
            "SELECT 1 FROM t UNION ALL TABLE json.`/tmp/x`",
            "SELECT reflect('java.lang.System', 'exit', 1)",
            "SELECT `java_method`('java.lang.Thread', 'sleep', 100000L)",
            "SELECT x FROM t WHERE x IN (SELECT default.try_reflect('a', 'b'))",
            "SELECT * FROM read_files('/etc')",
            "SELECT secret('scope', 'key')",
            "SELECT * FROM IDENTIFIER('csv.`/etc/passwd`')",
            "SELECT R'\\' AS a, reflect('x', 'y') AS b --'",
            "SELECT \"x\"; DROP TABLE t",
            "SELECT 'a\\\\'; DROP TABLE t",
        ] {
            assert_eq!(spark(hostile), Err(ErrorKind::Refused), "{hostile}");
        }
        // Elsewhere these names are not Spark's: `reflect` is just a name there.
        assert_eq!(
            check_read_only_in("SELECT reflect(1) FROM t", Dialect::Postgres),
            Ok(())
        );
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
            "REPLACE INTO Genre (Name) VALUES ('x')",
            "INSERT OR REPLACE INTO Genre (Name) VALUES ('x')",
            "WITH g AS (SELECT 1) INSERT INTO Genre (Name) SELECT 'x' FROM g",
            "WITH g AS (SELECT 1) DELETE FROM Genre",
            "WITH g AS (SELECT 1) UPDATE Genre SET Name = 'x'",
            "WITH g AS (SELECT 1) REPLACE INTO Genre (Name) VALUES ('x')",
            "SELECT 1; -- and then\n DELETE FROM Track",
            "DELETE FROM Track; nonsense here",
            "EXPLAIN SELECT 1",
            // Writes and locks inside a query, where no statement starts: the walk's.
            "(DELETE FROM Track)",
            "WITH d AS (DELETE FROM Track RETURNING *) SELECT * FROM d",
            "SELECT * FROM (UPDATE Track SET Name = 'x' RETURNING *)",
            "WITH g AS (SELECT 1) MERGE INTO Genre USING g ON 1 = 1 WHEN MATCHED THEN DELETE",
            "SELECT * FROM Track FOR UPDATE",
        ] {
            assert_eq!(kind(sql), Some(ErrorKind::Refused), "{sql}");
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
    fn a_malformed_read_stays_an_invalid_query() {
        // REPLACE and UPDATE here are a function and a column, not statements.
        assert_eq!(
            kind("SELECT REPLACE(Name, 'a', 'b') FROM FROM Track"),
            Some(ErrorKind::Unreadable)
        );
        assert_eq!(kind("SELECT \"update\" FROM"), Some(ErrorKind::Unreadable));
    }

    #[test]
    fn huge_operator_chains_are_refused_without_recursing() {
        // Deep enough to overflow the stack if it were parsed and walked.
        let chain = format!("SELECT 1{}", "+1".repeat(200_000));
        assert_eq!(kind(&chain), Some(ErrorKind::Refused));
        let globs = format!("SELECT 'a'{}", " GLOB 'a'".repeat(5_000));
        assert_eq!(kind(&globs), Some(ErrorKind::Refused));
        let fine = format!("SELECT 1{}", "+1".repeat(MAX_OPERATOR_CHAIN - 1));
        assert_eq!(kind(&fine), None);
        // Chains nested in parentheses add up to one deep tree.
        let nested = format!(
            "SELECT {}1{}",
            "(1+1+1+1+1+1+1+1+1+1+".repeat(15),
            ")".repeat(15)
        );
        assert_eq!(kind(&nested), None, "150 deep is fine");
        let nested = format!(
            "SELECT {}1{}",
            format!("({}", "1+".repeat(60)).repeat(30),
            ")".repeat(30)
        );
        assert_eq!(kind(&nested), Some(ErrorKind::Refused), "1,800 deep is not");
        // Many short chains side by side are fine: the tree is wide, not deep.
        let wide = format!(
            "SELECT {}",
            vec!["a + b * c = d AND e LIKE f"; 2_000].join(", ")
        );
        assert_eq!(kind(&wide), None);
        let long_in_list = format!("SELECT 1 WHERE 1 IN ({})", vec!["7"; 20_000].join(","));
        assert_eq!(kind(&long_in_list), None, "lists are flat, not deep");
    }

    #[test]
    fn unparseable_text_is_an_invalid_query_and_never_runs() {
        assert_eq!(kind("SELEC 1"), Some(ErrorKind::Unreadable));
        assert_eq!(kind("SELECT 1; DELET"), Some(ErrorKind::Unreadable));
        assert_eq!(kind("SELECT 'unterminated"), Some(ErrorKind::Unreadable));
    }
}
