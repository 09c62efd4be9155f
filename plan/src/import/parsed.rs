//! A date or a timestamp parsed from a text literal by a format — PostgreSQL's `to_date`,
//! MySQL's `STR_TO_DATE`, DuckDB's `strptime`, Spark's `to_date` and `to_timestamp` — read
//! as the plan's date or timestamp literal (`CAST('2024-01-05' AS DATE)`).
//!
//! Only a literal is read, whose value is known here. Each engine's parser is lenient in
//! its own way (PostgreSQL's `to_date('2024-02-30', 'YYYY-MM-DD')` is March 1st, MySQL's
//! `STR_TO_DATE` takes a month of one digit, Spark's takes none), so a column's text would
//! parse differently from one engine to the next: refused. So is a literal that does not
//! fit its format field for field (a four-digit year, two digits for the others) or that
//! names no real day or time, and a format with anything but those fields and separators.
//! PostgreSQL's `to_timestamp(text, format)` gives a moment in the session's time zone,
//! which the plan's wall-clock timestamps cannot hold: refused too.

use super::dates::{dialect_call, text_of};
use super::{unsupported, Importer, R};
use crate::dialect::Dialect;
use crate::{CastType, Expr, Literal};
use sqlparser::ast;

/// One part of a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    /// A separator, written as itself in the text.
    Literal(char),
}

/// What the call gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gives {
    Date,
    Timestamp,
    /// A date, or a timestamp when the format has a time (MySQL's `STR_TO_DATE`).
    AsFormat,
}

impl Importer<'_> {
    /// `f` as a date or timestamp literal when it is one of the parsing calls above; `None`
    /// when it is none of them.
    pub(super) fn parsed_literal(&self, f: &ast::Function) -> R<Option<Expr>> {
        let d = self.dialect;
        let Some((name, args)) = dialect_call(f, d, d) else {
            return Ok(None);
        };
        let gives = match (name.as_str(), d) {
            ("TO_DATE", Dialect::Postgres) => Gives::Date,
            ("STR_TO_DATE", Dialect::MySql) => Gives::AsFormat,
            ("STRPTIME", Dialect::DuckDb) => Gives::Timestamp,
            ("TO_DATE", Dialect::Spark) if args.len() == 2 => Gives::Date,
            ("TO_TIMESTAMP", Dialect::Spark) if args.len() == 2 => Gives::Timestamp,
            ("TO_TIMESTAMP", Dialect::Postgres) if args.len() == 2 => {
                return unsupported(
                    "PostgreSQL's to_timestamp(text, format), a moment in the session's time \
                     zone (write to_date, or a timestamp literal)",
                )
            }
            _ => return Ok(None),
        };
        let [text, format] = args.as_slice() else {
            return Ok(None);
        };
        let (Some(text), Some(format)) = (text_of(text), text_of(format)) else {
            return unsupported(format!(
                "{name} of a value that is not a text literal, or with a format that is not \
                 one: each engine parses text its own way, so only a literal is read"
            ));
        };
        let Some(parts) = format_parts(format, d) else {
            return unsupported(format!(
                "{name} with the format '{format}': a plan reads only a four-digit year, \
                 two-digit month, day, hour, minute and second, and - / : . or a space"
            ));
        };
        let Some(value) = read(text, &parts) else {
            return unsupported(format!(
                "{name}('{text}', '{format}'): the text does not fit its format field for \
                 field, or names no real day or time"
            ));
        };
        let timed = parts
            .iter()
            .any(|p| matches!(p, Part::Hour | Part::Minute | Part::Second));
        let (literal, to) = match gives {
            Gives::Date if timed => {
                return unsupported(format!("{name} with a time in its format"));
            }
            Gives::Date => (value.date(), CastType::Date),
            Gives::AsFormat if !timed => (value.date(), CastType::Date),
            Gives::AsFormat | Gives::Timestamp => (value.timestamp(), CastType::Timestamp),
        };
        Ok(Some(Expr::Cast {
            expr: Box::new(Expr::Literal(Literal::Text(literal))),
            to,
        }))
    }
}

