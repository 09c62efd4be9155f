//! SQL to plan: `import_sql` reads one read-only query and rewrites it as a [`Plan`], which
//! then takes the same road as a model's plan (validator, lowering). Verified queries, the
//! playground's SQL mode and gold suites come in this way, so no SQL reaches a database
//! without passing the validator and the policy.

use crate::ast::call;
use crate::dialect::sql_dialect;
use crate::dialect::Dialect;
use crate::functions::DateUnit;
use crate::schema::SchemaSnapshot;
use crate::ErrorKind;
use crate::{
    BinaryOp, CastType, Cte, Direction, Expr, Frame, FrameUnit, FuncCall, Join, JoinType, Literal,
    Nulls, OrderItem, Plan, SelectItem, SetOperation, SetOperator, TableRef, UnaryOp, When, Window,
};
use nl2sql_error::{ErrorCode, Node, PipelineError, Severity};
use sqlparser::ast::{
    self, BinaryOperator as Op, Expr as SqlExpr, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, JoinConstraint, JoinOperator, LimitClause, OrderByKind, Query, SetExpr,
    SetQuantifier, TableFactor, UnaryOperator, Value,
};

/// A rewrite of one query's own clauses before import; `Err` says what cannot be.
type QueryRewrite = fn(&mut Query) -> Result<(), String>;

/// Applies `rewrite` to every query in `query`, subqueries before the queries holding
/// them; the first `Err` stops it.
fn each_query(query: &mut Query, rewrite: QueryRewrite) -> Result<(), String> {
    struct Each(QueryRewrite);
    impl ast::VisitorMut for Each {
        type Break = String;
        fn post_visit_query(&mut self, query: &mut Query) -> std::ops::ControlFlow<String> {
            match (self.0)(query) {
                Ok(()) => std::ops::ControlFlow::Continue(()),
                Err(why) => std::ops::ControlFlow::Break(why),
            }
        }
    }
    match ast::VisitMut::visit(query, &mut Each(rewrite)) {
        std::ops::ControlFlow::Break(why) => Err(why),
        std::ops::ControlFlow::Continue(()) => Ok(()),
    }
}

/// Imports `sql` as a plan. Anything but exactly one read-only query is a CRITICAL
/// SECURITY_VIOLATION; SQL that does not parse, or uses something no plan can express, is
/// SQL_IMPORT_FAILED naming the construct.
pub fn import_sql(
    sql: &str,
    schema: &SchemaSnapshot,
    dialect: Dialect,
) -> Result<Plan, PipelineError> {
    let mut query = crate::guard::parse_read_only(sql, sql_dialect(dialect)).map_err(|e| {
        if e.kind == ErrorKind::Unreadable {
            failed(e.message)
        } else {
            PipelineError::new(
                Node::SqlImport,
                ErrorCode::SecurityViolation,
                Severity::Critical,
                format!("Only one read-only query can be imported: {}.", e.message),
            )
        }
    })?;
    for rewrite in [unpivot::rewrite, lateral::rewrite] {
        if let Err(why) = each_query(&mut query, rewrite) {
            return unsupported(why);
        }
    }
    Importer {
        schema,
        dialect,
        text: sql.to_lowercase(),
        generated: std::cell::Cell::new(0),
        visible: std::cell::RefCell::new(Vec::new()),
        merged: std::cell::RefCell::new(Vec::new()),
        keep: std::cell::RefCell::new(None),
        windows: std::cell::RefCell::new(Vec::new()),
        series: std::cell::RefCell::new(Vec::new()),
    }
    .query(&query)
}

mod dates;
mod frames;
mod joins;
mod json;
mod lateral;
mod parsed;
mod periods;
mod qualify;
mod regex;
mod series;
mod spark;
mod spellings;
mod tsql;
mod unpivot;
mod zones;

/// What a SELECT asks of the query around it, applied once its ORDER BY and LIMIT are read.
enum Keep {
    /// `QUALIFY condition`.
    Qualify(Expr),
    /// `DISTINCT ON (keys)`.
    DistinctOn(Vec<Expr>),
}

fn failed(message: impl Into<String>) -> PipelineError {
    PipelineError::new(
        Node::SqlImport,
        ErrorCode::SqlImportFailed,
        Severity::Error,
        message,
    )
}

fn unsupported<T>(what: impl std::fmt::Display) -> Result<T, PipelineError> {
    Err(failed(format!(
        "{what} cannot be expressed as a plan; rewrite the query without it."
    )))
}

struct Importer<'a> {
    schema: &'a SchemaSnapshot,
    dialect: Dialect,
    /// The statement's text, lower-cased: a generated name must appear nowhere in it.
    text: String,
    /// How many names this statement has generated.
    generated: std::cell::Cell<u32>,
    /// The columns a join `USING` (or `NATURAL`) merged, per SELECT being read (innermost
    /// last): an unqualified name of one reads the merged value.
    merged: std::cell::RefCell<Vec<Vec<(String, Expr)>>>,
    /// The QUALIFY or DISTINCT ON of the SELECT just read, for its query to apply.
    keep: std::cell::RefCell<Option<Keep>>,
    /// The named windows (`WINDOW w AS (…)`) of each SELECT being read, innermost last.
    windows: std::cell::RefCell<Vec<Vec<(String, Window)>>>,
    /// The WITH tables in scope, innermost last, with their result columns' names: a comma
    /// join's unqualified columns are placed by them.
    visible: std::cell::RefCell<Vec<(String, Vec<String>)>>,
    /// Per SELECT being read (innermost last), the series its select list generates
    /// (PostgreSQL's `SELECT generate_series(…)`), read from `FROM`: its alias and column.
    series: std::cell::RefCell<Vec<Option<(String, String)>>>,
}

type R<T> = Result<T, PipelineError>;

fn ident_text(id: &ast::Ident) -> String {
    id.value.clone()
}

