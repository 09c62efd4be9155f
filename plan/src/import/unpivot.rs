//! `CROSS JOIN LATERAL (VALUES (…), (…)) AS s(a, b)` (or after a comma, or joined `ON
//! TRUE`), PostgreSQL's way of turning a row's columns into rows (a funnel's steps, a wide
//! table made long), rewritten before import
//! into a join the plan holds: `s` becomes a table of row numbers, `(SELECT 1 AS values_row
//! UNION ALL SELECT 2 AS values_row …)`, and each of its columns, wherever the query names
//! it as `s.a`, the `CASE` of the row number that gives that row's value. The values are
//! read in the same `SELECT`, where the tables they name are in scope, so they mean what
//! they meant. A column named without its alias is refused (it could be another table's
//! inside a subquery), and so is a `*`, which would show the row numbers.

use sqlparser::ast::helpers::attached_token::AttachedToken;
use sqlparser::ast::{
    visit_expressions_mut, CaseWhen, Expr, Ident, JoinConstraint, JoinOperator, Query, SelectItem,
    SetExpr, Statement, TableAlias, TableFactor, Value,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use std::ops::ControlFlow;

/// The row numbers' column.
const ROW: &str = "values_row";

/// One lateral `VALUES`: its alias, its columns and its rows.
struct Lateral {
    alias: Ident,
    columns: Vec<Ident>,
    rows: Vec<Vec<Expr>>,
}

/// One query's lateral `VALUES`, rewritten as above.
pub(super) fn rewrite(query: &mut Query) -> Result<(), String> {
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Ok(());
    };
    let mut laterals = Vec::new();
    for (k, from) in select.from.iter_mut().enumerate() {
        // `FROM f, LATERAL (VALUES …)`: a lateral item after the first.
        if k > 0 {
            if let Some(l) = take(&mut from.relation)? {
                laterals.push(l);
            }
        }
        for join in &mut from.joins {
            // Rows of VALUES are never none, so a LEFT JOIN on TRUE crosses too.
            let crossed = match &join.join_operator {
                JoinOperator::CrossJoin(JoinConstraint::None) => true,
                JoinOperator::Join(JoinConstraint::On(on))
                | JoinOperator::Inner(JoinConstraint::On(on))
                | JoinOperator::Left(JoinConstraint::On(on))
                | JoinOperator::LeftOuter(JoinConstraint::On(on)) => is_true(on),
                _ => false,
            };
            if crossed {
                if let Some(l) = take(&mut join.relation)? {
                    join.join_operator = JoinOperator::CrossJoin(JoinConstraint::None);
                    laterals.push(l);
                }
            } else if is_lateral_values(&join.relation) {
                return Err(
                    "A LATERAL VALUES joined other than by CROSS JOIN, a comma or ON TRUE".into(),
                );
            }
        }
    }
    if laterals.is_empty() {
        return Ok(());
    }
    for l in &laterals {
        // A bare `s.a` in the select list keeps its output name: `CASE … END AS a`.
        for item in &mut select.projection {
            match item {
                SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => {
                    if let Some(column) = l.column_of(parts) {
                        let name = l.columns[column].clone();
                        *item = SelectItem::ExprWithAlias {
                            expr: l.case(column),
                            alias: name,
                        };
                    }
                }
                SelectItem::Wildcard(_) => {
                    return Err("SELECT * beside a LATERAL VALUES".into());
                }
                SelectItem::QualifiedWildcard(..) => {
                    return Err("alias.* beside a LATERAL VALUES".into());
                }
                _ => {}
            }
        }
        let replace = |e: &mut Expr| {
            if let Expr::CompoundIdentifier(parts) = e {
                if let Some(column) = l.column_of(parts) {
                    *e = l.case(column);
                }
            }
            ControlFlow::<()>::Continue(())
        };
        let _ = visit_expressions_mut(select.as_mut(), replace);
        if let Some(order_by) = &mut query.order_by {
            let _ = visit_expressions_mut(order_by, replace);
        }
    }
    // A column named alone: the output's name in ORDER BY, or refused.
    let outputs: Vec<String> = select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.to_lowercase()),
            _ => None,
        })
        .collect();
    let bare = |e: &mut Expr, ordering: bool| {
        if let Expr::Identifier(id) = e {
            let name = id.value.to_lowercase();
            let named = laterals.iter().any(|l| {
                l.columns
                    .iter()
                    .any(|c| c.value.eq_ignore_ascii_case(&name))
            });
            if named && !(ordering && outputs.contains(&name)) {
                return ControlFlow::Break(format!(
                    "The LATERAL VALUES column {} named without its table's alias",
                    id.value
                ));
            }
        }
        ControlFlow::Continue(())
    };
    if let ControlFlow::Break(why) = visit_expressions_mut(select.as_mut(), |e| bare(e, false)) {
        return Err(why);
    }
    if let Some(order_by) = &mut query.order_by {
        if let ControlFlow::Break(why) = visit_expressions_mut(order_by, |e| bare(e, true)) {
            return Err(why);
        }
    }
    Ok(())
}

