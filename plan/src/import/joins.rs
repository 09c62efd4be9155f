//! Joins written other than `JOIN … ON`, made plain: a comma join's WHERE equalities that
//! relate its two sides become its ON (the columns they name unqualified get the alias of
//! the table that has them), and `USING`/`NATURAL` become the equalities they stand for.

use super::{Importer, R};
use crate::{BinaryOp, Expr, Join, JoinType, Plan};
use std::collections::VecDeque;

impl Importer<'_> {
    /// Turns each cross join into an inner join on the WHERE equalities between a column of
    /// the table it brings in and a column of one already in. When every join is a cross
    /// join and nothing selects `*`, a table none of the others in yet relates to waits for
    /// one that does, so `FROM a, b, c WHERE a.x = c.x AND b.y = c.y` joins c before b. The
    /// meaning is unchanged: an inner join's condition filters exactly as WHERE does, and
    /// nothing moves where a right or full join could bring back the rows it would filter.
    pub(super) fn connect(&self, plan: &mut Plan) {
        let outer = plan
            .joins
            .iter()
            .any(|j| matches!(j.join_type, JoinType::Right | JoinType::Full));
        if outer || !plan.joins.iter().any(|j| j.join_type == JoinType::Cross) {
            return;
        }
        let Some(filter) = plan.filter.take() else {
            return;
        };
        let mut rest = Vec::new();
        split_and(filter, &mut rest);
        let star = plan
            .select_items
            .iter()
            .any(|i| matches!(&i.expr, Expr::Column { column, .. } if column == "*"));
        let may_wait = !star && plan.joins.iter().all(|j| j.join_type == JoinType::Cross);
        let mut placed: Vec<String> = plan
            .tables
            .first()
            .map(|t| t.alias.clone())
            .into_iter()
            .collect();
        let mut pending: VecDeque<Join> = std::mem::take(&mut plan.joins).into();
        let mut waited = 0;
        while let Some(mut j) = pending.pop_front() {
            if j.join_type != JoinType::Cross {
                placed.push(j.left_alias.clone());
                placed.push(j.right_alias.clone());
                plan.joins.push(j);
                waited = 0;
                continue;
            }
            let mut linking = Vec::new();
            let mut other = None;
            rest.retain(|c| match self.link(plan, c, &j.right_alias, &placed) {
                Some((qualified, with)) => {
                    other.get_or_insert(with);
                    linking.push(qualified);
                    false
                }
                None => true,
            });
            if linking.is_empty() && may_wait && waited < pending.len() {
                pending.push_back(j);
                waited += 1;
                continue;
            }
            if let Some(with) = other {
                j.left_alias = with;
                j.join_type = JoinType::Inner;
                j.condition = linking.into_iter().reduce(and);
            }
            placed.push(j.right_alias.clone());
            plan.joins.push(j);
            waited = 0;
        }
        plan.filter = rest.into_iter().reduce(and);
    }

    /// When `c` is an equality between a column of `new` and a column of a placed alias: the
    /// equality with both columns qualified, and that placed alias.
    fn link(&self, plan: &Plan, c: &Expr, new: &str, placed: &[String]) -> Option<(Expr, String)> {
        let Expr::Binary {
            op: BinaryOp::Eq,
            left,
            right,
        } = c
        else {
            return None;
        };
        let (l, r) = (self.owner(plan, left)?, self.owner(plan, right)?);
        let is_placed = |a: &str| placed.iter().any(|p| p.eq_ignore_ascii_case(a));
        let with = if l.eq_ignore_ascii_case(new) && is_placed(&r) {
            r.clone()
        } else if r.eq_ignore_ascii_case(new) && is_placed(&l) {
            l.clone()
        } else {
            return None;
        };
        let qualify = |e: &Expr, alias: String| match e {
            Expr::Column { column, .. } => Expr::Column {
                alias: Some(alias),
                column: column.clone(),
            },
            other => other.clone(),
        };
        Some((
            Expr::Binary {
                op: BinaryOp::Eq,
                left: Box::new(qualify(left, l)),
                right: Box::new(qualify(right, r)),
            },
            with,
        ))
    }

    /// The alias of this plan whose table has the column `e` names: its own alias when it
    /// has one of this plan's, else the one table (or WITH table) with a column of that name.
    fn owner(&self, plan: &Plan, e: &Expr) -> Option<String> {
        let Expr::Column { alias, column } = e else {
            return None;
        };
        if column == "*" {
            return None;
        }
        if let Some(a) = alias {
            return plan
                .tables
                .iter()
                .find(|t| t.alias.eq_ignore_ascii_case(a))
                .map(|t| t.alias.clone());
        }
        let mut owners = plan.tables.iter().filter(|t| {
            self.columns_of(plan, &t.name)
                .iter()
                .any(|c| c.eq_ignore_ascii_case(column))
        });
        match (owners.next(), owners.next()) {
            (Some(t), None) => Some(t.alias.clone()),
            _ => None,
        }
    }

    /// `e` with each unqualified column of one of the plan's tables given that table's
    /// alias (a join's `ON c_custkey = o_custkey`), so the validator sees which sides it
    /// relates. Sub-queries keep their own names.
    pub(super) fn qualify(&self, plan: &Plan, e: Expr) -> Expr {
        match e {
            Expr::Column {
                alias: None,
                column,
            } => {
                let owner = self.owner(
                    plan,
                    &Expr::Column {
                        alias: None,
                        column: column.clone(),
                    },
                );
                Expr::Column {
                    alias: owner,
                    column,
                }
            }
            other => crate::walk::map_children(other, &mut |c| self.qualify(plan, c)),
        }
    }

    /// The plan's result columns as ORDER BY's positions count them, each as an ORDER BY
    /// names it: by its alias, as the expression it is, or (for `*`, expanded) as the
    /// column of its table.
    pub(super) fn result_columns(&self, plan: &Plan) -> Vec<Expr> {
        let mut out = Vec::new();
        for item in &plan.select_items {
            match (&item.alias, &item.expr) {
                (Some(a), _) => out.push(Expr::Column {
                    alias: None,
                    column: a.clone(),
                }),
                (None, Expr::Column { alias, column }) if column == "*" => {
                    for t in &plan.tables {
                        if alias
                            .as_ref()
                            .is_some_and(|a| !a.eq_ignore_ascii_case(&t.alias))
                        {
                            continue;
                        }
                        out.extend(self.columns_of(plan, &t.name).into_iter().map(|c| {
                            Expr::Column {
                                alias: Some(t.alias.clone()),
                                column: c,
                            }
                        }));
                    }
                }
                (None, e) => out.push(e.clone()),
            }
        }
        out
    }

    /// The columns of a table name as this plan reads it: a derived table's, a WITH
    /// table's, or the schema's.
    fn columns_of(&self, plan: &Plan, name: &str) -> Vec<String> {
        if let Some(c) = plan.ctes.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
            return super::output_names(&c.plan);
        }
        if let Some((_, names)) = self
            .visible
            .borrow()
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            return names.clone();
        }
        self.schema
            .table(name)
            .map(|t| t.columns.iter().map(|c| c.name.clone()).collect())
            .unwrap_or_default()
    }
}

