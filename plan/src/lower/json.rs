//! `JSON_VALUE(doc, '$.key')`: the text of the JSON scalar at a path, as SQL's
//! `JSON_VALUE` defines it — a string's characters, a number's or a boolean's JSON
//! spelling, and NULL for JSON null, a missing key, an object or an array. Every dialect
//! but SQL Server spells it from its own operators, each guarded so an object, an array or
//! JSON null gives NULL as the others do.

use super::build::{call, case, cast, custom_type, null, text};
use super::dates::Operand;
use super::{fail, LowerError};
use crate::dialect::Dialect;
use sqlparser::ast::{BinaryOperator as Op, Expr as SqlExpr};

/// `doc`'s value at `keys`, lowered for `d`. `doc` is called once per use, each a fresh
/// copy of the document's SQL.
pub(super) fn value(doc: Operand, keys: &[&str], d: Dialect) -> Result<SqlExpr, LowerError> {
    let path = format!("$.{}", keys.join("."));
    // The type names each dialect's test gives to what JSON_VALUE makes NULL.
    let (type_of, not_scalars): (SqlExpr, &[&str]) = match d {
        Dialect::Sqlite => (
            call("JSON_TYPE", vec![doc()?, text(&path, d)]),
            &["object", "array"],
        ),
        Dialect::Postgres => (
            call(
                "JSONB_TYPEOF",
                vec![postgres(doc()?, keys, Op::HashArrow, d)],
            ),
            &["object", "array"],
        ),
        Dialect::MySql => (
            call(
                "JSON_TYPE",
                vec![call("JSON_EXTRACT", vec![doc()?, text(&path, d)])],
            ),
            &["OBJECT", "ARRAY", "NULL"],
        ),
        Dialect::DuckDb => (
            call("JSON_TYPE", vec![doc()?, text(&path, d)]),
            &["OBJECT", "ARRAY", "NULL"],
        ),
        Dialect::SqlServer => return Ok(call("JSON_VALUE", vec![doc()?, text(&path, d)])),
        Dialect::Spark => {
            return fail(
                "JSON_VALUE has no exact form on Spark: get_json_object gives an object's or \
                 an array's text where JSON_VALUE gives NULL, and a string's text cannot be \
                 told from them.",
            )
        }
    };
    let scalar = match d {
        // json_extract gives true and false as 1 and 0, and numbers as numbers.
        Dialect::Sqlite => cast(
            call("JSON_EXTRACT", vec![doc()?, text(&path, d)]),
            custom_type("TEXT", &[]),
        ),
        Dialect::Postgres => postgres(doc()?, keys, Op::HashLongArrow, d),
        Dialect::MySql => call(
            "JSON_UNQUOTE",
            vec![call("JSON_EXTRACT", vec![doc()?, text(&path, d)])],
        ),
        _ => call("JSON_EXTRACT_STRING", vec![doc()?, text(&path, d)]),
    };
    let mut arms: Vec<(SqlExpr, SqlExpr)> = not_scalars
        .iter()
        .map(|name| (text(name, d), null()))
        .collect();
    if d == Dialect::Sqlite {
        arms.extend(["true", "false"].map(|b| (text(b, d), text(b, d))));
    }
    Ok(case(Some(type_of), arms, Some(scalar)))
}

/// `doc::jsonb #> '{a,b}'` (`#>>` for the text): PostgreSQL's path operators take the keys
/// as a text array.
fn postgres(doc: SqlExpr, keys: &[&str], op: Op, d: Dialect) -> SqlExpr {
    SqlExpr::BinaryOp {
        left: Box::new(cast(doc, custom_type("JSONB", &[]))),
        op,
        right: Box::new(text(&format!("{{{}}}", keys.join(",")), d)),
    }
}
