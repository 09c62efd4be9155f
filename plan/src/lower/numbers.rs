//! Whole numbers as SQLite computes them, kept on every engine.
//!
//! In SQLite (the plans' reference semantics) a whole number divided by a whole number is
//! a whole number (`7 / 2` is 3), and `CAST(x AS INTEGER)` drops the fraction (`CAST(3.7 AS
//! INTEGER)` is 3). MySQL and DuckDB divide whole numbers into fractions, PostgreSQL divides
//! an exact sum (a `numeric`) into one, and PostgreSQL, MySQL and DuckDB round when they
//! cast. So the generator tells whole numbers from fractions where the plan and the schema
//! say which, and writes the division and the cast so every engine gives SQLite's answer.

use super::build::{binary, call, int};
use super::Lowerer;
use crate::dialect::Dialect;
use crate::{BinaryOp, CastType, Expr, FuncCall, Literal, UnaryOp};
use sqlparser::ast::{BinaryOperator as Op, Expr as SqlExpr};

/// What kind of number an expression gives, when the plan and the schema tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Numeric {
    Whole,
    Fraction,
}

impl Lowerer<'_> {
    /// The kind of number `e` gives, or `None` when it is not known to be a number.
    pub(super) fn numeric_kind(&self, e: &Expr) -> Option<Numeric> {
        match e {
            Expr::Literal(Literal::Integer(_)) => Some(Numeric::Whole),
            Expr::Literal(Literal::Real(_)) => Some(Numeric::Fraction),
            Expr::Column { alias, column } => {
                let declared = self.declared_type(alias.as_deref(), column)?;
                declared_kind(&declared)
            }
            Expr::Cast { to, .. } => match to {
                CastType::Integer => Some(Numeric::Whole),
                CastType::Real | CastType::Numeric => Some(Numeric::Fraction),
                _ => None,
            },
            Expr::Unary {
                op: UnaryOp::Minus | UnaryOp::Plus,
                expr,
            } => self.numeric_kind(expr),
            Expr::Binary {
                op:
                    BinaryOp::Plus
                    | BinaryOp::Minus
                    | BinaryOp::Multiply
                    | BinaryOp::Divide
                    | BinaryOp::Modulo,
                left,
                right,
            } => match (self.numeric_kind(left)?, self.numeric_kind(right)?) {
                (Numeric::Whole, Numeric::Whole) => Some(Numeric::Whole),
                _ => Some(Numeric::Fraction),
            },
            Expr::Func(f) => self.function_kind(f),
            _ => None,
        }
    }

    fn function_kind(&self, f: &FuncCall) -> Option<Numeric> {
        let arg = f.args.first();
        match f.name.to_ascii_uppercase().as_str() {
            "COUNT" | "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "NTILE" | "LENGTH" | "DATE_PART"
            | "DATE_DIFF" | "ELAPSED" | "EXTRACT" | "YEAR" | "QUARTER" | "MONTH" | "DAY"
            | "GROUPING" => Some(Numeric::Whole),
            // SQLite's TOTAL is always a real.
            "AVG" | "TOTAL" | "MEDIAN" | "PERCENTILE_CONT" | "STDDEV_SAMP" | "STDDEV_POP"
            | "VAR_SAMP" | "VAR_POP" => Some(Numeric::Fraction),
            // SQLite's ROUND always gives a real.
            "ROUND" => Some(Numeric::Fraction),
            "SUM" | "MIN" | "MAX" | "ABS" => arg.and_then(|a| self.numeric_kind(a)),
            _ => None,
        }
    }

    /// Whether `left / right` is a division of whole numbers, which SQLite truncates.
    pub(super) fn whole_division(&self, left: &Expr, right: &Expr) -> bool {
        self.numeric_kind(left) == Some(Numeric::Whole)
            && self.numeric_kind(right) == Some(Numeric::Whole)
    }

    /// `l / r` as a whole-number division in the dialect. PostgreSQL divides integers as
    /// whole numbers already, but a sum of integers is a `numeric` there: `DIV` keeps that
    /// whole too.
    pub(super) fn integer_division(&self, l: SqlExpr, r: SqlExpr) -> SqlExpr {
        match self.dialect {
            // Spark's `DIV` too (sqlparser writes both as `DIV`).
            Dialect::MySql | Dialect::Spark => binary(l, Op::MyIntegerDivide, r),
            Dialect::DuckDb => binary(l, Op::DuckIntegerDivide, r),
            Dialect::Postgres => call("DIV", vec![l, r]),
            Dialect::Sqlite | Dialect::SqlServer => binary(l, Op::Divide, r),
        }
    }

    /// Whether `CAST(e AS INTEGER)` must drop `e`'s fraction first: on engines that round
    /// when they cast, and only for a known fraction (text is cast as written).
    pub(super) fn truncates_before_integer_cast(&self, e: &Expr) -> bool {
        matches!(
            self.dialect,
            Dialect::Postgres | Dialect::MySql | Dialect::DuckDb
        ) && self.numeric_kind(e) == Some(Numeric::Fraction)
    }

    /// `e` with its fraction dropped, toward zero.
    pub(super) fn truncated(&self, e: SqlExpr) -> SqlExpr {
        match self.dialect {
            Dialect::MySql => call("TRUNCATE", vec![e, int(0)]),
            _ => call("TRUNC", vec![e]),
        }
    }
}

/// A declared type's kind of number: integer types are whole, other numeric types are
/// fractions, anything else is not known as a number. SQLite's own names (`INTEGER`,
/// `NUMERIC(10,2)`) read the same way.
fn declared_kind(declared: &str) -> Option<Numeric> {
    match crate::schema::category_of(declared) {
        crate::schema::TypeCategory::Number => {
            let t = declared.to_ascii_uppercase();
            if t.contains("INT") || t.contains("SERIAL") {
                Some(Numeric::Whole)
            } else {
                Some(Numeric::Fraction)
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_tell_whole_numbers_from_fractions() {
        assert_eq!(declared_kind("INTEGER"), Some(Numeric::Whole));
        assert_eq!(declared_kind("bigint(20)"), Some(Numeric::Whole));
        assert_eq!(declared_kind("NUMERIC(10,2)"), Some(Numeric::Fraction));
        assert_eq!(declared_kind("double precision"), Some(Numeric::Fraction));
        assert_eq!(declared_kind("NVARCHAR(40)"), None);
        assert_eq!(declared_kind("interval"), None);
    }
}
