//! Each dialect's own spelling of date arithmetic, read as the plan's portable date
//! functions: intervals added and subtracted (`x - INTERVAL '30 days'`, MySQL's
//! `DATE_SUB(x, INTERVAL 30 DAY)`, SQLite's `date(x, '-30 days')`), differences
//! (`DATEDIFF`, `TIMESTAMPDIFF`, `julianday(a) - julianday(b)` and a lone `julianday(x)`,
//! `EXTRACT(EPOCH FROM a - b)`),
//! parts (`HOUR(x)`, `DAYOFWEEK(x)`) and formats (`TO_CHAR`, `DATE_FORMAT`, DuckDB's
//! `strftime(x, format)`). Each is read only where its meaning is the plan's; anything else
//! is refused by name.

use super::{call, failed, unsupported, Importer, R};
use crate::dialect::Dialect;
use crate::functions::DateUnit;
use crate::{BinaryOp, CastType, Expr, Literal};
use nl2sql_error::PipelineError;
use sqlparser::ast::{
    self, BinaryOperator as Op, DateTimeField, Expr as SqlExpr, FunctionArg, FunctionArgExpr,
    FunctionArguments, Value,
};

pub(super) fn unit_text(unit: DateUnit) -> Expr {
    Expr::Literal(Literal::Text(unit.as_str().to_string()))
}

fn int(n: i64) -> Expr {
    Expr::Literal(Literal::Integer(n))
}

fn negated(e: Expr) -> Expr {
    match e {
        Expr::Literal(Literal::Integer(n)) => int(-n),
        e => Expr::Unary {
            op: crate::UnaryOp::Minus,
            expr: Box::new(e),
        },
    }
}

fn date_add(unit: DateUnit, n: Expr, x: Expr) -> Expr {
    call("DATE_ADD", vec![unit_text(unit), n, x])
}

fn date_diff(unit: DateUnit, a: Expr, b: Expr) -> Expr {
    call("DATE_DIFF", vec![unit_text(unit), a, b])
}

fn divided(e: Expr, by: Expr) -> Expr {
    Expr::Binary {
        op: BinaryOp::Divide,
        left: Box::new(e),
        right: Box::new(by),
    }
}

/// A unit's name as intervals and `TIMESTAMPDIFF` write it, singular or plural.
fn unit_named(word: &str) -> Option<DateUnit> {
    let w = word.trim().to_ascii_lowercase();
    let w = w.strip_suffix('s').unwrap_or(&w);
    Some(match w {
        "year" | "yr" | "y" => DateUnit::Year,
        "quarter" => DateUnit::Quarter,
        "month" | "mon" => DateUnit::Month,
        "week" | "w" => DateUnit::Week,
        "day" | "d" => DateUnit::Day,
        "hour" | "hr" | "h" => DateUnit::Hour,
        "minute" | "min" | "m" => DateUnit::Minute,
        "second" | "sec" => DateUnit::Second,
        _ => return None,
    })
}

fn field_unit(field: &DateTimeField) -> Option<DateUnit> {
    Some(match field {
        DateTimeField::Year | DateTimeField::Years => DateUnit::Year,
        DateTimeField::Quarter => DateUnit::Quarter,
        DateTimeField::Month | DateTimeField::Months => DateUnit::Month,
        DateTimeField::Week(_) | DateTimeField::Weeks => DateUnit::Week,
        DateTimeField::Day | DateTimeField::Days => DateUnit::Day,
        DateTimeField::Hour | DateTimeField::Hours => DateUnit::Hour,
        DateTimeField::Minute | DateTimeField::Minutes => DateUnit::Minute,
        DateTimeField::Second | DateTimeField::Seconds => DateUnit::Second,
        DateTimeField::Custom(id) => unit_named(&id.value)?,
        _ => return None,
    })
}

/// `EXTRACT(field FROM …)`'s unit.
pub(super) fn extract_unit(field: &DateTimeField) -> R<DateUnit> {
    Ok(match field {
        DateTimeField::Dow | DateTimeField::DayOfWeek => DateUnit::DayOfWeek,
        DateTimeField::Isodow => DateUnit::IsoDayOfWeek,
        DateTimeField::Doy | DateTimeField::DayOfYear => DateUnit::DayOfYear,
        DateTimeField::Epoch => DateUnit::Epoch,
        other => match field_unit(other) {
            Some(u) => u,
            None => return unsupported(format!("EXTRACT({other})")),
        },
    })
}

pub(super) fn text_of(e: &SqlExpr) -> Option<&str> {
    match e {
        SqlExpr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

fn number_of(e: &SqlExpr) -> Option<i64> {
    match e {
        SqlExpr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            Value::SingleQuotedString(s) => s.trim().parse().ok(),
            _ => None,
        },
        SqlExpr::UnaryOp {
            op: ast::UnaryOperator::Minus,
            expr,
        } => number_of(expr).map(|n| -n),
        _ => None,
    }
}

/// `'30 days'`, `'1 year 2 months'`, `'-6 hours'`: the amounts and units, in order.
fn interval_text(text: &str) -> Option<Vec<(i64, DateUnit)>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() || !words.len().is_multiple_of(2) {
        return None;
    }
    words
        .chunks(2)
        .map(|pair| Some((pair[0].parse().ok()?, unit_named(pair[1])?)))
        .collect()
}

