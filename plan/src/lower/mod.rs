//! The one path from a plan to SQL: [`lower`] builds a sqlparser [`Query`] for a dialect.
//!
//! The validator calls it to prove a plan buildable and the generator calls it to render,
//! so the two cannot disagree about which plans work. Every name and text in the output went
//! through [`build`]'s quoting; LIMIT is always bounded by the row cap; ORDER BY is
//! completed with tie-breakers so a LIMIT keeps the same rows on every run.

mod aggregates;
mod build;
mod dates;
mod expr;
mod grouping;
mod json;
mod numbers;
mod percentiles;
mod regex;
mod temporal;
mod text;
mod zones;

use crate::dialect::Dialect;
use crate::schema::SchemaSnapshot;
use crate::Error;
use crate::{Expr, Plan, SetOperator, TableRef};
use build::{ident, int, object_name, order_by_expr};
use sqlparser::ast::{
    self, helpers::attached_token::AttachedToken, Expr as SqlExpr, FunctionArgExpr, GroupByExpr,
    Ident, JoinConstraint, JoinOperator, LimitClause, Offset, OffsetRows, OrderBy, OrderByExpr,
    OrderByKind, Query, Select, SelectFlavor, SelectItem, SetExpr, SetQuantifier, TableAlias,
    TableFactor, TableWithJoins,
};
use std::cell::RefCell;

pub use expr::arity;

/// A name written for `dialect` as the generator writes it (quoted when it must be), for
/// the few statements the engine writes outside a plan (catalogue and statistics reads).
pub fn quote_name(name: &str, dialect: Dialect) -> String {
    ident(name, dialect).to_string()
}

/// A text literal escaped for `dialect` as the generator escapes it.
pub fn quote_text(value: &str, dialect: Dialect) -> String {
    build::text(value, dialect).to_string()
}

/// What lowering needs besides the plan: the row cap and the pinned date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerOptions {
    /// The most rows the outermost query may return.
    pub row_cap: u64,
    /// The day `CURRENT_DATE` means (`YYYY-MM-DD`), for reproducible runs; `None`: the
    /// database's own date.
    pub today: Option<String>,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions {
            row_cap: 100_000,
            today: None,
        }
    }
}

/// Why a plan cannot be built into SQL, in plan terms: an [`Error`] of kind
/// [`crate::ErrorKind::Unbuildable`].
pub type LowerError = Error;

/// Whether `d` runs the recursive CTE `c` as every other engine does.
fn recursive_supported(c: &crate::Cte, d: Dialect) -> Result<(), LowerError> {
    match d {
        Dialect::Spark => fail(format!(
            "Spark SQL has no recursive WITH; the recursive CTE {} cannot run there.",
            c.name
        )),
        Dialect::SqlServer
            if c.plan
                .set_operations
                .iter()
                .any(|s| s.op != SetOperator::UnionAll) =>
        {
            fail(format!(
                "SQL Server combines a recursive CTE's parts with UNION ALL only; {} uses UNION.",
                c.name
            ))
        }
        _ => Ok(()),
    }
}

/// A name for a rewrite's own CTE: `base`, or `base_2`, `base_3` … when `taken` (a table
/// or an outer CTE) or one of `plan`'s CTEs has it.
fn unused_cte_name(plan: &Plan, taken: &dyn Fn(&str) -> bool, base: &str) -> String {
    let mut name = base.to_string();
    let mut k = 1;
    while taken(&name) || plan.ctes.iter().any(|c| c.name.eq_ignore_ascii_case(&name)) {
        k += 1;
        name = format!("{base}_{k}");
    }
    name
}

/// What a rewrite that reads a CTE of its own needs: `plan`'s CTEs with `body` added as
/// `name`, and that CTE as the one table read (under its own name).
fn reading_new_cte(plan: &Plan, name: String, body: Plan) -> (Vec<crate::Cte>, Vec<TableRef>) {
    let mut ctes = plan.ctes.clone();
    ctes.push(crate::Cte {
        name: name.clone(),
        plan: body,
        recursive: false,
    });
    let table = TableRef {
        name: name.clone(),
        schema_name: None,
        database: None,
        alias: name,
    };
    (ctes, vec![table])
}

fn fail<T>(message: impl Into<String>) -> Result<T, LowerError> {
    Err(Error::unbuildable(message.into()))
}

/// Builds the SQL query for `plan` in `dialect`. Table names take the schema's spelling.
pub fn lower(
    plan: &Plan,
    schema: &SchemaSnapshot,
    dialect: Dialect,
    options: &LowerOptions,
) -> Result<Query, LowerError> {
    let deepest = crate::json::MAX_DEPTH;
    if crate::walk::nesting(plan, deepest) > deepest {
        return fail(format!("The plan nests more than {deepest} levels deep."));
    }
    let lowerer = Lowerer {
        dialect,
        schema,
        today: options.today.as_deref(),
        row_cap: options.row_cap,
        scopes: RefCell::new(Vec::new()),
        ctes: RefCell::new(Vec::new()),
        cte_kinds: RefCell::new(Vec::new()),
    };
    lowerer.query(plan, true)
}

