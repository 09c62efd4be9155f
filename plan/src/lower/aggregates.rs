//! Statistics and string aggregation, rendered per dialect: natively where the dialect has
//! them, as an exact equivalent where it can be written (variances from sums on SQLite),
//! and otherwise refused naming the function and the dialect.

use super::build::{binary, call, call_with, cast, custom_type, int, nested, order_by_expr, real};
use super::{fail, LowerError, Lowerer};
use crate::dialect::Dialect;
use crate::{Direction, Expr, FuncCall, Literal};
use sqlparser::ast::{
    self, BinaryOperator as Op, Expr as SqlExpr, FunctionArg, FunctionArgExpr,
    FunctionArgumentClause, FunctionArguments,
};

fn arg(e: SqlExpr) -> FunctionArg {
    FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
}

/// Whether `name` is one of the aggregates this module renders.
pub(super) fn is_statistic(name: &str) -> bool {
    matches!(
        name,
        "MEDIAN"
            | "PERCENTILE_CONT"
            | "PERCENTILE_DISC"
            | "STDDEV_SAMP"
            | "STDDEV_POP"
            | "VAR_SAMP"
            | "VAR_POP"
            | "CORR"
            | "COVAR_POP"
            | "COVAR_SAMP"
            | "REGR_SLOPE"
            | "REGR_INTERCEPT"
            | "ARG_MIN"
            | "ARG_MAX"
            | "STRING_AGG"
            | "BOOL_OR"
            | "BOOL_AND"
    )
}

