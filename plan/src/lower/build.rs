//! Small constructors for sqlparser's AST, and the quoting every name and text goes through.
//!
//! sqlparser's `Display` escapes quoted text by guessing: it leaves a quote that follows a
//! backslash or another quote as it is, taking it to be escaped already. A model-written
//! alias such as `x\"` or a literal holding `''` would then close its own quotes. So names
//! and text are escaped here, completely, and handed to the AST as finished tokens
//! (an unquoted `Ident`, a `Placeholder` value) that `Display` writes verbatim.

use crate::dialect::Dialect;
use sqlparser::ast::{
    self, BinaryOperator, CastKind, DataType, Expr as SqlExpr, Function, FunctionArg,
    FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident, ObjectName, ObjectNamePart,
    Value, ValueWithSpan,
};
use sqlparser::tokenizer::Span;

/// Words reserved in at least one of the dialects we render (SQL's own, plus MySQL's and
/// T-SQL's extras such as the window function names, and every SQLite keyword, some of
/// which, such as `NOTHING`, SQLite will not read as an alias): a name spelled like one is
/// quoted.
/// Sorted, for binary search.
const RESERVED: &[&str] = &[
    "ABORT",
    "ACCESSIBLE",
    "ACTION",
    "ADD",
    "AFTER",
    "ALL",
    "ALTER",
    "ALWAYS",
    "ANALYSE",
    "ANALYZE",
    "AND",
    "ANY",
    "ARRAY",
    "AS",
    "ASC",
    "ASENSITIVE",
    "ASYMMETRIC",
    "ATTACH",
    "AUTHORIZATION",
    "AUTOINCREMENT",
    "BACKUP",
    "BEFORE",
    "BEGIN",
    "BETWEEN",
    "BIGINT",
    "BINARY",
    "BLOB",
    "BOTH",
    "BREAK",
    "BROWSE",
    "BULK",
    "BY",
    "CALL",
    "CASCADE",
    "CASE",
    "CAST",
    "CHANGE",
    "CHAR",
    "CHARACTER",
    "CHECK",
    "CHECKPOINT",
    "CLOSE",
    "CLUSTERED",
    "COLLATE",
    "COLLATION",
    "COLUMN",
    "COMMIT",
    "COMPUTE",
    "CONCURRENTLY",
    "CONDITION",
    "CONFLICT",
    "CONSTRAINT",
    "CONTAINS",
    "CONTINUE",
    "CONVERT",
    "CREATE",
    "CROSS",
    "CUBE",
    "CUME_DIST",
    "CURRENT",
    "CURRENT_CATALOG",
    "CURRENT_DATE",
    "CURRENT_ROLE",
    "CURRENT_SCHEMA",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "CURSOR",
    "DATABASE",
    "DATABASES",
    "DAY_HOUR",
    "DAY_MICROSECOND",
    "DAY_MINUTE",
    "DAY_SECOND",
    "DEALLOCATE",
    "DEC",
    "DECIMAL",
    "DECLARE",
    "DEFAULT",
    "DEFERRABLE",
    "DEFERRED",
    "DELAYED",
    "DELETE",
    "DENSE_RANK",
    "DENY",
    "DESC",
    "DESCRIBE",
    "DETACH",
    "DETERMINISTIC",
    "DISTINCT",
    "DISTINCTROW",
    "DIV",
    "DO",
    "DOUBLE",
    "DROP",
    "DUAL",
    "EACH",
    "ELSE",
    "ELSEIF",
    "EMPTY",
    "ENCLOSED",
    "END",
    "ESCAPE",
    "ESCAPED",
    "EXCEPT",
    "EXCLUDE",
    "EXCLUSIVE",
    "EXEC",
    "EXECUTE",
    "EXISTS",
    "EXIT",
    "EXPLAIN",
    "FAIL",
    "FALSE",
    "FETCH",
    "FILE",
    "FILTER",
    "FIRST",
    "FIRST_VALUE",
    "FLOAT",
    "FLOAT4",
    "FLOAT8",
    "FOLLOWING",
    "FOR",
    "FORCE",
    "FOREIGN",
    "FREETEXT",
    "FREEZE",
    "FROM",
    "FULL",
    "FULLTEXT",
    "FUNCTION",
    "GENERATED",
    "GET",
    "GLOB",
    "GOTO",
    "GRANT",
    "GROUP",
    "GROUPING",
    "GROUPS",
    "HAVING",
    "HIGH_PRIORITY",
    "HOUR_MICROSECOND",
    "HOUR_MINUTE",
    "HOUR_SECOND",
    "IDENTITY",
    "IF",
    "IGNORE",
    "ILIKE",
    "IMMEDIATE",
    "IN",
    "INDEX",
    "INDEXED",
    "INFILE",
    "INITIALLY",
    "INNER",
    "INOUT",
    "INSENSITIVE",
    "INSERT",
    "INSTEAD",
    "INT",
    "INT1",
    "INT2",
    "INT3",
    "INT4",
    "INT8",
    "INTEGER",
    "INTERSECT",
    "INTERVAL",
    "INTO",
    "IS",
    "ISNULL",
    "ITERATE",
    "JOIN",
    "JSON_TABLE",
    "KEY",
    "KEYS",
    "KILL",
    "LAG",
    "LAST",
    "LAST_VALUE",
    "LATERAL",
    "LEAD",
    "LEADING",
    "LEAVE",
    "LEFT",
    "LIKE",
    "LIMIT",
    "LINEAR",
    "LINES",
    "LOAD",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "LOCK",
    "LONG",
    "LONGBLOB",
    "LONGTEXT",
    "LOOP",
    "LOW_PRIORITY",
    "MATCH",
    "MATERIALIZED",
    "MAXVALUE",
    "MEDIUMBLOB",
    "MEDIUMINT",
    "MEDIUMTEXT",
    "MERGE",
    "MIDDLEINT",
    "MINUTE_MICROSECOND",
    "MINUTE_SECOND",
    "MOD",
    "MODIFIES",
    "NATURAL",
    "NO",
    "NOCHECK",
    "NONCLUSTERED",
    "NOT",
    "NOTHING",
    "NOTNULL",
    "NO_WRITE_TO_BINLOG",
    "NTH_VALUE",
    "NTILE",
    "NULL",
    "NULLS",
    "NUMERIC",
    "OF",
    "OFFSET",
    "ON",
    "ONLY",
    "OPEN",
    "OPTIMIZE",
    "OPTION",
    "OPTIONALLY",
    "OR",
    "ORDER",
    "OTHERS",
    "OUT",
    "OUTER",
    "OUTFILE",
    "OVER",
    "OVERLAPS",
    "PARTITION",
    "PERCENT",
    "PERCENT_RANK",
    "PIVOT",
    "PLACING",
    "PLAN",
    "PRAGMA",
    "PRECEDING",
    "PRECISION",
    "PRIMARY",
    "PRINT",
    "PROCEDURE",
    "PUBLIC",
    "PURGE",
    "QUERY",
    "RAISE",
    "RANGE",
    "RANK",
    "READ",
    "READS",
    "READ_WRITE",
    "REAL",
    "RECURSIVE",
    "REFERENCES",
    "REGEXP",
    "REINDEX",
    "RELEASE",
    "RENAME",
    "REPEAT",
    "REPLACE",
    "REQUIRE",
    "RESIGNAL",
    "RESTRICT",
    "RETURN",
    "RETURNING",
    "REVOKE",
    "RIGHT",
    "RLIKE",
    "ROLLBACK",
    "ROLLUP",
    "ROW",
    "ROWS",
    "ROW_NUMBER",
    "RULE",
    "SAVE",
    "SAVEPOINT",
    "SCHEMA",
    "SCHEMAS",
    "SECOND_MICROSECOND",
    "SELECT",
    "SENSITIVE",
    "SEPARATOR",
    "SESSION_USER",
    "SET",
    "SHOW",
    "SIGNAL",
    "SIMILAR",
    "SMALLINT",
    "SOME",
    "SPATIAL",
    "SPECIFIC",
    "SQL",
    "SQLEXCEPTION",
    "SQLSTATE",
    "SQLWARNING",
    "SQL_BIG_RESULT",
    "SQL_CALC_FOUND_ROWS",
    "SQL_SMALL_RESULT",
    "SSL",
    "STARTING",
    "STORED",
    "STRAIGHT_JOIN",
    "SYMMETRIC",
    "SYSTEM",
    "SYSTEM_USER",
    "TABLE",
    "TABLESAMPLE",
    "TEMP",
    "TEMPORARY",
    "TERMINATED",
    "THEN",
    "TIES",
    "TINYBLOB",
    "TINYINT",
    "TINYTEXT",
    "TO",
    "TOP",
    "TRAILING",
    "TRAN",
    "TRANSACTION",
    "TRIGGER",
    "TRUE",
    "TRUNCATE",
    "UNBOUNDED",
    "UNDO",
    "UNION",
    "UNIQUE",
    "UNLOCK",
    "UNPIVOT",
    "UNSIGNED",
    "UPDATE",
    "USAGE",
    "USE",
    "USER",
    "USING",
    "UTC_DATE",
    "UTC_TIME",
    "UTC_TIMESTAMP",
    "VACUUM",
    "VALUES",
    "VARBINARY",
    "VARCHAR",
    "VARCHARACTER",
    "VARIADIC",
    "VARYING",
    "VERBOSE",
    "VIEW",
    "VIRTUAL",
    "WAITFOR",
    "WHEN",
    "WHERE",
    "WHILE",
    "WINDOW",
    "WITH",
    "WITHOUT",
    "WRITE",
    "XOR",
    "YEAR_MONTH",
    "ZEROFILL",
];