impl Importer<'_> {
    /// Whether `/` divides whole numbers into fractions in the source dialect (MySQL,
    /// DuckDB and Spark do; SQLite, PostgreSQL and SQL Server keep them whole, as plans do).
    fn divides_into_fractions(&self) -> bool {
        matches!(
            self.dialect,
            Dialect::MySql | Dialect::DuckDb | Dialect::Spark
        )
    }

    /// The plan's type for a cast's target, and the scale an exact decimal is rounded to.
    /// Only types whose meaning the plan keeps are read; others (a VARCHAR(n)'s truncation,
    /// say) are refused rather than changed in meaning.
    fn cast_type(&self, t: &ast::DataType) -> R<(CastType, Option<i64>)> {
        use ast::{DataType as T, ExactNumberInfo as E};
        let decimal = |info: &E| match info {
            // A bare DECIMAL is DECIMAL(10,0) on MySQL and DECIMAL(18,3) on DuckDB; exact
            // on PostgreSQL.
            E::None => Ok(match self.dialect {
                Dialect::MySql | Dialect::SqlServer | Dialect::Spark => Some(0),
                Dialect::DuckDb => Some(3),
                _ => None,
            }),
            E::Precision(_) => Ok(Some(0)),
            E::PrecisionAndScale(_, s) => Ok(Some(*s)),
        };
        match t {
            T::Numeric(info) | T::Decimal(info) | T::Dec(info) => {
                return Ok((CastType::Numeric, decimal(info)?));
            }
            // A time zone's meaning the plan does not hold.
            T::Timestamp(None, tz)
                if !matches!(tz, ast::TimezoneInfo::WithTimeZone | ast::TimezoneInfo::Tz) =>
            {
                return Ok((CastType::Timestamp, None));
            }
            T::Datetime(None) => return Ok((CastType::Timestamp, None)),
            _ => {}
        }
        let text = t.to_string().to_ascii_uppercase();
        Ok((
            match text.trim() {
                "INT" | "INTEGER" | "BIGINT" | "SMALLINT" | "TINYINT" | "SIGNED" | "INT64"
                | "INT4" | "INT8" | "INT2" => CastType::Integer,
                "REAL" | "FLOAT" | "DOUBLE" | "DOUBLE PRECISION" | "FLOAT64" | "FLOAT8" => {
                    CastType::Real
                }
                "TEXT" | "VARCHAR" | "CHAR" | "NVARCHAR" | "STRING" | "CHARACTER VARYING" => {
                    CastType::Text
                }
                "DATE" => CastType::Date,
                _ => {
                    return unsupported(format!(
                        "CAST to {text} (use INTEGER, REAL, NUMERIC, TEXT, DATE or TIMESTAMP)"
                    ))
                }
            },
            None,
        ))
    }

    fn query(&self, q: &Query) -> R<Plan> {
        if q.fetch.is_some() || !q.locks.is_empty() || q.for_clause.is_some() {
            return unsupported("FETCH, FOR or a locking clause");
        }
        let mut ctes = Vec::new();
        let visible_before = self.visible.borrow().len();
        if let Some(with) = &q.with {
            for c in &with.cte_tables {
                let name = ident_text(&c.alias.name);
                // Under WITH RECURSIVE a CTE may read itself, with the columns its column
                // list or its first part names.
                let own = with.recursive.then(|| match c.alias.columns.as_slice() {
                    [] => anchor_names(&c.query.body),
                    names => names.iter().map(|n| ident_text(&n.name)).collect(),
                });
                if let Some(columns) = &own {
                    self.visible
                        .borrow_mut()
                        .push((name.clone(), columns.clone()));
                }
                let imported = self.query(&c.query);
                if own.is_some() {
                    self.visible.borrow_mut().pop();
                }
                let mut cte = imported?;
                name_columns(&mut cte, &c.alias.columns)?;
                let recursive = own.is_some() && cte.reads(&name);
                self.visible
                    .borrow_mut()
                    .push((name.clone(), output_names(&cte)));
                ctes.push(Cte {
                    name,
                    plan: cte,
                    recursive,
                });
            }
        }
        let plan = self.body(&q.body);
        self.visible.borrow_mut().truncate(visible_before);
        let mut plan = plan?;
        let keep = self.keep.borrow_mut().take();
        // The WITH list comes first: a derived table hoisted from FROM may read it, never
        // the other way round.
        let hoisted = std::mem::take(&mut plan.ctes);
        plan.ctes = ctes;
        plan.ctes.extend(hoisted);

        if let Some(order) = &q.order_by {
            let OrderByKind::Expressions(items) = &order.kind else {
                return unsupported("ORDER BY ALL");
            };
            let mut out = Vec::with_capacity(items.len());
            for o in items {
                let direction = match &o.options.sort {
                    None | Some(ast::OrderBySort::Asc) => Direction::Asc,
                    Some(ast::OrderBySort::Desc) => Direction::Desc,
                    Some(_) => return unsupported("ORDER BY … USING"),
                };
                let expr = match ordinal(&o.expr) {
                    Some(k) => {
                        let columns = self.result_columns(&plan);
                        let Some(column) = columns.get(k.wrapping_sub(1)) else {
                            return Err(failed(format!(
                                "ORDER BY {k} names no selected column (there are {}).",
                                columns.len()
                            )));
                        };
                        column.clone()
                    }
                    None => self.expr(&o.expr)?,
                };
                out.push(OrderItem {
                    expr,
                    direction,
                    nulls: nulls(o.options.nulls_first),
                });
            }
            plan.order_by = out;
        }
        match &q.limit_clause {
            None => {}
            Some(LimitClause::LimitOffset {
                limit,
                offset,
                limit_by,
            }) => {
                if !limit_by.is_empty() {
                    return unsupported("LIMIT BY");
                }
                plan.limit = limit.as_ref().map(count).transpose()?;
                plan.offset = offset.as_ref().map(|o| count(&o.value)).transpose()?;
            }
            Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
                plan.limit = Some(count(limit)?);
                plan.offset = Some(count(offset)?);
            }
        }
        match keep {
            None => Ok(plan),
            Some(_) if !plan.set_operations.is_empty() => {
                unsupported("QUALIFY or DISTINCT ON inside a set operation")
            }
            Some(Keep::Qualify(condition)) => self.qualified(plan, condition),
            Some(Keep::DistinctOn(keys)) => self.distinct_on(plan, keys),
        }
    }

    fn body(&self, body: &SetExpr) -> R<Plan> {
        match body {
            SetExpr::Select(s) => self.select(s),
            SetExpr::Query(q) => {
                if q.with.is_some() || q.order_by.is_some() || q.limit_clause.is_some() {
                    // Its ORDER BY or LIMIT would end up applying to the whole combination.
                    return unsupported(
                        "WITH, ORDER BY or LIMIT inside a parenthesised part of the query",
                    );
                }
                self.query(q)
            }
            SetExpr::SetOperation {
                left,
                op,
                set_quantifier,
                right,
            } => {
                if topped(left) || topped(right) {
                    return unsupported("TOP in a member of a set operation");
                }
                let mut plan = match &**left {
                    SetExpr::Query(q) if ordered_or_limited(q) => {
                        let inner = self.query(q)?;
                        let mut host = Plan::default();
                        let part = self.set_part(inner, &mut host);
                        Plan {
                            ctes: host.ctes,
                            ..part
                        }
                    }
                    other => self.body(other)?,
                };
                let op = match (op, set_quantifier) {
                    (ast::SetOperator::Union, SetQuantifier::All) => SetOperator::UnionAll,
                    (ast::SetOperator::Union, SetQuantifier::None | SetQuantifier::Distinct) => {
                        SetOperator::Union
                    }
                    (
                        ast::SetOperator::Intersect,
                        SetQuantifier::None | SetQuantifier::Distinct,
                    ) => SetOperator::Intersect,
                    (ast::SetOperator::Except, SetQuantifier::None | SetQuantifier::Distinct) => {
                        SetOperator::Except
                    }
                    (op, q) => return unsupported(format!("{op} {q}")),
                };
                // A member is one SELECT; anything more (its own ORDER BY or LIMIT, a set
                // operation nested on the right) is read from a CTE, and a member's derived
                // tables become the whole query's CTEs.
                let mut member = match &**right {
                    SetExpr::Query(q) if ordered_or_limited(q) => {
                        let inner = self.query(q)?;
                        self.set_part(inner, &mut plan)
                    }
                    other => {
                        let member = self.body(other)?;
                        if member.set_operations.is_empty() {
                            member
                        } else {
                            self.set_part(member, &mut plan)
                        }
                    }
                };
                for cte in std::mem::take(&mut member.ctes) {
                    if plan
                        .ctes
                        .iter()
                        .any(|c| c.name.eq_ignore_ascii_case(&cte.name))
                    {
                        return unsupported(format!(
                            "Two derived tables named {} in one set operation",
                            cte.name
                        ));
                    }
                    plan.ctes.push(cte);
                }
                plan.set_operations.push(SetOperation { op, plan: member });
                Ok(plan)
            }
            other => unsupported(first_words(&other.to_string())),
        }
    }

    /// `SELECT * FROM set_part_k`, with `part` added to `host`'s CTEs as `set_part_k`: a
    /// part of a set operation that a member plan cannot hold itself.
    fn set_part(&self, part: Plan, host: &mut Plan) -> Plan {
        let taken = |n: &str| {
            host.ctes.iter().any(|c| c.name.eq_ignore_ascii_case(n))
                || self
                    .visible
                    .borrow()
                    .iter()
                    .any(|(v, _)| v.eq_ignore_ascii_case(n))
        };
        let mut k = host.ctes.len() + 1;
        while taken(&format!("set_part_{k}")) {
            k += 1;
        }
        let name = format!("set_part_{k}");
        host.ctes.push(Cte {
            name: name.clone(),
            plan: part,
            recursive: false,
        });
        Plan {
            tables: vec![TableRef {
                name: name.clone(),
                schema_name: None,
                database: None,
                alias: name,
            }],
            select_items: vec![SelectItem {
                expr: Expr::Column {
                    alias: None,
                    column: "*".to_string(),
                },
                alias: None,
            }],
            ..Plan::default()
        }
    }

    fn select(&self, s: &ast::Select) -> R<Plan> {
        self.merged.borrow_mut().push(Vec::new());
        self.windows.borrow_mut().push(Vec::new());
        self.series.borrow_mut().push(None);
        let plan = self.named_windows(s).and_then(|()| self.select_merged(s));
        self.series.borrow_mut().pop();
        self.windows.borrow_mut().pop();
        self.merged.borrow_mut().pop();
        plan
    }

    /// `WINDOW w AS (…), …`, read into the SELECT's scope in order (one may build on an
    /// earlier one).
    fn named_windows(&self, s: &ast::Select) -> R<()> {
        for ast::NamedWindowDefinition(name, definition) in &s.named_window {
            let window = match definition {
                ast::NamedWindowExpr::WindowSpec(spec) => self.window(spec)?,
                ast::NamedWindowExpr::NamedWindow(other) => self.named_window(&other.value)?,
            };
            if let Some(scope) = self.windows.borrow_mut().last_mut() {
                scope.push((name.value.clone(), window));
            }
        }
        Ok(())
    }

    /// The named window `name` of the SELECT being read.
    fn named_window(&self, name: &str) -> R<Window> {
        self.windows
            .borrow()
            .last()
            .and_then(|w| w.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)))
            .map(|(_, window)| window.clone())
            .ok_or_else(|| {
                failed(format!(
                    "The window {name} is defined nowhere in its SELECT."
                ))
            })
    }

    fn select_merged(&self, s: &ast::Select) -> R<Plan> {
        let top_rows = s.top.as_ref().map(top_count).transpose()?;
        if s.into.is_some() {
            return unsupported("SELECT INTO");
        }
        let mut plan = Plan {
            distinct: matches!(&s.distinct, Some(ast::Distinct::Distinct)),
            limit: top_rows,
            ..Plan::default()
        };
        match s.from.as_slice() {
            [] => {
                let series = self.series_in_select(&s.projection, &mut plan)?;
                if let Some(top) = self.series.borrow_mut().last_mut() {
                    *top = series;
                }
            }
            [first, rest @ ..] => {
                self.from(first, &mut plan)?;
                // `FROM a, b` is a cross join; `connect` turns the WHERE equalities that
                // relate them into their ON.
                for from in rest {
                    let right_alias = self.table(&from.relation, &mut plan)?;
                    plan.joins.push(Join {
                        left_alias: plan.tables[0].alias.clone(),
                        right_alias,
                        join_type: JoinType::Cross,
                        condition: None,
                    });
                    self.joins(from, &mut plan)?;
                }
            }
        }
        for item in &s.projection {
            plan.select_items.push(match item {
                ast::SelectItem::UnnamedExpr(e) => SelectItem {
                    expr: self.expr(e)?,
                    alias: None,
                },
                ast::SelectItem::ExprWithAlias { expr, alias } => SelectItem {
                    expr: self.expr(expr)?,
                    alias: Some(ident_text(alias)),
                },
                ast::SelectItem::Wildcard(options)
                | ast::SelectItem::QualifiedWildcard(_, options)
                    if !plain_wildcard(options) =>
                {
                    return unsupported("EXCLUDE, EXCEPT, REPLACE, RENAME or ILIKE after `*`")
                }
                ast::SelectItem::Wildcard(_) if self.merges() => {
                    return unsupported(
                        "SELECT * over a join USING or NATURAL (which shows each merged column \
                         once); name the columns",
                    )
                }
                ast::SelectItem::Wildcard(_) => SelectItem {
                    expr: Expr::Column {
                        alias: None,
                        column: "*".to_string(),
                    },
                    alias: None,
                },
                ast::SelectItem::QualifiedWildcard(
                    ast::SelectItemQualifiedWildcardKind::ObjectName(name),
                    _,
                ) => SelectItem {
                    expr: Expr::Column {
                        alias: last_part(name),
                        column: "*".to_string(),
                    },
                    alias: None,
                },
                other => return unsupported(other),
            });
        }
        plan.filter = s.selection.as_ref().map(|e| self.expr(e)).transpose()?;
        self.connect(&mut plan);
        match &s.group_by {
            GroupByExpr::Expressions(exprs, modifiers) => {
                self.group_by(exprs, modifiers, &mut plan)?
            }
            GroupByExpr::All(modifiers) if modifiers.is_empty() => group_by_all(&mut plan)?,
            GroupByExpr::All(_) => return unsupported("GROUP BY ALL with a modifier"),
        }
        plan.having = s.having.as_ref().map(|e| self.expr(e)).transpose()?;
        // Read last, so a sub-query above has taken its own already.
        let keep = match (&s.distinct, &s.qualify) {
            (Some(ast::Distinct::On(_)), Some(_)) => {
                return unsupported("DISTINCT ON together with QUALIFY")
            }
            (Some(ast::Distinct::On(keys)), None) => Some(Keep::DistinctOn(
                keys.iter().map(|k| self.expr(k)).collect::<R<_>>()?,
            )),
            (_, Some(q)) => Some(Keep::Qualify(self.expr(q)?)),
            _ => None,
        };
        *self.keep.borrow_mut() = keep;
        Ok(plan)
    }

    /// `GROUP BY`: plain terms, and at most one `ROLLUP`, `CUBE` or `GROUPING SETS` (or
    /// MySQL's `WITH ROLLUP`), as grouping sets over the plan's `group_by`.
    fn group_by(
        &self,
        exprs: &[SqlExpr],
        modifiers: &[ast::GroupByWithModifier],
        plan: &mut Plan,
    ) -> R<()> {
        let mut sets: Option<Vec<Vec<usize>>> = None;
        let mut plain = Vec::new();
        // Each element's terms appended to group_by once, as positions.
        let position = |plan: &mut Plan, terms: &[SqlExpr]| -> R<Vec<usize>> {
            let mut out = Vec::with_capacity(terms.len());
            for t in terms {
                let e = self.group_term(t, plan)?;
                let at = match plan.group_by.iter().position(|g| *g == e) {
                    Some(at) => at,
                    None => {
                        plan.group_by.push(e);
                        plan.group_by.len() - 1
                    }
                };
                out.push(at);
            }
            Ok(out)
        };
        for e in exprs {
            let elements = match e {
                SqlExpr::Rollup(l) | SqlExpr::Cube(l) | SqlExpr::GroupingSets(l) => l,
                _ => {
                    plain.extend(position(plan, std::slice::from_ref(e))?);
                    continue;
                }
            };
            if sets.is_some() {
                return unsupported("More than one ROLLUP, CUBE or GROUPING SETS in a GROUP BY");
            }
            let mut parts = Vec::with_capacity(elements.len());
            for element in elements {
                parts.push(position(plan, element)?);
            }
            sets = Some(match e {
                // (a, b, c), (a, b), (a), ()
                SqlExpr::Rollup(_) => (0..=parts.len())
                    .rev()
                    .map(|k| parts[..k].concat())
                    .collect(),
                // Every subset, the largest first.
                SqlExpr::Cube(_) => {
                    if parts.len() > 6 {
                        return unsupported("CUBE of more than six terms");
                    }
                    let n = parts.len();
                    let mut subsets: Vec<Vec<usize>> = (0..1u32 << n)
                        .rev()
                        .map(|mask| {
                            (0..n)
                                .filter(|i| mask & (1 << (n - 1 - i)) != 0)
                                .flat_map(|i| parts[i].clone())
                                .collect()
                        })
                        .collect();
                    subsets.dedup();
                    subsets
                }
                _ => parts,
            });
        }
        let mut sets = match (sets, modifiers) {
            (sets, []) => sets,
            (None, [ast::GroupByWithModifier::Rollup]) => {
                let n = plain.len();
                let rollup = (0..=n).rev().map(|k| plain[..k].to_vec()).collect();
                plain.clear();
                Some(rollup)
            }
            _ => return unsupported("This GROUP BY modifier (WITH CUBE, WITH TOTALS, …)"),
        };
        // The plain terms are in every set.
        if let Some(sets) = &mut sets {
            for set in sets.iter_mut() {
                let mut full = plain.clone();
                full.extend(set.iter().copied().filter(|i| !plain.contains(i)));
                *set = full;
            }
        }
        plan.grouping_sets = sets.unwrap_or_default();
        Ok(())
    }

    /// A GROUP BY term; a bare name that is a result column's alias (and no column of the
    /// FROM tables) groups by that result's expression, as SQLite and MySQL read it.
    fn group_term(&self, e: &SqlExpr, plan: &Plan) -> R<Expr> {
        if let Some(k) = ordinal(e) {
            return match plan.select_items.get(k.wrapping_sub(1)) {
                Some(item) => Ok(item.expr.clone()),
                None => Err(failed(format!("GROUP BY {k} names no selected column."))),
            };
        }
        if let SqlExpr::Identifier(id) = e {
            let names_it = |item: &SelectItem| {
                let name = item.alias.as_deref().or(match &item.expr {
                    Expr::Column { column, .. } => Some(column.as_str()),
                    _ => None,
                });
                name.is_some_and(|n| n.eq_ignore_ascii_case(&id.value))
            };
            let is_column = plan.tables.iter().any(|t| {
                let derived = plan
                    .ctes
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(&t.name))
                    .is_some_and(|c| c.plan.select_items.iter().any(names_it));
                derived
                    || self
                        .schema
                        .table(&t.name)
                        .is_some_and(|table| table.column(&id.value).is_some())
            });
            if !is_column {
                let aliased = plan.select_items.iter().find(|s| {
                    s.alias
                        .as_deref()
                        .is_some_and(|a| a.eq_ignore_ascii_case(&id.value))
                });
                if let Some(item) = aliased {
                    return Ok(item.expr.clone());
                }
            }
        }
        self.expr(e)
    }

    fn table(&self, factor: &TableFactor, plan: &mut Plan) -> R<String> {
        match factor {
            TableFactor::Table {
                name,
                alias,
                args,
                with_hints,
                with_ordinality,
                ..
            } => {
                if !with_hints.is_empty() {
                    return unsupported("Table hints");
                }
                if let Some(args) = args {
                    if *with_ordinality {
                        return unsupported("WITH ORDINALITY");
                    }
                    return match self.series(name, &args.args, alias.as_ref(), plan)? {
                        Some(alias) => Ok(alias),
                        None => unsupported(format!("The table function {name}")),
                    };
                }
                let Some(table) = last_part(name) else {
                    return unsupported("An empty table name");
                };
                // `main.Track` keeps its schema (and `db.main.Track` its database), so the
                // validator can refuse any other one instead of reading main.
                let part = |back: usize| -> R<Option<String>> {
                    match name.0.len().checked_sub(back).and_then(|i| name.0.get(i)) {
                        None => Ok(None),
                        Some(ast::ObjectNamePart::Identifier(id)) => Ok(Some(ident_text(id))),
                        Some(_) => unsupported(format!("The table name {name}")),
                    }
                };
                let mut schema_name = part(2)?;
                let database = part(3)?;
                if name.0.len() > 3 {
                    return unsupported(format!("The table name {name}"));
                }
                let alias = alias
                    .as_ref()
                    .map_or_else(|| table.clone(), |a| ident_text(&a.name));
                // `sales.deals` (or a bare `deals` no other table shares) is the table the
                // schema calls `sales.deals`; `public.Track` on a connection whose schema is
                // `public` is `Track`. A CTE's name is never qualified.
                let mut table = table;
                let cte = schema_name.is_none() && self.is_cte_name(&table, plan);
                if let (false, None, Some(found)) = (
                    cte,
                    &database,
                    self.schema.resolve(schema_name.as_deref(), &table),
                ) {
                    table = found.name.clone();
                    schema_name = None;
                }
                plan.tables.push(TableRef {
                    name: table,
                    schema_name,
                    database,
                    alias: alias.clone(),
                });
                Ok(alias)
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                ..
            } => {
                if *lateral {
                    return unsupported("LATERAL");
                }
                // A derived table becomes a CTE of the same name, read under that name; one
                // without a name (SQLite allows it), or named like a table (a CTE may not
                // hide one), gets a name no table or CTE has and keeps its own as the alias.
                let own = alias.as_ref().map(|a| ident_text(&a.name));
                let name = match &own {
                    Some(own) if !self.is_table(own) => own.clone(),
                    _ => self.unused_name(),
                };
                let mut derived = self.query(subquery)?;
                if let Some(alias) = alias {
                    name_columns(&mut derived, &alias.columns)?;
                }
                plan.ctes.push(Cte {
                    name: name.clone(),
                    plan: derived,
                    recursive: false,
                });
                let alias = own.unwrap_or_else(|| name.clone());
                plan.tables.push(TableRef {
                    name,
                    schema_name: None,
                    database: None,
                    alias: alias.clone(),
                });
                Ok(alias)
            }
            TableFactor::NestedJoin { .. } => unsupported("A parenthesised join"),
            other => unsupported(first_words(&other.to_string())),
        }
    }

    /// `subquery_1`, `subquery_2`, … counted over the whole statement, skipping any name the
    /// statement's text holds (its CTEs and aliases at every level) or the schema has, so a
    /// generated name meets no other.
    fn unused_name(&self) -> String {
        loop {
            let n = self.generated.get() + 1;
            self.generated.set(n);
            let name = format!("subquery_{n}");
            if !self.text.contains(&name) && !self.is_table(&name) {
                return name;
            }
        }
    }

    /// Whether `name` is a WITH table in scope here (or one `plan` declares).
    fn is_cte_name(&self, name: &str, plan: &Plan) -> bool {
        let same = |n: &str| n.eq_ignore_ascii_case(name);
        self.visible.borrow().iter().any(|(n, _)| same(n))
            || plan.ctes.iter().any(|c| same(&c.name))
    }

    /// Whether the schema has a table named `name`.
    fn is_table(&self, name: &str) -> bool {
        self.schema
            .tables
            .iter()
            .any(|t| t.name.eq_ignore_ascii_case(name))
    }

    fn from(&self, from: &ast::TableWithJoins, plan: &mut Plan) -> R<()> {
        self.table(&from.relation, plan)?;
        self.joins(from, plan)
    }

    /// The joins of one FROM item, its relation already read.
    fn joins(&self, from: &ast::TableWithJoins, plan: &mut Plan) -> R<()> {
        let first = plan.tables[0].alias.clone();
        for j in &from.joins {
            let (join_type, constraint) = match &j.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinType::Inner, c),
                JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinType::Left, c),
                JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinType::Right, c),
                JoinOperator::FullOuter(c) => (JoinType::Full, c),
                JoinOperator::CrossJoin(c) => (JoinType::Cross, c),
                _ => {
                    return unsupported(
                        "This kind of join (use JOIN, LEFT, RIGHT, FULL or CROSS JOIN)",
                    )
                }
            };
            let right_alias = self.table(&j.relation, plan)?;
            let condition = match (constraint, join_type) {
                (JoinConstraint::None, JoinType::Cross) => {
                    plan.joins.push(Join {
                        left_alias: first.clone(),
                        right_alias,
                        join_type,
                        condition: None,
                    });
                    continue;
                }
                (JoinConstraint::On(on), _) => {
                    let on = self.expr(on)?;
                    self.qualify(plan, on)
                }
                (JoinConstraint::Using(names), _) => {
                    let names: Vec<String> = names
                        .iter()
                        .map(|n| last_part(n).unwrap_or_default())
                        .collect();
                    self.using(plan, &right_alias, &names, join_type)?
                }
                (JoinConstraint::Natural, _) => self.natural(plan, &right_alias, join_type)?,
                _ => return unsupported("A join without a condition; write ON a.x = b.y"),
            };
            // The join hangs off whichever table already placed its condition names first.
            let placed: Vec<&str> = plan.tables[..plan.tables.len() - 1]
                .iter()
                .map(|t| t.alias.as_str())
                .collect();
            let mut left_alias = None;
            crate::walk::each_node(&condition, &mut |e| {
                if let Expr::Column { alias: Some(a), .. } = e {
                    if left_alias.is_none() {
                        left_alias = placed
                            .iter()
                            .find(|p| p.eq_ignore_ascii_case(a))
                            .map(|p| p.to_string());
                    }
                }
            });
            plan.joins.push(Join {
                left_alias: left_alias.unwrap_or_else(|| first.clone()),
                right_alias,
                join_type: if join_type == JoinType::Cross {
                    // `CROSS JOIN … ON` is MySQL's spelling of an inner join.
                    JoinType::Inner
                } else {
                    join_type
                },
                condition: Some(condition),
            });
        }
        Ok(())
    }

    fn expr(&self, e: &SqlExpr) -> R<Expr> {
        let bin = |op, l: &SqlExpr, r: &SqlExpr| -> R<Expr> {
            Ok(Expr::Binary {
                op,
                left: Box::new(self.expr(l)?),
                right: Box::new(self.expr(r)?),
            })
        };
        let null = || Box::new(Expr::Literal(Literal::Null));
        Ok(match e {
            SqlExpr::Identifier(id) => match self.merged_column(&id.value) {
                Some(merged) => merged,
                None => Expr::Column {
                    alias: None,
                    column: ident_text(id),
                },
            },
            SqlExpr::CompoundIdentifier(parts) => match parts.as_slice() {
                [.., table, column] => Expr::Column {
                    alias: Some(ident_text(table)),
                    column: ident_text(column),
                },
                [column] => Expr::Column {
                    alias: None,
                    column: ident_text(column),
                },
                [] => return unsupported("An empty name"),
            },
            SqlExpr::Value(v) => Expr::Literal(literal(&v.value)?),
            SqlExpr::Nested(inner) => self.expr(inner)?,
            SqlExpr::BinaryOp {
                left,
                op: op @ (Op::And | Op::Or),
                right,
            } => self.chain(op, left, right)?,
            SqlExpr::BinaryOp { left, op, right } => {
                if let Some(value) = self.json_operator(e)? {
                    return Ok(value);
                }
                if let Some(moved) = self.interval_arithmetic(left, op, right)? {
                    return Ok(moved);
                }
                if let Some(compared) = self.interval_comparison(left, op, right)? {
                    return Ok(compared);
                }
                if let Some(matched) = self.regex_operator(left, op, right)? {
                    return Ok(matched);
                }
                if *op == Op::Overlaps {
                    return self.overlaps(left, right);
                }
                if *op == Op::Minus {
                    if let Some(days) = self.julian_difference(left, right)? {
                        return Ok(days);
                    }
                }
                let op = match op {
                    Op::Eq => BinaryOp::Eq,
                    Op::NotEq => BinaryOp::NotEq,
                    Op::Gt => BinaryOp::Gt,
                    Op::Lt => BinaryOp::Lt,
                    Op::GtEq => BinaryOp::GtEq,
                    Op::LtEq => BinaryOp::LtEq,
                    Op::Plus => BinaryOp::Plus,
                    Op::Minus => BinaryOp::Minus,
                    Op::Multiply => BinaryOp::Multiply,
                    Op::Divide => BinaryOp::Divide,
                    Op::Modulo => BinaryOp::Modulo,
                    Op::StringConcat => BinaryOp::Concat,
                    Op::And => BinaryOp::And,
                    Op::Or => BinaryOp::Or,
                    other => return unsupported(format!("The operator {other}")),
                };
                let divided = bin(op, left, right)?;
                let numeric_extract = self.dialect == Dialect::Postgres
                    && (dates::is_extract(left) || dates::is_extract(right));
                if op == BinaryOp::Divide && numeric_extract {
                    fractional(divided, CastType::Numeric)
                } else if op == BinaryOp::Divide && self.divides_into_fractions() {
                    // MySQL divides into an exact decimal, DuckDB and Spark into a double.
                    fractional(
                        divided,
                        if self.dialect == Dialect::MySql {
                            CastType::Numeric
                        } else {
                            CastType::Real
                        },
                    )
                } else {
                    divided
                }
            }
            SqlExpr::UnaryOp { op, expr } => match (op, &**expr) {
                (UnaryOperator::Minus, SqlExpr::Value(v)) => match literal(&v.value)? {
                    Literal::Integer(i) => Expr::Literal(Literal::Integer(-i)),
                    Literal::Real(x) => Expr::Literal(Literal::Real(-x)),
                    _ => unary(UnaryOp::Minus, self.expr(expr)?),
                },
                (UnaryOperator::Minus, _) => unary(UnaryOp::Minus, self.expr(expr)?),
                (UnaryOperator::Plus, _) => unary(UnaryOp::Plus, self.expr(expr)?),
                (UnaryOperator::Not, _) => unary(UnaryOp::Not, self.expr(expr)?),
                (other, _) => return unsupported(format!("The operator {other}")),
            },
            SqlExpr::IsNull(x) => Expr::Binary {
                op: BinaryOp::Is,
                left: Box::new(self.expr(x)?),
                right: null(),
            },
            SqlExpr::IsNotNull(x) => Expr::Binary {
                op: BinaryOp::IsNot,
                left: Box::new(self.expr(x)?),
                right: null(),
            },
            SqlExpr::IsNotDistinctFrom(a, b) => bin(BinaryOp::Is, a, b)?,
            SqlExpr::IsDistinctFrom(a, b) => bin(BinaryOp::IsNot, a, b)?,
            SqlExpr::IsTrue(x)
            | SqlExpr::IsFalse(x)
            | SqlExpr::IsNotTrue(x)
            | SqlExpr::IsNotFalse(x) => {
                let value = matches!(e, SqlExpr::IsTrue(_) | SqlExpr::IsNotTrue(_));
                let negated = matches!(e, SqlExpr::IsNotTrue(_) | SqlExpr::IsNotFalse(_));
                Expr::Binary {
                    op: if negated {
                        BinaryOp::IsNot
                    } else {
                        BinaryOp::Is
                    },
                    left: Box::new(self.expr(x)?),
                    right: Box::new(Expr::Literal(Literal::Bool(value))),
                }
            }
            SqlExpr::In {
                expr,
                target,
                negated,
                ..
            } => {
                let right = match target {
                    ast::InTarget::List(list) => {
                        let mut args = Vec::with_capacity(list.len());
                        for x in list {
                            args.push(self.expr(x)?);
                        }
                        Expr::Func(FuncCall {
                            name: "TUPLE".to_string(),
                            args,
                            distinct: false,
                            filter: None,
                            order_by: vec![],
                            over: None,
                        })
                    }
                    ast::InTarget::Subquery(q) => Expr::Subquery {
                        plan: Box::new(self.query(q)?),
                    },
                    _ => return unsupported("IN UNNEST or IN a table"),
                };
                Expr::Binary {
                    op: if *negated {
                        BinaryOp::NotIn
                    } else {
                        BinaryOp::In
                    },
                    left: Box::new(self.expr(expr)?),
                    right: Box::new(right),
                }
            }
            // `x = ANY(ARRAY[…])` and `x <> ALL(…)` are IN and NOT IN, NULLs included.
            SqlExpr::AnyOp {
                left,
                compare_op: Op::Eq,
                right,
                ..
            } => self.membership(left, right, BinaryOp::In)?,
            SqlExpr::AllOp {
                left,
                compare_op: Op::NotEq,
                right,
            } => self.membership(left, right, BinaryOp::NotIn)?,
            SqlExpr::Between {
                expr,
                negated,
                low,
                high,
            } => Expr::Between {
                expr: Box::new(self.expr(expr)?),
                low: Box::new(self.expr(low)?),
                high: Box::new(self.expr(high)?),
                negated: *negated,
            },
            SqlExpr::Like {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            }
            | SqlExpr::ILike {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            } => {
                if *any || escape_char.is_some() {
                    return unsupported("LIKE ANY or LIKE … ESCAPE");
                }
                let ilike = matches!(e, SqlExpr::ILike { .. });
                let op = match (ilike, negated) {
                    (false, false) => BinaryOp::Like,
                    (false, true) => BinaryOp::NotLike,
                    (true, false) => BinaryOp::ILike,
                    (true, true) => BinaryOp::NotILike,
                };
                bin(op, expr, pattern)?
            }
            SqlExpr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let subject = operand.as_ref().map(|o| self.expr(o)).transpose()?;
                let mut whens = Vec::with_capacity(conditions.len());
                for c in conditions {
                    let test = self.expr(&c.condition)?;
                    whens.push(When {
                        condition: match &subject {
                            Some(s) => Expr::Binary {
                                op: BinaryOp::Eq,
                                left: Box::new(s.clone()),
                                right: Box::new(test),
                            },
                            None => test,
                        },
                        result: self.expr(&c.result)?,
                    });
                }
                Expr::Case {
                    whens,
                    else_expr: else_result
                        .as_ref()
                        .map(|x| self.expr(x).map(Box::new))
                        .transpose()?,
                }
            }
            SqlExpr::Cast {
                kind,
                expr,
                data_type,
                format,
            } => {
                if format.is_some()
                    || !matches!(kind, ast::CastKind::Cast | ast::CastKind::DoubleColon)
                {
                    return unsupported("TRY_CAST, SAFE_CAST or CAST … FORMAT");
                }
                let (to, scale) = self.cast_type(data_type)?;
                if matches!(to, CastType::Date | CastType::Timestamp | CastType::Numeric)
                    && self.dialect == Dialect::Sqlite
                {
                    return unsupported(format!(
                        "SQLite's CAST(… AS {data_type}), which keeps only the leading number \
                         (use DATE_TRUNC('day', x) for the day, a real for a decimal)"
                    ));
                }
                rounded(
                    Expr::Cast {
                        expr: Box::new(self.expr(expr)?),
                        to,
                    },
                    scale,
                )
            }
            SqlExpr::TypedString(t) => {
                let (to, scale) = self.cast_type(&t.data_type)?;
                let text = t.value.clone().into_string().unwrap_or_default();
                rounded(
                    Expr::Cast {
                        expr: Box::new(Expr::Literal(Literal::Text(text))),
                        to,
                    },
                    scale,
                )
            }
            SqlExpr::AtTimeZone {
                timestamp,
                time_zone,
            } => match self.zone_conversion(timestamp, time_zone)? {
                Some(converted) => converted,
                None => match self.utc_epoch(timestamp, time_zone)? {
                    Some(moment) => moment,
                    None => return unsupported(first_words(&e.to_string())),
                },
            },
            SqlExpr::Extract {
                field: ast::DateTimeField::Isoyear,
                expr,
                ..
            } => dates::iso_year(self.expr(expr)?),
            SqlExpr::Extract { field, expr, .. } => {
                let unit = dates::extract_unit(field)?;
                if let Some(part) = self.age_part(unit, expr)? {
                    return Ok(part);
                }
                if unit == DateUnit::Epoch {
                    if let Some(seconds) = self.epoch_of_difference(expr)? {
                        return Ok(seconds);
                    }
                }
                call(
                    "DATE_PART",
                    vec![
                        Expr::Literal(Literal::Text(unit.as_str().to_string())),
                        self.expr(expr)?,
                    ],
                )
            }
            SqlExpr::Subquery(q) => Expr::Subquery {
                plan: Box::new(self.query(q)?),
            },
            SqlExpr::Exists { subquery, negated } => {
                let exists = Expr::Exists {
                    plan: Box::new(self.query(subquery)?),
                };
                if *negated {
                    unary(UnaryOp::Not, exists)
                } else {
                    exists
                }
            }
            SqlExpr::Function(f) => self.function_call(f)?,
            SqlExpr::Position { expr, r#in } => self.position(expr, r#in)?,
            SqlExpr::RLike {
                negated,
                expr,
                pattern,
                ..
            } => self.rlike(expr, pattern, *negated)?,
            SqlExpr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                if let (Some(from), None) = (substring_from, substring_for) {
                    if let Some(found) = self.regex_substring(expr, from)? {
                        return Ok(found);
                    }
                }
                let mut args = vec![self.expr(expr)?];
                args.push(match substring_from {
                    Some(from) => self.expr(from)?,
                    None => Expr::Literal(Literal::Integer(1)),
                });
                if let Some(n) = substring_for {
                    args.push(self.expr(n)?);
                }
                call("SUBSTR", args)
            }
            SqlExpr::Trim {
                trim_where,
                trim_what,
                expr,
                trim_characters,
            } => {
                if trim_what.is_some() || trim_characters.is_some() {
                    return unsupported("TRIM of particular characters");
                }
                let name = match trim_where {
                    None | Some(ast::TrimWhereField::Both) => "TRIM",
                    Some(ast::TrimWhereField::Leading) => "LTRIM",
                    Some(ast::TrimWhereField::Trailing) => "RTRIM",
                };
                call(name, vec![self.expr(expr)?])
            }
            SqlExpr::Ceil { expr, field } | SqlExpr::Floor { expr, field } => {
                if !matches!(
                    field,
                    ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime)
                ) {
                    return unsupported("CEIL or FLOOR to a unit or scale");
                }
                let name = if matches!(e, SqlExpr::Ceil { .. }) {
                    "CEIL"
                } else {
                    "FLOOR"
                };
                call(name, vec![self.expr(expr)?])
            }
            other => return unsupported(first_words(&other.to_string())),
        })
    }

    /// `left op (values)` for `= ANY(…)` and `<> ALL(…)` over an array or a subquery.
    fn membership(&self, left: &SqlExpr, right: &SqlExpr, op: BinaryOp) -> R<Expr> {
        let mut values = right;
        while let SqlExpr::Nested(inner) = values {
            values = inner;
        }
        let right = match values {
            SqlExpr::Array(a) if !a.elem.is_empty() => {
                let mut args = Vec::with_capacity(a.elem.len());
                for x in &a.elem {
                    args.push(self.expr(x)?);
                }
                call("TUPLE", args)
            }
            SqlExpr::Subquery(q) => Expr::Subquery {
                plan: Box::new(self.query(q)?),
            },
            other => {
                return unsupported(format!(
                    "ANY or ALL over {}",
                    first_words(&other.to_string())
                ))
            }
        };
        Ok(Expr::Binary {
            op,
            left: Box::new(self.expr(left)?),
            right: Box::new(right),
        })
    }

    /// An AND or OR chain, as a balanced tree: SQL writes `a OR b OR c …` as a left-deep
    /// chain as long as the query is, and a plan that deep would be refused.
    fn chain(&self, op: &Op, left: &SqlExpr, right: &SqlExpr) -> R<Expr> {
        let mut operands = vec![right];
        let mut rest = left;
        while let SqlExpr::BinaryOp {
            left,
            op: inner,
            right,
        } = rest
        {
            if inner != op {
                break;
            }
            operands.push(right);
            rest = left;
        }
        operands.push(rest);
        operands.reverse();
        let mut level: Vec<Expr> = operands
            .into_iter()
            .map(|e| self.expr(e))
            .collect::<R<_>>()?;
        let op = if *op == Op::And {
            BinaryOp::And
        } else {
            BinaryOp::Or
        };
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            let mut it = level.into_iter();
            while let Some(l) = it.next() {
                next.push(match it.next() {
                    Some(r) => Expr::Binary {
                        op,
                        left: Box::new(l),
                        right: Box::new(r),
                    },
                    None => l,
                });
            }
            level = next;
        }
        level
            .pop()
            .ok_or_else(|| failed("An empty AND or OR chain."))
    }

    /// MySQL's `FIELD(x, a, b, …)`, the position of `x` among the values (0 when absent or
    /// NULL), as the `CASE` it means; `None` for any other call.
    fn field_position(&self, f: &ast::Function) -> R<Option<Expr>> {
        if self.dialect != Dialect::MySql || !f.name.to_string().eq_ignore_ascii_case("FIELD") {
            return Ok(None);
        }
        let Some(args) = dates::call_args(f) else {
            return Ok(None);
        };
        let Some((x, values)) = args.split_first() else {
            return unsupported("FIELD without arguments");
        };
        if values.is_empty() {
            return unsupported("FIELD with nothing to find the value among");
        }
        let x = self.expr(x)?;
        let mut whens = Vec::with_capacity(values.len());
        for (k, v) in (1..).zip(values) {
            whens.push(When {
                condition: Expr::Binary {
                    op: BinaryOp::Eq,
                    left: Box::new(x.clone()),
                    right: Box::new(self.expr(v)?),
                },
                result: Expr::Literal(Literal::Integer(k)),
            });
        }
        Ok(Some(Expr::Case {
            whens,
            else_expr: Some(Box::new(Expr::Literal(Literal::Integer(0)))),
        }))
    }

    /// A function call: a series, then each dialect's own spellings, then a plain call.
    fn function_call(&self, f: &ast::Function) -> R<Expr> {
        if let Some(column) = self.series_read(f) {
            return Ok(column);
        }
        let spelt = [
            Importer::json_function,
            Importer::regex_spelling,
            Importer::parsed_literal,
            Importer::function_spelling,
            Importer::date_spelling,
            Importer::zone_spelling,
            Importer::tsql_spelling,
            Importer::spark_spelling,
            Importer::field_position,
        ];
        for read in spelt {
            if let Some(e) = read(self, f)? {
                return Ok(e);
            }
        }
        Ok(Expr::Func(self.function(f)?))
    }

    fn function(&self, f: &ast::Function) -> R<FuncCall> {
        if f.null_treatment.is_some() {
            return unsupported("IGNORE NULLS or RESPECT NULLS");
        }
        let mut order_by = f
            .within_group
            .iter()
            .map(|o| self.order_item(o))
            .collect::<R<Vec<_>>>()?;
        let mut separator = None;
        if !matches!(f.parameters, FunctionArguments::None) {
            return unsupported("Parametric function calls");
        }
        let name = match f.name.0.as_slice() {
            [ast::ObjectNamePart::Identifier(id)] => id.value.to_ascii_uppercase(),
            _ => return unsupported(format!("The function name {}", f.name)),
        };
        let mut args = Vec::new();
        let mut distinct = false;
        match &f.args {
            FunctionArguments::None => {}
            FunctionArguments::Subquery(_) => {
                return unsupported("A subquery as a function's argument list")
            }
            FunctionArguments::List(list) => {
                for clause in &list.clauses {
                    match clause {
                        ast::FunctionArgumentClause::OrderBy(items) => {
                            for o in items {
                                order_by.push(self.order_item(o)?);
                            }
                        }
                        ast::FunctionArgumentClause::Separator(v) => {
                            separator = Some(Expr::Literal(literal(&v.value)?));
                        }
                        other => {
                            return unsupported(format!("The clause {other} inside {name}(…)"))
                        }
                    }
                }
                distinct = matches!(
                    list.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                );
                for a in &list.args {
                    let FunctionArg::Unnamed(a) = a else {
                        return unsupported("Named function arguments");
                    };
                    args.push(match a {
                        FunctionArgExpr::Expr(e) => self.expr(e)?,
                        FunctionArgExpr::Wildcard => Expr::Column {
                            alias: None,
                            column: "*".to_string(),
                        },
                        FunctionArgExpr::QualifiedWildcard(n) => Expr::Column {
                            alias: last_part(n),
                            column: "*".to_string(),
                        },
                        FunctionArgExpr::WildcardWithOptions(_) => {
                            return unsupported("A wildcard with options")
                        }
                    });
                }
            }
        }
        let over = match &f.over {
            None => None,
            Some(ast::WindowType::NamedWindow(name)) => Some(self.named_window(&name.value)?),
            Some(ast::WindowType::WindowSpec(w)) => Some(self.window(w)?),
        };
        let (name, args, order_by) = aggregate_spelling(name, args, separator, order_by)?;
        Ok(FuncCall {
            name,
            args,
            distinct,
            filter: f
                .filter
                .as_deref()
                .map(|c| self.expr(c).map(Box::new))
                .transpose()?,
            order_by,
            over,
        })
    }

    fn order_item(&self, o: &ast::OrderByExpr) -> R<OrderItem> {
        Ok(OrderItem {
            expr: self.expr(&o.expr)?,
            direction: match o.options.sort {
                None | Some(ast::OrderBySort::Asc) => Direction::Asc,
                Some(ast::OrderBySort::Desc) => Direction::Desc,
                Some(_) => return unsupported("ORDER BY … USING"),
            },
            nulls: nulls(o.options.nulls_first),
        })
    }

    fn window(&self, w: &ast::WindowSpec) -> R<Window> {
        // `OVER (w ORDER BY …)`: the named window's partitions, and its order and frame
        // unless this one gives them.
        let base = match &w.window_name {
            Some(name) if !w.partition_by.is_empty() => {
                return unsupported(format!("PARTITION BY on top of the named window {name}"))
            }
            Some(name) => Some(self.named_window(&name.value)?),
            None => None,
        };
        let mut partition_by = Vec::with_capacity(w.partition_by.len());
        for p in &w.partition_by {
            partition_by.push(self.expr(p)?);
        }
        let mut order_by = Vec::with_capacity(w.order_by.len());
        for o in &w.order_by {
            order_by.push(self.order_item(o)?);
        }
        let frame = match &w.window_frame {
            None => None,
            Some(f) => {
                let unit = match f.units {
                    ast::WindowFrameUnits::Rows => FrameUnit::Rows,
                    ast::WindowFrameUnits::Range => FrameUnit::Range,
                    ast::WindowFrameUnits::Groups => return unsupported("GROUPS frames"),
                };
                let (start, end, offset_unit) =
                    frames::frame_bounds(&f.start_bound, f.end_bound.as_ref())?;
                Some(Frame {
                    unit,
                    start,
                    end,
                    offset_unit,
                })
            }
        };
        Ok(match base {
            Some(base) => Window {
                partition_by: base.partition_by,
                order_by: if order_by.is_empty() {
                    base.order_by
                } else {
                    order_by
                },
                frame: frame.or(base.frame),
            },
            None => Window {
                partition_by,
                order_by,
                frame,
            },
        })
    }
}