/// An interval of one whole amount of one unit (`INTERVAL '24 hours'`, `INTERVAL 6 DAY`).
pub(super) fn interval_amount(i: &ast::Interval) -> Option<(i64, DateUnit)> {
    if i.last_field.is_some() || i.fractional_seconds_precision.is_some() {
        return None;
    }
    match &i.leading_field {
        Some(field) => Some((number_of(&i.value)?, field_unit(field)?)),
        None => match interval_text(text_of(&i.value)?)?.as_slice() {
            [(n, unit)] => Some((*n, *unit)),
            _ => None,
        },
    }
}

/// The steps an interval moves by: an amount (an expression for MySQL's `INTERVAL n DAY`)
/// and a unit.
fn interval_steps(importer: &Importer<'_>, i: &ast::Interval) -> R<Vec<(Expr, DateUnit)>> {
    if i.last_field.is_some() || i.fractional_seconds_precision.is_some() {
        return unsupported("An interval with a range of fields (DAY TO SECOND)");
    }
    match &i.leading_field {
        Some(field) => {
            let Some(unit) = field_unit(field) else {
                return unsupported(format!("INTERVAL … {field}"));
            };
            let amount = match number_of(&i.value) {
                Some(n) => int(n),
                None => importer.expr(&i.value)?,
            };
            Ok(vec![(amount, unit)])
        }
        None => match text_of(&i.value).and_then(interval_text) {
            Some(steps) => Ok(steps.into_iter().map(|(n, u)| (int(n), u)).collect()),
            None => unsupported(format!("INTERVAL {} (write it as 'n unit')", i.value)),
        },
    }
}

/// An interval term: `INTERVAL …` or `n * INTERVAL '1 unit'`.
fn as_interval(e: &SqlExpr) -> Option<(Option<&SqlExpr>, &ast::Interval)> {
    match e {
        SqlExpr::Interval(i) => Some((None, i)),
        SqlExpr::Nested(inner) => as_interval(inner),
        SqlExpr::BinaryOp {
            left,
            op: Op::Multiply,
            right,
        } => match (&**left, &**right) {
            (SqlExpr::Interval(i), n) | (n, SqlExpr::Interval(i)) => Some((Some(n), i)),
            _ => None,
        },
        _ => None,
    }
}

/// `a` and `b` of `a - b` where `b` is no interval: a difference of two moments.
fn as_difference(e: &SqlExpr) -> Option<(&SqlExpr, &SqlExpr)> {
    match e {
        SqlExpr::Nested(inner) => as_difference(inner),
        SqlExpr::BinaryOp {
            left,
            op: Op::Minus,
            right,
        } if as_interval(right).is_none() && as_interval(left).is_none() => Some((left, right)),
        _ => None,
    }
}

/// The year an ISO week belongs to: the year of that week's Thursday (`x` moved by
/// 4 − its ISO day of the week), on every engine from the plan's own parts.
/// `x` as a date.
pub(super) fn as_date(x: Expr) -> Expr {
    Expr::Cast {
        expr: Box::new(x),
        to: CastType::Date,
    }
}

/// The last day of `x`'s month, a date: its first day, a month on, a day back.
pub(super) fn month_end(x: Expr) -> Expr {
    let first = call("DATE_TRUNC", vec![unit_text(DateUnit::Month), as_date(x)]);
    let next = date_add(DateUnit::Month, int(1), first);
    date_add(DateUnit::Day, int(-1), next)
}

pub(super) fn iso_year(x: Expr) -> Expr {
    let isodow = call(
        "DATE_PART",
        vec![unit_text(DateUnit::IsoDayOfWeek), x.clone()],
    );
    let to_thursday = Expr::Binary {
        op: BinaryOp::Minus,
        left: Box::new(int(4)),
        right: Box::new(isodow),
    };
    call(
        "DATE_PART",
        vec![
            unit_text(DateUnit::Year),
            date_add(DateUnit::Day, to_thursday, x),
        ],
    )
}

/// The moment `seconds` after 1970-01-01 00:00:00, read as UTC.
pub(super) fn from_epoch(seconds: Expr) -> Expr {
    let epoch = Expr::Cast {
        expr: Box::new(Expr::Literal(Literal::Text("1970-01-01 00:00:00".into()))),
        to: CastType::Timestamp,
    };
    date_add(DateUnit::Second, seconds, epoch)
}

/// `x` moved by each step in turn.
pub(super) fn moved_by(x: Expr, steps: Vec<(Expr, DateUnit)>) -> Expr {
    steps
        .into_iter()
        .fold(x, |moved, (amount, unit)| date_add(unit, amount, moved))
}

/// An interval's steps as PostgreSQL adds an interval: its months as one count (a year
/// is 12, a quarter 3), then its days as one count (a week is 7), then its time, so
/// `DATE '2024-02-29' + INTERVAL '1 year 1 month'` is March 29th, not the 28th a year and
/// then a month would reach. One step stays as it is.
fn as_postgres_adds(steps: Vec<(Expr, DateUnit)>) -> Vec<(Expr, DateUnit)> {
    if steps.len() < 2 {
        return steps;
    }
    let (mut months, mut days, mut time) = (Vec::new(), Vec::new(), Vec::new());
    for (amount, unit) in steps {
        match unit {
            DateUnit::Year => months.push(times(amount, 12)),
            DateUnit::Quarter => months.push(times(amount, 3)),
            DateUnit::Month => months.push(amount),
            DateUnit::Week => days.push(times(amount, 7)),
            DateUnit::Day => days.push(amount),
            _ => time.push((amount, unit)),
        }
    }
    let mut out = Vec::with_capacity(2 + time.len());
    if let Some(n) = sum(months) {
        out.push((n, DateUnit::Month));
    }
    if let Some(n) = sum(days) {
        out.push((n, DateUnit::Day));
    }
    out.extend(time);
    out
}

