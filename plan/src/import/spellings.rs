//! Text and number functions each dialect spells its own way, read as the plan's one
//! function or as an exact expression of the plan's functions: where a text is found
//! (`POSITION`, `STRPOS`, `LOCATE`, MySQL's `FIND_IN_SET`), its ends (`LEFT`, `RIGHT`), its
//! length in characters (`CHAR_LENGTH`), logarithms (`LOG` is base 10 in some dialects and
//! natural in others) and truncation toward zero (`TRUNCATE(x, 0)`).

use super::json::plain_args;
use super::{unsupported, Importer, R};
use crate::ast::call;
use crate::dialect::Dialect;
use crate::{BinaryOp, Expr, Literal, When};
use sqlparser::ast::{self, Expr as SqlExpr};

impl Importer<'_> {
    /// `f` as the plan spells it, when it is one of this module's functions; `None`
    /// otherwise.
    pub(super) fn function_spelling(&self, f: &ast::Function) -> R<Option<Expr>> {
        let name = f.name.to_string().to_ascii_uppercase();
        let args = plain_args(f);
        let d = self.dialect;
        Ok(Some(match (name.as_str(), args.as_slice()) {
            ("STRPOS", [text, part]) if matches!(d, Dialect::Postgres | Dialect::DuckDb) => {
                call("INSTR", vec![self.expr(text)?, self.expr(part)?])
            }
            ("LOCATE", [part, text]) if matches!(d, Dialect::MySql | Dialect::Spark) => {
                call("INSTR", vec![self.expr(text)?, self.expr(part)?])
            }
            ("CHAR_LENGTH" | "CHARACTER_LENGTH", [text]) => call("LENGTH", vec![self.expr(text)?]),
            ("LEFT", [text, n]) => call(
                "SUBSTR",
                vec![self.expr(text)?, int(1), int(self.count_of(n, "LEFT")?)],
            ),
            ("RIGHT", [text, n]) => {
                // The last n characters start n - 1 before the end, and at the first when
                // the text is shorter.
                let n = self.count_of(n, "RIGHT")?;
                let start = bin(
                    BinaryOp::Plus,
                    bin(
                        BinaryOp::Minus,
                        call("LENGTH", vec![self.expr(text)?]),
                        int(n),
                    ),
                    int(1),
                );
                call(
                    "SUBSTR",
                    vec![self.expr(text)?, call("GREATEST", vec![start, int(1)])],
                )
            }
            ("LOG", [x]) => {
                let natural = matches!(d, Dialect::MySql | Dialect::SqlServer | Dialect::Spark);
                call(if natural { "LN" } else { "LOG10" }, vec![self.expr(x)?])
            }
            ("LOG", [_, _]) => return unsupported("LOG to a base other than 10 or e"),
            ("TRUNCATE", [x, SqlExpr::Value(v)]) if d == Dialect::MySql => {
                match super::literal(&v.value)? {
                    Literal::Integer(0) => call("TRUNC", vec![self.expr(x)?]),
                    _ => return unsupported("TRUNCATE to decimal places"),
                }
            }
            ("TRUNC", [_, _]) if matches!(d, Dialect::Postgres | Dialect::DuckDb) => {
                return unsupported("TRUNC to decimal places")
            }
            ("FIND_IN_SET", [item, list]) if d == Dialect::MySql => self.find_in_set(item, list)?,
            _ => return Ok(None),
        }))
    }

    /// `POSITION(part IN text)`.
    pub(super) fn position(&self, part: &SqlExpr, text: &SqlExpr) -> R<Expr> {
        Ok(call("INSTR", vec![self.expr(text)?, self.expr(part)?]))
    }

    /// A character count given as a whole number literal; `LEFT` and `RIGHT` of a negative
    /// count mean "all but" in PostgreSQL and nothing in MySQL, so only counts are read.
    fn count_of(&self, n: &SqlExpr, name: &str) -> R<i64> {
        match n {
            SqlExpr::Value(v) => match super::literal(&v.value)? {
                Literal::Integer(n) if n >= 0 => Ok(n),
                _ => unsupported(format!("{name} of a count that is not a whole number ≥ 0")),
            },
            _ => unsupported(format!("{name} of a computed count")),
        }
    }

    /// MySQL's `FIND_IN_SET(item, list)`: the place of `item` among the comma-separated
    /// values of `list`, 0 when absent, NULL when either is: the commas up to the first
    /// `,item,` in `,list,` count it. An empty list holds nothing, and an item with a comma
    /// is in no list.
    fn find_in_set(&self, item: &SqlExpr, list: &SqlExpr) -> R<Expr> {
        let comma = || Expr::Literal(Literal::Text(",".into()));
        let fenced = |e: Expr| bin(BinaryOp::Concat, bin(BinaryOp::Concat, comma(), e), comma());
        let at = call(
            "INSTR",
            vec![fenced(self.expr(list)?), fenced(self.expr(item)?)],
        );
        let before = call("SUBSTR", vec![fenced(self.expr(list)?), int(1), at.clone()]);
        let commas = bin(
            BinaryOp::Minus,
            call("LENGTH", vec![before.clone()]),
            call(
                "LENGTH",
                vec![call(
                    "REPLACE",
                    vec![before, comma(), Expr::Literal(Literal::Text(String::new()))],
                )],
            ),
        );
        let when = |condition, result| When { condition, result };
        let empty = Expr::Literal(Literal::Text(String::new()));
        Ok(Expr::Case {
            whens: vec![
                when(bin(BinaryOp::Eq, self.expr(list)?, empty), int(0)),
                when(
                    bin(
                        BinaryOp::Gt,
                        call("INSTR", vec![self.expr(item)?, comma()]),
                        int(0),
                    ),
                    int(0),
                ),
                when(bin(BinaryOp::Eq, at, int(0)), int(0)),
            ],
            else_expr: Some(Box::new(commas)),
        })
    }
}

fn int(i: i64) -> Expr {
    Expr::Literal(Literal::Integer(i))
}

pub(super) fn bin(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
    }
}