/// [`lower`], then rendered as one line of SQL text.
pub fn to_sql(
    plan: &Plan,
    schema: &SchemaSnapshot,
    dialect: Dialect,
    options: &LowerOptions,
) -> Result<String, LowerError> {
    lower(plan, schema, dialect, options).map(|q| q.to_string())
}

pub(crate) struct Lowerer<'a> {
    dialect: Dialect,
    schema: &'a SchemaSnapshot,
    today: Option<&'a str>,
    row_cap: u64,
    /// The aliases in scope, innermost plan last: names are written with the spelling they
    /// were declared with (a table's, a column's, an alias's, a CTE's), since PostgreSQL
    /// tells `"T"` from `t` even where the plan did not.
    scopes: RefCell<Vec<Vec<Bound<'a>>>>,
    /// The CTEs visible here, innermost last: their declared names and result columns
    /// (`None` for an unnamed one, which keeps its position).
    ctes: RefCell<Vec<(String, Vec<Option<String>>)>>,
    /// The kind of point in time each visible CTE's named columns are, where known (the
    /// same order as `ctes`).
    cte_kinds: RefCell<Vec<Vec<(String, temporal::Temporal)>>>,
}

/// An alias in scope and what it reads.
#[derive(Clone)]
pub(crate) struct Bound<'a> {
    alias: String,
    source: Source<'a>,
}

#[derive(Clone)]
pub(crate) enum Source<'a> {
    /// A table of the datasource.
    Table(&'a crate::schema::Table),
    /// A CTE: its declared name and its result columns' names.
    Cte(String, Vec<Option<String>>),
}

impl Source<'_> {
    /// The column's declared spelling, when this source has it.
    fn spelling(&self, column: &str) -> Option<&str> {
        match self {
            Source::Table(t) => t.column(column).map(|c| c.name.as_str()),
            Source::Cte(_, names) => names
                .iter()
                .flatten()
                .find(|n| n.eq_ignore_ascii_case(column))
                .map(String::as_str),
        }
    }

    /// Every column, in order.
    fn columns(&self) -> Vec<&str> {
        match self {
            Source::Table(t) => t.columns.iter().map(|c| c.name.as_str()).collect(),
            Source::Cte(_, names) => names.iter().flatten().map(String::as_str).collect(),
        }
    }
}

/// One column of a plan's result: its name (declared spelling) when it has one, and the
/// select item it comes from (`*` gives several).
#[derive(Debug, Clone)]
struct ResultColumn {
    name: Option<String>,
    item: usize,
}

/// A plan's result columns, in order: aliases; selected columns by their declared names;
/// `*` expanded; anything else unnamed.
fn result_columns(
    plan: &Plan,
    schema: &SchemaSnapshot,
    ctes: &[(String, Vec<Option<String>>)],
) -> Vec<ResultColumn> {
    // The declared names of a table reference's columns: a visible CTE's, or the schema's.
    let columns_of = |t: &TableRef| -> Vec<Option<String>> {
        if let Some((_, names)) = ctes
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(&t.name))
        {
            names.clone()
        } else if let Some(table) = schema.table(&t.name) {
            table.columns.iter().map(|c| Some(c.name.clone())).collect()
        } else {
            vec![]
        }
    };
    let mut out = Vec::new();
    for (i, item) in plan.select_items.iter().enumerate() {
        match (&item.alias, &item.expr) {
            (Some(a), _) => out.push(ResultColumn {
                name: Some(a.clone()),
                item: i,
            }),
            (None, Expr::Column { alias, column }) if column == "*" => {
                for t in &plan.tables {
                    if alias
                        .as_deref()
                        .is_some_and(|a| !a.eq_ignore_ascii_case(&t.alias))
                    {
                        continue;
                    }
                    out.extend(
                        columns_of(t)
                            .into_iter()
                            .map(|name| ResultColumn { name, item: i }),
                    );
                }
            }
            (None, Expr::Column { alias, column }) => {
                let declared = plan
                    .tables
                    .iter()
                    .filter(|t| {
                        alias
                            .as_deref()
                            .is_none_or(|a| a.eq_ignore_ascii_case(&t.alias))
                    })
                    .find_map(|t| {
                        columns_of(t)
                            .into_iter()
                            .flatten()
                            .find(|n| n.eq_ignore_ascii_case(column))
                    });
                out.push(ResultColumn {
                    name: Some(declared.unwrap_or_else(|| column.clone())),
                    item: i,
                });
            }
            (None, _) => out.push(ResultColumn {
                name: None,
                item: i,
            }),
        }
    }
    out
}

fn is_star(e: &Expr) -> bool {
    matches!(e, Expr::Column { column, .. } if column == "*")
}

fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Literal(_) => true,
        Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => is_constant(expr),
        Expr::Binary { left, right, .. } => is_constant(left) && is_constant(right),
        _ => false,
    }
}

/// Does an ORDER BY term name this select item, by expression or by its result name?
fn orders_item(order: &Expr, item: &crate::SelectItem) -> bool {
    if *order == item.expr {
        return true;
    }
    match (order, &item.alias) {
        (
            Expr::Column {
                alias: None,
                column,
            },
            Some(name),
        ) => column.eq_ignore_ascii_case(name),
        _ => false,
    }
}