/// A name as the dialect needs it written: bare when it is a plain identifier that no
/// dialect reserves (and, on PostgreSQL, all lower case, since unquoted names fold), else
/// quoted.
pub fn ident(name: &str, dialect: Dialect) -> Ident {
    let plain = crate::functions::is_plain_identifier(name)
        && RESERVED
            .binary_search(&name.to_ascii_uppercase().as_str())
            .is_err()
        && !(dialect == Dialect::Postgres && name.chars().any(|c| c.is_ascii_uppercase()));
    if plain {
        return Ident::new(name);
    }
    let q = if matches!(dialect, Dialect::MySql | Dialect::Spark) {
        '`'
    } else {
        '"'
    };
    let mut text = String::with_capacity(name.len() + 2);
    text.push(q);
    for c in name.chars() {
        if c == q {
            text.push(q);
        }
        text.push(c);
    }
    text.push(q);
    Ident::new(text)
}

/// A SQL keyword or unit name written bare (`year` in `DATEPART(year, x)`).
pub fn keyword(word: &str) -> Ident {
    Ident::new(word)
}

/// A string literal, escaped for the dialect: quotes doubled; on MySQL backslashes doubled
/// too (MySQL reads a backslash in a string as an escape); on PostgreSQL a text holding a
/// backslash is written `E'…'` with the backslashes doubled, so it reads the same whether or
/// not the server has `standard_conforming_strings` on. Spark reads `''` as two literals
/// side by side (which it joins), so there a quote is escaped with a backslash.
pub fn text(value: &str, dialect: Dialect) -> SqlExpr {
    let escape_backslashes = match dialect {
        Dialect::MySql | Dialect::Spark => true,
        Dialect::Postgres => value.contains('\\'),
        _ => false,
    };
    let mut out = String::with_capacity(value.len() + 3);
    if escape_backslashes && dialect == Dialect::Postgres {
        out.push('E');
    }
    out.push('\'');
    for c in value.chars() {
        match c {
            '\'' if dialect == Dialect::Spark => out.push_str("\\'"),
            '\'' => out.push_str("''"),
            '\\' if escape_backslashes => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('\'');
    value_expr(Value::Placeholder(out))
}

fn value_expr(value: Value) -> SqlExpr {
    SqlExpr::Value(ValueWithSpan {
        value,
        span: Span::empty(),
    })
}

/// An integer literal; negative ones are parenthesised so no operator can run into them.
pub fn int(i: i64) -> SqlExpr {
    let n = value_expr(Value::Number(i.to_string(), false));
    if i < 0 {
        nested(n)
    } else {
        n
    }
}

/// A decimal literal, written so that it reads back as a decimal.
pub fn real(x: f64) -> SqlExpr {
    let mut s = if x.is_finite() {
        format!("{x:?}")
    } else {
        // JSON has no infinities or NaN; keep the output valid if one is ever built.
        "NULL".to_string()
    };
    if s.contains('e') || s.contains('E') {
        s = format!("{x}");
    }
    // Keep it a decimal: `1e16` written as `10000000000000000` would divide as an integer.
    if x.is_finite() && !s.contains('.') {
        s.push_str(".0");
    }
    let n = value_expr(Value::Number(s, false));
    if x.is_sign_negative() {
        nested(n)
    } else {
        n
    }
}

/// `NULL`.
pub fn null() -> SqlExpr {
    value_expr(Value::Null)
}

/// `TRUE`/`FALSE`.
pub fn boolean(b: bool) -> SqlExpr {
    value_expr(Value::Boolean(b))
}

/// `(e)`.
/// `CASE WHEN c1 THEN r1 … ELSE otherwise END`.
pub fn case_when(arms: Vec<(SqlExpr, SqlExpr)>, otherwise: SqlExpr) -> SqlExpr {
    case(None, arms, Some(otherwise))
}

/// `CASE [operand] WHEN a THEN r … [ELSE otherwise] END`.
pub fn case(
    operand: Option<SqlExpr>,
    arms: Vec<(SqlExpr, SqlExpr)>,
    otherwise: Option<SqlExpr>,
) -> SqlExpr {
    SqlExpr::Case {
        case_token: ast::helpers::attached_token::AttachedToken::empty(),
        end_token: ast::helpers::attached_token::AttachedToken::empty(),
        operand: operand.map(Box::new),
        conditions: arms
            .into_iter()
            .map(|(condition, result)| ast::CaseWhen { condition, result })
            .collect(),
        else_result: otherwise.map(Box::new),
    }
}

pub fn nested(e: SqlExpr) -> SqlExpr {
    SqlExpr::Nested(Box::new(e))
}

/// `left op right`.
pub fn binary(left: SqlExpr, op: BinaryOperator, right: SqlExpr) -> SqlExpr {
    SqlExpr::BinaryOp {
        left: Box::new(left),
        op,
        right: Box::new(right),
    }
}

/// `CAST(e AS t)`.
pub fn cast(e: SqlExpr, data_type: DataType) -> SqlExpr {
    SqlExpr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(e),
        data_type,
        format: None,
    }
}

/// A type with a dialect-specific spelling (`SIGNED`, `NVARCHAR(MAX)`).
pub fn custom_type(name: &str, args: &[&str]) -> DataType {
    DataType::Custom(
        object_name(keyword(name)),
        args.iter()
            .map(|a| ast::TypeModifier::Identifier(keyword(a)))
            .collect(),
    )
}

/// A one-part object name.
pub fn object_name(id: Ident) -> ObjectName {
    ObjectName(vec![ObjectNamePart::Identifier(id)])
}

/// A call with plain arguments.
pub fn call(name: &str, args: Vec<SqlExpr>) -> SqlExpr {
    call_with(
        name,
        args.into_iter()
            .map(|a| FunctionArg::Unnamed(FunctionArgExpr::Expr(a)))
            .collect(),
        false,
        None,
    )
}

/// A call with any arguments, `DISTINCT` and a window.
pub fn call_with(
    name: &str,
    args: Vec<FunctionArg>,
    distinct: bool,
    over: Option<ast::WindowSpec>,
) -> SqlExpr {
    SqlExpr::Function(Function {
        name: object_name(keyword(name)),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: distinct.then_some(ast::DuplicateTreatment::Distinct),
            args,
            clauses: vec![],
        }),
        within_group: vec![],
        filter: None,
        null_treatment: None,
        over: over.map(ast::WindowType::WindowSpec),
    })
}

