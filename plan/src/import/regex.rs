//! Each dialect's regular expressions, read as the plan's `REGEXP_LIKE`, `REGEXP_REPLACE`
//! and `REGEXP_SUBSTR` with the meaning they had where they were written: PostgreSQL's `~`
//! family, `regexp_like`, `regexp_replace` (the first match unless `'g'`), `regexp_substr`
//! and `substring(x FROM pattern)`; MySQL's `REGEXP`/`RLIKE`, `REGEXP_LIKE` and
//! `REGEXP_REPLACE` (every match), whose case follows the column's collation, so a pattern
//! with letters needs `REGEXP_LIKE`'s match type (not `REGEXP_SUBSTR`: NULL where nothing
//! matches on MySQL, `''` on MariaDB); DuckDB's `regexp_matches`, `regexp_full_match` and
//! its `~` (a whole-text match), `regexp_replace`, `regexp_extract`; Spark's `RLIKE`,
//! `regexp`, `regexp_like`, `regexp_replace` (every match) and `regexp_extract(x, p, 0)`.
//! DuckDB's and Spark's extraction give `''` where nothing matches. Where the dialect reads
//! `.` or `$` otherwise than a plan, the pattern is respelt to keep its meaning. Whether
//! the pattern itself is read alike everywhere is the validator's to say (crate::regex).

use super::dates::{call_args, text_of};
use super::{unsupported, Importer, R};
use crate::ast::call;
use crate::dialect::Dialect;
use crate::regex::{respelt, Reading};
use crate::{BinaryOp, Expr, Literal, UnaryOp, When};
use sqlparser::ast::{self, BinaryOperator as Op, Expr as SqlExpr};