impl Lowerer<'_> {
    fn query(&self, plan: &Plan, outermost: bool) -> Result<Query, LowerError> {
        let visible_before = self.ctes.borrow().len();
        let query = self.query_in_scope(plan, outermost);
        self.ctes.borrow_mut().truncate(visible_before);
        self.cte_kinds.borrow_mut().truncate(visible_before);
        query
    }

    /// The query of `plan` rewritten first where the dialect lacks a construct of it
    /// (grouping sets on SQLite, percentile aggregates); `None` when nothing needs it.
    /// Apart from [`Self::query_in_scope`] so that the rewritten plan does not widen the
    /// frame every nested query recurses through.
    #[inline(never)]
    fn rewritten(&self, plan: &Plan, outermost: bool) -> Option<Result<Query, LowerError>> {
        let d = self.dialect;
        let taken = |name: &str| {
            self.schema.table(name).is_some()
                || self
                    .ctes
                    .borrow()
                    .iter()
                    .any(|(c, _)| c.eq_ignore_ascii_case(name))
        };
        let as_union = match d {
            Dialect::Sqlite => !plan.grouping_sets.is_empty(),
            Dialect::MySql => grouping::mysql_needs_union(plan),
            _ => false,
        };
        let rewritten = if as_union {
            grouping::as_union(plan, &taken)
        } else if d == Dialect::MySql && grouping::rollup_needs_outside(plan, outermost) {
            grouping::rollup_outside(plan, &taken)
        } else if percentiles::needed(plan, d) {
            percentiles::ranked(plan, d, &taken)
        } else {
            return None;
        };
        Some(rewritten.and_then(|p| self.query_in_scope(&p, outermost)))
    }

    fn query_in_scope(&self, plan: &Plan, outermost: bool) -> Result<Query, LowerError> {
        let d = self.dialect;
        if let Some(query) = self.rewritten(plan, outermost) {
            return query;
        }
        if d == Dialect::SqlServer && !outermost && !plan.ctes.is_empty() {
            return fail(
                "SQL Server has no WITH inside a subquery or CTE; define every CTE at the top.",
            );
        }
        let with = if plan.ctes.is_empty() {
            None
        } else {
            let mut cte_tables = Vec::with_capacity(plan.ctes.len());
            for c in &plan.ctes {
                if c.recursive {
                    recursive_supported(c, d)?;
                }
                let columns = result_columns(&c.plan, self.schema, &self.ctes.borrow());
                let kinds = self.result_kinds(&c.plan, &columns);
                let names = columns.into_iter().map(|c| c.name).collect();
                // A recursive CTE reads itself with its first part's columns.
                let query = if c.recursive {
                    self.ctes.borrow_mut().push((c.name.clone(), names));
                    self.cte_kinds.borrow_mut().push(kinds);
                    self.query(&c.plan, false)?
                } else {
                    let query = self.query(&c.plan, false)?;
                    self.ctes.borrow_mut().push((c.name.clone(), names));
                    self.cte_kinds.borrow_mut().push(kinds);
                    query
                };
                cte_tables.push(ast::Cte {
                    alias: TableAlias {
                        explicit: false,
                        ..table_alias(ident(&c.name, d))
                    },
                    query: Box::new(query),
                    from: None,
                    materialized: None,
                    closing_paren_token: AttachedToken::empty(),
                });
            }
            Some(ast::With {
                with_token: AttachedToken::empty(),
                // SQL Server reads recursion from the CTE itself and has no keyword for it.
                recursive: d != Dialect::SqlServer && plan.ctes.iter().any(|c| c.recursive),
                cte_tables,
            })
        };

        let mut body = SetExpr::Select(Box::new(self.select(plan)?));
        for s in &plan.set_operations {
            if !s.plan.set_operations.is_empty()
                || !s.plan.ctes.is_empty()
                || !s.plan.order_by.is_empty()
                || s.plan.limit.is_some()
                || s.plan.offset.is_some()
            {
                return fail(
                    "A plan combined by a set operation takes no with, set_operations, order_by, \
                     limit or offset of its own; put ordering and limits on the first plan.",
                );
            }
            let (op, set_quantifier) = match s.op {
                SetOperator::Union => (ast::SetOperator::Union, SetQuantifier::None),
                SetOperator::UnionAll => (ast::SetOperator::Union, SetQuantifier::All),
                SetOperator::Intersect => (ast::SetOperator::Intersect, SetQuantifier::None),
                SetOperator::Except => (ast::SetOperator::Except, SetQuantifier::None),
            };
            // The plan combines left to right. SQLite reads a chain that way (and cannot
            // parenthesise one); the others bind INTERSECT tighter, so the left side gets
            // parentheses there.
            let left = match body {
                SetExpr::SetOperation { .. } if self.dialect != Dialect::Sqlite => {
                    SetExpr::Query(Box::new(bare_query(body)))
                }
                body => body,
            };
            body = SetExpr::SetOperation {
                left: Box::new(left),
                op,
                set_quantifier,
                right: Box::new(SetExpr::Select(Box::new(self.select(&s.plan)?))),
            };
        }

        let limit = match (plan.limit, outermost) {
            (Some(n), _) if n < 1 => return fail("limit must be at least 1."),
            (Some(n), true) => Some(u64::try_from(n).unwrap_or(0).min(self.row_cap)),
            (None, true) => Some(self.row_cap),
            (Some(n), false) => Some(u64::try_from(n).unwrap_or(0)),
            (None, false) => None,
        };
        let offset = match plan.offset {
            Some(n) if n < 0 => return fail("offset must not be negative."),
            Some(_) if plan.order_by.is_empty() => {
                return fail("offset needs an order_by: a page only means something in an order.")
            }
            other => other,
        };

        // An order only means something where rows are cut: a CTE or subquery without a
        // limit or offset is unordered (SQL Server refuses an ORDER BY there).
        let ordered = outermost || limit.is_some() || offset.is_some();
        let mut order = Vec::new();
        if ordered {
            self.push_scope(plan)?;
            let terms = self.order_by(plan).and_then(|mut order| {
                order.extend(self.tie_breakers(plan)?);
                Ok(order)
            });
            self.pop_scope();
            order = terms?;
        }
        if d == Dialect::SqlServer && limit.is_some() && order.is_empty() {
            // OFFSET … FETCH needs an ORDER BY; this one orders nothing.
            order.push(order_by_expr(
                SqlExpr::Subquery(Box::new(constant_query())),
                crate::Direction::Asc,
            ));
        }
        let (limit_clause, fetch) = self.limit_clause(limit, offset);
        Ok(Query {
            with,
            body: Box::new(body),
            order_by: (!order.is_empty()).then_some(OrderBy {
                kind: OrderByKind::Expressions(order),
                interpolate: None,
            }),
            limit_clause,
            fetch,
            locks: vec![],
            for_clause: None,
            settings: None,
            format_clause: None,
            pipe_operators: vec![],
        })
    }

    fn limit_clause(
        &self,
        limit: Option<u64>,
        offset: Option<i64>,
    ) -> (Option<LimitClause>, Option<ast::Fetch>) {
        let count = |n: u64| int(i64::try_from(n).unwrap_or(i64::MAX));
        if self.dialect == Dialect::SqlServer {
            if limit.is_none() && offset.is_none() {
                return (None, None);
            }
            let offset = Offset {
                value: int(offset.unwrap_or(0)),
                rows: OffsetRows::Rows,
            };
            return (
                Some(LimitClause::LimitOffset {
                    limit: None,
                    offset: Some(offset),
                    limit_by: vec![],
                }),
                limit.map(|n| ast::Fetch {
                    with_ties: false,
                    percent: false,
                    quantity: Some(count(n)),
                }),
            );
        }
        if limit.is_none() && offset.is_none() {
            return (None, None);
        }
        (
            Some(LimitClause::LimitOffset {
                // MySQL has no OFFSET without LIMIT; the largest count stands in for "all".
                limit: Some(count(limit.unwrap_or(i64::MAX as u64))),
                offset: offset.map(|n| Offset {
                    value: int(n),
                    rows: OffsetRows::None,
                }),
                limit_by: vec![],
            }),
            None,
        )
    }

    /// The result position (1-based) an ORDER BY term names: a selected expression's first
    /// column, or the column of that result name. `*` counts as all its columns.
    fn position_of(&self, plan: &Plan, e: &Expr) -> Option<usize> {
        let columns = result_columns(plan, self.schema, &self.ctes.borrow());
        if let Some(i) = plan
            .select_items
            .iter()
            .position(|item| item.expr == *e && !is_star(&item.expr))
        {
            return columns.iter().position(|c| c.item == i).map(|k| k + 1);
        }
        let Expr::Column {
            alias: None,
            column,
        } = e
        else {
            return None;
        };
        columns
            .iter()
            .position(|c| {
                c.name
                    .as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(column))
            })
            .map(|k| k + 1)
    }

    /// The declared result alias a bare name refers to, if any.
    fn result_alias<'p>(&self, plan: &'p Plan, e: &Expr) -> Option<&'p str> {
        let Expr::Column {
            alias: None,
            column,
        } = e
        else {
            return None;
        };
        plan.select_items
            .iter()
            .filter_map(|item| item.alias.as_deref())
            .find(|a| a.eq_ignore_ascii_case(column))
    }

    fn order_by(&self, plan: &Plan) -> Result<Vec<OrderByExpr>, LowerError> {
        let d = self.dialect;
        let mut out = Vec::with_capacity(plan.order_by.len() + plan.select_items.len());
        for o in &plan.order_by {
            if is_constant(&o.expr) {
                // Ordering by a constant orders nothing, and a bare number would be read as
                // a position.
                continue;
            }
            let expr = if !plan.set_operations.is_empty() {
                // After a set operation only result columns exist; name them by position.
                match self.position_of(plan, &o.expr) {
                    Some(k) => int(i64::try_from(k).unwrap_or(i64::MAX)),
                    None => {
                        return fail(
                            "After a set operation, order_by can only name result columns: \
                             a selected expression, or a result name.",
                        )
                    }
                }
            } else if let Some(alias) = self.result_alias(plan, &o.expr) {
                SqlExpr::Identifier(ident(alias, d))
            } else if let Some(i) = plan.select_items.iter().position(|i| i.expr == o.expr) {
                self.selected(plan, i)?
            } else {
                self.expr(&self.with_results(plan, &o.expr))?
            };
            out.extend(self.ordering(expr, o, || {
                // The is-null key repeats the value; after a set operation only positions
                // exist, and SQL Server orders a DISTINCT by selected items alone.
                if !plan.set_operations.is_empty() || (plan.distinct && d == Dialect::SqlServer) {
                    return fail(format!(
                        "{d} has no NULLS FIRST/LAST, and this ordering can only name a \
                         result column{}: order without nulls, or from an outer query.",
                        if plan.distinct {
                            " of a DISTINCT"
                        } else {
                            " after a set operation"
                        }
                    ));
                }
                self.expr(&self.with_results(plan, &o.expr))
            })?);
        }
        Ok(out)
    }

    /// How ORDER BY names select item `i`: by its result name when it has one (valid after
    /// DISTINCT, where some databases refuse expressions); a column by itself; any other
    /// expression by its position, since SQLite reads an expression it can fold to a number
    /// (`0 AND x`) as a position too, and repeating a window is long.
    fn selected(&self, plan: &Plan, i: usize) -> Result<SqlExpr, LowerError> {
        let Some(item) = plan.select_items.get(i) else {
            return fail("no such select item");
        };
        if let Some(a) = &item.alias {
            return Ok(SqlExpr::Identifier(ident(a, self.dialect)));
        }
        if let Expr::Column { .. } = item.expr {
            return self.expr(&item.expr);
        }
        let columns = result_columns(plan, self.schema, &self.ctes.borrow());
        match columns.iter().position(|c| c.item == i) {
            Some(k) => Ok(int(i64::try_from(k + 1).unwrap_or(i64::MAX))),
            None => self.expr(&item.expr),
        }
    }

    /// `e` with result names replaced by what they stand for: PostgreSQL and SQL Server
    /// accept a result name only as a whole ORDER BY term, not inside an expression or in
    /// HAVING.
    fn with_results(&self, plan: &Plan, e: &Expr) -> Expr {
        crate::walk::with_result_names(plan, e)
    }

    /// Every non-constant selected expression not yet ordered on, named as [`Self::selected`]
    /// names it (by position after a set operation; `*` as each of its columns), so LIMIT
    /// keeps the same rows.
    /// A plan that returns at most one row needs none: there is no tie to break.
    fn tie_breakers(&self, plan: &Plan) -> Result<Vec<OrderByExpr>, LowerError> {
        if crate::walk::at_most_one_row(plan) {
            return Ok(Vec::new());
        }
        let ordered: Vec<usize> = plan
            .order_by
            .iter()
            .filter_map(|o| self.position_of(plan, &o.expr))
            .collect();
        let mut out = Vec::new();
        if !plan.set_operations.is_empty() {
            // Only result positions exist after a set operation: every one not yet ordered.
            let columns = result_columns(plan, self.schema, &self.ctes.borrow());
            for (k, column) in columns.iter().enumerate() {
                let constant = plan
                    .select_items
                    .get(column.item)
                    .is_some_and(|item| is_constant(&item.expr));
                if !constant && !ordered.contains(&(k + 1)) {
                    out.push(order_by_expr(
                        int(i64::try_from(k + 1).unwrap_or(i64::MAX)),
                        crate::Direction::Asc,
                    ));
                }
            }
            return Ok(out);
        }
        for (i, item) in plan.select_items.iter().enumerate() {
            if is_constant(&item.expr) {
                continue;
            }
            if plan.order_by.iter().any(|o| orders_item(&o.expr, item)) {
                continue;
            }
            let duplicate = plan.select_items[..i]
                .iter()
                .any(|earlier| earlier.expr == item.expr && earlier.alias == item.alias);
            if duplicate {
                continue;
            }
            if let Expr::Column { alias, column } = &item.expr {
                if column == "*" {
                    out.extend(self.star_columns(alias.as_deref()));
                    continue;
                }
            }
            out.push(order_by_expr(
                self.selected(plan, i)?,
                crate::Direction::Asc,
            ));
        }
        Ok(out)
    }

    /// The columns `*` (or `alias.*`) stands for in the innermost scope, as ORDER BY terms.
    fn star_columns(&self, alias: Option<&str>) -> Vec<OrderByExpr> {
        let d = self.dialect;
        let scopes = self.scopes.borrow();
        let Some(scope) = scopes.last() else {
            return vec![];
        };
        scope
            .iter()
            .filter(|b| alias.is_none_or(|a| b.alias.eq_ignore_ascii_case(a)))
            .flat_map(|b| {
                b.source.columns().into_iter().map(move |c| {
                    order_by_expr(
                        SqlExpr::CompoundIdentifier(vec![ident(&b.alias, d), ident(c, d)]),
                        crate::Direction::Asc,
                    )
                })
            })
            .collect()
    }

    /// Brings a plan's aliases into scope. A table is a visible CTE (innermost first) or a
    /// table of the datasource; any other name is refused, so no unknown name is ever
    /// written into SQL.
    fn push_scope(&self, plan: &Plan) -> Result<(), LowerError> {
        let mut scope = Vec::with_capacity(plan.tables.len());
        for t in &plan.tables {
            let cte = self
                .ctes
                .borrow()
                .iter()
                .rev()
                .find(|(n, _)| n.eq_ignore_ascii_case(&t.name))
                .cloned();
            let source = match (cte, self.schema.table(&t.name)) {
                (Some((name, names)), _) => Source::Cte(name, names),
                (None, Some(table)) => Source::Table(table),
                (None, None) => {
                    return fail(format!(
                        "Table {} is not in the datasource, and no CTE has that name.",
                        t.name
                    ))
                }
            };
            scope.push(Bound {
                alias: t.alias.clone(),
                source,
            });
        }
        self.scopes.borrow_mut().push(scope);
        Ok(())
    }

    fn pop_scope(&self) {
        self.scopes.borrow_mut().pop();
    }

    /// An alias in scope (innermost first), with its declared spelling and source.
    pub(super) fn bound(&self, alias: &str) -> Option<Bound<'_>> {
        self.scopes
            .borrow()
            .iter()
            .rev()
            .find_map(|scope| scope.iter().find(|b| b.alias.eq_ignore_ascii_case(alias)))
            .cloned()
    }

    /// What a column is read from: its alias's source, or (bare) the innermost source that
    /// has the name, as the validator resolves it.
    fn source_of(&self, alias: Option<&str>, column: &str) -> Option<Bound<'_>> {
        match alias {
            Some(a) => self.bound(a),
            None => self
                .scopes
                .borrow()
                .iter()
                .rev()
                .find_map(|scope| scope.iter().find(|b| b.source.spelling(column).is_some()))
                .cloned(),
        }
    }

    /// A table column's declared type; `None` for a CTE's column (its type is not known,
    /// and an outer table's same name must not answer for it) or a name not found.
    pub(super) fn declared_type(&self, alias: Option<&str>, column: &str) -> Option<String> {
        match self.source_of(alias, column)?.source {
            Source::Table(t) => t.column(column).map(|c| c.declared_type.clone()),
            Source::Cte(..) => None,
        }
    }

    /// A column's declared spelling, with its alias's.
    pub(super) fn spelled(&self, alias: Option<&str>, column: &str) -> (Option<String>, String) {
        let bound = self.source_of(alias, column);
        let spelling = bound
            .as_ref()
            .and_then(|b| b.source.spelling(column))
            .unwrap_or(column)
            .to_string();
        let alias = match (alias, &bound) {
            (Some(_), Some(b)) => Some(b.alias.clone()),
            (a, _) => a.map(str::to_string),
        };
        (alias, spelling)
    }

    fn select(&self, plan: &Plan) -> Result<Select, LowerError> {
        self.push_scope(plan)?;
        let select = self.select_in_scope(plan);
        self.pop_scope();
        select
    }

    /// `GROUP BY`: the expressions, or their grouping sets (`WITH ROLLUP` on MySQL, which
    /// has nothing else; SQLite's are written as a union by [`Self::query_in_scope`]).
    fn group_by(&self, plan: &Plan) -> Result<GroupByExpr, LowerError> {
        let d = self.dialect;
        let lowered =
            |positions: &mut dyn Iterator<Item = usize>| -> Result<Vec<SqlExpr>, LowerError> {
                positions
                    .map(|i| match plan.group_by.get(i) {
                        Some(g) => self.expr(g),
                        None => fail(format!(
                            "grouping_sets names position {i}; group_by has {}.",
                            plan.group_by.len()
                        )),
                    })
                    .collect()
            };
        if plan.grouping_sets.is_empty() {
            return Ok(GroupByExpr::Expressions(
                lowered(&mut (0..plan.group_by.len()))?,
                vec![],
            ));
        }
        match d {
            Dialect::MySql => {
                let n = plan.group_by.len();
                if !grouping::is_rollup(plan) {
                    return fail(
                        "MySQL groups by ROLLUP only (WITH ROLLUP); not by these grouping sets.",
                    );
                }
                Ok(GroupByExpr::Expressions(
                    lowered(&mut (0..n))?,
                    vec![ast::GroupByWithModifier::Rollup],
                ))
            }
            Dialect::Sqlite => fail("SQLite has no grouping sets; they are written as a union."),
            _ => {
                let mut sets = Vec::with_capacity(plan.grouping_sets.len());
                for set in &plan.grouping_sets {
                    sets.push(lowered(&mut set.iter().copied())?);
                }
                Ok(GroupByExpr::Expressions(
                    vec![SqlExpr::GroupingSets(sets)],
                    vec![],
                ))
            }
        }
    }

    fn select_in_scope(&self, plan: &Plan) -> Result<Select, LowerError> {
        let d = self.dialect;
        if plan.select_items.is_empty() {
            return fail("select_items is empty: a plan must select at least one value.");
        }
        // No tables: one row of computed values (`SELECT (…) / (…)`).
        let from = if plan.tables.is_empty() {
            vec![]
        } else {
            vec![self.from(plan)?]
        };
        let mut projection = Vec::with_capacity(plan.select_items.len());
        for item in &plan.select_items {
            let e = self.star_or_expr(&item.expr)?;
            projection.push(match (e, &item.alias) {
                // MySQL takes a bare `*` only first in the list; elsewhere it is each
                // table's columns, in the order FROM reads them.
                (FunctionArgExpr::Wildcard, _) if d == Dialect::MySql && !projection.is_empty() => {
                    let aliases = from.iter().flat_map(|f| {
                        std::iter::once(&f.relation)
                            .chain(f.joins.iter().map(|j| &j.relation))
                            .filter_map(|t| match t {
                                ast::TableFactor::Table { alias, .. }
                                | ast::TableFactor::Derived { alias, .. } => alias.as_ref(),
                                _ => None,
                            })
                    });
                    let stars: Vec<SelectItem> = aliases
                        .map(|a| {
                            SelectItem::QualifiedWildcard(
                                ast::SelectItemQualifiedWildcardKind::ObjectName(object_name(
                                    a.name.clone(),
                                )),
                                Default::default(),
                            )
                        })
                        .collect();
                    if stars.is_empty() {
                        return fail("`*` after other values needs a table to read on MySQL.");
                    }
                    projection.extend(stars);
                    continue;
                }
                (FunctionArgExpr::Wildcard, _) => SelectItem::Wildcard(Default::default()),
                (FunctionArgExpr::QualifiedWildcard(name), _) => SelectItem::QualifiedWildcard(
                    ast::SelectItemQualifiedWildcardKind::ObjectName(name),
                    Default::default(),
                ),
                (FunctionArgExpr::Expr(expr), Some(a)) => SelectItem::ExprWithAlias {
                    expr,
                    alias: ident(a, d),
                },
                (FunctionArgExpr::Expr(expr), None) => SelectItem::UnnamedExpr(expr),
                (FunctionArgExpr::WildcardWithOptions(_), _) => {
                    return fail("unsupported select item")
                }
            });
        }
        let group_by = self.group_by(plan)?;
        Ok(Select {
            select_token: AttachedToken::empty(),
            optimizer_hints: vec![],
            distinct: plan.distinct.then_some(ast::Distinct::Distinct),
            select_modifiers: None,
            top: None,
            top_before_distinct: false,
            projection,
            exclude: None,
            into: None,
            from,
            lateral_views: vec![],
            prewhere: None,
            selection: plan.filter.as_ref().map(|f| self.expr(f)).transpose()?,
            connect_by: vec![],
            group_by,
            cluster_by: vec![],
            distribute_by: vec![],
            sort_by: vec![],
            having: plan
                .having
                .as_ref()
                .map(|h| self.expr(&self.with_results(plan, h)))
                .transpose()?,
            named_window: vec![],
            qualify: None,
            window_before_qualify: false,
            value_table_mode: None,
            flavor: SelectFlavor::Standard,
        })
    }

    fn table_factor(&self, t: &TableRef) -> Result<TableFactor, LowerError> {
        let d = self.dialect;
        // The declared spelling: the table's (with its schema when it is not the
        // connection's own), or the CTE's.
        let name = match self.bound(&t.alias).map(|b| b.source) {
            Some(Source::Table(table)) => match &table.schema {
                Some(schema) => ast::ObjectName(vec![
                    ast::ObjectNamePart::Identifier(ident(schema, d)),
                    ast::ObjectNamePart::Identifier(ident(table.bare_name(), d)),
                ]),
                None => object_name(ident(&table.name, d)),
            },
            Some(Source::Cte(name, _)) => object_name(ident(&name, d)),
            None => return fail(format!("Alias {} is not in scope.", t.alias)),
        };
        Ok(TableFactor::Table {
            name,
            alias: Some(table_alias(ident(&t.alias, d))),
            args: None,
            with_hints: vec![],
            version: None,
            with_ordinality: false,
            partitions: vec![],
            json_path: None,
            sample: None,
            index_directives: vec![],
            inheritance: None,
        })
    }

    /// FROM the first table, then each join whose one side is already placed, in
    /// dependency order. An outer join is mirrored when the new table is its left side.
    fn from(&self, plan: &Plan) -> Result<TableWithJoins, LowerError> {
        let Some(first) = plan.tables.first() else {
            return fail("tables is empty: a plan must read at least one table.");
        };
        let find = |alias: &str| {
            plan.tables
                .iter()
                .find(|t| t.alias.eq_ignore_ascii_case(alias))
        };
        let has =
            |placed: &[&str], alias: &str| placed.iter().any(|p| p.eq_ignore_ascii_case(alias));
        let mut placed: Vec<&str> = vec![first.alias.as_str()];
        let mut pending: Vec<&crate::Join> = plan.joins.iter().collect();
        let mut joins = Vec::with_capacity(pending.len());
        while !pending.is_empty() {
            let next = pending
                .iter()
                .position(|j| has(&placed, &j.left_alias) != has(&placed, &j.right_alias));
            let Some(i) = next else {
                let j = pending[0];
                if has(&placed, &j.left_alias) {
                    return fail(format!(
                        "Aliases {} and {} are joined more than once; put every condition \
                         between them in one join.",
                        j.left_alias, j.right_alias
                    ));
                }
                return fail(format!(
                    "The join of {} and {} does not connect to the FROM table {}: join one of \
                     them to a table already joined.",
                    j.left_alias, j.right_alias, first.alias
                ));
            };
            let j = pending.remove(i);
            let left_placed = has(&placed, &j.left_alias);
            let (new_alias, mirrored) = if left_placed {
                (j.right_alias.as_str(), false)
            } else {
                (j.left_alias.as_str(), true)
            };
            let Some(table) = find(new_alias) else {
                return fail(format!(
                    "The join names alias {new_alias}, which no table in tables declares."
                ));
            };
            let mut later = None;
            let condition = match (&j.condition, j.join_type) {
                (None, crate::JoinType::Cross) => None,
                (Some(_), crate::JoinType::Cross) => {
                    return fail(format!(
                        "The cross join of {} and {} takes no condition: make it an inner join, \
                         or move the condition to where.",
                        j.left_alias, j.right_alias
                    ));
                }
                (Some(on), _) => Some(on),
                (None, _) => {
                    return fail(format!(
                        "The join of {} and {} has no condition: give it one, or make it a \
                         cross join.",
                        j.left_alias, j.right_alias
                    ))
                }
            };
            if let Some(c) = condition {
                crate::walk::each_node(c, &mut |e| {
                    if let Expr::Column { alias: Some(a), .. } = e {
                        let declared_here =
                            plan.tables.iter().any(|t| t.alias.eq_ignore_ascii_case(a));
                        let available = placed.iter().any(|p| p.eq_ignore_ascii_case(a))
                            || new_alias.eq_ignore_ascii_case(a);
                        if declared_here && !available && later.is_none() {
                            later = Some(a.clone());
                        }
                    }
                });
            }
            if let Some(a) = later {
                return fail(format!(
                    "The join of {} and {} uses {a}, which is joined only later; move that \
                     condition to the join that brings {a} in, or to where.",
                    j.left_alias, j.right_alias
                ));
            }
            if self.dialect == Dialect::MySql && j.join_type == crate::JoinType::Full {
                return fail(
                    "MySQL has no FULL JOIN; use a LEFT JOIN and a RIGHT JOIN combined with UNION.",
                );
            }
            let on = match condition {
                Some(c) => JoinConstraint::On(self.expr(c)?),
                None => JoinConstraint::None,
            };
            use crate::JoinType;
            let join_operator = match (j.join_type, mirrored) {
                (JoinType::Cross, _) => JoinOperator::CrossJoin(on),
                (JoinType::Inner, _) => JoinOperator::Join(on),
                (JoinType::Left, false) | (JoinType::Right, true) => JoinOperator::LeftOuter(on),
                (JoinType::Right, false) | (JoinType::Left, true) => JoinOperator::RightOuter(on),
                (JoinType::Full, _) => JoinOperator::FullOuter(on),
            };
            joins.push(ast::Join {
                relation: self.table_factor(table)?,
                global: false,
                join_operator,
            });
            placed.push(table.alias.as_str());
        }
        let stranded: Vec<&str> = plan
            .tables
            .iter()
            .map(|t| t.alias.as_str())
            .filter(|a| !has(&placed, a))
            .collect();
        if !stranded.is_empty() {
            return fail(format!(
                "Table alias(es) {} are declared in the plan but never joined to the FROM table.",
                stranded.join(", ")
            ));
        }
        Ok(TableWithJoins {
            relation: self.table_factor(first)?,
            joins,
        })
    }
}