/// A keyword that reads like a function but takes no parentheses (`CURRENT_DATE`).
pub fn bare_call(name: &str) -> SqlExpr {
    SqlExpr::Function(Function {
        name: object_name(keyword(name)),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::None,
        within_group: vec![],
        filter: None,
        null_treatment: None,
        over: None,
    })
}

/// `expr ASC` or `expr DESC`.
pub fn order_by_expr(expr: SqlExpr, direction: crate::Direction) -> ast::OrderByExpr {
    ast::OrderByExpr {
        expr,
        options: ast::OrderByOptions {
            sort: Some(match direction {
                crate::Direction::Asc => ast::OrderBySort::Asc,
                crate::Direction::Desc => ast::OrderBySort::Desc,
            }),
            nulls_first: None,
        },
        with_fill: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserved_words_are_sorted_for_binary_search() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn names_are_quoted_only_when_they_must_be() {
        let shown = |n: &str, d| ident(n, d).to_string();
        assert_eq!(shown("Name", Dialect::Sqlite), "Name");
        assert_eq!(shown("order", Dialect::Sqlite), r#""order""#);
        assert_eq!(shown("Total Spend", Dialect::MySql), "`Total Spend`");
        assert_eq!(shown("Name", Dialect::Postgres), r#""Name""#);
        assert_eq!(shown("name", Dialect::Postgres), "name");
        assert_eq!(shown(r#"a"b"#, Dialect::Sqlite), r#""a""b""#);
        assert_eq!(shown(r#"a\"b"#, Dialect::Sqlite), r#""a\""b""#);
        assert_eq!(shown("a`b", Dialect::MySql), "`a``b`");
        assert_eq!(shown("Total Spend", Dialect::Spark), "`Total Spend`");
        assert_eq!(shown("a`b", Dialect::Spark), "`a``b`");
    }

    #[test]
    fn text_is_escaped_whatever_it_holds() {
        let shown = |t: &str, d| text(t, d).to_string();
        assert_eq!(shown("it's", Dialect::Sqlite), "'it''s'");
        assert_eq!(shown("a''b", Dialect::Sqlite), "'a''''b'");
        assert_eq!(shown(r"x\'", Dialect::Sqlite), r"'x\'''");
        assert_eq!(shown(r"x\'", Dialect::MySql), r"'x\\'''");
        assert_eq!(shown(r"x\'", Dialect::Postgres), r"E'x\\'''");
        assert_eq!(shown("plain", Dialect::Postgres), "'plain'");
        assert_eq!(shown(r"it's a\b", Dialect::Spark), r"'it\'s a\\b'");
    }
}
