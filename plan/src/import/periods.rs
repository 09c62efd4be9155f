//! `(start, end) OVERLAPS (start, end)`, the SQL standard's test of two periods, as plain
//! comparisons every engine runs alike.
//!
//! PostgreSQL's reading, which the rewrite keeps to the NULL: each period's earlier end
//! is its start (a period given backwards is turned round); a period with one end NULL is
//! the other end alone, with its end unknown. With starts `s1`, `s2` and ends `e1`, `e2`
//! so ordered, the periods overlap when `s1 > s2 AND s1 < e2`, or `s1 < s2 AND s2 < e1`,
//! or `s1 = s2` with both ends known; when none holds, the answer is NULL if any of the
//! four given values is NULL, else FALSE.

use super::joins::and;
use super::spellings::bin;
use super::{unsupported, Importer, R};
use crate::{BinaryOp, Expr, Literal, When};
use sqlparser::ast::Expr as SqlExpr;

impl Importer<'_> {
    /// `left OVERLAPS right`, each a pair of values.
    pub(super) fn overlaps(&self, left: &SqlExpr, right: &SqlExpr) -> R<Expr> {
        let (a, b) = (self.period(left)?, self.period(right)?);
        let (s1, e1) = ordered(&a);
        let (s2, e2) = ordered(&b);
        let known = |e: &Expr| bin(BinaryOp::IsNot, e.clone(), Expr::Literal(Literal::Null));
        let overlap = or(
            or(
                and(
                    bin(BinaryOp::Gt, s1.clone(), s2.clone()),
                    bin(BinaryOp::Lt, s1.clone(), e2.clone()),
                ),
                and(
                    bin(BinaryOp::Lt, s1.clone(), s2.clone()),
                    bin(BinaryOp::Lt, s2.clone(), e1.clone()),
                ),
            ),
            and(bin(BinaryOp::Eq, s1, s2), and(known(&e1), known(&e2))),
        );
        let all_known = [&a.0, &a.1, &b.0, &b.1]
            .into_iter()
            .map(known)
            .reduce(and)
            .unwrap_or(Expr::Literal(Literal::Bool(true)));
        // FALSE when all four are known, else NULL, written as a comparison (SQL Server
        // takes no CASE as a condition): `1 = CASE WHEN known THEN 0 END`.
        let otherwise = bin(
            BinaryOp::Eq,
            Expr::Literal(Literal::Integer(1)),
            Expr::Case {
                whens: vec![When {
                    condition: all_known,
                    result: Expr::Literal(Literal::Integer(0)),
                }],
                else_expr: None,
            },
        );
        Ok(or(overlap, otherwise))
    }

    /// A period's two given values, `(start, end)`.
    fn period(&self, e: &SqlExpr) -> R<(Expr, Expr)> {
        match e {
            SqlExpr::Nested(inner) => self.period(inner),
            SqlExpr::Tuple(pair) => match pair.as_slice() {
                [start, end] => Ok((self.expr(start)?, self.expr(end)?)),
                _ => unsupported("OVERLAPS of other than two pairs of values"),
            },
            _ => unsupported("OVERLAPS with a period given as an interval"),
        }
    }
}

/// A period's start and end as PostgreSQL orders them: the earlier value first; with one
/// value NULL, the other as the start and an unknown end.
fn ordered((x, y): &(Expr, Expr)) -> (Expr, Expr) {
    let in_order = bin(BinaryOp::LtEq, x.clone(), y.clone());
    let backwards = bin(BinaryOp::Gt, x.clone(), y.clone());
    let start = Expr::Case {
        whens: vec![
            When {
                condition: in_order.clone(),
                result: x.clone(),
            },
            When {
                condition: backwards.clone(),
                result: y.clone(),
            },
        ],
        else_expr: Some(Box::new(crate::ast::call(
            "COALESCE",
            vec![x.clone(), y.clone()],
        ))),
    };
    let end = Expr::Case {
        whens: vec![
            When {
                condition: in_order,
                result: y.clone(),
            },
            When {
                condition: backwards,
                result: x.clone(),
            },
        ],
        else_expr: None,
    };
    (start, end)
}

fn or(left: Expr, right: Expr) -> Expr {
    bin(BinaryOp::Or, left, right)
}