impl Lowerer<'_> {
    /// A statistic or string aggregation (`f.name` upper-cased is `name`).
    #[inline(never)]
    pub(super) fn statistic(&self, f: &FuncCall, name: &str) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        // A statistic computed from sums is no one aggregate a FILTER could follow, nor is
        // DuckDB's inside the NULLIF that makes its NaN NULL: the filter goes into the
        // values aggregated (a pair with a NULL half is skipped).
        if let Some(condition) = &f.filter {
            if (from_sums(name, d) || nan_where_others_null(name, d))
                && f.over.is_none()
                && !f.distinct
            {
                return self.statistic(&filtered_by_case(f, condition)?, name);
            }
        }
        let over = match &f.over {
            Some(w) => Some(self.window(w)?),
            None => None,
        };
        let x = || -> Result<SqlExpr, LowerError> {
            match f.args.first() {
                Some(a) => self.expr(a),
                None => fail(format!("{name} needs an argument.")),
            }
        };
        let unsupported = || {
            fail(format!(
                "{name} has no exact form in {d}{}; compute it in a database that has it.",
                if f.over.is_some() { " as a window" } else { "" }
            ))
        };
        let mut out = match name {
            "MEDIAN" | "PERCENTILE_CONT" | "PERCENTILE_DISC" => {
                let (fraction, measured) = match name {
                    "MEDIAN" => (0.5, None),
                    _ => {
                        let p = match f.args.first() {
                            Some(Expr::Literal(Literal::Real(p))) => *p,
                            Some(Expr::Literal(Literal::Integer(p))) => *p as f64,
                            _ => return fail(format!("{name} takes a fraction from 0 to 1.")),
                        };
                        (p, f.order_by.first())
                    }
                };
                let cont = name != "PERCENTILE_DISC";
                // DuckDB (1.5) reads a descending order's 0th percentile as the smallest
                // value: there a descending percentile is read upwards, a continuous one
                // at 1 - p (the same place) and the discrete 0th as the 100th.
                let upwards = d == Dialect::DuckDb
                    && measured.is_some_and(|o| o.direction == Direction::Desc)
                    && (cont || fraction == 0.0);
                let fraction = match (upwards, cont) {
                    (true, true) => 1.0 - fraction,
                    (true, false) => 1.0,
                    (false, _) => fraction,
                };
                let ordered =
                    |o: Option<&crate::OrderItem>| -> Result<ast::OrderByExpr, LowerError> {
                        Ok(match o {
                            Some(o) if upwards => {
                                order_by_expr(self.expr(&o.expr)?, Direction::Asc)
                            }
                            Some(o) => order_by_expr(self.expr(&o.expr)?, o.direction),
                            None => order_by_expr(x()?, Direction::Asc),
                        })
                    };
                match d {
                    Dialect::DuckDb if name == "MEDIAN" => {
                        call_with("MEDIAN", vec![arg(x()?)], f.distinct, over)
                    }
                    Dialect::Postgres | Dialect::DuckDb if f.over.is_none() && !f.distinct => {
                        let mut g = call_with(
                            if cont {
                                "PERCENTILE_CONT"
                            } else {
                                "PERCENTILE_DISC"
                            },
                            vec![arg(real(fraction))],
                            false,
                            None,
                        );
                        if let SqlExpr::Function(g) = &mut g {
                            g.within_group = vec![ordered(measured)?];
                        }
                        g
                    }
                    // Spark's PERCENTILE interpolates (a continuous percentile); from the
                    // largest down, p is 1 - p from the smallest up.
                    Dialect::Spark if cont && !f.distinct => {
                        let (value, p) = match measured {
                            Some(o) => (
                                self.expr(&o.expr)?,
                                if o.direction == Direction::Desc {
                                    1.0 - fraction
                                } else {
                                    fraction
                                },
                            ),
                            None => (x()?, fraction),
                        };
                        call_with("PERCENTILE", vec![arg(value), arg(real(p))], false, over)
                    }
                    _ => return unsupported(),
                }
            }
            "STDDEV_SAMP" | "STDDEV_POP" | "VAR_SAMP" | "VAR_POP" => match d {
                Dialect::Sqlite if f.over.is_none() && !f.distinct => {
                    let variance = self.variance_from_sums(f, name)?;
                    if name.starts_with("STDDEV") {
                        // Rounding can leave a constant column's variance a hair below
                        // zero, whose root would be NULL: the scalar MAX keeps it at 0 (and
                        // NULL NULL). SQRT is SQLite's math function, which the native
                        // connections register where their SQLite lacks it.
                        call("SQRT", vec![call("MAX", vec![variance, real(0.0)])])
                    } else {
                        variance
                    }
                }
                Dialect::Sqlite => return unsupported(),
                Dialect::SqlServer => {
                    let t = match name {
                        "STDDEV_SAMP" => "STDEV",
                        "STDDEV_POP" => "STDEVP",
                        "VAR_SAMP" => "VAR",
                        _ => "VARP",
                    };
                    call_with(t, vec![arg(x()?)], f.distinct, over)
                }
                _ => call_with(name, vec![arg(x()?)], f.distinct, over),
            },
            "CORR" | "COVAR_POP" | "COVAR_SAMP" | "REGR_SLOPE" | "REGR_INTERCEPT" => {
                let (Some(a), Some(b)) = (f.args.first(), f.args.get(1)) else {
                    return fail(format!("{name} takes two numbers."));
                };
                if from_sums(name, d) {
                    if f.over.is_some() || f.distinct {
                        return unsupported();
                    }
                    let computed = if name.starts_with("REGR") {
                        regression(a, b, name)
                    } else {
                        covariance_from_sums(a, b, name)
                    };
                    self.expr(&computed)?
                } else {
                    let native = call_with(
                        name,
                        vec![arg(self.expr(a)?), arg(self.expr(b)?)],
                        f.distinct,
                        over,
                    );
                    if nan_where_others_null(name, d) {
                        call(
                            "NULLIF",
                            vec![
                                native,
                                cast(super::build::text("NaN", d), custom_type("DOUBLE", &[])),
                            ],
                        )
                    } else {
                        native
                    }
                }
            }
            // Where a dialect has no such aggregate the plan is rewritten before it gets
            // here (`percentiles.rs`), unless it is a window or beside what that cannot read.
            "ARG_MIN" | "ARG_MAX" => {
                let (Some(v), Some(k)) = (f.args.first(), f.args.get(1)) else {
                    return fail(format!(
                        "{name} takes two values: the one shown, then the one ordered by."
                    ));
                };
                match d {
                    Dialect::DuckDb => call_with(
                        name,
                        vec![arg(self.expr(v)?), arg(self.expr(k)?)],
                        f.distinct,
                        over,
                    ),
                    // Spark's MAX_BY can give a NULL value; DuckDB's ARG_MAX, the plan's
                    // meaning, skips rows where either is NULL.
                    Dialect::Spark => call_with(
                        if name == "ARG_MAX" {
                            "MAX_BY"
                        } else {
                            "MIN_BY"
                        },
                        vec![arg(self.expr(v)?), arg(self.expr(&present_beside(k, v))?)],
                        f.distinct,
                        over,
                    ),
                    _ => return unsupported(),
                }
            }
            "BOOL_OR" | "BOOL_AND" => match d {
                Dialect::Postgres | Dialect::DuckDb | Dialect::Spark => {
                    call_with(name, vec![arg(x()?)], f.distinct, over)
                }
                _ => self.any_or_every(f, name, over)?,
            },
            _ => self.string_agg(f, over)?,
        };
        if let (Some(c), SqlExpr::Function(g)) = (&f.filter, &mut out) {
            g.filter = Some(Box::new(self.expr(c)?));
        }
        Ok(out)
    }

    /// A variance on SQLite: `(Σx² − (Σx)²/n) / (n − 1)` (`/ n` for the population); NULL
    /// below two values (one for the population), as elsewhere, since SQLite divides by zero
    /// into NULL.
    fn variance_from_sums(&self, f: &FuncCall, name: &str) -> Result<SqlExpr, LowerError> {
        let Some(a) = f.args.first() else {
            return fail(format!("{name} needs an argument."));
        };
        let x =
            || -> Result<SqlExpr, LowerError> { Ok(cast(self.expr(a)?, custom_type("REAL", &[]))) };
        let sum = |e: SqlExpr| call("SUM", vec![e]);
        let n = || -> Result<SqlExpr, LowerError> { Ok(call("COUNT", vec![x()?])) };
        let squares = sum(binary(x()?, Op::Multiply, x()?));
        let total = || -> Result<SqlExpr, LowerError> { Ok(sum(x()?)) };
        let spread = nested(binary(
            squares,
            Op::Minus,
            binary(binary(total()?, Op::Multiply, total()?), Op::Divide, n()?),
        ));
        let population = name.ends_with("_POP");
        let divisor = if population {
            n()?
        } else {
            nested(binary(n()?, Op::Minus, int(1)))
        };
        // A population variance of one value is 0, of none NULL: NULLIF keeps that.
        Ok(nested(binary(
            spread,
            Op::Divide,
            call("NULLIF", vec![divisor, int(0)]),
        )))
    }

    /// `BOOL_OR(x)` / `BOOL_AND(x)` where the database has neither: the largest / smallest
    /// of `CASE WHEN x THEN 1 WHEN NOT x THEN 0 END`, so NULLs are skipped and no value gives
    /// NULL, as the native ones do; true and false come back as 1 and 0, which is what
    /// SQLite, MySQL and SQL Server call them.
    fn any_or_every(
        &self,
        f: &FuncCall,
        name: &str,
        over: Option<ast::WindowSpec>,
    ) -> Result<SqlExpr, LowerError> {
        let Some(x) = f.args.first() else {
            return fail(format!("{name} needs an argument."));
        };
        let flag = Expr::Case {
            whens: vec![
                crate::When {
                    condition: x.clone(),
                    result: Expr::Literal(Literal::Integer(1)),
                },
                crate::When {
                    condition: Expr::Unary {
                        op: crate::UnaryOp::Not,
                        expr: Box::new(x.clone()),
                    },
                    result: Expr::Literal(Literal::Integer(0)),
                },
            ],
            else_expr: None,
        };
        let pick = if name == "BOOL_OR" { "MAX" } else { "MIN" };
        Ok(call_with(pick, vec![arg(self.expr(&flag)?)], false, over))
    }

    /// `STRING_AGG(x, separator)` in the order of `f.order_by`.
    fn string_agg(
        &self,
        f: &FuncCall,
        over: Option<ast::WindowSpec>,
    ) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        let (Some(value), Some(sep)) = (f.args.first(), f.args.get(1)) else {
            return fail("STRING_AGG takes a value and a separator.");
        };
        if over.is_some() {
            return fail("STRING_AGG cannot be a window function here; aggregate it per group.");
        }
        let has_order = !f.order_by.is_empty();
        let mut order = Vec::with_capacity(f.order_by.len());
        for o in &f.order_by {
            order.push(order_by_expr(self.expr(&o.expr)?, o.direction));
        }
        let text_type = match d {
            Dialect::SqlServer => custom_type("NVARCHAR", &["MAX"]),
            Dialect::MySql => custom_type("CHAR", &[]),
            Dialect::Spark => custom_type("STRING", &[]),
            Dialect::DuckDb => custom_type("VARCHAR", &[]),
            _ => custom_type("TEXT", &[]),
        };
        let value = cast(self.expr(value)?, text_type);
        let separator = self.expr(sep)?;
        let with_clauses =
            |name: &str, args: Vec<SqlExpr>, clauses: Vec<FunctionArgumentClause>| {
                let mut g = call_with(name, args.into_iter().map(arg).collect(), f.distinct, None);
                if let SqlExpr::Function(g) = &mut g {
                    if let FunctionArguments::List(list) = &mut g.args {
                        list.clauses = clauses;
                    }
                }
                g
            };
        let ordered = if order.is_empty() {
            vec![]
        } else {
            vec![FunctionArgumentClause::OrderBy(order)]
        };
        Ok(match d {
            Dialect::Postgres | Dialect::DuckDb => {
                with_clauses("STRING_AGG", vec![value, separator], ordered)
            }
            Dialect::Sqlite => {
                if f.distinct {
                    // SQLite's DISTINCT aggregate takes one argument: its separator is a comma.
                    if !matches!(sep, Expr::Literal(Literal::Text(s)) if s == ",") {
                        return fail("SQLite joins DISTINCT values with a comma only.");
                    }
                    with_clauses("GROUP_CONCAT", vec![value], ordered)
                } else {
                    with_clauses("GROUP_CONCAT", vec![value, separator], ordered)
                }
            }
            Dialect::MySql => {
                let Expr::Literal(Literal::Text(s)) = sep else {
                    return fail("MySQL's GROUP_CONCAT needs a text literal separator.");
                };
                let mut clauses = ordered;
                clauses.push(FunctionArgumentClause::Separator(
                    ast::Value::SingleQuotedString(s.clone()).with_empty_span(),
                ));
                with_clauses("GROUP_CONCAT", vec![value], clauses)
            }
            Dialect::SqlServer => {
                let mut g = call_with(
                    "STRING_AGG",
                    vec![arg(value), arg(separator)],
                    f.distinct,
                    None,
                );
                if let SqlExpr::Function(g) = &mut g {
                    g.within_group = match ordered.into_iter().next() {
                        Some(FunctionArgumentClause::OrderBy(o)) => o,
                        _ => vec![],
                    };
                }
                g
            }
            Dialect::Spark if !has_order => call(
                "ARRAY_JOIN",
                vec![
                    call_with("COLLECT_LIST", vec![arg(value)], f.distinct, None),
                    separator,
                ],
            ),
            Dialect::Spark => {
                return fail("Spark has no ordered string aggregation; drop its order_by.")
            }
        })
    }
}

