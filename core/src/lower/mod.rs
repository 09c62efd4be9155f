//! The one path from a plan to SQL: [`lower`] builds a sqlparser [`Query`] for a dialect.
//!
//! The validator calls it to prove a plan buildable and the generator calls it to render,
//! so the two cannot disagree about which plans work. Every name and text in the output went
//! through [`build`]'s quoting; LIMIT is always bounded by the row cap; ORDER BY is
//! completed with tie-breakers so a LIMIT keeps the same rows on every run.

mod build;
mod dates;
mod expr;

use crate::datasource::Dialect;
use crate::plan::{Expr, Plan, SetOperator, TableRef};
use crate::schema::SchemaSnapshot;
use build::{ident, int, object_name};
use expr::order_by_expr;
use sqlparser::ast::{
    self, helpers::attached_token::AttachedToken, Expr as SqlExpr, FunctionArgExpr, GroupByExpr,
    Ident, JoinConstraint, JoinOperator, LimitClause, Offset, OffsetRows, OrderBy, OrderByExpr,
    OrderByKind, Query, Select, SelectFlavor, SelectItem, SetExpr, SetQuantifier, TableAlias,
    TableFactor, TableWithJoins,
};
use std::fmt;

pub use expr::arity;

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

/// Why a plan cannot be built into SQL, in plan terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LowerError {}

fn fail<T>(message: impl Into<String>) -> Result<T, LowerError> {
    Err(LowerError {
        message: message.into(),
    })
}

/// Builds the SQL query for `plan` in `dialect`. Table names take the schema's spelling.
pub fn lower(
    plan: &Plan,
    schema: &SchemaSnapshot,
    dialect: Dialect,
    options: &LowerOptions,
) -> Result<Query, LowerError> {
    let lowerer = Lowerer {
        dialect,
        schema,
        today: options.today.as_deref(),
        row_cap: options.row_cap,
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

/// The sqlparser dialect that reads a dialect's SQL.
pub fn sql_dialect(dialect: Dialect) -> &'static dyn sqlparser::dialect::Dialect {
    use sqlparser::dialect::{
        DuckDbDialect, MsSqlDialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect,
    };
    static SQLITE: SQLiteDialect = SQLiteDialect {};
    static POSTGRES: PostgreSqlDialect = PostgreSqlDialect {};
    static MYSQL: MySqlDialect = MySqlDialect {};
    static DUCKDB: DuckDbDialect = DuckDbDialect {};
    static MSSQL: MsSqlDialect = MsSqlDialect {};
    match dialect {
        Dialect::Sqlite => &SQLITE,
        Dialect::Postgres => &POSTGRES,
        Dialect::MySql => &MYSQL,
        Dialect::DuckDb => &DUCKDB,
        Dialect::SqlServer => &MSSQL,
    }
}

pub(crate) struct Lowerer<'a> {
    dialect: Dialect,
    schema: &'a SchemaSnapshot,
    today: Option<&'a str>,
    row_cap: u64,
}

fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Literal(_) => true,
        Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => is_constant(expr),
        Expr::Binary { left, right, .. } => is_constant(left) && is_constant(right),
        _ => false,
    }
}

fn is_star(e: &Expr) -> bool {
    matches!(e, Expr::Column { column, .. } if column == "*")
}