fn table_alias(name: Ident) -> TableAlias {
    TableAlias {
        explicit: true,
        name,
        columns: vec![],
        at: None,
    }
}

/// A query of just this body: no WITH, order or limit.
fn bare_query(body: SetExpr) -> Query {
    Query {
        with: None,
        body: Box::new(body),
        order_by: None,
        limit_clause: None,
        fetch: None,
        locks: vec![],
        for_clause: None,
        settings: None,
        format_clause: None,
        pipe_operators: vec![],
    }
}

/// `SELECT NULL`, the T-SQL idiom for an ORDER BY that orders nothing.
fn constant_query() -> Query {
    let select = Select {
        select_token: AttachedToken::empty(),
        optimizer_hints: vec![],
        distinct: None,
        select_modifiers: None,
        top: None,
        top_before_distinct: false,
        projection: vec![SelectItem::UnnamedExpr(build::null())],
        exclude: None,
        into: None,
        from: vec![],
        lateral_views: vec![],
        prewhere: None,
        selection: None,
        connect_by: vec![],
        group_by: GroupByExpr::Expressions(vec![], vec![]),
        cluster_by: vec![],
        distribute_by: vec![],
        sort_by: vec![],
        having: None,
        named_window: vec![],
        qualify: None,
        window_before_qualify: false,
        value_table_mode: None,
        flavor: SelectFlavor::Standard,
    };
    bare_query(SetExpr::Select(Box::new(select)))
}

#[cfg(test)]
mod tests;