/// DuckDB's and Spark's `GROUP BY ALL`: every selected expression that aggregates nothing,
/// in the order selected. Constants are left out: they group nothing away, and a number in
/// `GROUP BY` would be read as a position.
fn group_by_all(plan: &mut Plan) -> R<()> {
    for item in &plan.select_items {
        if matches!(&item.expr, Expr::Column { column, .. } if column == "*") {
            return unsupported("GROUP BY ALL with `*` in SELECT; name the columns");
        }
        let grouped = !matches!(item.expr, Expr::Literal(_))
            && !crate::walk::has_aggregate(&item.expr)
            && !plan.group_by.contains(&item.expr);
        if grouped {
            plan.group_by.push(item.expr.clone());
        }
    }
    Ok(())
}

/// Whether a parenthesised query has a clause of its own that a set operation's member
/// plan cannot hold.
/// SQL Server's `TOP n`: the query's LIMIT (its ORDER BY applies first, as LIMIT's does).
fn top_count(top: &ast::Top) -> R<i64> {
    if top.with_ties {
        return unsupported("TOP … WITH TIES");
    }
    if top.percent {
        return unsupported("TOP … PERCENT");
    }
    match &top.quantity {
        Some(ast::TopQuantity::Constant(n)) => {
            i64::try_from(*n).map_err(|_| failed(format!("TOP {n} is too many rows.")))
        }
        Some(ast::TopQuantity::Expr(e)) => count(e),
        None => unsupported("TOP without a count"),
    }
}

