//! Small constructors for sqlparser's AST, and the quoting every name and text goes through.
//!
//! sqlparser's `Display` escapes quoted text by guessing: it leaves a quote that follows a
//! backslash or another quote as it is, taking it to be escaped already. A model-written
//! alias such as `x\"` or a literal holding `''` would then close its own quotes. So names
//! and text are escaped here, completely, and handed to the AST as finished tokens
//! (an unquoted `Ident`, a `Placeholder` value) that `Display` writes verbatim.

use crate::datasource::Dialect;
use sqlparser::ast::{
    self, BinaryOperator, CastKind, DataType, Expr as SqlExpr, Function, FunctionArg,
    FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident, ObjectName, ObjectNamePart,
    Value, ValueWithSpan,
};
use sqlparser::keywords::ALL_KEYWORDS;
use sqlparser::tokenizer::Span;

/// A name as the dialect needs it written: bare when it is a plain identifier that is not a
/// keyword (and, on PostgreSQL, all lower case, since unquoted names fold), else quoted.
pub fn ident(name: &str, dialect: Dialect) -> Ident {
    let plain = crate::plan::functions::is_plain_identifier(name)
        && ALL_KEYWORDS
            .binary_search(&name.to_ascii_uppercase().as_str())
            .is_err()
        && !(dialect == Dialect::Postgres && name.chars().any(|c| c.is_ascii_uppercase()));
    if plain {
        return Ident::new(name);
    }
    let q = if dialect == Dialect::MySql { '`' } else { '"' };
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

/// A string literal, escaped for the dialect: quotes doubled, and on MySQL backslashes too
/// (MySQL reads a backslash in a string as an escape).
pub fn text(value: &str, dialect: Dialect) -> SqlExpr {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('\'');
    for c in value.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' if dialect == Dialect::MySql => out.push_str("\\\\"),
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