/// Whether `name` is computed from sums on `d`, which has no such aggregate.
fn from_sums(name: &str, d: Dialect) -> bool {
    match name {
        "STDDEV_SAMP" | "STDDEV_POP" | "VAR_SAMP" | "VAR_POP" => d == Dialect::Sqlite,
        "CORR" | "COVAR_POP" | "COVAR_SAMP" | "REGR_SLOPE" | "REGR_INTERCEPT" => {
            matches!(d, Dialect::Sqlite | Dialect::MySql | Dialect::SqlServer)
        }
        _ => false,
    }
}

/// Whether `d`'s `name` is NaN where the others' is NULL (DuckDB's correlation and
/// regression where a value does not vary): it is wrapped in a `NULLIF`.
fn nan_where_others_null(name: &str, d: Dialect) -> bool {
    d == Dialect::DuckDb && matches!(name, "CORR" | "REGR_SLOPE" | "REGR_INTERCEPT")
}

/// `value` where `other` is present, else NULL: an aggregate over pairs skips a pair with
/// either half missing.
pub(super) fn present_beside(value: &Expr, other: &Expr) -> Expr {
    Expr::Case {
        whens: vec![crate::When {
            condition: Expr::Binary {
                op: crate::BinaryOp::IsNot,
                left: Box::new(other.clone()),
                right: Box::new(Expr::Literal(Literal::Null)),
            },
            result: value.clone(),
        }],
        else_expr: None,
    }
}