/// A set operation's member that is one SELECT with a TOP: the plan's LIMIT would apply to
/// the whole combination.
fn topped(e: &SetExpr) -> bool {
    matches!(e, SetExpr::Select(s) if s.top.is_some())
}

fn ordered_or_limited(q: &Query) -> bool {
    q.with.is_some() || q.order_by.is_some() || q.limit_clause.is_some()
}

fn plain_wildcard(o: &ast::WildcardAdditionalOptions) -> bool {
    o.opt_ilike.is_none()
        && o.opt_exclude.is_none()
        && o.opt_except.is_none()
        && o.opt_replace.is_none()
        && o.opt_rename.is_none()
        && o.opt_alias.is_none()
}

/// `l / r` made a division into fractions in the plan's meaning, where whole numbers divide
/// into whole numbers: the dividend becomes a real unless either side already is one.
fn fractional(division: Expr, to: CastType) -> Expr {
    let Expr::Binary { op, left, right } = division else {
        return division;
    };
    let real = |e: &Expr| {
        matches!(
            e,
            Expr::Literal(Literal::Real(_))
                | Expr::Cast {
                    to: CastType::Real | CastType::Numeric,
                    ..
                }
        )
    };
    let left = if real(&left) || real(&right) {
        left
    } else {
        Box::new(Expr::Cast { expr: left, to })
    };
    Expr::Binary { op, left, right }
}