impl Importer<'_> {
    /// `f` as the plan spells it, when it is one of the dialect's regular expression
    /// functions; `None` otherwise.
    pub(super) fn regex_spelling(&self, f: &ast::Function) -> R<Option<Expr>> {
        if f.over.is_some() {
            return Ok(None);
        }
        let name = f.name.to_string().to_ascii_uppercase();
        let Some(args) = call_args(f) else {
            return Ok(None);
        };
        let d = self.dialect;
        let (pg, my, duck, spark) = (
            d == Dialect::Postgres,
            d == Dialect::MySql,
            d == Dialect::DuckDb,
            d == Dialect::Spark,
        );
        Ok(Some(match (name.as_str(), args.as_slice()) {
            ("REGEXP_LIKE", [x, p]) if my => self.like(x, p, mysql_case(p)?)?,
            ("REGEXP_LIKE", [x, p]) if pg || spark => self.like(x, p, "")?,
            ("REGEXP_LIKE", [x, p, flags]) if pg || my => self.like(x, p, &case_flags(flags)?)?,
            ("REGEXP", [x, p]) if spark => self.like(x, p, "")?,
            ("REGEXP_MATCHES", [x, p]) if duck => self.like(x, p, "")?,
            ("REGEXP_MATCHES", [x, p, flags]) if duck => self.like(x, p, &case_flags(flags)?)?,
            ("REGEXP_FULL_MATCH", [x, p]) if duck => self.whole(x, p)?,
            ("REGEXP_REPLACE", [x, p, r]) if pg || duck => self.replace(x, p, r, "")?,
            ("REGEXP_REPLACE", [x, p, r, flags]) if pg || duck => {
                let flags = text_of(flags).ok_or_else(|| flag_error(flags))?;
                let mut plan_flags = String::new();
                for c in flags.chars() {
                    match c {
                        'g' | 'i' if !plan_flags.contains(c) => plan_flags.push(c),
                        'c' => plan_flags.retain(|k| k != 'i'),
                        _ => return Err(flag_error(args[3])),
                    }
                }
                self.replace(x, p, r, &plan_flags)?
            }
            ("REGEXP_REPLACE", [x, p, r]) if spark => self.replace(x, p, r, "g")?,
            ("REGEXP_REPLACE", [x, p, r]) if my => {
                let flags = format!("g{}", mysql_case(p)?);
                self.replace(x, p, r, &flags)?
            }
            ("REGEXP_SUBSTR", [x, p]) if pg => self.substr(x, p, "")?,
            ("REGEXP_SUBSTR", [_, _]) if my => {
                return unsupported(
                    "MySQL's REGEXP_SUBSTR (NULL where nothing matches on MySQL, '' on MariaDB)",
                )
            }
            ("REGEXP_EXTRACT", [x, p]) if duck => self.extract(x, p)?,
            ("REGEXP_EXTRACT", [x, p, SqlExpr::Value(v)]) if duck || spark => {
                match super::literal(&v.value)? {
                    Literal::Integer(0) => self.extract(x, p)?,
                    _ => return unsupported("regexp_extract of a group"),
                }
            }
            _ => return Ok(None),
        }))
    }

    /// `x ~ p` and its kin, or `None` when `op` is none of them.
    pub(super) fn regex_operator(
        &self,
        left: &SqlExpr,
        op: &Op,
        right: &SqlExpr,
    ) -> R<Option<Expr>> {
        let (negated, ignore_case) = match op {
            Op::PGRegexMatch => (false, false),
            Op::PGRegexIMatch => (false, true),
            Op::PGRegexNotMatch => (true, false),
            Op::PGRegexNotIMatch => (true, true),
            _ => return Ok(None),
        };
        let matched = match self.dialect {
            Dialect::Postgres => self.like(left, right, if ignore_case { "i" } else { "" })?,
            // DuckDB's `~` is regexp_full_match.
            Dialect::DuckDb if !ignore_case => self.whole(left, right)?,
            _ => return unsupported(format!("The operator {op}")),
        };
        Ok(Some(not_if(negated, matched)))
    }

    /// MySQL's `x REGEXP p` and Spark's `x RLIKE p`.
    pub(super) fn rlike(&self, x: &SqlExpr, p: &SqlExpr, negated: bool) -> R<Expr> {
        let flags = match self.dialect {
            Dialect::MySql => mysql_case(p)?,
            Dialect::Spark => "",
            _ => return unsupported("REGEXP or RLIKE outside MySQL and Spark"),
        };
        Ok(not_if(negated, self.like(x, p, flags)?))
    }

    /// PostgreSQL's `substring(x FROM pattern)`, which gives the first group's text when the
    /// pattern has one: only a pattern without is read. `None` when `from` is no text.
    pub(super) fn regex_substring(&self, x: &SqlExpr, from: &SqlExpr) -> R<Option<Expr>> {
        let Some(pattern) = text_of(from).filter(|_| self.dialect == Dialect::Postgres) else {
            return Ok(None);
        };
        let flags = crate::regex::Flags { ignore_case: false };
        if crate::regex::parse(pattern, flags).is_ok_and(|p| p.captures) {
            return unsupported("SUBSTRING(x FROM pattern) of a pattern with a group");
        }
        Ok(Some(self.substr(x, from, "")?))
    }

    /// The pattern `p` as a plan reads it: respelt where the dialect reads `.` or `$`
    /// otherwise (crate::regex::respelt); `text_matters` for a replacement or extraction.
    fn pattern(&self, p: &SqlExpr, text_matters: bool) -> R<Expr> {
        let reading = |dot_stops_at_newline, end_before_newline| Reading {
            dot_stops_at_newline,
            end_before_newline,
        };
        let reading = match self.dialect {
            Dialect::MySql | Dialect::Spark => reading(true, true),
            Dialect::DuckDb => reading(true, false),
            _ => return self.expr(p),
        };
        let Some(written) = text_of(p) else {
            return self.expr(p);
        };
        match respelt(written, reading, text_matters) {
            Ok(pattern) => Ok(text(&pattern)),
            Err(why) => unsupported(format!("The pattern {written:?}: {why},")),
        }
    }

    fn like(&self, x: &SqlExpr, p: &SqlExpr, flags: &str) -> R<Expr> {
        let args = vec![self.expr(x)?, self.pattern(p, false)?];
        Ok(flagged("REGEXP_LIKE", args, flags))
    }

    /// A match of the whole text: the pattern anchored at both ends.
    fn whole(&self, x: &SqlExpr, p: &SqlExpr) -> R<Expr> {
        let Expr::Literal(Literal::Text(pattern)) = self.pattern(p, false)? else {
            return unsupported("A whole-text match of a pattern that is not a literal");
        };
        Ok(call(
            "REGEXP_LIKE",
            vec![self.expr(x)?, text(&format!("^(?:{pattern})$"))],
        ))
    }

    fn replace(&self, x: &SqlExpr, p: &SqlExpr, r: &SqlExpr, flags: &str) -> R<Expr> {
        let args = vec![self.expr(x)?, self.pattern(p, true)?, self.expr(r)?];
        Ok(flagged("REGEXP_REPLACE", args, flags))
    }

    fn substr(&self, x: &SqlExpr, p: &SqlExpr, flags: &str) -> R<Expr> {
        let args = vec![self.expr(x)?, self.pattern(p, true)?];
        Ok(flagged("REGEXP_SUBSTR", args, flags))
    }

    /// The first match's text, `''` when nothing matches, NULL for a NULL text.
    fn extract(&self, x: &SqlExpr, p: &SqlExpr) -> R<Expr> {
        let found = call("COALESCE", vec![self.substr(x, p, "")?, text("")]);
        Ok(Expr::Case {
            whens: vec![When {
                condition: Expr::Binary {
                    op: BinaryOp::Is,
                    left: Box::new(self.expr(x)?),
                    right: Box::new(Expr::Literal(Literal::Null)),
                },
                result: Expr::Literal(Literal::Null),
            }],
            else_expr: Some(Box::new(found)),
        })
    }
}

