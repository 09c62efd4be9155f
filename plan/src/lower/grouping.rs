//! Grouping sets on SQLite, which has none, and on MySQL beyond a plain rollup or with
//! `GROUPING` (which MariaDB lacks): one grouped query per set, combined with `UNION ALL`. In a set's rows the grouped columns outside it are NULL, and `GROUPING(x)`
//! is 1 for such a column, 0 for one in the set, as the other databases give them.
//! Windows (a rank within each subtotal level) come after grouping, so where the plan has
//! them the union goes into a CTE and the windows are computed over its rows. MySQL's
//! rollup goes into such a CTE too when ordered or ranked, which MariaDB refuses beside it.

use super::{fail, reading_new_cte, unused_cte_name, LowerError};
use crate::walk::{each_expr, is_aggregate_name, map_children, with_result_names};
use crate::{Expr, Literal, OrderItem, Plan, SelectItem, SetOperation, SetOperator};

/// `plan`, whose `grouping_sets` are not empty, as a union of one plan per set (read by
/// the windows where it has any). `taken` says which names a new CTE may not have.
pub(super) fn as_union(plan: &Plan, taken: &dyn Fn(&str) -> bool) -> Result<Plan, LowerError> {
    if !plan.set_operations.is_empty() {
        return fail(
            "Grouping sets with a set operation have no form where they are written as a union \
             (SQLite, and MySQL beyond a plain rollup).",
        );
    }
    let windowed = plan
        .select_items
        .iter()
        .map(|i| &i.expr)
        .chain(plan.order_by.iter().map(|o| &o.expr))
        .any(has_window);
    if windowed {
        over_grouped(plan, taken, union)
    } else {
        union(plan)
    }
}

/// Whether MySQL writes `plan`'s grouping sets as a union, as SQLite does: `WITH ROLLUP`
/// holds a rollup only, and MariaDB has no `GROUPING`.
pub(super) fn mysql_needs_union(plan: &Plan) -> bool {
    let mut grouping = false;
    each_expr(plan, &mut |_, e| {
        grouping |= matches!(e, Expr::Func(f) if f.name.eq_ignore_ascii_case("GROUPING"));
    });
    !plan.grouping_sets.is_empty() && (!is_rollup(plan) || grouping)
}

/// Whether `plan`'s grouping sets are `ROLLUP(all of group_by)`: every prefix of it, longest
/// first.
pub(super) fn is_rollup(plan: &Plan) -> bool {
    let n = plan.group_by.len();
    plan.grouping_sets.len() == n + 1
        && plan
            .grouping_sets
            .iter()
            .enumerate()
            .all(|(i, set)| *set == (0..n - i).collect::<Vec<_>>())
}

/// Whether MySQL needs `plan`'s rollup in a CTE: MariaDB refuses `WITH ROLLUP` beside an
/// `ORDER BY` (which every outermost query has, for a stable order) and windows over its
/// rows, so both go outside (MySQL 8 reads it alike).
pub(super) fn rollup_needs_outside(plan: &Plan, outermost: bool) -> bool {
    !plan.grouping_sets.is_empty()
        && (outermost
            || !plan.order_by.is_empty()
            || plan.select_items.iter().map(|i| &i.expr).any(has_window))
}

