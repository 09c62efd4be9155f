//! The functions a plan may call: one table read by the validator (allow-list, arity,
//! placement), the generator (rendering) and the prompt (the list offered to the model).

use crate::{Expr, FuncCall, Literal};
use std::fmt;

/// What kind of function a name is; decides where it may appear and how it renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuncClass {
    /// `COUNT`, `SUM`, … : one value per group, or per window with `over`.
    Aggregate,
    /// A value per row.
    Scalar,
    /// A portable date function with a unit argument or no arguments.
    Date,
    /// Ranking and offset functions; they need `over`.
    Window,
    /// `TUPLE`/`LIST`: an `IN` list, never rendered as a call.
    List,
    /// `STRFTIME(format, date)`: accepted from older plans, never offered to the model.
    Legacy,
}

/// One allowed function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FuncSpec {
    /// The canonical (upper-case) name.
    pub name: &'static str,
    /// Its kind.
    pub class: FuncClass,
    /// The fewest arguments it takes.
    pub min_args: usize,
    /// The most arguments it takes (`usize::MAX`: any number).
    pub max_args: usize,
}

/// The most arguments a variadic function takes: enough for any real call, and a bound on
/// how deep a dialect's rewrite (CONCAT as a chain of `||`) can nest.
pub const MAX_VARIADIC: usize = 100;
const ANY: usize = MAX_VARIADIC;
/// IN lists render flat, so they may be long.
const LIST_ANY: usize = usize::MAX;

const fn spec(name: &'static str, class: FuncClass, min_args: usize, max_args: usize) -> FuncSpec {
    FuncSpec {
        name,
        class,
        min_args,
        max_args,
    }
}

use FuncClass::{Aggregate, Date, Legacy, List, Scalar, Window};

/// Every function a plan may call.
pub const FUNCTIONS: &[FuncSpec] = &[
    spec("COUNT", Aggregate, 1, 1),
    spec("SUM", Aggregate, 1, 1),
    spec("AVG", Aggregate, 1, 1),
    spec("MIN", Aggregate, 1, 1),
    spec("MAX", Aggregate, 1, 1),
    spec("COALESCE", Scalar, 1, ANY),
    spec("NULLIF", Scalar, 2, 2),
    spec("IFNULL", Scalar, 2, 2),
    spec("ABS", Scalar, 1, 1),
    spec("ROUND", Scalar, 1, 2),
    spec("CEIL", Scalar, 1, 1),
    spec("CEILING", Scalar, 1, 1),
    spec("FLOOR", Scalar, 1, 1),
    spec("POWER", Scalar, 2, 2),
    spec("SQRT", Scalar, 1, 1),
    spec("MOD", Scalar, 2, 2),
    spec("SIGN", Scalar, 1, 1),
    spec("GREATEST", Scalar, 2, ANY),
    spec("LEAST", Scalar, 2, ANY),
    spec("LOWER", Scalar, 1, 1),
    spec("UPPER", Scalar, 1, 1),
    spec("LENGTH", Scalar, 1, 1),
    spec("SUBSTR", Scalar, 2, 3),
    spec("SUBSTRING", Scalar, 2, 3),
    spec("TRIM", Scalar, 1, 1),
    spec("LTRIM", Scalar, 1, 1),
    spec("RTRIM", Scalar, 1, 1),
    spec("REPLACE", Scalar, 3, 3),
    spec("CONCAT", Scalar, 1, ANY),
    spec("YEAR", Date, 1, 1),
    spec("QUARTER", Date, 1, 1),
    spec("MONTH", Date, 1, 1),
    spec("DAY", Date, 1, 1),
    spec("EXTRACT", Date, 2, 2),
    spec("DATE_PART", Date, 2, 2),
    spec("DATE_TRUNC", Date, 2, 2),
    spec("DATE_ADD", Date, 3, 3),
    spec("DATE_DIFF", Date, 3, 3),
    spec("CURRENT_DATE", Date, 0, 0),
    spec("ROW_NUMBER", Window, 0, 0),
    spec("RANK", Window, 0, 0),
    spec("DENSE_RANK", Window, 0, 0),
    spec("NTILE", Window, 1, 1),
    spec("LAG", Window, 1, 3),
    spec("LEAD", Window, 1, 3),
    spec("FIRST_VALUE", Window, 1, 1),
    spec("LAST_VALUE", Window, 1, 1),
    spec("TUPLE", List, 1, LIST_ANY),
    spec("LIST", List, 1, LIST_ANY),
    spec("STRFTIME", Legacy, 2, 2),
];

/// True when `name` is a plain identifier: a letter or `_`, then letters, digits or `_`.
/// Only such names can be function names, so no model text reaches SQL through one.
pub fn is_plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The allowed function of this name (any case), if any.
pub fn lookup(name: &str) -> Option<&'static FuncSpec> {
    if !is_plain_identifier(name) {
        return None;
    }
    FUNCTIONS.iter().find(|f| f.name.eq_ignore_ascii_case(name))
}

