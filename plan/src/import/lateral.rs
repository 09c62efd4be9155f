//! `LEFT JOIN LATERAL (SELECT x FROM … ORDER BY … LIMIT 1) AS fx ON TRUE`, PostgreSQL's
//! way of fetching one related value per row (the latest rate on or before a day, a
//! customer's last order), rewritten before import into what the plan holds: each `fx.x`
//! becomes the correlated scalar subquery `(SELECT x FROM … ORDER BY … LIMIT 1)`.
//!
//! The two are the same value: a left join keeps every row and gives NULL where the
//! subquery finds none, as a scalar subquery does, and `LIMIT 1` makes at most one row.
//! Only a subquery of one column is rewritten (two scalar subqueries over tied rows could
//! pick different rows); an inner or cross lateral join, which drops rows with no match,
//! is left for the importer to refuse, and so is a lateral column named without its alias.

use sqlparser::ast::{
    visit_expressions_mut, Expr, Ident, JoinConstraint, JoinOperator, LimitClause, Query,
    SelectItem, SetExpr, TableFactor, Value, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;

/// One lateral lookup: its alias, the column it gives and the subquery giving it.
struct Lookup {
    alias: Ident,
    column: Ident,
    subquery: Query,
}

/// One query's lateral lookups, rewritten as above.
pub(super) fn rewrite(query: &mut Query) -> Result<(), String> {
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Ok(());
    };
    let mut lookups = Vec::new();
    for from in &mut select.from {
        let mut kept = Vec::with_capacity(from.joins.len());
        for join in std::mem::take(&mut from.joins) {
            let on_true = matches!(
                &join.join_operator,
                JoinOperator::Left(JoinConstraint::On(on))
                    | JoinOperator::LeftOuter(JoinConstraint::On(on)) if is_true(on)
            );
            match lookup(&join.relation) {
                Some(found) if on_true => lookups.push(found),
                _ => kept.push(join),
            }
        }
        from.joins = kept;
    }
    if lookups.is_empty() {
        return Ok(());
    }
    // A right or full join keeps rows with no left side, where the lateral join gave
    // NULL and a subquery would still look its value up.
    let outer_right = select.from.iter().flat_map(|f| &f.joins).any(|j| {
        matches!(
            j.join_operator,
            JoinOperator::Right(_) | JoinOperator::RightOuter(_) | JoinOperator::FullOuter(_)
        )
    });
    if outer_right {
        return Err("A LATERAL subquery beside a RIGHT or FULL JOIN".into());
    }
    // A column named alone could be the lookup's or another table's: refused, checked
    // before any lookup's subquery (whose own names are its tables') is put in.
    let mut bare = None;
    let _ = visit_expressions_mut(select.as_mut(), |e: &mut Expr| {
        if let Expr::Identifier(id) = e {
            if lookups
                .iter()
                .any(|l| id.value.eq_ignore_ascii_case(&l.column.value))
            {
                bare = Some(id.value.clone());
            }
        }
        ControlFlow::<()>::Continue(())
    });
    if let Some(name) = bare {
        return Err(format!(
            "The LATERAL subquery's column {name} named without its alias"
        ));
    }
    for l in &lookups {
        // A bare `fx.x` in the select list keeps its output name (its value is put in
        // below, with every other naming).
        for item in &mut select.projection {
            match item {
                SelectItem::UnnamedExpr(named @ Expr::CompoundIdentifier(_)) => {
                    if matches!(named, Expr::CompoundIdentifier(parts) if l.names(parts)) {
                        *item = SelectItem::ExprWithAlias {
                            expr: named.clone(),
                            alias: l.column.clone(),
                        };
                    }
                }
                SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                    return Err("A * beside a LATERAL subquery".into());
                }
                _ => {}
            }
        }
        let mut replace = Replace {
            lookup: l,
            depth: 0,
        };
        if let ControlFlow::Break(why) = select.visit(&mut replace) {
            return Err(why);
        }
        if let Some(order_by) = &mut query.order_by {
            if let ControlFlow::Break(why) = order_by.visit(&mut replace) {
                return Err(why);
            }
        }
    }
    Ok(())
}

/// Puts a lookup's subquery where this query names its column. Named inside a nested
/// query, where the alias may be another table's and the lookup's own names may be
/// shadowed, it is refused.
struct Replace<'a> {
    lookup: &'a Lookup,
    /// How many queries deep the visit is.
    depth: usize,
}

impl VisitorMut for Replace<'_> {
    type Break = String;

    fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<String> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<String> {
        self.depth = self.depth.saturating_sub(1);
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<String> {
        let Expr::CompoundIdentifier(parts) = e else {
            return ControlFlow::Continue(());
        };
        if !self.lookup.names(parts) {
            return ControlFlow::Continue(());
        }
        if self.depth > 0 {
            return ControlFlow::Break(format!(
                "The LATERAL subquery's column {}.{} named inside a nested query",
                self.lookup.alias.value, self.lookup.column.value
            ));
        }
        *e = self.lookup.value();
        ControlFlow::Continue(())
    }
}

/// The lookup `factor` is: a lateral subquery of one column and at most one row.
fn lookup(factor: &TableFactor) -> Option<Lookup> {
    let TableFactor::Derived {
        lateral: true,
        subquery,
        alias: Some(alias),
        ..
    } = factor
    else {
        return None;
    };
    if !alias.columns.is_empty() || !at_most_one_row(subquery) {
        return None;
    }
    let SetExpr::Select(select) = subquery.body.as_ref() else {
        return None;
    };
    let column = match select.projection.as_slice() {
        [SelectItem::ExprWithAlias { alias, .. }] => alias.clone(),
        [SelectItem::UnnamedExpr(Expr::Identifier(id))] => id.clone(),
        [SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts))] => parts.last()?.clone(),
        _ => return None,
    };
    Some(Lookup {
        alias: alias.name.clone(),
        column,
        subquery: (**subquery).clone(),
    })
}

/// `LIMIT 1` with no offset.
fn at_most_one_row(q: &Query) -> bool {
    matches!(
        &q.limit_clause,
        Some(LimitClause::LimitOffset { limit: Some(Expr::Value(v)), offset: None, limit_by })
            if limit_by.is_empty() && matches!(&v.value, Value::Number(n, _) if n == "1")
    )
}

impl Lookup {
    /// Whether `alias.column` names this lookup's column.
    fn names(&self, parts: &[Ident]) -> bool {
        matches!(parts, [a, c] if a.value.eq_ignore_ascii_case(&self.alias.value)
            && c.value.eq_ignore_ascii_case(&self.column.value))
    }

    fn value(&self) -> Expr {
        Expr::Subquery(Box::new(self.subquery.clone()))
    }
}

fn is_true(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if v.value == Value::Boolean(true))
}
