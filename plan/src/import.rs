//! SQL to plan: `import_sql` reads one read-only query and rewrites it as a [`Plan`], which
//! then takes the same road as a model's plan (validator, lowering). Verified queries, the
//! playground's SQL mode and gold suites come in this way, so no SQL reaches a database
//! without passing the validator and the policy.

use crate::dialect::sql_dialect;
use crate::dialect::Dialect;
use crate::functions::DateUnit;
use crate::schema::SchemaSnapshot;
use crate::ErrorKind;
use crate::{
    BinaryOp, CastType, Cte, Direction, Expr, Frame, FrameBound, FrameUnit, FuncCall, Join,
    JoinType, Literal, OrderItem, Plan, SelectItem, SetOperation, SetOperator, TableRef, UnaryOp,
    When, Window,
};
use nl2sql_error::{ErrorCode, Node, PipelineError, Severity};
use sqlparser::ast::{
    self, BinaryOperator as Op, Expr as SqlExpr, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, JoinConstraint, JoinOperator, LimitClause, OrderByKind, Query, SetExpr,
    SetQuantifier, TableFactor, UnaryOperator, Value,
};

/// Imports `sql` as a plan. Anything but exactly one read-only query is a CRITICAL
/// SECURITY_VIOLATION; SQL that does not parse, or uses something no plan can express, is
/// SQL_IMPORT_FAILED naming the construct.
pub fn import_sql(
    sql: &str,
    schema: &SchemaSnapshot,
    dialect: Dialect,
) -> Result<Plan, PipelineError> {
    let query = crate::guard::parse_read_only(sql, sql_dialect(dialect)).map_err(|e| {
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
    Importer {
        schema,
        dialect,
        text: sql.to_lowercase(),
        generated: std::cell::Cell::new(0),
    }
    .query(&query)
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
}

type R<T> = Result<T, PipelineError>;

fn ident_text(id: &ast::Ident) -> String {
    id.value.clone()
}

impl Importer<'_> {
    fn query(&self, q: &Query) -> R<Plan> {
        if q.fetch.is_some() || !q.locks.is_empty() || q.for_clause.is_some() {
            return unsupported("FETCH, FOR or a locking clause");
        }
        let mut ctes = Vec::new();
        if let Some(with) = &q.with {
            if with.recursive {
                return unsupported("WITH RECURSIVE");
            }
            for c in &with.cte_tables {
                if !c.alias.columns.is_empty() {
                    return unsupported(format!(
                        "A column list on CTE {} (name the columns in its SELECT instead)",
                        c.alias.name.value
                    ));
                }
                ctes.push(Cte {
                    name: ident_text(&c.alias.name),
                    plan: self.query(&c.query)?,
                });
            }
        }
        let mut plan = self.body(&q.body)?;
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
                if o.options.nulls_first.is_some() {
                    return unsupported("NULLS FIRST/LAST");
                }
                let direction = match &o.options.sort {
                    None | Some(ast::OrderBySort::Asc) => Direction::Asc,
                    Some(ast::OrderBySort::Desc) => Direction::Desc,
                    Some(_) => return unsupported("ORDER BY … USING"),
                };
                let expr = match ordinal(&o.expr) {
                    Some(k) => {
                        let Some(item) = plan.select_items.get(k.wrapping_sub(1)) else {
                            return Err(failed(format!(
                                "ORDER BY {k} names no selected column (there are {}).",
                                plan.select_items.len()
                            )));
                        };
                        match &item.alias {
                            Some(a) => Expr::Column {
                                alias: None,
                                column: a.clone(),
                            },
                            None => item.expr.clone(),
                        }
                    }
                    None => self.expr(&o.expr)?,
                };
                out.push(OrderItem { expr, direction });
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
        Ok(plan)
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
                let mut plan = self.body(left)?;
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
                let member = self.body(right)?;
                if !member.set_operations.is_empty() {
                    return unsupported("A set operation nested on the right");
                }
                plan.set_operations.push(SetOperation { op, plan: member });
                Ok(plan)
            }
            other => unsupported(first_words(&other.to_string())),
        }
    }

    fn select(&self, s: &ast::Select) -> R<Plan> {
        if s.top.is_some() {
            return unsupported("TOP");
        }
        if s.into.is_some() {
            return unsupported("SELECT INTO");
        }
        if s.qualify.is_some() || !s.named_window.is_empty() {
            return unsupported("QUALIFY or WINDOW");
        }
        let mut plan = Plan {
            distinct: match &s.distinct {
                None | Some(ast::Distinct::All) => false,
                Some(ast::Distinct::Distinct) => true,
                Some(ast::Distinct::On(_)) => return unsupported("DISTINCT ON"),
            },
            ..Plan::default()
        };
        match s.from.as_slice() {
            [] => return unsupported("A SELECT without FROM"),
            [from] => self.from(from, &mut plan)?,
            _ => return unsupported("A comma join (FROM a, b); write JOIN … ON with the equality"),
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
        match &s.group_by {
            GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => {
                for e in exprs {
                    plan.group_by.push(self.group_term(e, &plan)?);
                }
            }
            _ => return unsupported("GROUP BY ALL or a grouping modifier"),
        }
        plan.having = s.having.as_ref().map(|e| self.expr(e)).transpose()?;
        Ok(plan)
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
                ..
            } => {
                if args.is_some() || !with_hints.is_empty() {
                    return unsupported("A table function or table hints");
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
                let schema_name = part(2)?;
                let database = part(3)?;
                if name.0.len() > 3 {
                    return unsupported(format!("The table name {name}"));
                }
                let alias = alias
                    .as_ref()
                    .map_or_else(|| table.clone(), |a| ident_text(&a.name));
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
                if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
                    return unsupported("A column list on a derived table");
                }
                // A derived table becomes a CTE of the same name, read under that name; one
                // without a name (SQLite allows it) gets a name no table or CTE has.
                let name = match alias {
                    Some(alias) => ident_text(&alias.name),
                    None => self.unused_name(),
                };
                plan.ctes.push(Cte {
                    name: name.clone(),
                    plan: self.query(subquery)?,
                });
                plan.tables.push(TableRef {
                    name: name.clone(),
                    schema_name: None,
                    database: None,
                    alias: name.clone(),
                });
                Ok(name)
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
            let taken = self.text.contains(&name)
                || self
                    .schema
                    .tables
                    .iter()
                    .any(|t| t.name.eq_ignore_ascii_case(&name));
            if !taken {
                return name;
            }
        }
    }

    fn from(&self, from: &ast::TableWithJoins, plan: &mut Plan) -> R<()> {
        let first = self.table(&from.relation, plan)?;
        for j in &from.joins {
            let (join_type, constraint) = match &j.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinType::Inner, c),
                JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinType::Left, c),
                JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinType::Right, c),
                JoinOperator::FullOuter(c) => (JoinType::Full, c),
                JoinOperator::CrossJoin(_) => {
                    return unsupported("CROSS JOIN (joins are equalities between columns)")
                }
                _ => {
                    return unsupported(
                        "This kind of join (use JOIN, LEFT, RIGHT or FULL JOIN … ON)",
                    )
                }
            };
            let JoinConstraint::On(on) = constraint else {
                return unsupported("A join without ON (USING, NATURAL); write ON a.x = b.y");
            };
            let right_alias = self.table(&j.relation, plan)?;
            let condition = self.expr(on)?;
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
                join_type,
                condition,
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
            SqlExpr::Identifier(id) => Expr::Column {
                alias: None,
                column: ident_text(id),
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
                bin(op, left, right)?
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
                let to = cast_type(data_type)?;
                if to == CastType::Date && self.dialect == Dialect::Sqlite {
                    return unsupported(
                        "SQLite's CAST(… AS DATE), which keeps only the leading number \
                         (use DATE_TRUNC('day', x) for the day)",
                    );
                }
                Expr::Cast {
                    expr: Box::new(self.expr(expr)?),
                    to,
                }
            }
            SqlExpr::TypedString(t) => {
                let to = cast_type(&t.data_type)?;
                let text = t.value.clone().into_string().unwrap_or_default();
                Expr::Cast {
                    expr: Box::new(Expr::Literal(Literal::Text(text))),
                    to,
                }
            }
            SqlExpr::Extract { field, expr, .. } => {
                let unit = date_unit(field)?;
                Expr::Func(FuncCall {
                    name: "DATE_PART".to_string(),
                    args: vec![
                        Expr::Literal(Literal::Text(unit.as_str().to_string())),
                        self.expr(expr)?,
                    ],
                    distinct: false,
                    over: None,
                })
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
            SqlExpr::Function(f) => Expr::Func(self.function(f)?),
            SqlExpr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
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

    fn function(&self, f: &ast::Function) -> R<FuncCall> {
        if f.filter.is_some() || !f.within_group.is_empty() || f.null_treatment.is_some() {
            return unsupported("FILTER, WITHIN GROUP or IGNORE NULLS");
        }
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
                if !list.clauses.is_empty() {
                    return unsupported(format!("Clauses inside {name}(…)"));
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
            Some(ast::WindowType::NamedWindow(_)) => return unsupported("A named window"),
            Some(ast::WindowType::WindowSpec(w)) => Some(self.window(w)?),
        };
        Ok(FuncCall {
            name,
            args,
            distinct,
            over,
        })
    }

    fn window(&self, w: &ast::WindowSpec) -> R<Window> {
        if w.window_name.is_some() {
            return unsupported("A named window");
        }
        let mut partition_by = Vec::with_capacity(w.partition_by.len());
        for p in &w.partition_by {
            partition_by.push(self.expr(p)?);
        }
        let mut order_by = Vec::with_capacity(w.order_by.len());
        for o in &w.order_by {
            if o.options.nulls_first.is_some() {
                return unsupported("NULLS FIRST/LAST");
            }
            order_by.push(OrderItem {
                expr: self.expr(&o.expr)?,
                direction: match o.options.sort {
                    Some(ast::OrderBySort::Desc) => Direction::Desc,
                    _ => Direction::Asc,
                },
            });
        }
        let frame = match &w.window_frame {
            None => None,
            Some(f) => Some(Frame {
                unit: match f.units {
                    ast::WindowFrameUnits::Rows => FrameUnit::Rows,
                    ast::WindowFrameUnits::Range => FrameUnit::Range,
                    ast::WindowFrameUnits::Groups => return unsupported("GROUPS frames"),
                },
                start: bound(&f.start_bound)?,
                end: match &f.end_bound {
                    Some(b) => bound(b)?,
                    None => FrameBound::CurrentRow,
                },
            }),
        };
        Ok(Window {
            partition_by,
            order_by,
            frame,
        })
    }
}

