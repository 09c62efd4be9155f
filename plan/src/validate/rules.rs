//! The checks that need no schema: plan shape, function names, operators, date calls.

use super::Findings;
use crate::functions::{self, date_call, FuncClass};
use crate::lower::arity;
use crate::walk::{each_expr, each_plan, Clause};
use crate::{BinaryOp, Expr, Literal, Plan};
use nl2sql_error::ErrorCode;

/// The most operators, set operations and IN-list values a whole plan may hold: bounds that
/// keep its SQL within what the read-only guard accepts (chains of 1,000 operators, 100 set
/// operations, 100,000 tokens) and far above any real question.
const MAX_OPERATORS: usize = 1_000;
const MAX_SET_OPERATIONS: usize = 100;
const MAX_LIST_VALUES: usize = 20_000;

/// No plan level without tables, unique aliases and CTE names, sane limits, no NUL bytes.
pub fn shape(plan: &Plan, out: &mut Findings) {
    let (mut operators, mut set_operations, mut values) = (0, 0, 0);
    each_plan(plan, &mut |p| set_operations += p.set_operations.len());
    each_expr(plan, &mut |_, e| match e {
        Expr::Binary { .. } | Expr::Between { .. } | Expr::Unary { .. } => operators += 1,
        Expr::Func(f) if is_list(e) => values += f.args.len(),
        _ => {}
    });
    if operators > MAX_OPERATORS || set_operations > MAX_SET_OPERATIONS || values > MAX_LIST_VALUES
    {
        out.invalid(format!(
            "The plan is too large: at most {MAX_OPERATORS} operators, {MAX_SET_OPERATIONS} \
             set operations and {MAX_LIST_VALUES} IN-list values in all."
        ));
    }
    each_plan(plan, &mut |p| {
        if p.tables.is_empty() && !p.joins.is_empty() {
            out.invalid(
                "A plan (or sub-plan) has joins but no tables: declare the tables it joins.",
            );
        }
        if p.select_items.is_empty() {
            out.invalid("A plan (or sub-plan) has no select_items: select at least one value.");
        }
        for (i, t) in p.tables.iter().enumerate() {
            if p.tables[..i]
                .iter()
                .any(|u| u.alias.eq_ignore_ascii_case(&t.alias))
            {
                out.invalid(format!(
                    "Alias {} is declared twice; give every table in tables its own alias.",
                    t.alias
                ));
            }
            if t.alias.trim().is_empty() || t.name.trim().is_empty() {
                out.invalid("Every table needs a name and a non-empty alias.");
            }
        }
        for (i, c) in p.ctes.iter().enumerate() {
            if p.ctes[..i]
                .iter()
                .any(|d| d.name.eq_ignore_ascii_case(&c.name))
            {
                out.invalid(format!("Two CTEs are named {}; name each once.", c.name));
            }
        }
        if p.limit.is_some_and(|n| n < 1) {
            out.invalid("limit must be at least 1.");
        }
        if p.offset.is_some_and(|n| n < 0) {
            out.invalid("offset must not be negative.");
        }
        if p.offset.is_some() && p.order_by.is_empty() {
            out.invalid("offset needs an order_by: a page only means something in an order.");
        }
        for s in &p.set_operations {
            let member = &s.plan;
            if !member.order_by.is_empty()
                || member.limit.is_some()
                || member.offset.is_some()
                || !member.ctes.is_empty()
                || !member.set_operations.is_empty()
            {
                out.invalid(
                    "A plan combined by a set operation takes no with, set_operations, order_by, \
                     limit or offset of its own; put ordering and limits on the first plan.",
                );
            }
        }
    });
    let mut nul = false;
    each_plan(plan, &mut |p| {
        let names = p
            .tables
            .iter()
            .flat_map(|t| [&t.name, &t.alias])
            .chain(p.select_items.iter().filter_map(|s| s.alias.as_ref()))
            .chain(p.ctes.iter().map(|c| &c.name));
        nul |= names.into_iter().any(|n| n.contains('\0'));
    });
    each_expr(plan, &mut |_, e| match e {
        Expr::Literal(Literal::Text(t)) => nul |= t.contains('\0'),
        Expr::Column { alias, column } => {
            nul |= column.contains('\0') || alias.as_ref().is_some_and(|a| a.contains('\0'))
        }
        _ => {}
    });
    if nul {
        out.invalid("A name or text in the plan contains a NUL character; remove it.");
    }
}