/// `amount · k`, folded when `amount` is a whole number.
fn times(amount: Expr, k: i64) -> Expr {
    match amount {
        Expr::Literal(Literal::Integer(n)) if n.checked_mul(k).is_some() => int(n * k),
        other => Expr::Binary {
            op: BinaryOp::Multiply,
            left: Box::new(other),
            right: Box::new(int(k)),
        },
    }
}

/// The terms added up, whole numbers folded; `None` for no terms.
fn sum(terms: Vec<Expr>) -> Option<Expr> {
    terms.into_iter().reduce(|a, b| match (&a, &b) {
        (Expr::Literal(Literal::Integer(x)), Expr::Literal(Literal::Integer(y)))
            if x.checked_add(*y).is_some() =>
        {
            int(x + y)
        }
        _ => Expr::Binary {
            op: BinaryOp::Plus,
            left: Box::new(a),
            right: Box::new(b),
        },
    })
}

/// `x` of `julianday(x)`.
fn julian_of(e: &SqlExpr) -> Option<&SqlExpr> {
    let SqlExpr::Function(f) = e else {
        return None;
    };
    if !f.name.to_string().eq_ignore_ascii_case("julianday") {
        return None;
    }
    match call_args(f)?.as_slice() {
        [x] => Some(*x),
        _ => None,
    }
}

pub(super) fn call_args(f: &ast::Function) -> Option<Vec<&SqlExpr>> {
    match &f.args {
        FunctionArguments::List(list)
            if list.clauses.is_empty() && list.duplicate_treatment.is_none() =>
        {
            list.args
                .iter()
                .map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                })
                .collect()
        }
        FunctionArguments::None => Some(vec![]),
        _ => None,
    }
}

/// `f`'s upper-cased name and plain arguments when it is a plain call (no window, no
/// clauses) read in `dialect`, the dialect being imported; `None` otherwise.
pub(super) fn dialect_call(
    f: &ast::Function,
    dialect: Dialect,
    reading: Dialect,
) -> Option<(String, Vec<&SqlExpr>)> {
    if dialect != reading || f.over.is_some() {
        return None;
    }
    Some((f.name.to_string().to_ascii_uppercase(), call_args(f)?))
}

/// Whether `e` is PostgreSQL's `EXTRACT(…)` or `date_part(…)`, which give a `numeric` (a
/// `double`): a division of one gives a fraction there.
pub(super) fn is_extract(e: &SqlExpr) -> bool {
    match e {
        SqlExpr::Nested(inner) => is_extract(inner),
        SqlExpr::Extract { .. } => true,
        SqlExpr::Function(f) => f.name.to_string().eq_ignore_ascii_case("date_part"),
        _ => false,
    }
}

