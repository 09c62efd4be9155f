//! Plan expressions to SQL expressions, per dialect.

use super::build::{
    binary, boolean, call, call_with, case_when, cast, custom_type, ident, int, nested, null,
    object_name, order_by_expr, real, text,
};
use super::temporal::Temporal;
use super::{dates, fail, zones, LowerError, Lowerer};
use crate::dialect::Dialect;
use crate::functions::{self, date_call, DateCall, FuncClass};
use crate::Error;
use crate::{
    BinaryOp, CastType, Direction, Expr, Frame, FrameBound, FrameUnit, FuncCall, Literal, Nulls,
    OrderItem, UnaryOp, Window,
};
use sqlparser::ast::{
    self, BinaryOperator as Op, CaseWhen, Expr as SqlExpr, FunctionArg, FunctionArgExpr, InTarget,
    OrderByExpr, UnaryOperator,
};

/// Operands that are themselves operations get parentheses, so the SQL keeps the plan's
/// tree whatever the dialect's precedence.
fn operand(e: SqlExpr) -> SqlExpr {
    match e {
        SqlExpr::BinaryOp { .. }
        | SqlExpr::UnaryOp { .. }
        | SqlExpr::Between { .. }
        | SqlExpr::Like { .. }
        | SqlExpr::ILike { .. }
        | SqlExpr::In { .. }
        | SqlExpr::IsNull(_)
        | SqlExpr::IsNotNull(_)
        | SqlExpr::IsTrue(_)
        | SqlExpr::IsFalse(_)
        | SqlExpr::IsNotTrue(_)
        | SqlExpr::IsNotFalse(_)
        | SqlExpr::IsDistinctFrom(..)
        | SqlExpr::IsNotDistinctFrom(..)
        | SqlExpr::Exists { .. } => nested(e),
        e => e,
    }
}

fn is_text_literal(e: &Expr) -> bool {
    matches!(e, Expr::Literal(Literal::Text(_)))
}