/// `DISTINCT` as a function, and function names off the allow-list.
pub fn functions(plan: &Plan, out: &mut Findings) {
    let mut unknown: Vec<String> = Vec::new();
    each_expr(plan, &mut |_, e| {
        let Expr::Func(f) = e else { return };
        if f.name.eq_ignore_ascii_case("DISTINCT") {
            out.invalid(
                "DISTINCT is not a function. For COUNT(DISTINCT x) set distinct: true on the \
                 COUNT expression; for SELECT DISTINCT set the plan's distinct: true.",
            );
        } else if functions::lookup(&f.name).is_none() && !unknown.contains(&f.name) {
            unknown.push(f.name.clone());
        }
    });
    if !unknown.is_empty() {
        let offered: Vec<&str> = functions::offered_names().collect();
        let shown: Vec<String> = unknown.iter().map(|n| format!("{n:?}")).collect();
        out.error(
            ErrorCode::UnsupportedFunction,
            format!(
                "Unsupported function(s) {}. A function name is a plain identifier naming one \
                 of: {}.",
                shown.join(", "),
                offered.join(", ")
            ),
        );
    }
}

/// `NOT` used as a binary operator. Returns true when found: nothing else may walk such a
/// plan as if its operators were renderable.
pub fn operators(plan: &Plan, out: &mut Findings) -> bool {
    let mut found = false;
    each_expr(plan, &mut |_, e| {
        if let Expr::Binary {
            op: BinaryOp::Not, ..
        } = e
        {
            found = true;
        }
    });
    if found {
        out.invalid(
            "NOT is not a binary operator: write NOT as a unary expression ({kind: unary, op: \
             NOT, expr: …}), or use !=, NOT LIKE, NOT IN, IS NOT.",
        );
    }
    found
}