/// The names offered to the model and listed in UNSUPPORTED_FUNCTION messages: everything
/// but the IN-list markers and the legacy `STRFTIME`.
pub fn offered_names() -> impl Iterator<Item = &'static str> {
    FUNCTIONS
        .iter()
        .filter(|f| !matches!(f.class, List | Legacy))
        .map(|f| f.name)
}

/// A calendar unit of the portable date functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateUnit {
    /// Calendar year.
    Year,
    /// Calendar quarter (1–4).
    Quarter,
    /// Calendar month (1–12).
    Month,
    /// Week, starting on Monday.
    Week,
    /// Day.
    Day,
    /// Hour (0–23).
    Hour,
}

impl DateUnit {
    /// Every unit, in the order messages list them.
    pub const ALL: [DateUnit; 6] = [
        DateUnit::Year,
        DateUnit::Quarter,
        DateUnit::Month,
        DateUnit::Week,
        DateUnit::Day,
        DateUnit::Hour,
    ];

    /// The unit's name as plans write it.
    pub fn as_str(self) -> &'static str {
        match self {
            DateUnit::Year => "year",
            DateUnit::Quarter => "quarter",
            DateUnit::Month => "month",
            DateUnit::Week => "week",
            DateUnit::Day => "day",
            DateUnit::Hour => "hour",
        }
    }

    fn parse(text: &str) -> Option<DateUnit> {
        DateUnit::ALL
            .into_iter()
            .find(|u| u.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

impl fmt::Display for DateUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A portable date function call, read from its `FuncCall`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DateCall<'a> {
    /// `DATE_PART(unit, x)` (also `YEAR(x)` …, `EXTRACT(unit, x)`): an integer.
    Part(DateUnit, &'a Expr),
    /// `DATE_TRUNC(unit, x)`: the period's first day as `'YYYY-MM-DD'` text (hours:
    /// `'YYYY-MM-DD HH:00:00'`).
    Trunc(DateUnit, &'a Expr),
    /// `DATE_ADD(unit, n, x)`: `x` moved by `n` units, as `'YYYY-MM-DD'` text (hours: with
    /// the time).
    Add(DateUnit, &'a Expr, &'a Expr),
    /// `DATE_DIFF(unit, a, b)`: unit boundaries crossed from `a` to `b` (whole weeks and
    /// hours for those units).
    Diff(DateUnit, &'a Expr, &'a Expr),
    /// `CURRENT_DATE`: today, pinned by the `today` setting when set.
    CurrentDate,
}

/// The portable forms, for messages.
pub const DATE_FORMS: &str = "DATE_PART('unit', date), DATE_TRUNC('unit', date), \
DATE_ADD('unit', n, date), DATE_DIFF('unit', start, end) and CURRENT_DATE(), where unit is \
one of year, quarter, month, week, day or hour (YEAR(date), QUARTER(date), MONTH(date) and \
DAY(date) also work)";

fn unit_of(e: &Expr) -> Option<DateUnit> {
    match e {
        Expr::Literal(Literal::Text(t)) => DateUnit::parse(t),
        _ => None,
    }
}

/// Reads a date function call. `None` when `f` is not a date function; `Some(Err(why))`
/// when it is one but its unit or shape is wrong.
pub fn date_call(f: &FuncCall) -> Option<Result<DateCall<'_>, String>> {
    let spec = lookup(&f.name)?;
    if spec.class != Date {
        return None;
    }
    let bad = |why: &str| Some(Err(format!("{}: {why}. Use {DATE_FORMS}.", spec.name)));
    let args = f.args.as_slice();
    let fixed_unit = match spec.name {
        "YEAR" => Some(DateUnit::Year),
        "QUARTER" => Some(DateUnit::Quarter),
        "MONTH" => Some(DateUnit::Month),
        "DAY" => Some(DateUnit::Day),
        _ => None,
    };
    if let Some(unit) = fixed_unit {
        return match args {
            [x] => Some(Ok(DateCall::Part(unit, x))),
            _ => bad("takes one date argument"),
        };
    }
    match (spec.name, args) {
        ("CURRENT_DATE", []) => Some(Ok(DateCall::CurrentDate)),
        ("CURRENT_DATE", _) => bad("takes no arguments"),
        ("EXTRACT" | "DATE_PART" | "DATE_TRUNC", [a, b]) => {
            // The unit may come first or second, as the reference engine accepts.
            let (unit, x) = match (unit_of(a), unit_of(b)) {
                (Some(u), _) => (u, b),
                (None, Some(u)) => (u, a),
                (None, None) => return bad("the unit must be a text literal naming a unit"),
            };
            Some(Ok(if spec.name == "DATE_TRUNC" {
                DateCall::Trunc(unit, x)
            } else {
                DateCall::Part(unit, x)
            }))
        }
        ("DATE_ADD", [u, n, x]) => match unit_of(u) {
            Some(unit) => Some(Ok(DateCall::Add(unit, n, x))),
            None => bad("the first argument must be a text literal naming a unit"),
        },
        ("DATE_DIFF", [u, a, b]) => match unit_of(u) {
            Some(unit) => Some(Ok(DateCall::Diff(unit, a, b))),
            None => bad("the first argument must be a text literal naming a unit"),
        },
        _ => bad("wrong number of arguments"),
    }
}