/// A cast to a decimal of a given scale is the value rounded to it.
fn rounded(cast: Expr, scale: Option<i64>) -> Expr {
    match scale {
        Some(s) => call("ROUND", vec![cast, Expr::Literal(Literal::Integer(s))]),
        None => cast,
    }
}

/// The names of a plan's result columns: each select item's alias, or the column it is.
fn output_names(plan: &Plan) -> Vec<String> {
    plan.select_items
        .iter()
        .filter_map(|i| match (&i.alias, &i.expr) {
            (Some(a), _) => Some(a.clone()),
            (None, Expr::Column { column, .. }) if column != "*" => Some(column.clone()),
            _ => None,
        })
        .collect()
}

/// The names a query's first SELECT gives its columns (an alias or a column's own name;
/// none for another unnamed value), without importing it.
fn anchor_names(body: &SetExpr) -> Vec<String> {
    match body {
        SetExpr::SetOperation { left, .. } => anchor_names(left),
        SetExpr::Query(q) => anchor_names(&q.body),
        SetExpr::Select(s) => s
            .projection
            .iter()
            .filter_map(|item| match item {
                ast::SelectItem::ExprWithAlias { alias, .. } => Some(ident_text(alias)),
                ast::SelectItem::UnnamedExpr(SqlExpr::Identifier(id)) => Some(ident_text(id)),
                ast::SelectItem::UnnamedExpr(SqlExpr::CompoundIdentifier(ids)) => {
                    ids.last().map(ident_text)
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A column list on a WITH or derived table (`t(a, b)`) names its result columns in order.
fn name_columns(plan: &mut Plan, names: &[ast::TableAliasColumnDef]) -> R<()> {
    if names.is_empty() {
        return Ok(());
    }
    let star = plan
        .select_items
        .iter()
        .any(|i| matches!(&i.expr, Expr::Column { column, .. } if column == "*"));
    if star || names.len() != plan.select_items.len() {
        return unsupported(format!(
            "A column list of {} names on a query of {} items{}",
            names.len(),
            plan.select_items.len(),
            if star { " with `*`" } else { "" }
        ));
    }
    for (item, name) in plan.select_items.iter_mut().zip(names) {
        item.alias = Some(ident_text(&name.name));
    }
    Ok(())
}

/// The dialects' names for the plan's statistics and string aggregation, read as the
/// plan's: `GROUP_CONCAT`/`LISTAGG` as `STRING_AGG(x, separator)` (MySQL's and SQLite's
/// separator is a comma when unsaid), DuckDB's `QUANTILE_CONT(x, p)` as
/// `PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x)`, SQL Server's `STDEV` as `STDDEV_SAMP`
/// (and its `DATEFROMPARTS` as `MAKE_DATE`), `EVERY` as `BOOL_AND`, Spark's `MAX_BY` and
/// DuckDB's `ARGMAX` as `ARG_MAX` (and their minimums).
fn aggregate_spelling(
    name: String,
    mut args: Vec<Expr>,
    separator: Option<Expr>,
    order_by: Vec<OrderItem>,
) -> R<(String, Vec<Expr>, Vec<OrderItem>)> {
    let text = |t: &str| Expr::Literal(Literal::Text(t.to_string()));
    Ok(match name.as_str() {
        "GROUP_CONCAT" | "LISTAGG" | "STRING_AGG" => {
            let default = if name == "LISTAGG" { "" } else { "," };
            match (args.len(), separator) {
                (1, Some(sep)) => args.push(sep),
                (1, None) if name != "STRING_AGG" => args.push(text(default)),
                _ => {}
            }
            ("STRING_AGG".into(), args, order_by)
        }
        "QUANTILE_CONT" | "QUANTILE_DISC" | "QUANTILE"
            if args.len() == 2 && order_by.is_empty() =>
        {
            let p = args.pop().unwrap_or(Expr::Literal(Literal::Null));
            let x = args.pop().unwrap_or(Expr::Literal(Literal::Null));
            let name = if name == "QUANTILE_CONT" {
                "PERCENTILE_CONT"
            } else {
                "PERCENTILE_DISC"
            };
            (
                name.into(),
                vec![p],
                vec![OrderItem {
                    expr: x,
                    direction: Direction::Asc,
                    nulls: None,
                }],
            )
        }
        "STDDEV" | "STDEV" => ("STDDEV_SAMP".into(), args, order_by),
        "STDEVP" => ("STDDEV_POP".into(), args, order_by),
        "VARIANCE" | "VAR" => ("VAR_SAMP".into(), args, order_by),
        "VARP" => ("VAR_POP".into(), args, order_by),
        "EVERY" | "LOGICAL_AND" => ("BOOL_AND".into(), args, order_by),
        "LOGICAL_OR" => ("BOOL_OR".into(), args, order_by),
        "DATEFROMPARTS" => ("MAKE_DATE".into(), args, order_by),
        "MAX_BY" | "ARGMAX" => ("ARG_MAX".into(), args, order_by),
        "MIN_BY" | "ARGMIN" => ("ARG_MIN".into(), args, order_by),
        _ => (name, args, order_by),
    })
}

/// `NULLS FIRST/LAST` as the query wrote it; where it says nothing, the plan says nothing
/// either, and renders with the database's own placement.
fn nulls(first: Option<bool>) -> Option<Nulls> {
    first.map(|f| if f { Nulls::First } else { Nulls::Last })
}

fn unary(op: UnaryOp, expr: Expr) -> Expr {
    Expr::Unary {
        op,
        expr: Box::new(expr),
    }
}

fn literal(v: &Value) -> R<Literal> {
    Ok(match v {
        Value::Number(s, _) => match s.parse::<i64>() {
            Ok(i) => Literal::Integer(i),
            Err(_) => match s.parse::<f64>() {
                Ok(x) if x.is_finite() => Literal::Real(x),
                _ => return Err(failed(format!("The number {s} is out of range."))),
            },
        },
        Value::SingleQuotedString(s) | Value::NationalStringLiteral(s) => Literal::Text(s.clone()),
        Value::Boolean(b) => Literal::Bool(*b),
        Value::Null => Literal::Null,
        Value::DoubleQuotedString(s) => {
            return Err(failed(format!(
                "\"{s}\" is a double-quoted string; write text in single quotes."
            )))
        }
        other => return unsupported(format!("The literal {other}")),
    })
}

fn count(e: &SqlExpr) -> R<i64> {
    match e {
        SqlExpr::Value(v) => match &v.value {
            Value::Number(s, _) => s
                .parse::<i64>()
                .map_err(|_| failed(format!("LIMIT and OFFSET take whole numbers, not {s}."))),
            _ => unsupported("A LIMIT or OFFSET that is not a number"),
        },
        _ => unsupported("A LIMIT or OFFSET that is not a number"),
    }
}

fn ordinal(e: &SqlExpr) -> Option<usize> {
    match e {
        SqlExpr::Value(v) => match &v.value {
            Value::Number(s, _) => s.parse::<usize>().ok(),
            _ => None,
        },
        _ => None,
    }
}

fn last_part(name: &ast::ObjectName) -> Option<String> {
    match name.0.last() {
        Some(ast::ObjectNamePart::Identifier(id)) => Some(ident_text(id)),
        _ => None,
    }
}

/// The start of a construct's SQL, to name it in a message without echoing a whole query.
fn first_words(sql: &str) -> String {
    let words: Vec<&str> = sql.split_whitespace().take(4).collect();
    let mut s = words.join(" ");
    if s.len() > 60 {
        let mut cut = 60;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    format!("`{s}…`")
}