fn split_and(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => {
            split_and(*left, out);
            split_and(*right, out);
        }
        e => out.push(e),
    }
}

pub(super) fn and(l: Expr, r: Expr) -> Expr {
    Expr::Binary {
        op: BinaryOp::And,
        left: Box::new(l),
        right: Box::new(r),
    }
}

impl Importer<'_> {
    /// `JOIN right USING (names)`: each name equal on the two sides, the left side being
    /// the table already in that has the column. The merged column an unqualified name
    /// then reads is the left one, the right one after a right join, and the first of the
    /// two that is not NULL after a full join.
    pub(super) fn using(
        &self,
        plan: &Plan,
        right: &str,
        names: &[String],
        join_type: JoinType,
    ) -> R<Expr> {
        let mut condition = None;
        for name in names {
            let Some(left) = plan
                .tables
                .iter()
                .filter(|t| !t.alias.eq_ignore_ascii_case(right))
                .find(|t| self.has_column(plan, &t.name, name))
            else {
                return Err(super::failed(format!(
                    "USING ({name}): no table joined before {right} has a column {name}."
                )));
            };
            let column = |alias: &str| Expr::Column {
                alias: Some(alias.to_string()),
                column: name.clone(),
            };
            // A name merged by an earlier USING reads the merged value.
            let l = self
                .merged_column(name)
                .unwrap_or_else(|| column(&left.alias));
            let r = column(right);
            let merged = match join_type {
                JoinType::Right => r.clone(),
                JoinType::Full => crate::ast::call("COALESCE", vec![l.clone(), r.clone()]),
                _ => l.clone(),
            };
            if let Some(frame) = self.merged.borrow_mut().last_mut() {
                frame.push((name.clone(), merged));
            }
            let equal = Expr::Binary {
                op: BinaryOp::Eq,
                left: Box::new(l),
                right: Box::new(r),
            };
            condition = Some(match condition {
                Some(c) => and(c, equal),
                None => equal,
            });
        }
        condition.ok_or_else(|| super::failed("USING () names no column."))
    }

    /// `NATURAL JOIN right`: `USING` every column name `right` shares with a table in.
    pub(super) fn natural(&self, plan: &Plan, right: &str, join_type: JoinType) -> R<Expr> {
        let Some(table) = plan
            .tables
            .iter()
            .find(|t| t.alias.eq_ignore_ascii_case(right))
        else {
            return Err(super::failed(format!("NATURAL JOIN: no table {right}.")));
        };
        let shared: Vec<String> = self
            .columns_of(plan, &table.name)
            .into_iter()
            .filter(|c| {
                plan.tables
                    .iter()
                    .filter(|t| !t.alias.eq_ignore_ascii_case(right))
                    .any(|t| self.has_column(plan, &t.name, c))
            })
            .collect();
        if shared.is_empty() {
            return super::unsupported(format!(
                "A NATURAL JOIN of {right} sharing no column name (a cross join)"
            ));
        }
        self.using(plan, right, &shared, join_type)
    }

    /// The merged column an unqualified name reads in the SELECT being read, if any.
    pub(super) fn merged_column(&self, name: &str) -> Option<Expr> {
        self.merged
            .borrow()
            .last()?
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, e)| e.clone())
    }

    /// Whether the SELECT being read joins USING or NATURAL.
    pub(super) fn merges(&self) -> bool {
        self.merged.borrow().last().is_some_and(|f| !f.is_empty())
    }

    fn has_column(&self, plan: &Plan, table: &str, column: &str) -> bool {
        self.columns_of(plan, table)
            .iter()
            .any(|c| c.eq_ignore_ascii_case(column))
    }
}
