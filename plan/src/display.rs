//! The one-line form of a plan, for traces and the UI: SQL-like, so it reads at a glance,
//! but never executed (the generator renders the real SQL, quoting and escaping included).

use crate::ast::*;
use std::fmt::{self, Display, Formatter, Write};

fn list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl Display for Plan {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if !self.ctes.is_empty() {
            f.write_str("WITH ")?;
            if self.ctes.iter().any(|c| c.recursive) {
                f.write_str("RECURSIVE ")?;
            }
            for (i, c) in self.ctes.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{} AS ({})", ident(&c.name), c.plan)?;
            }
            f.write_char(' ')?;
        }
        f.write_str("SELECT ")?;
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        list(f, &self.select_items)?;
        let mut shown: Vec<&str> = Vec::new();
        if let Some(first) = self.tables.first() {
            write!(f, " FROM {first}")?;
            shown.push(&first.alias);
        }
        for j in &self.joins {
            // The alias a join brings in is whichever side is not in the query yet.
            let new_alias = if shown.contains(&j.right_alias.as_str()) {
                &j.left_alias
            } else {
                &j.right_alias
            };
            shown.push(new_alias);
            let table = self
                .tables
                .iter()
                .find(|t| &t.alias == new_alias)
                .map(|t| t.to_string())
                .unwrap_or_else(|| ident(new_alias));
            let kind = match j.join_type {
                JoinType::Inner => "JOIN",
                JoinType::Left => "LEFT JOIN",
                JoinType::Right => "RIGHT JOIN",
                JoinType::Full => "FULL JOIN",
                JoinType::Cross => "CROSS JOIN",
            };
            write!(f, " {kind} {table}")?;
            if let Some(on) = &j.condition {
                write!(f, " ON {on}")?;
            }
        }
        // Tables no join brings in are still part of the plan; show them, the validator
        // will say what is wrong with them.
        for t in self
            .tables
            .iter()
            .filter(|t| !shown.contains(&t.alias.as_str()))
        {
            write!(f, ", {t}")?;
        }
        if let Some(w) = &self.filter {
            write!(f, " WHERE {w}")?;
        }
        if !self.group_by.is_empty() && self.grouping_sets.is_empty() {
            f.write_str(" GROUP BY ")?;
            list(f, &self.group_by)?;
        }
        if !self.grouping_sets.is_empty() {
            f.write_str(" GROUP BY GROUPING SETS (")?;
            for (i, set) in self.grouping_sets.iter().enumerate() {
                f.write_str(if i == 0 { "(" } else { ", (" })?;
                for (j, at) in set.iter().enumerate() {
                    if j > 0 {
                        f.write_str(", ")?;
                    }
                    match self.group_by.get(*at) {
                        Some(e) => write!(f, "{e}")?,
                        None => write!(f, "#{at}")?,
                    }
                }
                f.write_char(')')?;
            }
            f.write_char(')')?;
        }
        if let Some(h) = &self.having {
            write!(f, " HAVING {h}")?;
        }
        for s in &self.set_operations {
            let op = match s.op {
                SetOperator::Union => "UNION",
                SetOperator::UnionAll => "UNION ALL",
                SetOperator::Intersect => "INTERSECT",
                SetOperator::Except => "EXCEPT",
            };
            write!(f, " {op} ({})", s.plan)?;
        }
        if !self.order_by.is_empty() {
            f.write_str(" ORDER BY ")?;
            list(f, &self.order_by)?;
        }
        if let Some(n) = self.limit {
            write!(f, " LIMIT {n}")?;
        }
        if let Some(n) = self.offset {
            write!(f, " OFFSET {n}")?;
        }
        Ok(())
    }
}

/// A name as is when it is a plain identifier (or `*`), else double-quoted, so that a
/// name with a dot or a space cannot be misread.
fn ident(name: &str) -> String {
    let plain = name == "*"
        || (name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

impl Display for TableRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for part in [&self.database, &self.schema_name].into_iter().flatten() {
            write!(f, "{}.", ident(part))?;
        }
        write!(f, "{} {}", ident(&self.name), ident(&self.alias))
    }
}

impl Display for SelectItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)?;
        match &self.alias {
            Some(a) => write!(f, " AS {}", ident(a)),
            None => Ok(()),
        }
    }
}

impl Display for OrderItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self.direction {
            Direction::Asc => write!(f, "{}", self.expr)?,
            Direction::Desc => write!(f, "{} DESC", self.expr)?,
        }
        match self.nulls {
            None => Ok(()),
            Some(Nulls::First) => f.write_str(" NULLS FIRST"),
            Some(Nulls::Last) => f.write_str(" NULLS LAST"),
        }
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Null => f.write_str("NULL"),
            Literal::Bool(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Literal::Integer(i) => write!(f, "{i}"),
            Literal::Real(r) => write!(f, "{r:?}"),
            Literal::Text(t) => write!(f, "'{}'", t.replace('\'', "''")),
        }
    }
}