/// Date units and shapes, argument counts, `over` only where it means something, IN lists
/// only right of IN.
pub fn calls(plan: &Plan, out: &mut Findings) {
    each_expr(plan, &mut |_, e| match e {
        Expr::Func(f) => {
            let Some(spec) = functions::lookup(&f.name) else {
                return;
            };
            if let Some(Err(why)) = date_call(f) {
                out.invalid(why);
            } else if let ("JSON_VALUE", [_, path]) = (spec.name, f.args.as_slice()) {
                if let Err(why) = functions::json_path(path) {
                    out.invalid(why);
                }
            } else if let ("SPLIT_PART", [_, delimiter, n]) = (spec.name, f.args.as_slice()) {
                if let Err(why) = functions::split_part_args(delimiter, n) {
                    out.invalid(why);
                }
            } else if let ("LPAD" | "RPAD", 2..=3) = (spec.name, f.args.len()) {
                if let Err(why) = functions::pad_args(spec.name, &f.args) {
                    out.invalid(why);
                }
            } else if f.args.len() < spec.min_args || f.args.len() > spec.max_args {
                out.invalid(format!(
                    "{} takes {} argument(s), not {}.",
                    spec.name,
                    arity(spec.min_args, spec.max_args),
                    f.args.len()
                ));
            } else if let Some(Err(why)) = functions::regex_call(f) {
                out.invalid(why);
            }
            match spec.class {
                FuncClass::Window if f.over.is_none() => out.invalid(format!(
                    "{} is a window function: give it an over clause (partition_by, order_by).",
                    spec.name
                )),
                FuncClass::Aggregate | FuncClass::Window => {}
                _ if f.over.is_some() => out.invalid(format!(
                    "{} cannot take an over clause; only aggregates and window functions can.",
                    spec.name
                )),
                _ => {}
            }
            match (spec.name, f.order_by.len()) {
                ("PERCENTILE_CONT" | "PERCENTILE_DISC", 1) => {
                    if !matches!(f.args.first(), Some(Expr::Literal(Literal::Integer(0 | 1))))
                        && !matches!(f.args.first(), Some(Expr::Literal(Literal::Real(p))) if (0.0..=1.0).contains(p))
                    {
                        out.invalid(format!(
                            "{}'s argument is the fraction measured, a number from 0 to 1; the \
                             value measured is its one order_by item.",
                            spec.name
                        ));
                    }
                }
                ("PERCENTILE_CONT" | "PERCENTILE_DISC", _) => out.invalid(format!(
                    "{} measures the one value in its order_by (WITHIN GROUP (ORDER BY x)).",
                    spec.name
                )),
                ("STRING_AGG", _) | (_, 0) => {}
                _ => out.invalid(format!(
                    "order_by inside a call only applies to PERCENTILE_CONT, PERCENTILE_DISC \
                     and STRING_AGG, not to {}.",
                    spec.name
                )),
            }
            if f.filter.is_some() && spec.class != FuncClass::Aggregate {
                out.invalid(format!(
                    "filter only applies to aggregates (COUNT, SUM, AVG, MIN, MAX), not to {}.",
                    spec.name
                ));
            }
            if f.distinct && spec.class != FuncClass::Aggregate {
                out.invalid(format!(
                    "distinct: true only applies to aggregates, not to {}.",
                    spec.name
                ));
            }
            if f.distinct && f.args.first().is_some_and(is_star) {
                out.invalid("COUNT(DISTINCT *) is not SQL; count distinct values of a column.");
            }
            if let Some(w) = &f.over {
                window(spec.name, f.distinct, w, out);
            }
            for a in &f.args {
                if is_star(a) && spec.name != "COUNT" {
                    out.invalid(format!("`*` is not an argument of {}.", spec.name));
                }
                if is_list(a) {
                    out.invalid(list_message());
                }
            }
        }
        Expr::Binary { op, left, right } => {
            let in_op = matches!(op, BinaryOp::In | BinaryOp::NotIn);
            if in_op && !(is_list(right) || matches!(**right, Expr::Subquery { .. })) {
                out.invalid(
                    "The right side of IN must be a TUPLE or LIST function holding the values, \
                     or a subquery.",
                );
            }
            if is_list(left) || (!in_op && is_list(right)) {
                out.invalid(list_message());
            }
            if is_star(left) || is_star(right) {
                out.invalid("`*` can only be selected or counted.");
            }
        }
        _ => {}
    });
    each_plan(plan, &mut |p| {
        let stars = p
            .group_by
            .iter()
            .chain(p.order_by.iter().map(|o| &o.expr))
            .chain(p.filter.iter())
            .chain(p.having.iter());
        if stars.into_iter().any(is_star) {
            out.invalid("`*` can only be selected or counted.");
        }
    });
}