/// `format`'s parts in `d`'s format language; `None` when it holds anything else.
fn format_parts(format: &str, d: Dialect) -> Option<Vec<Part>> {
    let fields: &[(&str, Part)] = match d {
        // PostgreSQL's patterns are read in any case.
        Dialect::Postgres => &[
            ("YYYY", Part::Year),
            ("MM", Part::Month),
            ("DD", Part::Day),
            ("HH24", Part::Hour),
            ("MI", Part::Minute),
            ("SS", Part::Second),
        ],
        Dialect::MySql => &[
            ("%Y", Part::Year),
            ("%m", Part::Month),
            ("%d", Part::Day),
            ("%H", Part::Hour),
            ("%i", Part::Minute),
            ("%s", Part::Second),
        ],
        Dialect::DuckDb => &[
            ("%Y", Part::Year),
            ("%m", Part::Month),
            ("%d", Part::Day),
            ("%H", Part::Hour),
            ("%M", Part::Minute),
            ("%S", Part::Second),
        ],
        _ => &[
            ("yyyy", Part::Year),
            ("MM", Part::Month),
            ("dd", Part::Day),
            ("HH", Part::Hour),
            ("mm", Part::Minute),
            ("ss", Part::Second),
        ],
    };
    let mut parts = Vec::new();
    let mut rest = format;
    while let Some(c) = rest.chars().next() {
        let field = fields.iter().find(|(spelt, _)| {
            let head = rest.get(..spelt.len());
            match d {
                Dialect::Postgres => head.is_some_and(|h| h.eq_ignore_ascii_case(spelt)),
                _ => head == Some(*spelt),
            }
        });
        if let Some((spelt, part)) = field {
            if parts.contains(part) {
                return None;
            }
            parts.push(*part);
            rest = &rest[spelt.len()..];
        } else if matches!(c, '-' | '/' | ':' | '.' | ' ') {
            parts.push(Part::Literal(c));
            rest = &rest[1..];
        } else {
            return None;
        }
    }
    let has = |p: Part| parts.contains(&p);
    // A whole day, and a time only to the precision written, from the hour down.
    let whole = has(Part::Year) && has(Part::Month) && has(Part::Day);
    let time_ok =
        (!has(Part::Minute) || has(Part::Hour)) && (!has(Part::Second) || has(Part::Minute));
    (whole && time_ok).then_some(parts)
}

/// A parsed day and time.
#[derive(Debug, Default)]
struct Value {
    year: u32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
}

impl Value {
    fn date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    fn timestamp(&self) -> String {
        format!(
            "{} {:02}:{:02}:{:02}",
            self.date(),
            self.hour,
            self.minute,
            self.second
        )
    }
}

/// `text` read by `parts`, field for field; `None` when it does not fit or is no real day.
fn read(text: &str, parts: &[Part]) -> Option<Value> {
    let mut value = Value::default();
    let mut rest = text;
    for part in parts {
        let width = match part {
            Part::Literal(c) => {
                rest = rest.strip_prefix(*c)?;
                continue;
            }
            Part::Year => 4,
            _ => 2,
        };
        let digits = rest.get(..width)?;
        if !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let n: u32 = digits.parse().ok()?;
        rest = &rest[width..];
        match part {
            Part::Year => value.year = n,
            Part::Month => value.month = n,
            Part::Day => value.day = n,
            Part::Hour => value.hour = n,
            Part::Minute => value.minute = n,
            Part::Second => value.second = n,
            Part::Literal(_) => {}
        }
    }
    let real = rest.is_empty()
        && value.year >= 1
        && (1..=12).contains(&value.month)
        && (1..=days_in(value.year, value.month)).contains(&value.day)
        && value.hour < 24
        && value.minute < 60
        && value.second < 60;
    real.then_some(value)
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
