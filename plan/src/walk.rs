//! Traversals over a plan: its nested plans, its clauses, the nodes of an expression.

use crate::functions::{self, FuncClass};
use crate::{Expr, Plan};

/// Where in a plan an expression sits; decides what it may contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clause {
    /// A select item.
    Select,
    /// A join condition.
    Join,
    /// The row filter.
    Where,
    /// A GROUP BY term.
    GroupBy,
    /// The group filter.
    Having,
    /// An ORDER BY term.
    OrderBy,
}

impl Clause {
    /// The plan field, for messages.
    pub fn field(self) -> &'static str {
        match self {
            Clause::Select => "select_items",
            Clause::Join => "joins",
            Clause::Where => "where",
            Clause::GroupBy => "group_by",
            Clause::Having => "having",
            Clause::OrderBy => "order_by",
        }
    }
}

/// The plan's own top-level expressions, clause by clause (not those of nested plans).
pub fn clauses(plan: &Plan) -> Vec<(Clause, &Expr)> {
    let mut out = Vec::new();
    out.extend(plan.select_items.iter().map(|s| (Clause::Select, &s.expr)));
    out.extend(
        plan.joins
            .iter()
            .filter_map(|j| j.condition.as_ref().map(|c| (Clause::Join, c))),
    );
    out.extend(plan.filter.iter().map(|e| (Clause::Where, e)));
    out.extend(plan.group_by.iter().map(|e| (Clause::GroupBy, e)));
    out.extend(plan.having.iter().map(|e| (Clause::Having, e)));
    out.extend(plan.order_by.iter().map(|o| (Clause::OrderBy, &o.expr)));
    out
}

/// Calls `f` on `e` and every expression inside it, parents first. Does not enter nested
/// plans (subqueries), but does enter window specifications.
pub fn each_node<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
    f(e);
    match e {
        Expr::Literal(_) | Expr::Column { .. } | Expr::Subquery { .. } | Expr::Exists { .. } => {}
        Expr::Func(call) => {
            for a in &call.args {
                each_node(a, f);
            }
            if let Some(c) = &call.filter {
                each_node(c, f);
            }
            for o in &call.order_by {
                each_node(&o.expr, f);
            }
            if let Some(w) = &call.over {
                for p in &w.partition_by {
                    each_node(p, f);
                }
                for o in &w.order_by {
                    each_node(&o.expr, f);
                }
            }
        }
        Expr::Binary { left, right, .. } => {
            each_node(left, f);
            each_node(right, f);
        }
        Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => each_node(expr, f),
        Expr::Case { whens, else_expr } => {
            for w in whens {
                each_node(&w.condition, f);
                each_node(&w.result, f);
            }
            if let Some(e) = else_expr {
                each_node(e, f);
            }
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            each_node(expr, f);
            each_node(low, f);
            each_node(high, f);
        }
    }
}

/// Calls `f` on `plan` and every plan nested in it (CTEs, set operations, subqueries),
/// parents first.
pub fn each_plan<'a>(plan: &'a Plan, f: &mut dyn FnMut(&'a Plan)) {
    f(plan);
    for c in &plan.ctes {
        each_plan(&c.plan, f);
    }
    for s in &plan.set_operations {
        each_plan(&s.plan, f);
    }
    for (_, root) in clauses(plan) {
        each_node(root, &mut |e| {
            if let Expr::Subquery { plan: p } | Expr::Exists { plan: p } = e {
                each_plan(p, f);
            }
        });
    }
}

impl Plan {
    /// The names of the tables (and CTEs) every plan in this one reads, in the order met.
    pub fn table_names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        each_plan(self, &mut |p| {
            names.extend(p.tables.iter().map(|t| t.name.as_str()));
        });
        names
    }

    /// Whether any plan within this one reads the table or CTE `name` (a sub-plan's own CTE
    /// of that name counts too).
    pub fn reads(&self, name: &str) -> bool {
        self.table_names()
            .iter()
            .any(|t| t.eq_ignore_ascii_case(name))
    }
}

/// Calls `f` on every expression node of every plan in `plan`, with its clause.
pub fn each_expr<'a>(plan: &'a Plan, f: &mut dyn FnMut(Clause, &'a Expr)) {
    each_plan(plan, &mut |p| {
        for (clause, root) in clauses(p) {
            each_node(root, &mut |e| f(clause, e));
        }
    });
}

/// The expressions directly inside `e` (window terms included, nested plans not).
pub fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Literal(_) | Expr::Column { .. } | Expr::Subquery { .. } | Expr::Exists { .. } => {
            vec![]
        }
        Expr::Func(call) => {
            let mut out: Vec<&Expr> = call.args.iter().collect();
            out.extend(call.filter.as_deref());
            out.extend(call.order_by.iter().map(|o| &o.expr));
            if let Some(w) = &call.over {
                out.extend(w.partition_by.iter());
                out.extend(w.order_by.iter().map(|o| &o.expr));
            }
            out
        }
        Expr::Binary { left, right, .. } => vec![left, right],
        Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => vec![expr],
        Expr::Case { whens, else_expr } => {
            let mut out: Vec<&Expr> = whens
                .iter()
                .flat_map(|w| [&w.condition, &w.result])
                .collect();
            out.extend(else_expr.as_deref());
            out
        }
        Expr::Between {
            expr, low, high, ..
        } => vec![expr, low, high],
    }
}