/// What SQL allows in a window: no DISTINCT, no window inside it, a frame that runs
/// forwards, and value offsets (RANGE n PRECEDING) only over one ordering key.
fn window(name: &str, distinct: bool, w: &crate::Window, out: &mut Findings) {
    use crate::{FrameBound, FrameUnit};
    if distinct {
        out.invalid(format!(
            "{name}(DISTINCT …) cannot be a window function; aggregate in a CTE first."
        ));
    }
    let nested = w
        .partition_by
        .iter()
        .chain(w.order_by.iter().map(|o| &o.expr))
        .any(|e| {
            let mut found = false;
            crate::walk::each_node(e, &mut |n| {
                found |= matches!(n, Expr::Func(g) if g.over.is_some());
            });
            found
        });
    if nested {
        out.invalid(format!(
            "The window of {name} contains another window function; compute that one in a CTE."
        ));
    }
    let Some(frame) = &w.frame else { return };
    let rank = |b: FrameBound| match b {
        FrameBound::UnboundedPreceding => (0, 0),
        FrameBound::Preceding { offset: n } => (1, -i128::from(n)),
        FrameBound::CurrentRow => (2, 0),
        FrameBound::Following { offset: n } => (3, i128::from(n)),
        FrameBound::UnboundedFollowing => (4, 0),
    };
    if frame.start == FrameBound::UnboundedFollowing
        || frame.end == FrameBound::UnboundedPreceding
        || rank(frame.start) > rank(frame.end)
    {
        out.invalid(format!(
            "The frame of {name} ends before it starts; give start before end (for example \
             unbounded_preceding to current_row)."
        ));
    }
    let offset = |b: FrameBound| {
        matches!(
            b,
            FrameBound::Preceding { .. } | FrameBound::Following { .. }
        )
    };
    if frame.unit == FrameUnit::Range
        && (offset(frame.start) || offset(frame.end))
        && w.order_by.len() != 1
    {
        out.invalid(format!(
            "A RANGE frame with an offset needs exactly one order_by term in the window of \
             {name}; use ROWS, or order by one value."
        ));
    }
    if let Some(unit) = frame.offset_unit {
        if frame.unit != FrameUnit::Range {
            out.invalid(format!(
                "The frame of {name} has an offset_unit but counts rows; offset_unit is for a \
                 range frame ordered by a date or timestamp."
            ));
        } else if !unit.is_period() {
            out.invalid(format!(
                "The frame of {name} counts its offsets in {unit}, a part of a date; use year, \
                 quarter, month, week, day, hour, minute or second."
            ));
        }
    }
}

fn list_message() -> &'static str {
    "TUPLE and LIST hold the values of an IN list; use them only as the right side of IN."
}

fn is_star(e: &Expr) -> bool {
    matches!(e, Expr::Column { column, .. } if column == "*")
}

fn is_list(e: &Expr) -> bool {
    matches!(e, Expr::Func(f) if functions::lookup(&f.name).is_some_and(|s| s.class == FuncClass::List))
}

/// Aggregates and windows where SQL allows them.
pub fn placement(plan: &Plan, out: &mut Findings) {
    each_plan(plan, &mut |p| {
        for (clause, root) in crate::walk::clauses(p) {
            if matches!(clause, Clause::Having | Clause::OrderBy) {
                // A result name stands for its expression: `HAVING rn = 1` over a window,
                // or `MAX(total)` over `SUM(x)`, is what the SQL will say.
                place(&crate::walk::with_result_names(p, root), clause, false, out);
            } else {
                place(root, clause, false, out);
            }
        }
    });
}

fn place(e: &Expr, clause: Clause, in_aggregate: bool, out: &mut Findings) {
    let children = |e: &Expr, in_agg: bool, out: &mut Findings| {
        for c in crate::walk::children(e) {
            place(c, clause, in_agg, out);
        }
    };
    if let Expr::Func(f) = e {
        if let Some(spec) = functions::lookup(&f.name) {
            let window = f.over.is_some();
            let aggregate = spec.class == FuncClass::Aggregate && !window;
            if window && !matches!(clause, Clause::Select | Clause::OrderBy) {
                out.invalid(format!(
                    "The window function {} is in {}; window functions may only appear in \
                     select_items and order_by. Compute it in a CTE and filter that.",
                    spec.name,
                    clause.field()
                ));
            }
            if window && in_aggregate {
                out.invalid(format!(
                    "The window function {} is inside an aggregate; compute it in a CTE first.",
                    spec.name
                ));
            }
            if aggregate {
                if matches!(clause, Clause::Where | Clause::Join | Clause::GroupBy) {
                    out.invalid(format!(
                        "The aggregate {} is in {}; aggregates belong in select_items, having \
                         and order_by. Filter groups with having.",
                        spec.name,
                        clause.field()
                    ));
                }
                if in_aggregate {
                    out.invalid(format!(
                        "The aggregate {} is inside another aggregate; aggregate once, or \
                         aggregate a CTE's results.",
                        spec.name
                    ));
                }
                children(e, true, out);
                return;
            }
        }
    }
    children(e, in_aggregate, out);
}