/// `plan`'s rollup in a CTE, ordered and ranked outside it (see `rollup_needs_outside`).
pub(super) fn rollup_outside(
    plan: &Plan,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Plan, LowerError> {
    over_grouped(plan, taken, |grouped| Ok(grouped.clone()))
}

fn union(plan: &Plan) -> Result<Plan, LowerError> {
    let mut members = Vec::with_capacity(plan.grouping_sets.len());
    for set in &plan.grouping_sets {
        let mut grouped = Vec::with_capacity(set.len());
        for &i in set {
            match plan.group_by.get(i) {
                Some(g) => grouped.push(g.clone()),
                None => {
                    return fail(format!(
                        "grouping_sets names position {i}; group_by has {}.",
                        plan.group_by.len()
                    ))
                }
            }
        }
        let outside: Vec<&Expr> = plan
            .group_by
            .iter()
            .filter(|g| !grouped.contains(g))
            .collect();
        let roll = |e: &Expr| rolled(e, &grouped, &outside);
        members.push(Plan {
            select_items: plan
                .select_items
                .iter()
                .map(|i| SelectItem {
                    expr: roll(&i.expr),
                    alias: i.alias.clone(),
                })
                .collect(),
            having: plan.having.as_ref().map(roll),
            group_by: grouped.clone(),
            grouping_sets: vec![],
            ctes: vec![],
            order_by: vec![],
            limit: None,
            offset: None,
            ..plan.clone()
        });
    }
    let mut members = members.into_iter();
    let Some(mut first) = members.next() else {
        return fail("grouping_sets is empty.");
    };
    first.ctes = plan.ctes.clone();
    first.order_by = plan.order_by.clone();
    first.limit = plan.limit;
    first.offset = plan.offset;
    first.set_operations = members
        .map(|plan| SetOperation {
            op: SetOperator::UnionAll,
            plan,
        })
        .collect();
    Ok(first)
}

/// `plan` as a plan over a CTE of its grouped rows (`body` of the grouped plan: the sets'
/// union on SQLite, the rollup itself on MySQL): the CTE's columns are what the windows and
/// the other results read (aggregates, grouped columns, `GROUPING`), computed per set; the
/// windows, `DISTINCT`, the ordering and the limit apply to its rows.
fn over_grouped(
    plan: &Plan,
    taken: &dyn Fn(&str) -> bool,
    body: fn(&Plan) -> Result<Plan, LowerError>,
) -> Result<Plan, LowerError> {
    let name = unused_cte_name(plan, taken, "grouped_sets");
    let mut parts = Parts {
        cte: name.clone(),
        parts: Vec::new(),
    };
    let select_items = plan
        .select_items
        .iter()
        .map(|i| SelectItem {
            expr: parts.outer(&i.expr),
            // A bare column keeps its name as the result's.
            alias: i.alias.clone().or_else(|| match &i.expr {
                Expr::Column { column, .. } if column != "*" => Some(column.clone()),
                _ => None,
            }),
        })
        .collect();
    // ORDER BY may name results; inside the CTE only what they stand for exists.
    let order_by = plan
        .order_by
        .iter()
        .map(|o| OrderItem {
            expr: parts.outer(&with_result_names(plan, &o.expr)),
            ..o.clone()
        })
        .collect();
    let grouped = Plan {
        ctes: vec![],
        distinct: false,
        select_items: parts
            .parts
            .into_iter()
            .enumerate()
            .map(|(i, expr)| SelectItem {
                expr,
                alias: Some(format!("part_{i}")),
            })
            .collect(),
        order_by: vec![],
        limit: None,
        offset: None,
        ..plan.clone()
    };
    let (ctes, tables) = reading_new_cte(plan, name, body(&grouped)?);
    Ok(Plan {
        ctes,
        distinct: plan.distinct,
        tables,
        joins: vec![],
        select_items,
        filter: None,
        group_by: vec![],
        grouping_sets: vec![],
        having: None,
        order_by,
        limit: plan.limit,
        offset: plan.offset,
        set_operations: vec![],
        reasoning: plan.reasoning.clone(),
    })
}

/// The values a windowed query over grouping sets reads from the grouped rows.
struct Parts {
    /// The CTE that holds them.
    cte: String,
    /// Each distinct value, the CTE's `part_<position>`.
    parts: Vec<Expr>,
}

impl Parts {
    /// `e` over the CTE: a window keeps its shape and reads its arguments, partitions and
    /// order from the CTE; any other value without a window is one of the CTE's columns.
    fn outer(&mut self, e: &Expr) -> Expr {
        if !has_window(e) {
            return match e {
                // Constants stay where they are: a window's offset or bucket count must be one.
                Expr::Literal(_) => e.clone(),
                _ => self.column(e),
            };
        }
        match e {
            Expr::Func(f) if f.over.is_some() => {
                let mut f = f.clone();
                f.args = f.args.iter().map(|a| self.outer(a)).collect();
                f.filter = f.filter.as_deref().map(|c| Box::new(self.outer(c)));
                if let Some(w) = &mut f.over {
                    w.partition_by = w.partition_by.iter().map(|p| self.outer(p)).collect();
                    for o in &mut w.order_by {
                        o.expr = self.outer(&o.expr);
                    }
                }
                Expr::Func(f)
            }
            other => map_children(other.clone(), &mut |c| self.outer(&c)),
        }
    }

    fn column(&mut self, e: &Expr) -> Expr {
        let i = match self.parts.iter().position(|p| p == e) {
            Some(i) => i,
            None => {
                self.parts.push(e.clone());
                self.parts.len() - 1
            }
        };
        Expr::Column {
            alias: Some(self.cte.clone()),
            column: format!("part_{i}"),
        }
    }
}

fn has_window(e: &Expr) -> bool {
    let mut found = false;
    crate::walk::each_node(e, &mut |n| {
        found |= matches!(n, Expr::Func(f) if f.over.is_some());
    });
    found
}

/// `e` in the rows of one grouping set: the grouped columns `outside` it NULL (outside an
/// aggregate), `GROUPING(…)` its bits.
fn rolled(e: &Expr, inside: &[Expr], outside: &[&Expr]) -> Expr {
    if outside.contains(&e) {
        return Expr::Literal(Literal::Null);
    }
    let roll = |e: &Expr| rolled(e, inside, outside);
    match e {
        Expr::Func(f) if f.name.eq_ignore_ascii_case("GROUPING") => {
            // The first argument is the highest bit.
            let bits = f
                .args
                .iter()
                .fold(0i64, |acc, a| acc * 2 + i64::from(!inside.contains(a)));
            Expr::Literal(Literal::Integer(bits))
        }
        Expr::Func(f) if is_aggregate_name(&f.name) => e.clone(),
        Expr::Func(f) => {
            let mut f = f.clone();
            f.args = f.args.iter().map(roll).collect();
            Expr::Func(f)
        }
        Expr::Binary { op, left, right } => Expr::Binary {
            op: *op,
            left: Box::new(roll(left)),
            right: Box::new(roll(right)),
        },
        Expr::Unary { op, expr } => Expr::Unary {
            op: *op,
            expr: Box::new(roll(expr)),
        },
        Expr::Cast { expr, to } => Expr::Cast {
            expr: Box::new(roll(expr)),
            to: *to,
        },
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => Expr::Between {
            expr: Box::new(roll(expr)),
            low: Box::new(roll(low)),
            high: Box::new(roll(high)),
            negated: *negated,
        },
        Expr::Case { whens, else_expr } => Expr::Case {
            whens: whens
                .iter()
                .map(|w| crate::When {
                    condition: roll(&w.condition),
                    result: roll(&w.result),
                })
                .collect(),
            else_expr: else_expr.as_ref().map(|e| Box::new(roll(e))),
        },
        other => other.clone(),
    }
}