/// `REGR_SLOPE(y, x)` as `COVAR_POP(y, x) / VAR_POP(x)` and `REGR_INTERCEPT(y, x)` as
/// `AVG(y) − slope · AVG(x)`, each over the pairs where both are present, NULL where `x`
/// does not vary, as PostgreSQL gives.
fn regression(y: &Expr, x: &Expr, name: &str) -> Expr {
    use crate::ast::call;
    use crate::BinaryOp;
    let bin = |op, left, right| Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
    };
    let (px, py) = (present_beside(x, y), present_beside(y, x));
    let slope = bin(
        BinaryOp::Divide,
        call("COVAR_POP", vec![y.clone(), x.clone()]),
        call(
            "NULLIF",
            vec![
                call("VAR_POP", vec![px.clone()]),
                Expr::Literal(Literal::Integer(0)),
            ],
        ),
    );
    if name == "REGR_SLOPE" {
        return slope;
    }
    // SQL Server averages whole numbers into a whole number.
    let mean = |e: Expr| {
        call(
            "AVG",
            vec![Expr::Cast {
                expr: Box::new(e),
                to: crate::CastType::Real,
            }],
        )
    };
    bin(
        BinaryOp::Minus,
        mean(py),
        bin(BinaryOp::Multiply, slope, mean(px)),
    )
}

