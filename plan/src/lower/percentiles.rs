//! Percentiles on the dialects without a percentile aggregate (SQLite, MySQL, SQL Server),
//! from window functions: the plan's rows are numbered in a CTE, per group and in the
//! measured value's order (NULLs last), beside how many values the group has; the grouped
//! plan then reads that CTE and picks the value at the percentile's position, interpolated
//! as PostgreSQL's `percentile_cont` does (`p · (n − 1)` from the first, 0-based) or, for
//! `percentile_disc`, the first whose position reaches `p · n`. The rows, groups and every
//! other aggregate are those of the plan itself, one CTE row per plan row.
//!
//! `ARG_MAX(v, k)` and `ARG_MIN(v, k)` (DuckDB's: `v` on the row of the largest or smallest
//! `k`, among the rows where both are present) go the same way where the dialect has no
//! such aggregate (all but DuckDB and Spark): the rows are numbered in `k`'s order, those
//! with `v` missing last, and `v` is picked from the first.

use super::aggregates::present_beside;
use super::{fail, reading_new_cte, unused_cte_name, LowerError};
use crate::ast::call;
use crate::dialect::Dialect;
use crate::walk::each_node;
use crate::{
    BinaryOp, CastType, Direction, Expr, FuncCall, Literal, Nulls, OrderItem, Plan, SelectItem,
    When, Window,
};

/// Whether `plan` itself (not its sub-plans) aggregates a percentile or an `ARG_MIN`/
/// `ARG_MAX` that needs this rewrite in `d`.
pub(super) fn needed(plan: &Plan, d: Dialect) -> bool {
    let mut found = false;
    for e in outer_exprs(plan) {
        each_node(e, &mut |n| found |= picked_in(n, d).is_some());
    }
    found
}

/// The pick `e` is, when `d` needs it rewritten.
fn picked_in(e: &Expr, d: Dialect) -> Option<Percentile<'_>> {
    let p = percentile(e)?;
    let rewritten = match p.kind {
        Kind::Arg(_) => !matches!(d, Dialect::DuckDb | Dialect::Spark),
        Kind::Continuous(_) | Kind::Discrete(_) => {
            matches!(d, Dialect::Sqlite | Dialect::MySql | Dialect::SqlServer)
        }
    };
    rewritten.then_some(p)
}

/// `plan` reading its own rows, numbered, from a CTE, each percentile picked from them.
pub(super) fn ranked(
    plan: &Plan,
    d: Dialect,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Plan, LowerError> {
    if !plan.set_operations.is_empty() || !plan.grouping_sets.is_empty() {
        return fail(format!(
            "A percentile or ARG_MIN/ARG_MAX with {} has no exact form in {d}; compute it in \
             a CTE and combine its result.",
            if plan.grouping_sets.is_empty() {
                "a set operation"
            } else {
                "grouping sets"
            }
        ));
    }
    let mut nested = false;
    let mut distinct = false;
    for e in outer_exprs(plan) {
        each_node(e, &mut |n| {
            nested |= matches!(n, Expr::Subquery { .. } | Expr::Exists { .. });
            distinct |= matches!(picked_in(n, d), Some(Percentile { call, .. }) if call.distinct);
        });
    }
    if nested {
        return fail(format!(
            "A percentile or ARG_MIN/ARG_MAX beside a subquery has no exact form in {d}; \
             compute it in a CTE and read it there."
        ));
    }
    if distinct {
        return fail(format!(
            "A percentile or ARG_MIN/ARG_MAX of distinct values has no exact form in {d}."
        ));
    }
    let aliases: Vec<&str> = plan.tables.iter().map(|t| t.alias.as_str()).collect();
    let results: Vec<&str> = plan
        .select_items
        .iter()
        .filter_map(|s| s.alias.as_deref())
        .collect();
    let name = unused_cte_name(plan, taken, "numbered_rows");
    let mut r = Rewrite {
        d,
        cte: name.clone(),
        aliases,
        results,
        columns: Vec::new(),
        measured: Vec::new(),
    };
    let select_items = plan
        .select_items
        .iter()
        .map(|s| SelectItem {
            // A plain column keeps its name when it is read from the CTE.
            alias: s.alias.clone().or_else(|| match &s.expr {
                Expr::Column { column, .. } if column != "*" => Some(column.clone()),
                _ => None,
            }),
            expr: r.expr(&s.expr),
        })
        .collect();
    let group_by = plan.group_by.iter().map(|g| r.expr(g)).collect();
    let having = plan.having.as_ref().map(|h| r.expr(h));
    let order_by = plan
        .order_by
        .iter()
        .map(|o| OrderItem {
            expr: r.expr(&o.expr),
            ..o.clone()
        })
        .collect();

    let mut numbered: Vec<SelectItem> = r
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| SelectItem {
            expr: c.clone(),
            alias: Some(column_name(i)),
        })
        .collect();
    for (i, (value, direction)) in r.measured.iter().enumerate() {
        let over = |name: &str, args: Vec<Expr>, order: bool| {
            Expr::Func(FuncCall {
                name: name.into(),
                args,
                distinct: false,
                filter: None,
                order_by: vec![],
                over: Some(Window {
                    partition_by: plan.group_by.clone(),
                    order_by: if order {
                        vec![OrderItem {
                            expr: value.clone(),
                            direction: *direction,
                            nulls: Some(Nulls::Last),
                        }]
                    } else {
                        vec![]
                    },
                    frame: None,
                }),
            })
        };
        numbered.push(SelectItem {
            expr: value.clone(),
            alias: Some(format!("value_{i}")),
        });
        numbered.push(SelectItem {
            expr: over("ROW_NUMBER", vec![], true),
            alias: Some(format!("position_{i}")),
        });
        numbered.push(SelectItem {
            expr: over("COUNT", vec![value.clone()], false),
            alias: Some(format!("values_{i}")),
        });
    }
    let rows = Plan {
        tables: plan.tables.clone(),
        joins: plan.joins.clone(),
        filter: plan.filter.clone(),
        select_items: numbered,
        ..Plan::default()
    };
    let (ctes, tables) = reading_new_cte(plan, name, rows);
    Ok(Plan {
        ctes,
        distinct: plan.distinct,
        tables,
        select_items,
        group_by,
        having,
        order_by,
        limit: plan.limit,
        offset: plan.offset,
        reasoning: plan.reasoning.clone(),
        ..Plan::default()
    })
}