impl Lowerer<'_> {
    /// Lowers one expression. Each kind is its own function: this recursion is as deep as
    /// the plan, and a debug build keeps every arm's temporaries in one frame otherwise.
    pub(super) fn expr(&self, e: &Expr) -> Result<SqlExpr, LowerError> {
        match e {
            Expr::Literal(l) => Ok(self.literal(l)),
            Expr::Column { alias, column } => self.column(alias.as_deref(), column),
            Expr::Func(f) => self.func(f),
            Expr::Binary { op, left, right } => self.binary(*op, left, right),
            Expr::Unary { op, expr } => self.unary(*op, expr),
            Expr::Case { whens, else_expr } => self.case(whens, else_expr.as_deref()),
            Expr::Cast { expr, to } => self.cast_expr(expr, *to),
            Expr::Between {
                expr,
                low,
                high,
                negated,
            } => self.between(expr, low, high, *negated),
            Expr::Subquery { plan } => self.subquery(plan, false),
            Expr::Exists { plan } => self.subquery(plan, true),
        }
    }

    fn unary(&self, op: UnaryOp, expr: &Expr) -> Result<SqlExpr, LowerError> {
        let inner = nested(self.expr(expr)?);
        let op = match op {
            UnaryOp::Not => UnaryOperator::Not,
            UnaryOp::Plus => UnaryOperator::Plus,
            UnaryOp::Minus => UnaryOperator::Minus,
        };
        Ok(SqlExpr::UnaryOp {
            op,
            expr: Box::new(inner),
        })
    }

    fn case(&self, whens: &[crate::When], else_expr: Option<&Expr>) -> Result<SqlExpr, LowerError> {
        if whens.is_empty() {
            return fail("A CASE needs at least one WHEN branch.");
        }
        let mut conditions = Vec::with_capacity(whens.len());
        for w in whens {
            conditions.push(CaseWhen {
                condition: self.expr(&w.condition)?,
                result: self.expr(&w.result)?,
            });
        }
        let else_result = match else_expr {
            Some(e) => Some(Box::new(self.expr(e)?)),
            None => None,
        };
        Ok(SqlExpr::Case {
            case_token: ast::helpers::attached_token::AttachedToken::empty(),
            end_token: ast::helpers::attached_token::AttachedToken::empty(),
            operand: None,
            conditions,
            else_result,
        })
    }

    fn cast_expr(&self, expr: &Expr, to: CastType) -> Result<SqlExpr, LowerError> {
        let inner = self.expr(expr)?;
        if to == CastType::Integer && self.truncates_before_integer_cast(expr) {
            return Ok(self.cast(self.truncated(inner), to));
        }
        Ok(self.cast(inner, to))
    }

    fn between(
        &self,
        expr: &Expr,
        low: &Expr,
        high: &Expr,
        negated: bool,
    ) -> Result<SqlExpr, LowerError> {
        Ok(SqlExpr::Between {
            expr: Box::new(operand(self.expr(expr)?)),
            negated,
            low: Box::new(operand(self.expr(low)?)),
            high: Box::new(operand(self.expr(high)?)),
        })
    }

    fn subquery(&self, plan: &crate::Plan, exists: bool) -> Result<SqlExpr, LowerError> {
        let query = Box::new(self.query(plan, false)?);
        Ok(if exists {
            SqlExpr::Exists {
                subquery: query,
                negated: false,
            }
        } else {
            SqlExpr::Subquery(query)
        })
    }

    fn literal(&self, l: &Literal) -> SqlExpr {
        let d = self.dialect;
        match l {
            Literal::Null => null(),
            Literal::Bool(b) => match d {
                Dialect::Sqlite | Dialect::SqlServer => int(i64::from(*b)),
                _ => boolean(*b),
            },
            Literal::Integer(i) => int(*i),
            Literal::Real(x) => real(*x),
            Literal::Text(t) => text(t, d),
        }
    }

    fn column(&self, alias: Option<&str>, column: &str) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        if column == "*" {
            return fail("`*` can only be selected or counted.");
        }
        let (alias, column) = self.spelled(alias, column);
        Ok(match alias {
            Some(a) => SqlExpr::CompoundIdentifier(vec![ident(&a, d), ident(&column, d)]),
            None => SqlExpr::Identifier(ident(&column, d)),
        })
    }

    /// A select item or function argument that may be `*` or `alias.*`.
    pub(super) fn star_or_expr(&self, e: &Expr) -> Result<FunctionArgExpr, LowerError> {
        match e {
            Expr::Column { alias, column } if column == "*" => Ok(match alias {
                Some(a) => {
                    let declared = self.bound(a).map_or_else(|| a.clone(), |b| b.alias);
                    FunctionArgExpr::QualifiedWildcard(object_name(ident(&declared, self.dialect)))
                }
                None => FunctionArgExpr::Wildcard,
            }),
            e => Ok(FunctionArgExpr::Expr(self.expr(e)?)),
        }
    }

    /// `alias.key` for `COUNT(alias.*)`: the first primary-key column of alias's table.
    fn counted_key(&self, alias: &str) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        let key = match self.bound(alias).map(|b| (b.alias, b.source)) {
            Some((declared, super::Source::Table(t))) => t
                .primary_key()
                .first()
                .map(|k| SqlExpr::CompoundIdentifier(vec![ident(&declared, d), ident(k, d)])),
            _ => None,
        };
        match key {
            Some(k) => Ok(k),
            None => fail(format!(
                "COUNT({alias}.*) needs a table with a primary key; count one of {alias}'s \
                 columns instead."
            )),
        }
    }

    fn cast(&self, e: SqlExpr, to: CastType) -> SqlExpr {
        let d = self.dialect;
        let t = match (to, d) {
            (CastType::Integer, Dialect::MySql) => custom_type("SIGNED", &[]),
            (CastType::Integer, Dialect::SqlServer) => custom_type("INT", &[]),
            (CastType::Integer, Dialect::Spark) => custom_type("BIGINT", &[]),
            (CastType::Integer, _) => custom_type("INTEGER", &[]),
            (CastType::Real, Dialect::Sqlite) => custom_type("REAL", &[]),
            (CastType::Real, Dialect::Postgres) => custom_type("DOUBLE PRECISION", &[]),
            (CastType::Real, Dialect::SqlServer) => custom_type("FLOAT", &[]),
            (CastType::Real, _) => custom_type("DOUBLE", &[]),
            (CastType::Text, Dialect::MySql) => custom_type("CHAR", &[]),
            (CastType::Text, Dialect::SqlServer) => custom_type("NVARCHAR", &["MAX"]),
            (CastType::Text, Dialect::DuckDb) => custom_type("VARCHAR", &[]),
            (CastType::Text, Dialect::Spark) => custom_type("STRING", &[]),
            (CastType::Text, _) => custom_type("TEXT", &[]),
            // SQLite's CAST(x AS DATE) is numeric affinity (it keeps the year); DATE(x)
            // gives the day.
            (CastType::Date, Dialect::Sqlite) => return call("DATE", vec![e]),
            (CastType::Date, _) => custom_type("DATE", &[]),
            (CastType::Numeric, Dialect::Sqlite) => custom_type("REAL", &[]),
            (CastType::Numeric, Dialect::Postgres) => custom_type("NUMERIC", &[]),
            // The widest exact decimal with room on both sides of the point; MySQL's bare
            // DECIMAL would be DECIMAL(10,0), DuckDB's DECIMAL(18,3).
            (CastType::Numeric, Dialect::MySql) => custom_type("DECIMAL", &["65", "30"]),
            (CastType::Numeric, _) => custom_type("DECIMAL", &["38", "10"]),
            (CastType::Timestamp, Dialect::Sqlite) => return call("DATETIME", vec![e]),
            (CastType::Timestamp, Dialect::MySql) => custom_type("DATETIME", &[]),
            (CastType::Timestamp, Dialect::SqlServer) => custom_type("DATETIME2", &[]),
            (CastType::Timestamp, _) => custom_type("TIMESTAMP", &[]),
        };
        cast(e, t)
    }

    fn binary(&self, op: BinaryOp, left: &Expr, right: &Expr) -> Result<SqlExpr, LowerError> {
        let sql_op = match op {
            BinaryOp::Eq => Op::Eq,
            BinaryOp::NotEq => Op::NotEq,
            BinaryOp::Gt => Op::Gt,
            BinaryOp::Lt => Op::Lt,
            BinaryOp::GtEq => Op::GtEq,
            BinaryOp::LtEq => Op::LtEq,
            BinaryOp::Minus => Op::Minus,
            BinaryOp::Multiply => Op::Multiply,
            BinaryOp::Divide => Op::Divide,
            BinaryOp::Modulo => Op::Modulo,
            BinaryOp::And => Op::And,
            BinaryOp::Or => Op::Or,
            BinaryOp::Plus if is_text_literal(left) || is_text_literal(right) => {
                return self.concat(left, right)
            }
            BinaryOp::Plus => Op::Plus,
            BinaryOp::Concat => return self.concat(left, right),
            BinaryOp::Like | BinaryOp::NotLike => {
                return self.like(op == BinaryOp::NotLike, false, left, right)
            }
            BinaryOp::ILike | BinaryOp::NotILike => {
                return self.like(op == BinaryOp::NotILike, true, left, right)
            }
            BinaryOp::In | BinaryOp::NotIn => return self.in_(op == BinaryOp::NotIn, left, right),
            BinaryOp::Is | BinaryOp::IsNot => return self.is(op == BinaryOp::IsNot, left, right),
            BinaryOp::Not => {
                return fail("NOT is not a binary operator; put it on a unary expression.")
            }
        };
        if let Some(days) = self.temporal_arithmetic(op, left, right)? {
            return Ok(days);
        }
        let l = self.side(op, left)?;
        let r = self.side(op, right)?;
        if op == BinaryOp::Divide && self.whole_division(left, right) {
            return Ok(self.integer_division(l, r));
        }
        Ok(binary(l, sql_op, r))
    }

    /// Arithmetic on points in time. Each engine gives `a - b` its own meaning
    /// (PostgreSQL a day count or an interval, SQLite and MySQL a difference of the
    /// numbers the text or digits read as), so a plan never leaves it to the engine: two
    /// dates' difference is their days (`DATE_DIFF('day', b, a)`, PostgreSQL's integer), a
    /// date plus or minus a whole number is moved by that many days (PostgreSQL's
    /// `CURRENT_DATE - 7`); anything else between two points in time is refused, naming
    /// the portable forms. `None` otherwise.
    fn temporal_arithmetic(
        &self,
        op: BinaryOp,
        left: &Expr,
        right: &Expr,
    ) -> Result<Option<SqlExpr>, LowerError> {
        let arithmetic = matches!(
            op,
            BinaryOp::Plus
                | BinaryOp::Minus
                | BinaryOp::Multiply
                | BinaryOp::Divide
                | BinaryOp::Modulo
        );
        if !arithmetic {
            return Ok(None);
        }
        let day = || Expr::Literal(Literal::Text("day".into()));
        let by_days = |n: Expr, date: &Expr| -> Result<Option<SqlExpr>, LowerError> {
            let moved = crate::ast::call("DATE_ADD", vec![day(), n, date.clone()]);
            Ok(Some(self.expr(&moved)?))
        };
        let whole = |e: &Expr| match e {
            Expr::Literal(Literal::Integer(n)) => Some(*n),
            _ => None,
        };
        match (op, self.temporal_kind(left), self.temporal_kind(right)) {
            (BinaryOp::Minus, Some(Temporal::Date), Some(Temporal::Date)) => {
                let days = crate::ast::call("DATE_DIFF", vec![day(), right.clone(), left.clone()]);
                Ok(Some(nested(self.expr(&days)?)))
            }
            (BinaryOp::Plus, Some(Temporal::Date), None) if whole(right).is_some() => {
                by_days(right.clone(), left)
            }
            (BinaryOp::Minus, Some(Temporal::Date), None) => match whole(right) {
                Some(n) => by_days(Expr::Literal(Literal::Integer(n.saturating_neg())), left),
                None => Ok(None),
            },
            (BinaryOp::Plus, None, Some(Temporal::Date)) if whole(left).is_some() => {
                by_days(left.clone(), right)
            }
            (_, Some(_), Some(_)) => fail(format!(
                "`{}` between two points in time has no meaning every database shares (a \
                 difference of timestamps is an interval, which a plan has no type for). Use \
                 DATE_DIFF('unit', start, end) for the units between them (seconds, hours, \
                 days …), ELAPSED('unit', start, end) for whole units elapsed, or DATE_ADD to \
                 move one.",
                op.as_str()
            )),
            _ => Ok(None),
        }
    }

    /// An operand of `op`, parenthesised unless it continues the same AND or OR chain: those
    /// are associative, and parenthesising every level would nest a long chain past parsers'
    /// depth limits.
    fn side(&self, op: BinaryOp, e: &Expr) -> Result<SqlExpr, LowerError> {
        let lowered = self.expr(e)?;
        let same_chain = matches!(op, BinaryOp::And | BinaryOp::Or)
            && matches!(e, Expr::Binary { op: inner, .. } if *inner == op);
        Ok(if same_chain {
            lowered
        } else {
            operand(lowered)
        })
    }

    fn like(
        &self,
        negated: bool,
        case_insensitive: bool,
        left: &Expr,
        right: &Expr,
    ) -> Result<SqlExpr, LowerError> {
        let native_ilike = matches!(
            self.dialect,
            Dialect::Postgres | Dialect::DuckDb | Dialect::Spark
        );
        let (expr, pattern) = if case_insensitive && !native_ilike {
            (
                call("LOWER", vec![self.expr(left)?]),
                call("LOWER", vec![self.expr(right)?]),
            )
        } else {
            (operand(self.expr(left)?), operand(self.expr(right)?))
        };
        let (expr, pattern) = (Box::new(expr), Box::new(pattern));
        Ok(if case_insensitive && native_ilike {
            SqlExpr::ILike {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            }
        } else {
            SqlExpr::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            }
        })
    }

    fn in_(&self, negated: bool, left: &Expr, right: &Expr) -> Result<SqlExpr, LowerError> {
        let target =
            match right {
                Expr::Func(f)
                    if functions::lookup(&f.name).is_some_and(|s| s.class == FuncClass::List) =>
                {
                    let mut list = Vec::with_capacity(f.args.len());
                    for a in &f.args {
                        list.push(self.expr(a)?);
                    }
                    InTarget::List(list)
                }
                Expr::Subquery { plan } => InTarget::Subquery(Box::new(self.query(plan, false)?)),
                _ => return fail(
                    "The right side of IN must be a TUPLE or LIST function holding the values, \
                     or a subquery.",
                ),
            };
        Ok(SqlExpr::In {
            expr: Box::new(operand(self.expr(left)?)),
            target,
            negated,
            global: false,
        })
    }

    fn is(&self, negated: bool, left: &Expr, right: &Expr) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        let l = Box::new(operand(self.expr(left)?));
        Ok(match right {
            Expr::Literal(Literal::Null) if negated => SqlExpr::IsNotNull(l),
            Expr::Literal(Literal::Null) => SqlExpr::IsNull(l),
            Expr::Literal(Literal::Bool(b)) if d != Dialect::SqlServer => match (b, negated) {
                (true, false) => SqlExpr::IsTrue(l),
                (true, true) => SqlExpr::IsNotTrue(l),
                (false, false) => SqlExpr::IsFalse(l),
                (false, true) => SqlExpr::IsNotFalse(l),
            },
            right => {
                let r = Box::new(operand(self.expr(right)?));
                match (d, negated) {
                    (Dialect::MySql, false) => binary(*l, Op::Spaceship, *r),
                    (Dialect::MySql, true) => SqlExpr::UnaryOp {
                        op: UnaryOperator::Not,
                        expr: Box::new(nested(binary(*l, Op::Spaceship, *r))),
                    },
                    (_, false) => SqlExpr::IsNotDistinctFrom(l, r),
                    (_, true) => SqlExpr::IsDistinctFrom(l, r),
                }
            }
        })
    }

    fn concat(&self, left: &Expr, right: &Expr) -> Result<SqlExpr, LowerError> {
        let l = self.expr(left)?;
        let r = self.expr(right)?;
        Ok(match self.dialect {
            // MySQL's CONCAT is NULL when an argument is, like `||`.
            Dialect::MySql => call("CONCAT", vec![l, r]),
            // T-SQL's `+` concatenates strings and keeps NULLs, but adds numbers: make both
            // sides text first.
            Dialect::SqlServer => {
                let text = || custom_type("NVARCHAR", &["MAX"]);
                binary(cast(l, text()), Op::Plus, cast(r, text()))
            }
            _ => binary(operand(l), Op::StringConcat, operand(r)),
        })
    }

    /// A portable date function. Apart from [`Self::func`] so that its locals do not
    /// widen the frame every nested call recurses through.
    #[inline(never)]
    fn date_function(&self, call: DateCall<'_>) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        Ok(match call {
            DateCall::Part(u, x) => dates::part(u, &|| self.expr(x), d)?,
            DateCall::Trunc(u, x) => {
                let kind = Temporal::after(u, self.temporal_kind(x));
                dates::trunc(u, &|| self.expr(x), kind, d)?
            }
            DateCall::Add(u, n, x) => {
                let kind = Temporal::after(u, self.temporal_kind(x));
                dates::add(u, self.expr(n)?, self.expr(x)?, kind, d)
            }
            DateCall::Diff(u, a, b) => dates::diff(u, &|| self.expr(a), &|| self.expr(b), d)?,
            DateCall::Elapsed(u, a, b) => dates::elapsed(u, &|| self.expr(a), &|| self.expr(b), d)?,
            DateCall::CurrentDate => dates::current_date(self.today, d),
            DateCall::CurrentTimestamp => dates::current_timestamp(self.today, d),
            DateCall::Make(y, m, day) => {
                dates::make(self.expr(y)?, self.expr(m)?, self.expr(day)?, d)
            }
            DateCall::Name(of, x) => dates::name(of, &|| self.expr(x), d)?,
            DateCall::ConvertZone(x, from, to) => {
                zones::convert(self.expr(x)?, self.expr(from)?, self.expr(to)?, d)?
            }
        })
    }

    fn func(&self, f: &FuncCall) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        let Some(spec) = functions::lookup(&f.name) else {
            return fail(format!("{} is not a function plans may call.", f.name));
        };
        if let Some(condition) = &f.filter {
            if spec.class != FuncClass::Aggregate {
                return fail(format!(
                    "filter only applies to aggregates, not to {}.",
                    spec.name
                ));
            }
            if !d.has_aggregate_filter() {
                return self.func(&super::aggregates::filtered_by_case(f, condition)?);
            }
        }
        if super::aggregates::is_statistic(spec.name) {
            return self.statistic(f, spec.name);
        }
        if f.args.len() < spec.min_args || f.args.len() > spec.max_args {
            return fail(format!(
                "{} takes {} argument(s), not {}.",
                spec.name,
                arity(spec.min_args, spec.max_args),
                f.args.len()
            ));
        }
        if let Some(call) = date_call(f) {
            return self.date_function(call.map_err(Error::unbuildable)?);
        }
        let over = match &f.over {
            Some(w) => Some(self.window(w)?),
            None => None,
        };
        let mut args = Vec::with_capacity(f.args.len());
        for a in &f.args {
            args.push(self.star_or_expr(a)?);
        }
        self.finish_call(f, spec, args, over)
    }

    /// The call itself, its arguments and window lowered: apart from [`Self::func`] so
    /// that the dialects' spellings do not widen the frame every nested call recurses
    /// through.
    #[inline(never)]
    fn finish_call(
        &self,
        f: &FuncCall,
        spec: &functions::FuncSpec,
        args: Vec<FunctionArgExpr>,
        over: Option<ast::WindowSpec>,
    ) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        let exprs = |args: Vec<FunctionArgExpr>| -> Result<Vec<SqlExpr>, LowerError> {
            args.into_iter()
                .map(|a| match a {
                    FunctionArgExpr::Expr(e) => Ok(e),
                    _ => fail(format!("`*` is not an argument of {}.", spec.name)),
                })
                .collect()
        };
        Ok(match spec.class {
            FuncClass::List => {
                return fail("TUPLE and LIST hold an IN list; use them only right of IN.")
            }
            FuncClass::Aggregate | FuncClass::Window => {
                if spec.class == FuncClass::Window && over.is_none() {
                    return fail(format!("{} needs an over clause.", spec.name));
                }
                if spec.name != "COUNT"
                    && matches!(
                        args.first(),
                        Some(FunctionArgExpr::Wildcard | FunctionArgExpr::QualifiedWildcard(_))
                    )
                {
                    return fail(format!("`*` is not an argument of {}.", spec.name));
                }
                if f.distinct
                    && matches!(
                        args.first(),
                        Some(FunctionArgExpr::Wildcard | FunctionArgExpr::QualifiedWildcard(_))
                    )
                {
                    return fail(
                        "COUNT(DISTINCT *) is not SQL; count distinct values of a column.",
                    );
                }
                // COUNT(alias.*) is PostgreSQL-only. It counts the rows where alias matched,
                // which after an outer join is not every row: count its primary key instead.
                let args = match f.args.first() {
                    Some(Expr::Column {
                        alias: Some(a),
                        column,
                    }) if column == "*" => {
                        vec![FunctionArgExpr::Expr(self.counted_key(a)?)]
                    }
                    _ => args,
                };
                let mut aggregate = call_with(
                    spec.name,
                    args.into_iter().map(FunctionArg::Unnamed).collect(),
                    f.distinct,
                    over,
                );
                if let (Some(c), SqlExpr::Function(g)) = (&f.filter, &mut aggregate) {
                    g.filter = Some(Box::new(self.expr(c)?));
                }
                aggregate
            }
            FuncClass::Legacy => self.strftime(exprs(args)?, &f.args)?,
            FuncClass::Date => return fail("unreachable date function"),
            FuncClass::Scalar => {
                let mut a = exprs(args)?;
                match (spec.name, d) {
                    ("IFNULL", _) => call("COALESCE", a),
                    ("JSON_VALUE", _) => {
                        let (Some(doc), Some(path)) = (f.args.first(), f.args.get(1)) else {
                            return fail("JSON_VALUE takes a document and a path.");
                        };
                        let keys = functions::json_path(path).or_else(fail)?;
                        super::json::value(&|| self.expr(doc), &keys, d)?
                    }
                    ("MOD", Dialect::Sqlite | Dialect::SqlServer) => {
                        let r = a.pop();
                        let l = a.pop();
                        match (l, r) {
                            (Some(l), Some(r)) => {
                                nested(binary(operand(l), Op::Modulo, operand(r)))
                            }
                            _ => return fail("MOD takes two arguments."),
                        }
                    }
                    ("GREATEST", Dialect::Sqlite) => call("MAX", a),
                    ("LEAST", Dialect::Sqlite) => call("MIN", a),
                    ("LENGTH", Dialect::SqlServer) => call("LEN", a),
                    ("LENGTH", Dialect::MySql) => call("CHAR_LENGTH", a),
                    ("LN", Dialect::SqlServer) => call("LOG", a),
                    ("TRUNC", Dialect::MySql) => {
                        a.push(int(0));
                        call("TRUNCATE", a)
                    }
                    ("TRUNC", Dialect::SqlServer) => {
                        a.extend([int(0), int(1)]);
                        call("ROUND", a)
                    }
                    // Spark's TRUNC truncates dates only.
                    ("TRUNC", Dialect::Spark) => {
                        let Some(x) = f.args.first() else {
                            return fail("TRUNC takes a number.");
                        };
                        let below_zero = binary(self.expr(x)?, Op::Lt, int(0));
                        let up = call("CEIL", vec![self.expr(x)?]);
                        case_when(vec![(below_zero, up)], call("FLOOR", a))
                    }
                    ("SPLIT_PART", _) => {
                        let [x, delimiter, n] = f.args.as_slice() else {
                            return fail("SPLIT_PART takes a text, a delimiter and a part.");
                        };
                        let (delimiter, n) =
                            functions::split_part_args(delimiter, n).or_else(fail)?;
                        super::text::split_part(&|| self.expr(x), delimiter, n, d)?
                    }
                    ("LPAD" | "RPAD", _) => {
                        let Some(x) = f.args.first() else {
                            return fail("LPAD and RPAD take a text, a width and a fill.");
                        };
                        let (width, fill) =
                            functions::pad_args(spec.name, &f.args).or_else(fail)?;
                        let left = spec.name == "LPAD";
                        super::text::pad(&|| self.expr(x), width, fill, left, d)?
                    }
                    ("REGEXP_LIKE" | "REGEXP_REPLACE" | "REGEXP_SUBSTR", _) => {
                        let read = functions::regex_call(f)
                            .unwrap_or_else(|| Err(format!("{} is not read.", spec.name)))
                            .or_else(fail)?;
                        let subject = f.args.first();
                        let x = || match subject {
                            Some(x) => self.expr(x),
                            None => fail(format!("{} takes a text.", spec.name)),
                        };
                        super::regex::regex(&read, &x, d)?
                    }
                    ("INSTR", Dialect::Postgres) => call("STRPOS", a),
                    // CHARINDEX finds an empty text nowhere; every other engine at 1.
                    ("INSTR", Dialect::SqlServer) => {
                        let (Some(within), Some(part)) = (f.args.first(), f.args.get(1)) else {
                            return fail("INSTR takes a text and the text to find in it.");
                        };
                        case_when(
                            vec![(binary(self.expr(part)?, Op::Eq, text("", d)), int(1))],
                            call("CHARINDEX", vec![self.expr(part)?, self.expr(within)?]),
                        )
                    }
                    ("CEIL" | "CEILING", Dialect::SqlServer) => call("CEILING", a),
                    ("CEIL" | "CEILING", _) => call("CEIL", a),
                    ("SUBSTR" | "SUBSTRING", Dialect::SqlServer) => {
                        if a.len() == 2 {
                            // The text again, lowered afresh (see `dates::Operand`).
                            let whole = call("LEN", vec![self.expr(&f.args[0])?]);
                            a.push(whole);
                        }
                        call("SUBSTRING", a)
                    }
                    ("SUBSTR" | "SUBSTRING", _) => call("SUBSTR", a),
                    ("ROUND", Dialect::Postgres) if a.len() == 2 => {
                        let digits = a.pop();
                        let x = a.pop();
                        match (x, digits) {
                            (Some(x), Some(n)) => {
                                call("ROUND", vec![cast(x, custom_type("NUMERIC", &[])), n])
                            }
                            _ => return fail("ROUND takes one or two arguments."),
                        }
                    }
                    ("ROUND", Dialect::SqlServer) if a.len() == 1 => {
                        a.push(int(0));
                        call("ROUND", a)
                    }
                    // Both are NULL when an argument is; CONCAT_WS skips NULLs as SQLite's
                    // CONCAT does.
                    ("CONCAT", Dialect::MySql | Dialect::Spark) => {
                        let mut all = vec![text("", d)];
                        all.extend(a);
                        call("CONCAT_WS", all)
                    }
                    (name, _) => call(name, a),
                }
            }
        })
    }

    /// The legacy `STRFTIME(format, date)`: native on SQLite; elsewhere the format must be a
    /// text literal, translated to the dialect's own formatting function.
    fn strftime(&self, mut a: Vec<SqlExpr>, plan_args: &[Expr]) -> Result<SqlExpr, LowerError> {
        let d = self.dialect;
        if d == Dialect::Sqlite {
            return Ok(call("STRFTIME", a));
        }
        let Some(Expr::Literal(Literal::Text(format))) = plan_args.first() else {
            return fail(
                "STRFTIME needs a text literal format outside SQLite; use DATE_PART or DATE_TRUNC.",
            );
        };
        let x = a.pop().unwrap_or_else(null);
        let table: &[(&str, &str)] = match d {
            Dialect::Postgres => &[
                ("%Y", "YYYY"),
                ("%m", "MM"),
                ("%d", "DD"),
                ("%H", "HH24"),
                ("%M", "MI"),
                ("%S", "SS"),
                ("%j", "DDD"),
                ("%%", "%"),
            ],
            Dialect::MySql => &[
                ("%Y", "%Y"),
                ("%m", "%m"),
                ("%d", "%d"),
                ("%H", "%H"),
                ("%M", "%i"),
                ("%S", "%s"),
                ("%j", "%j"),
                ("%w", "%w"),
                ("%%", "%%"),
            ],
            Dialect::SqlServer | Dialect::Spark => &[
                ("%Y", "yyyy"),
                ("%m", "MM"),
                ("%d", "dd"),
                ("%H", "HH"),
                ("%M", "mm"),
                ("%S", "ss"),
            ],
            _ => &[
                ("%Y", "%Y"),
                ("%m", "%m"),
                ("%d", "%d"),
                ("%H", "%H"),
                ("%M", "%M"),
                ("%S", "%S"),
                ("%j", "%j"),
                ("%w", "%w"),
                ("%%", "%%"),
            ],
        };
        let mut out = String::with_capacity(format.len());
        let mut rest = format.as_str();
        while !rest.is_empty() {
            if let Some((from, to)) = table.iter().find(|(from, _)| rest.starts_with(from)) {
                out.push_str(to);
                rest = &rest[from.len()..];
                continue;
            }
            let mut chars = rest.chars();
            let c = chars.next().unwrap_or_default();
            // Another specifier, or a letter the dialect's format would read as a pattern,
            // would give a different text.
            let literal_letter =
                c.is_ascii_alphabetic() && d != Dialect::DuckDb && d != Dialect::MySql;
            if c == '%' || literal_letter {
                return fail(format!(
                    "STRFTIME format {format:?} has no exact form in {d}: use %Y, %m, %d, %H, \
                     %M and %S with punctuation, or DATE_PART."
                ));
            }
            out.push(c);
            rest = chars.as_str();
        }
        // Text holding a date is read as one first.
        let x = match d {
            Dialect::Postgres | Dialect::DuckDb | Dialect::Spark => {
                cast(x, custom_type("TIMESTAMP", &[]))
            }
            Dialect::SqlServer => cast(x, custom_type("DATETIME2", &[])),
            _ => x,
        };
        Ok(match d {
            Dialect::Postgres => call("TO_CHAR", vec![x, text(&out, d)]),
            Dialect::MySql | Dialect::Spark => call("DATE_FORMAT", vec![x, text(&out, d)]),
            Dialect::SqlServer => call("FORMAT", vec![x, text(&out, d)]),
            _ => call("STRFTIME", vec![x, text(&out, d)]),
        })
    }

    pub(super) fn window(&self, w: &Window) -> Result<ast::WindowSpec, LowerError> {
        let mut partition_by = Vec::with_capacity(w.partition_by.len());
        for p in &w.partition_by {
            partition_by.push(self.expr(p)?);
        }
        // SQLite's RANGE offsets are numbers: a frame counted in time orders by the
        // moment's milliseconds there, in the same order.
        let in_millis = self.dialect == Dialect::Sqlite
            && w.frame.as_ref().is_some_and(|f| f.offset_unit.is_some());
        let mut order_by = Vec::with_capacity(w.order_by.len());
        for o in &w.order_by {
            let key = || -> Result<SqlExpr, LowerError> {
                let e = self.expr(&o.expr)?;
                Ok(if in_millis { dates::millis(e) } else { e })
            };
            order_by.extend(self.ordering(key()?, o, key)?);
        }
        let window_frame = match &w.frame {
            Some(f) => Some(frame(f, self.dialect)?),
            None => None,
        };
        Ok(ast::WindowSpec {
            window_name: None,
            partition_by,
            order_by,
            window_frame,
        })
    }

    /// The ORDER BY terms for `o`, its value lowered as `expr`. NULLs go where `o.nulls`
    /// says: by the dialect's default when that is the same, by `NULLS FIRST/LAST` where the
    /// dialect has it, and elsewhere (MySQL, SQL Server) by an is-null key ahead of the
    /// value, which `key` writes out in full (a name or position cannot be wrapped).
    pub(super) fn ordering(
        &self,
        expr: SqlExpr,
        o: &OrderItem,
        key: impl FnOnce() -> Result<SqlExpr, LowerError>,
    ) -> Result<Vec<OrderByExpr>, LowerError> {
        let d = self.dialect;
        let first = match o.nulls {
            None => return Ok(vec![order_by_expr(expr, o.direction)]),
            Some(n) => n == Nulls::First,
        };
        if first == d.nulls_first(o.direction) {
            return Ok(vec![order_by_expr(expr, o.direction)]);
        }
        if d.has_nulls_ordering() {
            let mut term = order_by_expr(expr, o.direction);
            term.options.nulls_first = Some(first);
            return Ok(vec![term]);
        }
        let (null, value) = if first { (0, 1) } else { (1, 0) };
        let is_null = SqlExpr::Case {
            case_token: ast::helpers::attached_token::AttachedToken::empty(),
            end_token: ast::helpers::attached_token::AttachedToken::empty(),
            operand: None,
            conditions: vec![CaseWhen {
                condition: SqlExpr::IsNull(Box::new(operand(key()?))),
                result: int(null),
            }],
            else_result: Some(Box::new(int(value))),
        };
        Ok(vec![
            order_by_expr(is_null, Direction::Asc),
            order_by_expr(expr, o.direction),
        ])
    }
}