impl Lateral {
    /// Which of the columns `alias.column` names, if it names one.
    fn column_of(&self, parts: &[Ident]) -> Option<usize> {
        match parts {
            [alias, column] if alias.value.eq_ignore_ascii_case(&self.alias.value) => self
                .columns
                .iter()
                .position(|c| c.value.eq_ignore_ascii_case(&column.value)),
            _ => None,
        }
    }

    /// `CASE alias.values_row WHEN 1 THEN … END`: the column's value in each row.
    fn case(&self, column: usize) -> Expr {
        let row = Expr::CompoundIdentifier(vec![self.alias.clone(), Ident::new(ROW)]);
        Expr::Case {
            case_token: AttachedToken::empty(),
            end_token: AttachedToken::empty(),
            operand: Some(Box::new(row)),
            conditions: self
                .rows
                .iter()
                .enumerate()
                .map(|(k, values)| CaseWhen {
                    condition: Expr::value(Value::Number((k + 1).to_string(), false)),
                    result: values[column].clone(),
                })
                .collect(),
            else_result: None,
        }
    }
}

fn is_true(e: &Expr) -> bool {
    matches!(e, Expr::Value(v) if v.value == Value::Boolean(true))
}

fn is_lateral_values(factor: &TableFactor) -> bool {
    matches!(factor, TableFactor::Derived { lateral: true, subquery, .. }
        if matches!(subquery.body.as_ref(), SetExpr::Values(_)))
}

/// The lateral `VALUES` at `factor`, replaced by its row numbers; `None` for anything else.
fn take(factor: &mut TableFactor) -> Result<Option<Lateral>, String> {
    if !is_lateral_values(factor) {
        return Ok(None);
    }
    let TableFactor::Derived {
        subquery, alias, ..
    } = factor
    else {
        return Ok(None);
    };
    let SetExpr::Values(values) = subquery.body.as_ref() else {
        return Ok(None);
    };
    let Some(alias) = alias.as_ref().filter(|a| !a.columns.is_empty()) else {
        return Err("A LATERAL VALUES without its columns named (AS s(a, b))".into());
    };
    let columns: Vec<Ident> = alias.columns.iter().map(|c| c.name.clone()).collect();
    let rows: Vec<Vec<Expr>> = values.rows.iter().map(|r| r.content.clone()).collect();
    if rows.is_empty() || rows.iter().any(|r| r.len() != columns.len()) {
        return Err("A LATERAL VALUES whose rows and columns do not line up".into());
    }
    let numbers = (1..=rows.len())
        .map(|n| format!("SELECT {n} AS {ROW}"))
        .collect::<Vec<_>>()
        .join(" UNION ALL ");
    let Ok(mut statements) = Parser::parse_sql(&GenericDialect {}, &numbers) else {
        return Err("A LATERAL VALUES".into());
    };
    let Some(Statement::Query(numbers)) = statements.pop() else {
        return Err("A LATERAL VALUES".into());
    };
    let lateral = Lateral {
        alias: alias.name.clone(),
        columns,
        rows,
    };
    *factor = TableFactor::Derived {
        lateral: false,
        subquery: numbers,
        alias: Some(TableAlias {
            explicit: true,
            name: lateral.alias.clone(),
            columns: Vec::new(),
            at: None,
        }),
        sample: None,
    };
    Ok(Some(lateral))
}