/// The expressions of `plan`'s own clauses that the grouped plan keeps.
fn outer_exprs(plan: &Plan) -> impl Iterator<Item = &Expr> {
    plan.select_items
        .iter()
        .map(|s| &s.expr)
        .chain(plan.having.iter())
        .chain(plan.order_by.iter().map(|o| &o.expr))
}

/// An aggregate picked from numbered rows: a percentile or an `ARG_MIN`/`ARG_MAX`; the
/// value the rows are numbered by, and in which order.
struct Percentile<'a> {
    call: &'a FuncCall,
    kind: Kind<'a>,
    value: Expr,
    direction: Direction,
}

/// What is picked.
#[derive(Clone, Copy)]
enum Kind<'a> {
    /// `PERCENTILE_CONT`, `MEDIAN` (0.5): interpolated at this fraction.
    Continuous(f64),
    /// `PERCENTILE_DISC` at this fraction.
    Discrete(f64),
    /// `ARG_MIN`/`ARG_MAX`: this value, on the first row.
    Arg(&'a Expr),
}

fn percentile(e: &Expr) -> Option<Percentile<'_>> {
    let Expr::Func(f) = e else { return None };
    if f.over.is_some() {
        return None;
    }
    let name = crate::functions::lookup(&f.name)?.name;
    let mut picked = match (name, f.args.as_slice(), f.order_by.as_slice()) {
        ("MEDIAN", [x], _) => Some(Percentile {
            call: f,
            kind: Kind::Continuous(0.5),
            value: x.clone(),
            direction: Direction::Asc,
        }),
        ("PERCENTILE_CONT" | "PERCENTILE_DISC", [p], [o]) => Some(Percentile {
            call: f,
            kind: {
                let fraction = match p {
                    Expr::Literal(Literal::Real(p)) => *p,
                    Expr::Literal(Literal::Integer(p)) => *p as f64,
                    _ => return None,
                };
                if name == "PERCENTILE_CONT" {
                    Kind::Continuous(fraction)
                } else {
                    Kind::Discrete(fraction)
                }
            },
            value: o.expr.clone(),
            direction: o.direction,
        }),
        // Ordered by `k` where `v` is present, so a row missing either comes last.
        ("ARG_MIN" | "ARG_MAX", [v, k], _) => Some(Percentile {
            call: f,
            kind: Kind::Arg(v),
            value: present_beside(k, v),
            direction: if name == "ARG_MAX" {
                Direction::Desc
            } else {
                Direction::Asc
            },
        }),
        _ => None,
    }?;
    // A filtered row's value is NULL: numbered after every value and not counted, so it
    // is never picked.
    if let Some(condition) = &f.filter {
        picked.value = case_when((**condition).clone(), picked.value);
    }
    Some(picked)
}

fn column_name(i: usize) -> String {
    format!("column_{i}")
}

/// The grouped plan's expressions rewritten to read the CTE.
struct Rewrite<'a> {
    d: Dialect,
    cte: String,
    /// The plan's table aliases: columns qualified by one are read from the CTE.
    aliases: Vec<&'a str>,
    /// The plan's result names: a bare one in HAVING or ORDER BY stays as it is.
    results: Vec<&'a str>,
    /// The plan's columns the CTE carries, in order.
    columns: Vec<Expr>,
    /// Each percentile's value and order.
    measured: Vec<(Expr, Direction)>,
}

