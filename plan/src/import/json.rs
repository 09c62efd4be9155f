//! Each dialect's spelling of "the text at a JSON key", read as the plan's
//! `JSON_VALUE(doc, '$.key')`: PostgreSQL's `->>` (after any `->`), `#>>` and
//! `json_extract_path_text`, MySQL's `->>` and `JSON_UNQUOTE(JSON_EXTRACT(…))`, DuckDB's
//! `->>` and `json_extract_string`. All of them give a scalar's text, as `JSON_VALUE` does;
//! an object's or an array's text, which they also give, is read as NULL (docs/plan.md).
//! SQLite's `->>` and `json_extract` give numbers as numbers, so they are not read here.

use super::{literal, unsupported, Importer, R};
use crate::dialect::Dialect;
use crate::functions::is_plain_identifier;
use crate::{ast::call, Expr, Literal};
use sqlparser::ast::{
    self, BinaryOperator as Op, DataType, Expr as SqlExpr, FunctionArg, FunctionArgExpr,
    FunctionArguments,
};

impl Importer<'_> {
    /// `e` as `JSON_VALUE` when it is a JSON text extraction of this dialect; `None` when
    /// it is something else.
    pub(super) fn json_operator(&self, e: &SqlExpr) -> R<Option<Expr>> {
        let SqlExpr::BinaryOp { left, op, right } = e else {
            return Ok(None);
        };
        let arrows = matches!(
            self.dialect,
            Dialect::Postgres | Dialect::MySql | Dialect::DuckDb
        );
        let mut keys = match (op, self.dialect) {
            (Op::LongArrow, _) if arrows => self.json_keys(right)?,
            (Op::HashLongArrow, Dialect::Postgres) => match text_of(right) {
                Some(t) => t
                    .trim_start_matches('{')
                    .trim_end_matches('}')
                    .split(',')
                    .map(|k| k.trim().to_string())
                    .collect(),
                None => return unsupported("A JSON path that is not a text literal"),
            },
            _ => return Ok(None),
        };
        // PostgreSQL reaches inner keys with `->` before the last `->>`.
        let mut doc = &**left;
        while let (
            SqlExpr::BinaryOp {
                left,
                op: Op::Arrow,
                right,
            },
            Dialect::Postgres,
        ) = (doc, self.dialect)
        {
            let mut outer = self.json_keys(right)?;
            outer.append(&mut keys);
            keys = outer;
            doc = left;
        }
        self.json_value(doc, keys).map(Some)
    }

    /// A JSON extraction function of this dialect as `JSON_VALUE`; `None` when `f` is none.
    pub(super) fn json_function(&self, f: &ast::Function) -> R<Option<Expr>> {
        let name = f.name.to_string().to_ascii_uppercase();
        let args = plain_args(f);
        match (name.as_str(), self.dialect, args.as_slice()) {
            (
                "JSON_EXTRACT_PATH_TEXT" | "JSONB_EXTRACT_PATH_TEXT",
                Dialect::Postgres,
                [doc, path @ ..],
            ) if !path.is_empty() => {
                let mut keys = Vec::new();
                for k in path {
                    keys.append(&mut self.json_keys(k)?);
                }
                self.json_value(doc, keys).map(Some)
            }
            ("JSON_EXTRACT_STRING", Dialect::DuckDb, [doc, path]) => {
                let keys = self.json_keys(path)?;
                self.json_value(doc, keys).map(Some)
            }
            ("JSON_UNQUOTE", Dialect::MySql, [inner]) => match inner {
                SqlExpr::Function(g) if g.name.to_string().eq_ignore_ascii_case("JSON_EXTRACT") => {
                    match plain_args(g).as_slice() {
                        [doc, path] => {
                            let keys = self.json_keys(path)?;
                            self.json_value(doc, keys).map(Some)
                        }
                        _ => unsupported("JSON_EXTRACT of more than one path"),
                    }
                }
                SqlExpr::BinaryOp {
                    left,
                    op: Op::Arrow,
                    right,
                } => {
                    let keys = self.json_keys(right)?;
                    self.json_value(left, keys).map(Some)
                }
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// The keys one path operand names: a key (`'query'`) or a path (`'$.a.b'`).
    fn json_keys(&self, e: &SqlExpr) -> R<Vec<String>> {
        let Some(t) = text_of(e) else {
            return unsupported(format!("The JSON key or index {e}"));
        };
        Ok(match t.strip_prefix("$.") {
            Some(path) if self.dialect != Dialect::Postgres => {
                path.split('.').map(str::to_string).collect()
            }
            _ => vec![t],
        })
    }

    fn json_value(&self, doc: &SqlExpr, keys: Vec<String>) -> R<Expr> {
        if keys.is_empty() || !keys.iter().all(|k| is_plain_identifier(k)) {
            return unsupported(format!(
                "The JSON path {keys:?} (keys must be plain names: letters, digits and _)"
            ));
        }
        // The document is often cast to JSON first (`properties::json`); the plan casts it.
        let doc = match doc {
            SqlExpr::Cast {
                expr,
                data_type: DataType::JSON | DataType::JSONB,
                ..
            } => expr,
            other => other,
        };
        Ok(call(
            "JSON_VALUE",
            vec![
                self.expr(doc)?,
                Expr::Literal(Literal::Text(format!("$.{}", keys.join(".")))),
            ],
        ))
    }
}

fn text_of(e: &SqlExpr) -> Option<String> {
    match e {
        SqlExpr::Value(v) => match literal(&v.value) {
            Ok(Literal::Text(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// `f`'s arguments when all are plain expressions (none named, no clauses); otherwise
/// none, which no JSON spelling matches.
pub(super) fn plain_args(f: &ast::Function) -> Vec<&SqlExpr> {
    let FunctionArguments::List(list) = &f.args else {
        return Vec::new();
    };
    let plain: Option<Vec<&SqlExpr>> = list
        .args
        .iter()
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
            _ => None,
        })
        .collect();
    match plain {
        Some(args) if list.clauses.is_empty() && f.over.is_none() && f.filter.is_none() => args,
        _ => Vec::new(),
    }
}
