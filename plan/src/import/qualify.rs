//! `QUALIFY` and `DISTINCT ON`, which keep the rows a window function picks, read as the
//! plan writes that: the query as a CTE with the window's values as extra columns, and an
//! outer query that filters on them (`DISTINCT ON (k) … ORDER BY o` keeps the rows where
//! `ROW_NUMBER() OVER (PARTITION BY k ORDER BY o)` is 1). The outer query selects the
//! inner one's columns under their names, orders and cuts as the query did, and applies
//! DISTINCT after the filter, as SQL evaluates them.

use super::{unsupported, Importer, R};
use crate::{
    BinaryOp, Cte, Expr, FuncCall, Literal, OrderItem, Plan, SelectItem, TableRef, Window,
};

impl Importer<'_> {
    /// `SELECT DISTINCT ON (keys) …` as the rows first in their key's order.
    pub(super) fn distinct_on(&self, mut plan: Plan, keys: Vec<Expr>) -> R<Plan> {
        plan.distinct = false;
        let first = Expr::Binary {
            op: BinaryOp::Eq,
            left: Box::new(Expr::Func(FuncCall {
                name: "ROW_NUMBER".into(),
                args: vec![],
                distinct: false,
                filter: None,
                order_by: vec![],
                over: Some(Window {
                    partition_by: keys,
                    order_by: plan
                        .order_by
                        .iter()
                        .map(|o| OrderItem {
                            expr: crate::walk::with_result_names(&plan, &o.expr),
                            ..o.clone()
                        })
                        .collect(),
                    frame: None,
                }),
            })),
            right: Box::new(Expr::Literal(Literal::Integer(1))),
        };
        self.qualified(plan, first)
    }

    /// `plan` keeping only the rows where `condition` (over its window functions, result
    /// names and columns) holds.
    pub(super) fn qualified(&self, mut inner: Plan, condition: Expr) -> R<Plan> {
        if !inner.set_operations.is_empty() {
            return unsupported("QUALIFY or DISTINCT ON with a set operation");
        }
        let name = self.unused_name();
        let mut outer = Plan {
            ctes: std::mem::take(&mut inner.ctes),
            distinct: std::mem::replace(&mut inner.distinct, false),
            limit: inner.limit.take(),
            offset: inner.offset.take(),
            ..Plan::default()
        };
        let order_by = std::mem::take(&mut inner.order_by);
        // Every selected item gets a name the outer query can read it by.
        for (i, item) in inner.select_items.iter_mut().enumerate() {
            if item.alias.is_none() && !matches!(item.expr, Expr::Column { .. }) {
                item.alias = Some(format!("{name}_{}", i + 1));
            }
            if matches!(&item.expr, Expr::Column { column, .. } if column == "*") {
                return unsupported("QUALIFY or DISTINCT ON over `*`");
            }
        }
        let read = |column: String| Expr::Column {
            alias: Some(name.clone()),
            column,
        };
        outer.select_items = inner
            .select_items
            .iter()
            .map(|item| {
                let column = result_name(item);
                SelectItem {
                    expr: read(column.clone()),
                    alias: item.alias.as_ref().map(|_| column),
                }
            })
            .collect();
        let mut hidden = Hidden {
            inner: &mut inner,
            prefix: format!("{name}_q"),
            table: name.clone(),
        };
        outer.filter = Some(hidden.carry(condition));
        outer.order_by = order_by
            .into_iter()
            .map(|o| OrderItem {
                expr: hidden.carry(o.expr),
                ..o
            })
            .collect();
        outer.tables = vec![TableRef {
            name: name.clone(),
            schema_name: None,
            database: None,
            alias: name.clone(),
        }];
        outer.ctes.push(Cte {
            name,
            plan: inner,
            recursive: false,
        });
        Ok(outer)
    }
}

/// The name an item's value has in the result.
fn result_name(item: &SelectItem) -> String {
    match (&item.alias, &item.expr) {
        (Some(a), _) => a.clone(),
        (None, Expr::Column { column, .. }) => column.clone(),
        (None, other) => other.to_string(),
    }
}

/// Values the outer query reads from the inner one: a selected one by its name, anything
/// else (a window function, an unselected column) added to the inner query as a column.
struct Hidden<'p> {
    inner: &'p mut Plan,
    prefix: String,
    table: String,
}

impl Hidden<'_> {
    fn carry(&mut self, e: Expr) -> Expr {
        let read = |column: String, table: &str| Expr::Column {
            alias: Some(table.to_string()),
            column,
        };
        if let Some(item) = self.inner.select_items.iter().find(|i| {
            i.expr == e
                || matches!((&e, &i.alias), (Expr::Column { alias: None, column }, Some(a)) if column.eq_ignore_ascii_case(a))
        }) {
            return read(result_name(item), &self.table);
        }
        let is_value = match &e {
            Expr::Column { .. } => true,
            Expr::Func(f) => f.over.is_some() || crate::walk::is_aggregate_name(&f.name),
            _ => false,
        };
        if is_value {
            let column = format!("{}{}", self.prefix, self.inner.select_items.len() + 1);
            self.inner.select_items.push(SelectItem {
                expr: e,
                alias: Some(column.clone()),
            });
            return read(column, &self.table);
        }
        crate::walk::map_children(e, &mut |c| self.carry(c))
    }
}
