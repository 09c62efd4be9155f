//! Series of numbers and moments in `FROM` (PostgreSQL's and DuckDB's `generate_series`,
//! DuckDB's `range`), read as the recursive CTE that counts them: the start, then each
//! value moved by the step while it stays within the end. A date spine for filling gaps
//! is the common use; every engine with recursive CTEs runs it.

use super::dates::moved_by;
use super::{ident_text, unsupported, Importer, R};
use crate::dialect::Dialect;
use crate::walk::each_node;
use crate::{
    BinaryOp, CastType, Cte, Expr, Literal, Plan, SelectItem, SetOperation, SetOperator, TableRef,
};
use sqlparser::ast::{self, Expr as SqlExpr, FunctionArg, FunctionArgExpr, ObjectName};

/// How far a step moves a value: a number added, or an interval's steps.
enum Step {
    Number(i64),
    Interval(Vec<(Expr, crate::functions::DateUnit)>),
}

impl Importer<'_> {
    /// The series `name(args)` in `FROM` under `alias`, read as a recursive CTE added to
    /// `plan`; the alias it is read under, or `None` when `name` is no series function here.
    pub(super) fn series(
        &self,
        name: &ObjectName,
        args: &[FunctionArg],
        alias: Option<&ast::TableAlias>,
        plan: &mut Plan,
    ) -> R<Option<String>> {
        let function = name.to_string().to_ascii_lowercase();
        let Some(inclusive) = self.inclusive(&function) else {
            return Ok(None);
        };
        let own = alias.map(|a| ident_text(&a.name));
        let column = match alias.map(|a| a.columns.as_slice()) {
            Some([c]) => ident_text(&c.name),
            Some([]) | None => match (&own, self.dialect) {
                // PostgreSQL names a scalar function's column after its alias.
                (Some(a), Dialect::Postgres) => a.clone(),
                _ => function.clone(),
            },
            Some(_) => return unsupported(format!("{function} with more than one column name")),
        };
        let cte = match &own {
            Some(own) if !self.is_table(own) => own.clone(),
            _ => self.unused_name(),
        };
        self.series_cte(&function, inclusive, args, &cte, &column, plan)?;
        let alias = own.unwrap_or_else(|| cte.clone());
        plan.tables.push(TableRef {
            name: cte,
            schema_name: None,
            database: None,
            alias: alias.clone(),
        });
        Ok(Some(alias))
    }

    /// PostgreSQL's `SELECT generate_series(…)` without `FROM` (a row per value), read as
    /// the series in `FROM`: its alias and column, or `None` when the select list has no
    /// series call.
    pub(super) fn series_in_select(
        &self,
        projection: &[ast::SelectItem],
        plan: &mut Plan,
    ) -> R<Option<(String, String)>> {
        if self.dialect != Dialect::Postgres {
            return Ok(None);
        }
        let calls: Vec<&ast::Function> = projection
            .iter()
            .filter_map(|item| match item {
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => series_call(e),
                _ => None,
            })
            .collect();
        let f = match calls.as_slice() {
            [] => return Ok(None),
            [f] => *f,
            _ => return unsupported("Several generate_series calls in one select list"),
        };
        let ast::FunctionArguments::List(list) = &f.args else {
            return unsupported("generate_series without arguments");
        };
        if !list.clauses.is_empty() || list.duplicate_treatment.is_some() {
            return unsupported("generate_series with ORDER BY or DISTINCT inside");
        }
        let cte = self.unused_name();
        let column = "generate_series".to_string();
        self.series_cte("generate_series", true, &list.args, &cte, &column, plan)?;
        plan.tables.push(TableRef {
            name: cte.clone(),
            schema_name: None,
            database: None,
            alias: cte.clone(),
        });
        Ok(Some((cte, column)))
    }

    /// The column a series call of the select list being read stands for; `None` for any
    /// other call.
    pub(super) fn series_read(&self, f: &ast::Function) -> Option<Expr> {
        if !is_series_call(f) {
            return None;
        }
        let (alias, column) = self.series.borrow().last()?.clone()?;
        Some(Expr::Column {
            alias: Some(alias),
            column,
        })
    }

    /// Whether the series function `function` includes its end here; `None` when it is
    /// not one in this dialect.
    fn inclusive(&self, function: &str) -> Option<bool> {
        match (function, self.dialect) {
            ("generate_series", Dialect::Postgres | Dialect::DuckDb) => Some(true),
            ("range", Dialect::DuckDb) => Some(false),
            _ => None,
        }
    }

    /// Adds to `plan` the recursive CTE `cte` whose column `column` counts the series.
    fn series_cte(
        &self,
        function: &str,
        inclusive: bool,
        args: &[FunctionArg],
        cte: &str,
        column: &str,
        plan: &mut Plan,
    ) -> R<()> {
        let values = args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(e),
                _ => unsupported(format!("{function} with a named or wildcard argument")),
            })
            .collect::<R<Vec<_>>>()?;
        let (start, stop, step) = match values.as_slice() {
            [start, stop] => (*start, *stop, None),
            [start, stop, step] => (*start, *stop, Some(*step)),
            _ => return unsupported(format!("{function} with other than 2 or 3 arguments")),
        };
        let step = match step {
            None => Step::Number(1),
            Some(e) => match self.interval_step(e)? {
                Some(steps) => Step::Interval(steps),
                None => match self.expr(e)? {
                    Expr::Literal(Literal::Integer(n)) if n != 0 => Step::Number(n),
                    _ => {
                        return unsupported(format!("{function} by a step that is not a constant"))
                    }
                },
            },
        };
        let ascending = match &step {
            Step::Number(n) => *n > 0,
            Step::Interval(steps) => {
                let signs: Vec<bool> = steps
                    .iter()
                    .filter_map(|(n, _)| match n {
                        Expr::Literal(Literal::Integer(n)) if *n != 0 => Some(*n > 0),
                        _ => None,
                    })
                    .collect();
                match signs.as_slice() {
                    [first, rest @ ..]
                        if signs.len() == steps.len() && rest.iter().all(|s| s == first) =>
                    {
                        *first
                    }
                    _ => {
                        return unsupported(format!(
                            "{function} by an interval of mixed or unknown signs"
                        ))
                    }
                }
            }
        };
        let mut start = self.expr(start)?;
        let stop = self.expr(stop)?;
        if reads_columns(&start) || reads_columns(&stop) {
            return unsupported(format!("{function} over a column (a series per row)"));
        }
        // Stepping by an interval gives timestamps, whatever the start's kind.
        if matches!(step, Step::Interval(_)) {
            start = Expr::Cast {
                expr: Box::new(start),
                to: CastType::Timestamp,
            };
        }
        let within = |value: Expr| Expr::Binary {
            op: match (ascending, inclusive) {
                (true, true) => BinaryOp::LtEq,
                (true, false) => BinaryOp::Lt,
                (false, true) => BinaryOp::GtEq,
                (false, false) => BinaryOp::Gt,
            },
            left: Box::new(value),
            right: Box::new(stop.clone()),
        };
        let previous = Expr::Column {
            alias: Some(cte.to_string()),
            column: column.to_string(),
        };
        let next = match step {
            Step::Number(n) => Expr::Binary {
                op: BinaryOp::Plus,
                left: Box::new(previous),
                right: Box::new(Expr::Literal(Literal::Integer(n))),
            },
            Step::Interval(steps) => moved_by(previous, steps),
        };
        let member = Plan {
            tables: vec![TableRef {
                name: cte.to_string(),
                schema_name: None,
                database: None,
                alias: cte.to_string(),
            }],
            select_items: vec![SelectItem {
                expr: next.clone(),
                alias: None,
            }],
            filter: Some(within(next)),
            ..Plan::default()
        };
        plan.ctes.push(Cte {
            name: cte.to_string(),
            plan: Plan {
                select_items: vec![SelectItem {
                    expr: start.clone(),
                    alias: Some(column.to_string()),
                }],
                filter: Some(within(start)),
                set_operations: vec![SetOperation {
                    op: SetOperator::UnionAll,
                    plan: member,
                }],
                ..Plan::default()
            },
            recursive: true,
        });
        Ok(())
    }
}

/// Whether `f` calls `generate_series`.
fn is_series_call(f: &ast::Function) -> bool {
    f.name.to_string().eq_ignore_ascii_case("generate_series")
}

/// The `generate_series` call `e` is, or casts.
fn series_call(e: &SqlExpr) -> Option<&ast::Function> {
    match e {
        SqlExpr::Function(f) if is_series_call(f) => Some(f),
        SqlExpr::Cast { expr, .. } | SqlExpr::Nested(expr) => series_call(expr),
        _ => None,
    }
}

fn reads_columns(e: &Expr) -> bool {
    let mut found = false;
    each_node(e, &mut |n| found |= matches!(n, Expr::Column { .. }));
    found
}