/// Does an ORDER BY term name this select item, by expression or by its result name?
fn orders_item(order: &Expr, item: &crate::plan::SelectItem) -> bool {
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
        let d = self.dialect;
        let with = if plan.ctes.is_empty() {
            None
        } else {
            let mut cte_tables = Vec::with_capacity(plan.ctes.len());
            for c in &plan.ctes {
                cte_tables.push(ast::Cte {
                    alias: TableAlias {
                        explicit: false,
                        ..table_alias(ident(&c.name, d))
                    },
                    query: Box::new(self.query(&c.plan, false)?),
                    from: None,
                    materialized: None,
                    closing_paren_token: AttachedToken::empty(),
                });
            }
            Some(ast::With {
                with_token: AttachedToken::empty(),
                recursive: false,
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
            if s.plan.select_items.len() != plan.select_items.len() {
                return fail(format!(
                    "Every plan of a set operation must select the same number of columns: the \
                     first selects {}, a {} member selects {}.",
                    plan.select_items.len(),
                    set_op_name(s.op),
                    s.plan.select_items.len()
                ));
            }
            let (op, set_quantifier) = match s.op {
                SetOperator::Union => (ast::SetOperator::Union, SetQuantifier::None),
                SetOperator::UnionAll => (ast::SetOperator::Union, SetQuantifier::All),
                SetOperator::Intersect => (ast::SetOperator::Intersect, SetQuantifier::None),
                SetOperator::Except => (ast::SetOperator::Except, SetQuantifier::None),
            };
            body = SetExpr::SetOperation {
                left: Box::new(body),
                op,
                set_quantifier,
                right: Box::new(SetExpr::Select(Box::new(self.select(&s.plan)?))),
            };
        }

        let limit = match (plan.limit, outermost) {
            (Some(n), _) if n < 0 => return fail("limit must not be negative."),
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

        let mut order = self.order_by(plan)?;
        if limit.is_some() {
            order.extend(self.tie_breakers(plan)?);
        }
        if d == Dialect::SqlServer && limit.is_some() && order.is_empty() {
            // OFFSET … FETCH needs an ORDER BY; this one orders nothing.
            order.push(order_by_expr(
                SqlExpr::Subquery(Box::new(constant_query())),
                crate::plan::Direction::Asc,
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

    fn order_by(&self, plan: &Plan) -> Result<Vec<OrderByExpr>, LowerError> {
        let d = self.dialect;
        let combined = !plan.set_operations.is_empty();
        // A selected expression is ordered by its result name when it has one: the name is
        // valid after DISTINCT and set operations, where some databases refuse expressions.
        let alias_of = |e: &Expr| -> Option<SqlExpr> {
            plan.select_items
                .iter()
                .find(|item| item.expr == *e)
                .and_then(|item| item.alias.as_ref())
                .map(|a| SqlExpr::Identifier(ident(a, d)))
        };
        let mut out = Vec::with_capacity(plan.order_by.len() + plan.select_items.len());
        for o in &plan.order_by {
            if combined {
                if let Expr::Column { alias: Some(_), .. } = &o.expr {
                    if alias_of(&o.expr).is_none() {
                        return fail(
                            "After a set operation, order_by can only name result columns (a \
                             column with no alias, named as selected).",
                        );
                    }
                }
            }
            out.push(self.order_item(o, Some(&alias_of))?);
        }
        Ok(out)
    }

    /// Every non-constant selected expression not yet ordered on, by result name when it
    /// has one (by position after a set operation), so LIMIT keeps the same rows.
    fn tie_breakers(&self, plan: &Plan) -> Result<Vec<OrderByExpr>, LowerError> {
        let d = self.dialect;
        let combined = !plan.set_operations.is_empty();
        let mut out = Vec::new();
        for (i, item) in plan.select_items.iter().enumerate() {
            if is_constant(&item.expr) || is_star(&item.expr) {
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
            let expr = match (&item.alias, combined) {
                (_, true) => int(i64::try_from(i + 1).unwrap_or(i64::MAX)),
                (Some(a), false) => SqlExpr::Identifier(ident(a, d)),
                (None, false) => self.expr(&item.expr)?,
            };
            out.push(order_by_expr(expr, crate::plan::Direction::Asc));
        }
        Ok(out)
    }

    fn select(&self, plan: &Plan) -> Result<Select, LowerError> {
        let d = self.dialect;
        if plan.select_items.is_empty() {
            return fail("select_items is empty: a plan must select at least one value.");
        }
        let mut projection = Vec::with_capacity(plan.select_items.len());
        for item in &plan.select_items {
            let e = self.star_or_expr(&item.expr)?;
            projection.push(match (e, &item.alias) {
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
        let mut group_by = Vec::with_capacity(plan.group_by.len());
        for g in &plan.group_by {
            group_by.push(self.expr(g)?);
        }
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
            from: vec![self.from(plan)?],
            lateral_views: vec![],
            prewhere: None,
            selection: plan.filter.as_ref().map(|f| self.expr(f)).transpose()?,
            connect_by: vec![],
            group_by: GroupByExpr::Expressions(group_by, vec![]),
            cluster_by: vec![],
            distribute_by: vec![],
            sort_by: vec![],
            having: plan.having.as_ref().map(|h| self.expr(h)).transpose()?,
            named_window: vec![],
            qualify: None,
            window_before_qualify: false,
            value_table_mode: None,
            flavor: SelectFlavor::Standard,
        })
    }

    fn table_factor(&self, t: &TableRef) -> TableFactor {
        let d = self.dialect;
        // The schema's own spelling; a CTE name as the plan writes it.
        let name = self
            .schema
            .table(&t.name)
            .map_or(t.name.as_str(), |table| table.name.as_str());
        TableFactor::Table {
            name: object_name(ident(name, d)),
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
        }
    }

    /// FROM the first table, then each join whose one side is already placed, in
    /// dependency order. An outer join is mirrored when the new table is its left side.
    fn from(&self, plan: &Plan) -> Result<TableWithJoins, LowerError> {
        let Some(first) = plan.tables.first() else {
            return fail("tables is empty: a plan must read at least one table.");
        };
        let find = |alias: &str| plan.tables.iter().find(|t| t.alias == alias);
        let mut placed: Vec<&str> = vec![first.alias.as_str()];
        let mut pending: Vec<&crate::plan::Join> = plan.joins.iter().collect();
        let mut joins = Vec::with_capacity(pending.len());
        while !pending.is_empty() {
            let next = pending.iter().position(|j| {
                placed.contains(&j.left_alias.as_str()) != placed.contains(&j.right_alias.as_str())
            });
            let Some(i) = next else {
                let j = pending[0];
                if placed.contains(&j.left_alias.as_str()) {
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
            let left_placed = placed.contains(&j.left_alias.as_str());
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
            let on = JoinConstraint::On(self.expr(&j.condition)?);
            use crate::plan::JoinType;
            let join_operator = match (j.join_type, mirrored) {
                (JoinType::Inner, _) => JoinOperator::Join(on),
                (JoinType::Left, false) | (JoinType::Right, true) => JoinOperator::LeftOuter(on),
                (JoinType::Right, false) | (JoinType::Left, true) => JoinOperator::RightOuter(on),
                (JoinType::Full, _) => JoinOperator::FullOuter(on),
            };
            joins.push(ast::Join {
                relation: self.table_factor(table),
                global: false,
                join_operator,
            });
            placed.push(new_alias);
        }
        let stranded: Vec<&str> = plan
            .tables
            .iter()
            .map(|t| t.alias.as_str())
            .filter(|a| !placed.contains(a))
            .collect();
        if !stranded.is_empty() {
            return fail(format!(
                "Table alias(es) {} are declared in the plan but never joined to the FROM table.",
                stranded.join(", ")
            ));
        }
        Ok(TableWithJoins {
            relation: self.table_factor(first),
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

fn set_op_name(op: SetOperator) -> &'static str {
    match op {
        SetOperator::Union => "UNION",
        SetOperator::UnionAll => "UNION ALL",
        SetOperator::Intersect => "INTERSECT",
        SetOperator::Except => "EXCEPT",
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
    Query {
        with: None,
        body: Box::new(SetExpr::Select(Box::new(select))),
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

#[cfg(test)]
mod tests;