/// An ORDER BY term.
fn frame(f: &Frame, d: Dialect) -> Result<ast::WindowFrame, LowerError> {
    let has_offset = |b: FrameBound| {
        matches!(
            b,
            FrameBound::Preceding { .. } | FrameBound::Following { .. }
        )
    };
    let ranged = f.unit == FrameUnit::Range && (has_offset(f.start) || has_offset(f.end));
    if ranged && d == Dialect::SqlServer {
        return fail("SQL Server's RANGE frames take no offsets; count rows (ROWS) instead.");
    }
    if f.offset_unit.is_some() && f.unit != FrameUnit::Range {
        return fail("offset_unit counts a range frame's offsets; a rows frame counts rows.");
    }
    let offset = |n: u64| -> Result<Option<Box<SqlExpr>>, LowerError> {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        Ok(Some(Box::new(match f.offset_unit {
            None => int(n),
            Some(unit) => dates::frame_offset(unit, n, d)?,
        })))
    };
    let bound = |b: FrameBound| -> Result<ast::WindowFrameBound, LowerError> {
        Ok(match b {
            FrameBound::UnboundedPreceding => ast::WindowFrameBound::Preceding(None),
            FrameBound::Preceding { offset: n } => ast::WindowFrameBound::Preceding(offset(n)?),
            FrameBound::CurrentRow => ast::WindowFrameBound::CurrentRow,
            FrameBound::Following { offset: n } => ast::WindowFrameBound::Following(offset(n)?),
            FrameBound::UnboundedFollowing => ast::WindowFrameBound::Following(None),
        })
    };
    Ok(ast::WindowFrame {
        units: match f.unit {
            FrameUnit::Rows => ast::WindowFrameUnits::Rows,
            FrameUnit::Range => ast::WindowFrameUnits::Range,
        },
        start_bound: bound(f.start)?,
        end_bound: Some(bound(f.end)?),
    })
}

/// "one", "one or two", "at least two", for arity messages.
pub fn arity(min: usize, max: usize) -> String {
    match (min, max) {
        (a, b) if a == b => a.to_string(),
        (a, usize::MAX) => format!("at least {a}"),
        (a, b) => format!("{a} to {b}"),
    }
}
