//! Recursive CTEs: the one shape every engine that has them runs alike. A first part that
//! does not read the CTE, then UNION ALL (or UNION) members of which only the last reads
//! it, once, straight from its `tables`, through inner joins, without aggregating: what
//! PostgreSQL, SQLite, MySQL, DuckDB and SQL Server all accept, with the same meaning.

use super::Findings;
use crate::walk::{each_expr, each_plan, has_aggregate};
use crate::{Cte, Expr, JoinType, Plan, SetOperator};

/// Every recursive CTE in `plan` has the shape above.
pub fn check(plan: &Plan, out: &mut Findings) {
    each_plan(plan, &mut |p| {
        for c in p.ctes.iter().filter(|c| c.recursive) {
            cte(c, out);
        }
    });
}

fn cte(c: &Cte, out: &mut Findings) {
    let name = c.name.as_str();
    let Some((last, earlier)) = c.plan.set_operations.split_last() else {
        out.invalid(format!(
            "The recursive CTE {name} needs a first part giving the starting rows and a \
             set_operations member (union_all) that reads {name} to add the next ones."
        ));
        return;
    };
    if c.plan
        .set_operations
        .iter()
        .any(|s| !matches!(s.op, SetOperator::Union | SetOperator::UnionAll))
    {
        out.invalid(format!(
            "The recursive CTE {name} combines its parts with union_all (or union) only."
        ));
    }
    if !c.plan.order_by.is_empty() || c.plan.limit.is_some() || c.plan.offset.is_some() {
        out.invalid(format!(
            "The recursive CTE {name} takes no order_by, limit or offset; put them on the plan \
             that reads it."
        ));
    }
    let first = Plan {
        set_operations: Vec::new(),
        ..c.plan.clone()
    };
    if first.reads(name) || earlier.iter().any(|s| s.plan.reads(name)) {
        out.invalid(format!(
            "Only the last set_operations member of the recursive CTE {name} may read {name}; \
             its first part gives the starting rows without it."
        ));
    }
    member(&last.plan, name, out);
}

/// The member that reads the CTE: once, in its own `tables`, joined inner, no aggregation.
fn member(m: &Plan, name: &str, out: &mut Findings) {
    let is_self = |t: &&crate::TableRef| t.name.eq_ignore_ascii_case(name);
    let direct = m.tables.iter().filter(is_self).count();
    let nested = Plan {
        tables: m.tables.iter().filter(|t| !is_self(t)).cloned().collect(),
        ..m.clone()
    };
    if direct != 1 || nested.reads(name) {
        out.invalid(format!(
            "The last set_operations member of the recursive CTE {name} reads {name} exactly \
             once, in its own tables (not in a subquery or a CTE of its own)."
        ));
    }
    if m.joins
        .iter()
        .any(|j| !matches!(j.join_type, JoinType::Inner | JoinType::Cross))
    {
        out.invalid(format!(
            "The member of the recursive CTE {name} that reads {name} joins with inner joins \
             only."
        ));
    }
    let mut windows = false;
    each_expr(m, &mut |_, e| {
        windows |= matches!(e, Expr::Func(f) if f.over.is_some());
    });
    let aggregates = m.select_items.iter().any(|s| has_aggregate(&s.expr))
        || m.having.as_ref().is_some_and(has_aggregate);
    if aggregates || windows || m.distinct || !m.group_by.is_empty() {
        out.invalid(format!(
            "The member of the recursive CTE {name} that reads {name} may not aggregate, \
             group, use distinct or window functions; do that in the plan that reads {name}."
        ));
    }
}