/// `e` rebuilt with `f` applied to each scalar child: the operands of an operator, cast,
/// `BETWEEN` or `CASE`, and a function's arguments. Sub-plans, windows and filters are
/// kept as they are. The importer's rewrites (a join's columns qualified, QUALIFY's values
/// carried into a CTE) recurse through this.
pub fn map_children(e: Expr, f: &mut dyn FnMut(Expr) -> Expr) -> Expr {
    let mut boxed = |e: Box<Expr>| Box::new(f(*e));
    match e {
        Expr::Binary { op, left, right } => {
            let left = boxed(left);
            Expr::Binary {
                op,
                left,
                right: boxed(right),
            }
        }
        Expr::Unary { op, expr } => Expr::Unary {
            op,
            expr: boxed(expr),
        },
        Expr::Cast { expr, to } => Expr::Cast {
            expr: boxed(expr),
            to,
        },
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => {
            let expr = boxed(expr);
            let low = boxed(low);
            Expr::Between {
                expr,
                low,
                high: boxed(high),
                negated,
            }
        }
        Expr::Case { whens, else_expr } => {
            let whens = whens
                .into_iter()
                .map(|w| crate::When {
                    condition: f(w.condition),
                    result: f(w.result),
                })
                .collect();
            Expr::Case {
                whens,
                else_expr: else_expr.map(|e| Box::new(f(*e))),
            }
        }
        Expr::Func(mut call) => {
            call.args = call.args.into_iter().map(&mut *f).collect();
            Expr::Func(call)
        }
        other => other,
    }
}

/// True when `name` is an aggregate function of the allow-list.
pub fn is_aggregate_name(name: &str) -> bool {
    functions::lookup(name).is_some_and(|s| s.class == FuncClass::Aggregate)
}

/// True when `e` holds an aggregate call (not a window) outside any subquery.
pub fn has_aggregate(e: &Expr) -> bool {
    let mut found = false;
    each_node(e, &mut |n| {
        if let Expr::Func(f) = n {
            found |= f.over.is_none() && is_aggregate_name(&f.name);
        }
    });
    found
}

/// True when `plan` returns at most one row whatever the data: it reads no table, or it
/// aggregates (in its selection or its HAVING), without GROUP BY and without a set operation. A HAVING with no
/// aggregate does not count: MySQL reads it as a row filter.
pub fn at_most_one_row(plan: &Plan) -> bool {
    plan.group_by.is_empty()
        && plan.set_operations.is_empty()
        && (plan.tables.is_empty()
            || plan.having.as_ref().is_some_and(has_aggregate)
            || plan.select_items.iter().any(|s| has_aggregate(&s.expr)))
}

/// How deep `plan` nests: one level per expression inside another and per sub-plan. Plans
/// parsed from JSON are capped by the parser; plans built by code or imported from SQL are
/// measured here before anything recurses through them. Stops counting past `limit`, so a
/// pathological plan costs no more than a reasonable one.
pub fn nesting(plan: &Plan, limit: usize) -> usize {
    fn of_plan(plan: &Plan, limit: usize) -> usize {
        let mut deepest = 0;
        for (_, root) in clauses(plan) {
            deepest = deepest.max(of_expr(root, limit));
            if deepest > limit {
                return deepest;
            }
        }
        for sub in plan
            .ctes
            .iter()
            .map(|c| &c.plan)
            .chain(plan.set_operations.iter().map(|s| &s.plan))
        {
            deepest = deepest.max(1 + of_plan(sub, limit.saturating_sub(1)));
        }
        deepest
    }
    fn of_expr(e: &Expr, limit: usize) -> usize {
        if limit == 0 {
            return 1;
        }
        let inner = match e {
            Expr::Subquery { plan: p } | Expr::Exists { plan: p } => of_plan(p, limit - 1),
            e => children(e)
                .into_iter()
                .map(|c| of_expr(c, limit - 1))
                .max()
                .unwrap_or(0),
        };
        1 + inner
    }
    of_plan(plan, limit)
}

/// `e` with every bare name of a result column replaced by the selected expression, in
/// window terms too (not in nested plans). HAVING and ORDER BY may name results; the
/// validator checks, and the generator writes, what such a name stands for.
pub fn with_result_names(plan: &Plan, e: &Expr) -> Expr {
    let mut out = e.clone();
    replace_result_names(plan, &mut out);
    out
}

fn replace_result_names(plan: &Plan, e: &mut Expr) {
    if let Expr::Column {
        alias: None,
        column,
    } = e
    {
        let item = plan.select_items.iter().find(|i| {
            i.alias
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(column))
        });
        if let Some(item) = item {
            *e = item.expr.clone();
        }
        return;
    }
    match e {
        // GROUPING's arguments are grouped columns, never results.
        Expr::Func(f) if f.name.eq_ignore_ascii_case("GROUPING") => {}
        Expr::Func(f) => {
            for a in &mut f.args {
                replace_result_names(plan, a);
            }
            if let Some(c) = &mut f.filter {
                replace_result_names(plan, c);
            }
            for o in &mut f.order_by {
                replace_result_names(plan, &mut o.expr);
            }
            if let Some(w) = &mut f.over {
                for p in &mut w.partition_by {
                    replace_result_names(plan, p);
                }
                for o in &mut w.order_by {
                    replace_result_names(plan, &mut o.expr);
                }
            }
        }
        Expr::Binary { left, right, .. } => {
            replace_result_names(plan, left);
            replace_result_names(plan, right);
        }
        Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => replace_result_names(plan, expr),
        Expr::Case { whens, else_expr } => {
            for w in whens {
                replace_result_names(plan, &mut w.condition);
                replace_result_names(plan, &mut w.result);
            }
            if let Some(x) = else_expr {
                replace_result_names(plan, x);
            }
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            replace_result_names(plan, expr);
            replace_result_names(plan, low);
            replace_result_names(plan, high);
        }
        Expr::Literal(_) | Expr::Column { .. } | Expr::Subquery { .. } | Expr::Exists { .. } => {}
    }
}
