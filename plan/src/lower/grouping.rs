//! Grouping sets on SQLite, which has none: one grouped query per set, combined with
//! `UNION ALL`. In a set's rows the grouped columns outside it are NULL, and `GROUPING(x)`
//! is 1 for such a column, 0 for one in the set, as the other databases give them.

use super::{fail, LowerError};
use crate::walk::is_aggregate_name;
use crate::{Expr, Literal, Plan, SelectItem, SetOperation, SetOperator};

/// `plan`, whose `grouping_sets` are not empty, as a union of one plan per set.
pub(super) fn as_union(plan: &Plan) -> Result<Plan, LowerError> {
    if !plan.set_operations.is_empty() {
        return fail("Grouping sets with a set operation have no form on SQLite.");
    }
    let windowed = plan
        .select_items
        .iter()
        .map(|i| &i.expr)
        .chain(plan.order_by.iter().map(|o| &o.expr))
        .any(has_window);
    if windowed {
        return fail(
            "Window functions over grouping sets have no form on SQLite: compute the sets in \
             a CTE and the window over it.",
        );
    }
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