/// Nested operations, and negative numbers, are parenthesised so the one-line form is never
/// ambiguous (`- -5` would read as a comment, `NOT a = b` as two readings).
fn operand(f: &mut Formatter<'_>, e: &Expr) -> fmt::Result {
    let negative = matches!(e, Expr::Literal(Literal::Integer(i)) if *i < 0)
        || matches!(e, Expr::Literal(Literal::Real(r)) if r.is_sign_negative());
    match e {
        Expr::Binary { .. } | Expr::Between { .. } | Expr::Unary { .. } => write!(f, "({e})"),
        _ if negative => write!(f, "({e})"),
        _ => write!(f, "{e}"),
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Literal(l) => write!(f, "{l}"),
            Expr::Column { alias, column } => match alias {
                Some(a) => write!(f, "{}.{}", ident(a), ident(column)),
                None => f.write_str(&ident(column)),
            },
            Expr::Func(call) => write!(f, "{call}"),
            Expr::Binary { op, left, right } => {
                operand(f, left)?;
                write!(f, " {} ", op.as_str())?;
                operand(f, right)
            }
            Expr::Unary { op, expr } => {
                f.write_str(match op {
                    UnaryOp::Not => "NOT ",
                    UnaryOp::Plus => "+",
                    UnaryOp::Minus => "-",
                })?;
                operand(f, expr)
            }
            Expr::Case { whens, else_expr } => {
                f.write_str("CASE")?;
                for w in whens {
                    write!(f, " WHEN {} THEN {}", w.condition, w.result)?;
                }
                if let Some(e) = else_expr {
                    write!(f, " ELSE {e}")?;
                }
                f.write_str(" END")
            }
            Expr::Cast { expr, to } => {
                let to = match to {
                    CastType::Integer => "INTEGER",
                    CastType::Real => "REAL",
                    CastType::Text => "TEXT",
                    CastType::Date => "DATE",
                    CastType::Numeric => "NUMERIC",
                    CastType::Timestamp => "TIMESTAMP",
                };
                write!(f, "CAST({expr} AS {to})")
            }
            Expr::Between {
                expr,
                low,
                high,
                negated,
            } => {
                operand(f, expr)?;
                f.write_str(if *negated {
                    " NOT BETWEEN "
                } else {
                    " BETWEEN "
                })?;
                operand(f, low)?;
                f.write_str(" AND ")?;
                operand(f, high)
            }
            Expr::Subquery { plan } => write!(f, "({plan})"),
            Expr::Exists { plan } => write!(f, "EXISTS ({plan})"),
        }
    }
}

impl Display for FuncCall {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        list(f, &self.args)?;
        // A percentile's measured value reads as SQL writes it; any other order is the
        // order values are taken in (STRING_AGG's).
        let within = self.name.to_ascii_uppercase().starts_with("PERCENTILE_");
        if !self.order_by.is_empty() && !within {
            f.write_str(" ORDER BY ")?;
            list(f, &self.order_by)?;
        }
        f.write_char(')')?;
        if !self.order_by.is_empty() && within {
            f.write_str(" WITHIN GROUP (ORDER BY ")?;
            list(f, &self.order_by)?;
            f.write_char(')')?;
        }
        if let Some(c) = &self.filter {
            write!(f, " FILTER (WHERE {c})")?;
        }
        if let Some(w) = &self.over {
            write!(f, " OVER ({w})")?;
        }
        Ok(())
    }
}

impl Display for Window {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if !self.partition_by.is_empty() {
            f.write_str("PARTITION BY ")?;
            list(f, &self.partition_by)?;
            sep = " ";
        }
        if !self.order_by.is_empty() {
            write!(f, "{sep}ORDER BY ")?;
            list(f, &self.order_by)?;
            sep = " ";
        }
        if let Some(frame) = &self.frame {
            let unit = match frame.unit {
                FrameUnit::Rows => "ROWS",
                FrameUnit::Range => "RANGE",
            };
            write!(f, "{sep}{unit} BETWEEN ")?;
            bound(f, frame.start, frame.offset_unit)?;
            f.write_str(" AND ")?;
            bound(f, frame.end, frame.offset_unit)?;
        }
        Ok(())
    }
}

/// A frame bound, its offset an interval when the frame counts in a date unit.
fn bound(
    f: &mut Formatter<'_>,
    b: FrameBound,
    unit: Option<crate::units::DateUnit>,
) -> fmt::Result {
    let offset = |f: &mut Formatter<'_>, n: u64| match unit {
        Some(u) => write!(f, "INTERVAL '{n} {u}'"),
        None => write!(f, "{n}"),
    };
    match b {
        FrameBound::UnboundedPreceding => f.write_str("UNBOUNDED PRECEDING"),
        FrameBound::Preceding { offset: n } => {
            offset(f, n)?;
            f.write_str(" PRECEDING")
        }
        FrameBound::CurrentRow => f.write_str("CURRENT ROW"),
        FrameBound::Following { offset: n } => {
            offset(f, n)?;
            f.write_str(" FOLLOWING")
        }
        FrameBound::UnboundedFollowing => f.write_str("UNBOUNDED FOLLOWING"),
    }
}