fn plain_wildcard(o: &ast::WildcardAdditionalOptions) -> bool {
    o.opt_ilike.is_none()
        && o.opt_exclude.is_none()
        && o.opt_except.is_none()
        && o.opt_replace.is_none()
        && o.opt_rename.is_none()
        && o.opt_alias.is_none()
}

fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Func(FuncCall {
        name: name.to_string(),
        args,
        distinct: false,
        over: None,
    })
}

fn unary(op: UnaryOp, expr: Expr) -> Expr {
    Expr::Unary {
        op,
        expr: Box::new(expr),
    }
}

fn bound(b: &ast::WindowFrameBound) -> R<FrameBound> {
    let n = |e: &Option<Box<SqlExpr>>| -> R<Option<u64>> {
        match e.as_deref() {
            None => Ok(None),
            Some(SqlExpr::Value(v)) => match &v.value {
                Value::Number(s, _) => s.parse::<u64>().map(Some).map_err(|_| {
                    failed(format!("A frame offset must be a whole number, not {s}."))
                }),
                _ => unsupported("A frame offset that is not a number"),
            },
            Some(_) => unsupported("A frame offset that is not a number"),
        }
    };
    Ok(match b {
        ast::WindowFrameBound::CurrentRow => FrameBound::CurrentRow,
        ast::WindowFrameBound::Preceding(e) => match n(e)? {
            None => FrameBound::UnboundedPreceding,
            Some(k) => FrameBound::Preceding { offset: k },
        },
        ast::WindowFrameBound::Following(e) => match n(e)? {
            None => FrameBound::UnboundedFollowing,
            Some(k) => FrameBound::Following { offset: k },
        },
    })
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

/// The plan's cast for a SQL type. Types whose conversion a plan cannot repeat (NUMERIC's
/// exactness, VARCHAR(n)'s truncation) are refused rather than changed in meaning.
fn cast_type(t: &ast::DataType) -> R<CastType> {
    let text = t.to_string().to_ascii_uppercase();
    Ok(match text.trim() {
        "INT" | "INTEGER" | "BIGINT" | "SMALLINT" | "TINYINT" | "SIGNED" | "INT64" => {
            CastType::Integer
        }
        "REAL" | "FLOAT" | "DOUBLE" | "DOUBLE PRECISION" | "FLOAT64" => CastType::Real,
        "TEXT" | "VARCHAR" | "CHAR" | "NVARCHAR" | "STRING" | "CHARACTER VARYING" => CastType::Text,
        "DATE" => CastType::Date,
        _ => return unsupported(format!("CAST to {text} (use INTEGER, REAL, TEXT or DATE)")),
    })
}

fn date_unit(field: &ast::DateTimeField) -> R<DateUnit> {
    Ok(match field {
        ast::DateTimeField::Year | ast::DateTimeField::Years => DateUnit::Year,
        ast::DateTimeField::Quarter => DateUnit::Quarter,
        ast::DateTimeField::Month | ast::DateTimeField::Months => DateUnit::Month,
        ast::DateTimeField::Week(_) | ast::DateTimeField::Weeks => DateUnit::Week,
        ast::DateTimeField::Day | ast::DateTimeField::Days => DateUnit::Day,
        ast::DateTimeField::Hour | ast::DateTimeField::Hours => DateUnit::Hour,
        other => return unsupported(format!("EXTRACT({other})")),
    })
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