/// `CORR(x, y)`, `COVAR_POP(x, y)` or `COVAR_SAMP(x, y)` as the plan's sums over the pairs
/// where both are present: the covariance `(Σxy − ΣxΣy/n) / n` (`/ (n − 1)` for the
/// sample), and the correlation `(nΣxy − ΣxΣy) / √((nΣx² − (Σx)²)(nΣy² − (Σy)²))`, NULL
/// where a variance is 0 or there are too few pairs, as PostgreSQL gives.
fn covariance_from_sums(x: &Expr, y: &Expr, name: &str) -> Expr {
    use crate::ast::call;
    use crate::{BinaryOp, CastType, When};
    let bin = |op, left, right| Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
    };
    // A value counts only beside a present other value.
    let paired = |value: &Expr, other: &Expr| Expr::Case {
        whens: vec![When {
            condition: bin(BinaryOp::IsNot, other.clone(), Expr::Literal(Literal::Null)),
            result: Expr::Cast {
                expr: Box::new(value.clone()),
                to: CastType::Real,
            },
        }],
        else_expr: None,
    };
    let (px, py) = (paired(x, y), paired(y, x));
    let sum = |e: Expr| call("SUM", vec![e]);
    let n = || call("COUNT", vec![px.clone()]);
    let product = |a: &Expr, b: &Expr| sum(bin(BinaryOp::Multiply, a.clone(), b.clone()));
    let nonzero = |e: Expr| call("NULLIF", vec![e, Expr::Literal(Literal::Integer(0))]);
    match name {
        "CORR" => {
            let scaled = |a: &Expr, b: &Expr| {
                bin(
                    BinaryOp::Minus,
                    bin(BinaryOp::Multiply, n(), product(a, b)),
                    bin(BinaryOp::Multiply, sum(a.clone()), sum(b.clone())),
                )
            };
            let spread = bin(BinaryOp::Multiply, scaled(&px, &px), scaled(&py, &py));
            bin(
                BinaryOp::Divide,
                scaled(&px, &py),
                nonzero(call("SQRT", vec![spread])),
            )
        }
        _ => {
            let spread = bin(
                BinaryOp::Minus,
                product(&px, &py),
                bin(
                    BinaryOp::Divide,
                    bin(BinaryOp::Multiply, sum(px.clone()), sum(py.clone())),
                    n(),
                ),
            );
            let divisor = if name == "COVAR_POP" {
                n()
            } else {
                bin(BinaryOp::Minus, n(), Expr::Literal(Literal::Integer(1)))
            };
            bin(BinaryOp::Divide, spread, nonzero(divisor))
        }
    }
}

/// `AGG(x) FILTER (WHERE c)` as `AGG(CASE WHEN c THEN x END)`, for the dialects without
/// FILTER: the same value, since an aggregate skips the NULL a failed condition gives
/// (`COUNT(*)` counts `CASE WHEN c THEN 1 END`).
pub(super) fn filtered_by_case(f: &FuncCall, condition: &Expr) -> Result<FuncCall, LowerError> {
    let only_when = |value: &Expr| -> Result<Expr, LowerError> {
        let value =
            match value {
                Expr::Column {
                    alias: None,
                    column,
                } if column == "*" => Expr::Literal(Literal::Integer(1)),
                Expr::Column { column, .. } if column == "*" => return fail(
                    "COUNT(alias.*) with a filter has no form here; count the alias's key column.",
                ),
                a => a.clone(),
            };
        Ok(Expr::Case {
            whens: vec![crate::When {
                condition: condition.clone(),
                result: value,
            }],
            else_expr: None,
        })
    };
    let mut filtered = FuncCall {
        filter: None,
        ..f.clone()
    };
    // The value aggregated: a percentile's is its order; the others' their first argument
    // (a separator or a fraction after it stays as it is).
    if let Some(o) = filtered
        .order_by
        .first_mut()
        .filter(|_| f.name.to_ascii_uppercase().starts_with("PERCENTILE"))
    {
        o.expr = only_when(&o.expr)?;
    } else if let Some(first) = filtered.args.first_mut() {
        *first = only_when(first)?;
    }
    Ok(filtered)
}