impl Importer<'_> {
    /// `x ± interval` (either side), as `DATE_ADD`s; `None` when neither side is one.
    pub(super) fn interval_arithmetic(
        &self,
        left: &SqlExpr,
        op: &Op,
        right: &SqlExpr,
    ) -> R<Option<Expr>> {
        if let Some(moved) = self.moved_by_case(left, op, right)? {
            return Ok(Some(moved));
        }
        if let Some(steps) = self.make_interval(right)? {
            if matches!(op, Op::Plus | Op::Minus) {
                let steps = steps
                    .into_iter()
                    .map(|(n, unit)| (if *op == Op::Minus { negated(n) } else { n }, unit))
                    .collect();
                return Ok(Some(moved_by(self.expr(left)?, steps)));
            }
        }
        let (x, interval, minus) = match (op, as_interval(left), as_interval(right)) {
            (Op::Plus | Op::Minus, _, Some(i)) => (left, i, *op == Op::Minus),
            (Op::Plus, Some(i), None) => (right, i, false),
            _ => return Ok(None),
        };
        let steps = self.steps(interval, minus)?;
        Ok(Some(moved_by(self.expr(x)?, steps)))
    }

    /// PostgreSQL's `make_interval(…)`, by position or by name (`hours => n`), as steps in
    /// the order PostgreSQL adds an interval's parts: months, then days, then time.
    /// `None` when `e` is no `make_interval`.
    fn make_interval(&self, e: &SqlExpr) -> R<Option<Vec<(Expr, DateUnit)>>> {
        const PARTS: [(&str, DateUnit); 7] = [
            ("years", DateUnit::Year),
            ("months", DateUnit::Month),
            ("weeks", DateUnit::Week),
            ("days", DateUnit::Day),
            ("hours", DateUnit::Hour),
            ("mins", DateUnit::Minute),
            ("secs", DateUnit::Second),
        ];
        let f = match e {
            SqlExpr::Nested(inner) => return self.make_interval(inner),
            SqlExpr::Function(f)
                if self.dialect == Dialect::Postgres
                    && f.over.is_none()
                    && f.name.to_string().eq_ignore_ascii_case("make_interval") =>
            {
                f
            }
            _ => return Ok(None),
        };
        let ast::FunctionArguments::List(list) = &f.args else {
            return unsupported("make_interval without arguments");
        };
        let mut given: Vec<(usize, &SqlExpr)> = Vec::new();
        for (position, arg) in list.args.iter().enumerate() {
            // Each dialect's parser gives a name either as a name or as an expression.
            let (name, value) = match arg {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(v)) => (None, v),
                ast::FunctionArg::Named {
                    name,
                    arg: ast::FunctionArgExpr::Expr(v),
                    ..
                } => (Some(name.value.as_str()), v),
                ast::FunctionArg::ExprNamed {
                    name: SqlExpr::Identifier(name),
                    arg: ast::FunctionArgExpr::Expr(v),
                    ..
                } => (Some(name.value.as_str()), v),
                other => return unsupported(format!("make_interval's argument {other}")),
            };
            let at = match name {
                None => position,
                Some(name) => match PARTS.iter().position(|(p, _)| p.eq_ignore_ascii_case(name)) {
                    Some(at) => at,
                    None => return unsupported(format!("make_interval's argument {name}")),
                },
            };
            if at >= PARTS.len() || given.iter().any(|(g, _)| *g == at) {
                return unsupported("make_interval with a part given twice or past secs");
            }
            given.push((at, value));
        }
        given.sort_by_key(|(at, _)| *at);
        let mut steps = Vec::with_capacity(given.len());
        for (at, value) in given {
            steps.push((self.expr(value)?, PARTS[at].1));
        }
        Ok(Some(as_postgres_adds(steps)))
    }

    /// `x ± CASE … THEN INTERVAL … END` (an interval chosen per row, as an SLA by
    /// priority), as the `CASE` of `x` moved by each branch's interval: the same value,
    /// since `x` moved by no branch (no `ELSE`) is NULL either way. `None` unless every
    /// branch is an interval.
    fn moved_by_case(&self, left: &SqlExpr, op: &Op, right: &SqlExpr) -> R<Option<Expr>> {
        fn case_of(e: &SqlExpr) -> Option<&SqlExpr> {
            match e {
                SqlExpr::Nested(inner) => case_of(inner),
                SqlExpr::Case { .. } => Some(e),
                _ => None,
            }
        }
        let (x, case) = match (op, case_of(left), case_of(right)) {
            (Op::Plus | Op::Minus, _, Some(case)) => (left, case),
            (Op::Plus, Some(case), None) => (right, case),
            _ => return Ok(None),
        };
        let SqlExpr::Case {
            case_token,
            end_token,
            operand,
            conditions,
            else_result,
        } = case
        else {
            return Ok(None);
        };
        let all_intervals = conditions.iter().all(|c| as_interval(&c.result).is_some())
            && else_result
                .as_deref()
                .is_none_or(|e| as_interval(e).is_some());
        if !all_intervals {
            return Ok(None);
        }
        let moved = |interval: &SqlExpr| SqlExpr::BinaryOp {
            left: Box::new(x.clone()),
            op: if *op == Op::Minus {
                Op::Minus
            } else {
                Op::Plus
            },
            right: Box::new(interval.clone()),
        };
        let distributed = SqlExpr::Case {
            case_token: case_token.clone(),
            end_token: end_token.clone(),
            operand: operand.clone(),
            conditions: conditions
                .iter()
                .map(|c| ast::CaseWhen {
                    condition: c.condition.clone(),
                    result: moved(&c.result),
                })
                .collect(),
            else_result: else_result.as_deref().map(|e| Box::new(moved(e))),
        };
        self.expr(&distributed).map(Some)
    }

    /// The steps of `e` when it is an interval; `None` when it is not one.
    pub(super) fn interval_step(&self, e: &SqlExpr) -> R<Option<Vec<(Expr, DateUnit)>>> {
        match as_interval(e) {
            Some(i) => Ok(Some(self.steps(i, false)?)),
            None => Ok(None),
        }
    }

    /// An interval's steps as amounts and units, times its multiplier, negated for `-`.
    fn steps(
        &self,
        (times, interval): (Option<&SqlExpr>, &ast::Interval),
        minus: bool,
    ) -> R<Vec<(Expr, DateUnit)>> {
        let mut out = Vec::new();
        for (amount, unit) in interval_steps(self, interval)? {
            let amount = match times {
                Some(n) => Expr::Binary {
                    op: BinaryOp::Multiply,
                    left: Box::new(self.expr(n)?),
                    right: Box::new(amount),
                },
                None => amount,
            };
            out.push((if minus { negated(amount) } else { amount }, unit));
        }
        Ok(as_postgres_adds(out))
    }

    /// `a - b` compared with an interval of fixed-length units (either side), as `a`
    /// compared with `b` moved by the interval: the same test with no interval kept as a
    /// value. `None` when the comparison is not of that shape.
    pub(super) fn interval_comparison(
        &self,
        left: &SqlExpr,
        op: &Op,
        right: &SqlExpr,
    ) -> R<Option<Expr>> {
        let op = match op {
            Op::Eq => BinaryOp::Eq,
            Op::NotEq => BinaryOp::NotEq,
            Op::Lt => BinaryOp::Lt,
            Op::LtEq => BinaryOp::LtEq,
            Op::Gt => BinaryOp::Gt,
            Op::GtEq => BinaryOp::GtEq,
            _ => return Ok(None),
        };
        let (difference, interval, flipped) = match (as_interval(left), as_interval(right)) {
            (None, Some(i)) => (left, i, false),
            (Some(i), None) => (right, i, true),
            _ => return Ok(None),
        };
        let Some((a, b)) = as_difference(difference) else {
            return Ok(None);
        };
        let steps = self.steps(interval, false)?;
        if let Some((_, unit)) = steps.iter().find(|(_, u)| !u.is_fixed_length()) {
            return unsupported(format!(
                "A difference compared with an interval in {unit}s (PostgreSQL counts a month \
                 as 30 days there)"
            ));
        }
        let moved = moved_by(self.expr(b)?, steps);
        let a = self.expr(a)?;
        let (left, right) = if flipped { (moved, a) } else { (a, moved) };
        Ok(Some(Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        }))
    }

    /// `to_timestamp(seconds) AT TIME ZONE 'UTC'`: the moment that many seconds after
    /// 1970 read as UTC; `None` for any other zone conversion.
    pub(super) fn utc_epoch(&self, timestamp: &SqlExpr, zone: &SqlExpr) -> R<Option<Expr>> {
        let SqlExpr::Function(f) = timestamp else {
            return Ok(None);
        };
        let utc = text_of(zone).is_some_and(|z| z.eq_ignore_ascii_case("UTC"));
        let is_to_timestamp = f.name.to_string().eq_ignore_ascii_case("to_timestamp");
        match call_args(f).as_deref() {
            Some([seconds]) if utc && is_to_timestamp => Ok(Some(from_epoch(self.expr(seconds)?))),
            _ => Ok(None),
        }
    }

    /// A part of PostgreSQL's `AGE(b, a)` (`AGE(a)`: from `a` to today): its years are the
    /// whole years elapsed, its months the whole months elapsed past them. `None` when `e`
    /// is no `AGE`.
    pub(super) fn age_part(&self, unit: DateUnit, e: &SqlExpr) -> R<Option<Expr>> {
        let SqlExpr::Function(f) = e else {
            return Ok(None);
        };
        if !f.name.to_string().eq_ignore_ascii_case("AGE") || self.dialect != Dialect::Postgres {
            return Ok(None);
        }
        let (from, to) = match call_args(f).as_deref() {
            Some([later, earlier]) => (self.expr(earlier)?, self.expr(later)?),
            Some([earlier]) => (self.expr(earlier)?, call("CURRENT_DATE", vec![])),
            _ => return unsupported("AGE with other than one or two arguments"),
        };
        let elapsed =
            |unit: DateUnit| call("ELAPSED", vec![unit_text(unit), from.clone(), to.clone()]);
        Ok(Some(match unit {
            DateUnit::Year => elapsed(DateUnit::Year),
            DateUnit::Month => call("MOD", vec![elapsed(DateUnit::Month), int(12)]),
            other => {
                return unsupported(format!("The {other} of an AGE (only its years and months)"))
            }
        }))
    }

    /// `EXTRACT(EPOCH FROM a - b)`: the seconds between two timestamps.
    pub(super) fn epoch_of_difference(&self, e: &SqlExpr) -> R<Option<Expr>> {
        match e {
            SqlExpr::Nested(inner) => self.epoch_of_difference(inner),
            SqlExpr::BinaryOp {
                left,
                op: Op::Minus,
                right,
            } if as_interval(right).is_none() => Ok(Some(date_diff(
                DateUnit::Second,
                self.expr(right)?,
                self.expr(left)?,
            ))),
            _ => Ok(None),
        }
    }

    /// `julianday(a) - julianday(b)`: the days between, with their fraction.
    pub(super) fn julian_difference(&self, left: &SqlExpr, right: &SqlExpr) -> R<Option<Expr>> {
        let (Some(a), Some(b)) = (julian_of(left), julian_of(right)) else {
            return Ok(None);
        };
        let seconds = date_diff(DateUnit::Second, self.sqlite_day(b)?, self.sqlite_day(a)?);
        Ok(Some(divided(
            seconds,
            Expr::Literal(Literal::Real(86_400.0)),
        )))
    }

    /// A SQLite time value: `'now'` is the current timestamp.
    fn sqlite_day(&self, e: &SqlExpr) -> R<Expr> {
        match text_of(e) {
            Some(t) if t.eq_ignore_ascii_case("now") => Ok(call("CURRENT_TIMESTAMP", vec![])),
            _ => self.expr(e),
        }
    }

    /// A dialect's own date function read as the plan's; `None` when `f` is none of them.
    pub(super) fn date_spelling(&self, f: &ast::Function) -> R<Option<Expr>> {
        let name = f.name.to_string().to_ascii_uppercase();
        let d = self.dialect;
        let Some(args) = call_args(f) else {
            return Ok(None);
        };
        if f.over.is_some() || f.filter.is_some() {
            return Ok(None);
        }
        let part = |unit: DateUnit, x: &SqlExpr| -> R<Expr> {
            Ok(call("DATE_PART", vec![unit_text(unit), self.expr(x)?]))
        };
        let plus = |e: Expr, n: i64| Expr::Binary {
            op: BinaryOp::Plus,
            left: Box::new(e),
            right: Box::new(int(n)),
        };
        Ok(Some(match (name.as_str(), args.as_slice()) {
            ("NOW" | "LOCALTIMESTAMP" | "CURRENT_TIMESTAMP", []) if d != Dialect::Sqlite => {
                call("CURRENT_TIMESTAMP", vec![])
            }
            ("CURDATE" | "CURRENT_DATE", []) => call("CURRENT_DATE", vec![]),
            ("DATE_PART", [u, x]) => match text_of(u).and_then(unit_named) {
                Some(unit) => match self.age_part(unit, x)? {
                    Some(e) => e,
                    None => return Ok(None),
                },
                None => return Ok(None),
            },
            // A lone julianday(x): the Julian day number of the Unix epoch plus the days
            // since it, fraction included (julianday(a) - julianday(b) is read apart).
            ("JULIANDAY", [x]) if d == Dialect::Sqlite => {
                let epoch = Expr::Literal(Literal::Text("1970-01-01 00:00:00".into()));
                let days = divided(
                    date_diff(DateUnit::Second, epoch, self.sqlite_day(x)?),
                    Expr::Literal(Literal::Real(86_400.0)),
                );
                Expr::Binary {
                    op: BinaryOp::Plus,
                    left: Box::new(days),
                    right: Box::new(Expr::Literal(Literal::Real(2_440_587.5))),
                }
            }
            // A day assembled from its numbers, as SQLite writes it for want of make_date:
            // MAKE_DATE renders back to exactly this there.
            ("PRINTF" | "FORMAT", [format, y, m, day])
                if d == Dialect::Sqlite && text_of(format) == Some("%04d-%02d-%02d") =>
            {
                call(
                    "MAKE_DATE",
                    vec![self.expr(y)?, self.expr(m)?, self.expr(day)?],
                )
            }
            // SQLite's date(x, modifiers…) and datetime(…).
            ("DATE" | "DATETIME", [x, modifiers @ ..]) if d == Dialect::Sqlite => {
                let to = if name == "DATE" {
                    CastType::Date
                } else {
                    CastType::Timestamp
                };
                let now = text_of(x).is_some_and(|t| t.eq_ignore_ascii_case("now"));
                // `'unixepoch'` first reads a number as seconds since 1970.
                let (epoch, modifiers) = match modifiers {
                    [m, rest @ ..]
                        if text_of(m).is_some_and(|t| t.eq_ignore_ascii_case("unixepoch")) =>
                    {
                        (true, rest)
                    }
                    _ => (false, modifiers),
                };
                // The value is read as the function's kind first, so each step keeps it.
                let mut value = if epoch {
                    let moment = from_epoch(self.expr(x)?);
                    if to == CastType::Date {
                        Expr::Cast {
                            expr: Box::new(moment),
                            to,
                        }
                    } else {
                        moment
                    }
                } else if now {
                    call(
                        if to == CastType::Date {
                            "CURRENT_DATE"
                        } else {
                            "CURRENT_TIMESTAMP"
                        },
                        vec![],
                    )
                } else {
                    Expr::Cast {
                        expr: Box::new(self.expr(x)?),
                        to,
                    }
                };
                for m in modifiers {
                    value = sqlite_modifier(value, m)?;
                }
                value
            }
            // Moments made of numbers, as the plan's date arithmetic makes them.
            ("EPOCH_MS", [x]) if d == Dialect::DuckDb => from_epoch(divided(
                self.expr(x)?,
                Expr::Literal(Literal::Real(1_000.0)),
            )),
            ("MAKE_TIMESTAMP", [x]) if d == Dialect::DuckDb => from_epoch(divided(
                self.expr(x)?,
                Expr::Literal(Literal::Real(1_000_000.0)),
            )),
            ("MAKE_TIMESTAMP", [y, m, day, h, mi, s])
                if matches!(d, Dialect::Postgres | Dialect::DuckDb) =>
            {
                let midnight = Expr::Cast {
                    expr: Box::new(call(
                        "MAKE_DATE",
                        vec![self.expr(y)?, self.expr(m)?, self.expr(day)?],
                    )),
                    to: CastType::Timestamp,
                };
                [
                    (DateUnit::Hour, h),
                    (DateUnit::Minute, mi),
                    (DateUnit::Second, s),
                ]
                .into_iter()
                .try_fold(midnight, |moment, (unit, n)| {
                    Ok::<_, PipelineError>(date_add(unit, self.expr(n)?, moment))
                })?
            }
            ("TO_TIMESTAMP" | "FROM_UNIXTIME", [_]) => {
                return unsupported(format!(
                    "{name} of a number, which reads it in the session's time zone (write \
                     it AT TIME ZONE 'UTC')"
                ))
            }
            ("DATE", [x]) if d == Dialect::MySql => Expr::Cast {
                expr: Box::new(self.expr(x)?),
                to: CastType::Date,
            },
            ("DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE", [x, n]) if d != Dialect::Sqlite => {
                let minus = matches!(name.as_str(), "DATE_SUB" | "SUBDATE");
                let mut moved = self.expr(x)?;
                let steps = match as_interval(n) {
                    Some((None, i)) => interval_steps(self, i)?,
                    Some(_) => return unsupported(format!("{name} of a multiplied interval")),
                    // ADDDATE(x, n) and Spark's date_add(x, n) count days.
                    None => vec![(self.expr(n)?, DateUnit::Day)],
                };
                for (amount, unit) in steps {
                    let amount = if minus { negated(amount) } else { amount };
                    moved = date_add(unit, amount, moved);
                }
                moved
            }
            // MySQL's and Spark's DATEDIFF(end, start) counts days.
            ("DATEDIFF", [end, start]) if matches!(d, Dialect::MySql | Dialect::Spark) => {
                date_diff(DateUnit::Day, self.expr(start)?, self.expr(end)?)
            }
            // DuckDB's date_diff('unit', a, b) counts boundaries crossed, and whole weeks,
            // as the plan's does (SQL Server's DATEDIFF: tsql.rs).
            ("DATEDIFF" | "DATE_DIFF", [unit, a, b]) if d == Dialect::DuckDb => {
                let unit_word = match unit {
                    SqlExpr::Identifier(id) => Some(id.value.as_str()),
                    other => text_of(other),
                };
                let Some(unit) = unit_word.and_then(unit_named) else {
                    return unsupported(format!("{name} by {unit}"));
                };
                date_diff(unit, self.expr(a)?, self.expr(b)?)
            }
            // MySQL's TIMESTAMPDIFF counts whole units elapsed, as ELAPSED does.
            ("TIMESTAMPDIFF", [unit, a, b]) => {
                let word = match unit {
                    SqlExpr::Identifier(id) => id.value.clone(),
                    other => other.to_string(),
                };
                let Some(unit) = unit_named(&word).filter(|u| u.is_period()) else {
                    return unsupported(format!("TIMESTAMPDIFF({word}, …)"));
                };
                call(
                    "ELAPSED",
                    vec![unit_text(unit), self.expr(a)?, self.expr(b)?],
                )
            }
            ("HOUR", [x]) => part(DateUnit::Hour, x)?,
            ("MINUTE", [x]) => part(DateUnit::Minute, x)?,
            ("SECOND", [x]) => part(DateUnit::Second, x)?,
            ("DAYOFMONTH", [x]) => part(DateUnit::Day, x)?,
            ("DAYOFYEAR", [x]) => part(DateUnit::DayOfYear, x)?,
            // MySQL's and Spark's DAYOFWEEK is 1 for Sunday; MySQL's WEEKDAY 0 for Monday.
            ("DAYOFWEEK", [x]) if matches!(d, Dialect::MySql | Dialect::Spark) => {
                plus(part(DateUnit::DayOfWeek, x)?, 1)
            }
            ("WEEKDAY", [x]) if d == Dialect::MySql => plus(part(DateUnit::IsoDayOfWeek, x)?, -1),
            ("ISODOW", [x]) => part(DateUnit::IsoDayOfWeek, x)?,
            ("DAYOFWEEK" | "DOW", [x]) if d == Dialect::DuckDb => part(DateUnit::DayOfWeek, x)?,
            ("EPOCH", [x]) if d == Dialect::DuckDb => part(DateUnit::Epoch, x)?,
            ("ISOYEAR", [x]) if d == Dialect::DuckDb => iso_year(self.expr(x)?),
            // Mode 3: ISO weeks, which start on Monday, of the ISO year.
            ("YEARWEEK", [x, mode]) if d == Dialect::MySql && number_of(mode) == Some(3) => {
                let x = self.expr(x)?;
                let year = iso_year(x.clone());
                let week = call("DATE_PART", vec![unit_text(DateUnit::Week), x]);
                Expr::Binary {
                    op: BinaryOp::Plus,
                    left: Box::new(Expr::Binary {
                        op: BinaryOp::Multiply,
                        left: Box::new(year),
                        right: Box::new(int(100)),
                    }),
                    right: Box::new(week),
                }
            }
            ("UNIX_TIMESTAMP", [x]) if d == Dialect::MySql => {
                return unsupported(
                    "UNIX_TIMESTAMP, which reads the value in the session's time zone",
                )
            }
            // MySQL's and DuckDB's names are English (MySQL's in its default locale).
            ("DAYNAME", [x]) if matches!(d, Dialect::MySql | Dialect::DuckDb) => {
                call("DAY_NAME", vec![self.expr(x)?])
            }
            ("MONTHNAME", [x]) if matches!(d, Dialect::MySql | Dialect::DuckDb) => {
                call("MONTH_NAME", vec![self.expr(x)?])
            }
            ("TO_CHAR", [x, format]) if d == Dialect::Postgres => {
                self.formatted(x, format, POSTGRES_FORMAT)?
            }
            ("DATE_FORMAT", [x, format]) if d == Dialect::MySql => {
                self.formatted(x, format, MYSQL_FORMAT)?
            }
            ("STRFTIME", [x, format]) if d == Dialect::DuckDb => {
                self.formatted(x, format, DUCKDB_FORMAT)?
            }
            _ => return Ok(None),
        }))
    }

    /// A date formatted by a dialect's format language, as the plan's `STRFTIME` (SQLite's
    /// language) for the numbers, joined (`||`, so NULL stays NULL) with the quarter, the
    /// English day and month names and quoted text, when every piece of the format has a
    /// counterpart.
    fn formatted(&self, x: &SqlExpr, format: &SqlExpr, table: &[(&str, Piece)]) -> R<Expr> {
        let Some(format) = text_of(format) else {
            return unsupported("A date format that is not a text literal");
        };
        let x = self.expr(x)?;
        let mut pieces: Vec<Expr> = Vec::new();
        let mut run = String::new();
        let mut specifiers = false;
        let flush = |run: &mut String, specifiers: &mut bool, pieces: &mut Vec<Expr>| {
            if run.is_empty() {
                return;
            }
            let taken = std::mem::take(run);
            pieces.push(if std::mem::take(specifiers) {
                call("STRFTIME", vec![text(&taken), x.clone()])
            } else {
                text(&taken)
            });
        };
        let mut rest = format;
        while !rest.is_empty() {
            // PostgreSQL's "quoted text" is printed as it is.
            if let (Some(quoted), Dialect::Postgres) = (rest.strip_prefix('"'), self.dialect) {
                let Some((inside, after)) = quoted.split_once('"') else {
                    return unsupported(format!("The date format {format:?} (an unclosed quote)"));
                };
                flush(&mut run, &mut specifiers, &mut pieces);
                pieces.push(text(inside));
                rest = after;
                continue;
            }
            if let Some((from, piece)) = table.iter().find(|(from, _)| rest.starts_with(from)) {
                rest = &rest[from.len()..];
                let named = |of: &str| call(of, vec![x.clone()]);
                let abbreviated = |of: &str| call("SUBSTR", vec![named(of), int(1), int(3)]);
                let special = match piece {
                    Piece::Strftime(spec) => {
                        run.push_str(spec);
                        specifiers = true;
                        continue;
                    }
                    Piece::Quarter => Expr::Cast {
                        expr: Box::new(call(
                            "DATE_PART",
                            vec![unit_text(DateUnit::Quarter), x.clone()],
                        )),
                        to: CastType::Text,
                    },
                    Piece::DayName => named("DAY_NAME"),
                    Piece::DayAbbreviation => abbreviated("DAY_NAME"),
                    Piece::MonthName => named("MONTH_NAME"),
                    Piece::MonthAbbreviation => abbreviated("MONTH_NAME"),
                };
                flush(&mut run, &mut specifiers, &mut pieces);
                pieces.push(special);
                continue;
            }
            let mut chars = rest.chars();
            let c = chars.next().unwrap_or_default();
            // Letters are patterns in PostgreSQL's formats and printed as they are in
            // MySQL's and DuckDB's; a `%` the table does not know is another specifier.
            if c == '%' || (c.is_ascii_alphabetic() && self.dialect == Dialect::Postgres) {
                return unsupported(format!(
                    "The date format {format:?} (only year, month, day, hour, minute and second \
                     numbers, the quarter, day and month names, and quoted text)"
                ));
            }
            if c.is_ascii_alphabetic() {
                let word_end = rest
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(rest.len());
                flush(&mut run, &mut specifiers, &mut pieces);
                pieces.push(text(&rest[..word_end]));
                rest = &rest[word_end..];
                continue;
            }
            run.push(c);
            rest = chars.as_str();
        }
        flush(&mut run, &mut specifiers, &mut pieces);
        let mut pieces = pieces.into_iter();
        let first = pieces.next().unwrap_or_else(|| text(""));
        Ok(pieces.fold(first, |joined, next| Expr::Binary {
            op: BinaryOp::Concat,
            left: Box::new(joined),
            right: Box::new(next),
        }))
    }
}