/// The plan's case flag for a MySQL pattern given without one: MySQL matches in the
/// column's collation's case, which the plan cannot see, so only a pattern with no letter
/// (outside its escapes) is read, where case cannot matter.
fn mysql_case(p: &SqlExpr) -> R<&'static str> {
    let Some(pattern) = text_of(p) else {
        return unsupported("A MySQL pattern that is not a literal");
    };
    let mut letters = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else {
            letters |= c.is_alphabetic();
        }
    }
    if letters {
        return unsupported(
            "A MySQL pattern with letters and no match type (its case follows the column's \
             collation; write REGEXP_LIKE(x, pattern, 'c') or 'i')",
        );
    }
    Ok("")
}

/// PostgreSQL's and MySQL's `'i'`/`'c'` (the last one given wins) and DuckDB's options.
fn case_flags(flags: &SqlExpr) -> R<String> {
    let text = text_of(flags).ok_or_else(|| flag_error(flags))?;
    let mut ignore_case = false;
    for c in text.chars() {
        match c {
            'i' => ignore_case = true,
            'c' => ignore_case = false,
            _ => return Err(flag_error(flags)),
        }
    }
    Ok(if ignore_case { "i" } else { "" }.to_string())
}

fn flag_error(flags: &SqlExpr) -> nl2sql_error::PipelineError {
    super::failed(format!(
        "The regular expression flags {flags} cannot be expressed as a plan: it reads 'i' \
         (any case), 'c' (this case) and, for a replacement, 'g' (every match)."
    ))
}

/// The plan's call `name(args…)`, with its flags last when there are any.
fn flagged(name: &str, mut args: Vec<Expr>, flags: &str) -> Expr {
    if !flags.is_empty() {
        args.push(text(flags));
    }
    call(name, args)
}

fn text(t: &str) -> Expr {
    Expr::Literal(Literal::Text(t.to_string()))
}

fn not_if(negated: bool, e: Expr) -> Expr {
    if negated {
        Expr::Unary {
            op: UnaryOp::Not,
            expr: Box::new(e),
        }
    } else {
        e
    }
}