impl Rewrite<'_> {
    fn column(&self, name: String) -> Expr {
        Expr::Column {
            alias: Some(self.cte.clone()),
            column: name,
        }
    }

    fn expr(&mut self, e: &Expr) -> Expr {
        if let Some(p) = picked_in(e, self.d) {
            return self.picked(&p);
        }
        match e {
            Expr::Column { alias, column } => {
                let ours = match alias {
                    Some(a) => self.aliases.iter().any(|x| x.eq_ignore_ascii_case(a)),
                    None => !self.results.iter().any(|r| r.eq_ignore_ascii_case(column)),
                };
                if !ours {
                    return e.clone();
                }
                if column == "*" {
                    return Expr::Column {
                        alias: Some(self.cte.clone()),
                        column: column.clone(),
                    };
                }
                let i = match self.columns.iter().position(|c| c == e) {
                    Some(i) => i,
                    None => {
                        self.columns.push(e.clone());
                        self.columns.len() - 1
                    }
                };
                self.column(column_name(i))
            }
            Expr::Func(f) => {
                let mut f = f.clone();
                f.args = f.args.iter().map(|a| self.expr(a)).collect();
                f.filter = f.filter.as_deref().map(|c| Box::new(self.expr(c)));
                f.order_by = f.order_by.iter().map(|o| self.order_item(o)).collect();
                if let Some(w) = &mut f.over {
                    w.partition_by = w.partition_by.iter().map(|p| self.expr(p)).collect();
                    w.order_by = w.order_by.iter().map(|o| self.order_item(o)).collect();
                }
                Expr::Func(f)
            }
            other => crate::walk::map_children(other.clone(), &mut |c| self.expr(&c)),
        }
    }

    fn order_item(&mut self, o: &OrderItem) -> OrderItem {
        OrderItem {
            expr: self.expr(&o.expr),
            ..o.clone()
        }
    }

    /// The percentile `p` as aggregates over the CTE's numbered values.
    fn picked(&mut self, p: &Percentile<'_>) -> Expr {
        let i = self.measured.len();
        self.measured.push((p.value.clone(), p.direction));
        let value = self.column(format!("value_{i}"));
        let position = self.column(format!("position_{i}"));
        let count = self.column(format!("values_{i}"));
        let at = |rank: Expr| {
            max(case_when(
                bin(BinaryOp::Eq, position.clone(), rank),
                value.clone(),
            ))
        };
        let share = match p.kind {
            Kind::Arg(shown) => {
                // The first row's value, when it has both (else the group has no such row).
                let first = bin(
                    BinaryOp::And,
                    bin(BinaryOp::Eq, position, int(1)),
                    bin(BinaryOp::IsNot, value, Expr::Literal(Literal::Null)),
                );
                let shown = self.expr(shown);
                return max(case_when(first, shown));
            }
            Kind::Continuous(f) | Kind::Discrete(f) => f,
        };
        if matches!(p.kind, Kind::Continuous(_)) {
            // 0-based, as PostgreSQL: p · (n − 1), its whole part and its fraction.
            let offset = bin(
                BinaryOp::Multiply,
                real(share),
                bin(BinaryOp::Minus, count.clone(), int(1)),
            );
            let whole = self.floor(offset.clone());
            let lower = at(bin(BinaryOp::Plus, whole.clone(), int(1)));
            let upper = at(bin(BinaryOp::Plus, whole.clone(), int(2)));
            let fraction = max(bin(BinaryOp::Minus, offset, whole));
            // The last value has none above it; its fraction is then 0.
            let upper = call("COALESCE", vec![upper, lower.clone()]);
            bin(
                BinaryOp::Plus,
                lower.clone(),
                bin(
                    BinaryOp::Multiply,
                    fraction,
                    bin(BinaryOp::Minus, upper, lower),
                ),
            )
        } else {
            // The first position that reaches p · n (at least the first).
            let reach = bin(BinaryOp::Multiply, real(share), count);
            let whole = self.floor(reach.clone());
            let ceiling = bin(
                BinaryOp::Plus,
                whole.clone(),
                Expr::Case {
                    whens: vec![When {
                        condition: bin(BinaryOp::Gt, reach, whole),
                        result: int(1),
                    }],
                    else_expr: Some(Box::new(int(0))),
                },
            );
            let first = Expr::Case {
                whens: vec![When {
                    condition: bin(BinaryOp::Lt, ceiling.clone(), int(1)),
                    result: int(1),
                }],
                else_expr: Some(Box::new(ceiling)),
            };
            at(first)
        }
    }

    /// The whole part of a non-negative number: SQLite's `FLOOR` is optional, and its
    /// cast to an integer truncates, which is the floor here.
    fn floor(&self, x: Expr) -> Expr {
        match self.d {
            Dialect::Sqlite => Expr::Cast {
                expr: Box::new(x),
                to: CastType::Integer,
            },
            _ => call("FLOOR", vec![x]),
        }
    }
}

fn bin(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    Expr::Binary {
        op,
        left: Box::new(left),
        right: Box::new(right),
    }
}

fn int(n: i64) -> Expr {
    Expr::Literal(Literal::Integer(n))
}

fn real(x: f64) -> Expr {
    Expr::Literal(Literal::Real(x))
}

fn max(e: Expr) -> Expr {
    call("MAX", vec![e])
}

fn case_when(condition: Expr, result: Expr) -> Expr {
    Expr::Case {
        whens: vec![When { condition, result }],
        else_expr: None,
    }
}