/// What a piece of a date format prints.
#[derive(Debug, Clone, Copy)]
enum Piece {
    /// A number SQLite's `strftime` prints with this specifier.
    Strftime(&'static str),
    /// The quarter, 1 to 4.
    Quarter,
    /// `Monday` …
    DayName,
    /// `Mon` …
    DayAbbreviation,
    /// `January` …
    MonthName,
    /// `Jan` …
    MonthAbbreviation,
}

fn text(t: &str) -> Expr {
    Expr::Literal(Literal::Text(t.to_string()))
}

use Piece::{DayAbbreviation, DayName, MonthAbbreviation, MonthName, Quarter, Strftime};

/// PostgreSQL's `TO_CHAR` patterns (longest first; `Day` and `Month` without `FM` are
/// padded to nine characters, which no piece prints, so they stay refused).
const POSTGRES_FORMAT: &[(&str, Piece)] = &[
    ("YYYY", Strftime("%Y")),
    ("HH24", Strftime("%H")),
    ("FMDay", DayName),
    ("FMMonth", MonthName),
    ("Dy", DayAbbreviation),
    ("Mon", MonthAbbreviation),
    ("MM", Strftime("%m")),
    ("DD", Strftime("%d")),
    ("MI", Strftime("%M")),
    ("SS", Strftime("%S")),
    ("Q", Quarter),
];

/// MySQL's `DATE_FORMAT` specifiers.
const MYSQL_FORMAT: &[(&str, Piece)] = &[
    ("%Y", Strftime("%Y")),
    ("%m", Strftime("%m")),
    ("%d", Strftime("%d")),
    ("%H", Strftime("%H")),
    ("%i", Strftime("%M")),
    ("%s", Strftime("%S")),
    ("%S", Strftime("%S")),
    ("%W", DayName),
    ("%a", DayAbbreviation),
    ("%M", MonthName),
    ("%b", MonthAbbreviation),
];

/// DuckDB's `strftime` specifiers.
const DUCKDB_FORMAT: &[(&str, Piece)] = &[
    ("%Y", Strftime("%Y")),
    ("%m", Strftime("%m")),
    ("%d", Strftime("%d")),
    ("%H", Strftime("%H")),
    ("%M", Strftime("%M")),
    ("%S", Strftime("%S")),
    ("%A", DayName),
    ("%a", DayAbbreviation),
    ("%B", MonthName),
    ("%b", MonthAbbreviation),
];

/// One SQLite date modifier applied: `'±n unit'`, `'start of month|year|day'`.
fn sqlite_modifier(value: Expr, m: &SqlExpr) -> R<Expr> {
    let Some(text) = text_of(m) else {
        return unsupported("A SQLite date modifier that is not a text literal");
    };
    let t = text.trim().to_ascii_lowercase();
    if let Some(period) = t.strip_prefix("start of ") {
        let unit = match period {
            "month" => DateUnit::Month,
            "year" => DateUnit::Year,
            "day" => DateUnit::Day,
            _ => return unsupported(format!("The SQLite modifier {text:?}")),
        };
        return Ok(call("DATE_TRUNC", vec![unit_text(unit), value]));
    }
    match interval_text(&t) {
        Some(steps) if steps.len() == 1 => {
            let (n, unit) = steps[0];
            Ok(date_add(unit, int(n), value))
        }
        _ => Err(failed(format!(
            "The SQLite modifier {text:?} cannot be expressed as a plan; rewrite the query \
             without it."
        ))),
    }
}
