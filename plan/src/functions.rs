//! The functions a plan may call: one table read by the validator (allow-list, arity,
//! placement), the generator (rendering) and the prompt (the list offered to the model).

use crate::regex::{self, Flags, Pattern};
pub use crate::units::DateUnit;
use crate::{Expr, FuncCall, Literal};

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
    spec("MEDIAN", Aggregate, 1, 1),
    spec("PERCENTILE_CONT", Aggregate, 1, 1),
    spec("PERCENTILE_DISC", Aggregate, 1, 1),
    spec("STDDEV_SAMP", Aggregate, 1, 1),
    spec("STDDEV_POP", Aggregate, 1, 1),
    spec("VAR_SAMP", Aggregate, 1, 1),
    spec("VAR_POP", Aggregate, 1, 1),
    spec("CORR", Aggregate, 2, 2),
    spec("COVAR_POP", Aggregate, 2, 2),
    spec("COVAR_SAMP", Aggregate, 2, 2),
    spec("REGR_SLOPE", Aggregate, 2, 2),
    spec("REGR_INTERCEPT", Aggregate, 2, 2),
    spec("ARG_MIN", Aggregate, 2, 2),
    spec("ARG_MAX", Aggregate, 2, 2),
    spec("STRING_AGG", Aggregate, 2, 2),
    spec("BOOL_OR", Aggregate, 1, 1),
    spec("BOOL_AND", Aggregate, 1, 1),
    spec("COALESCE", Scalar, 1, ANY),
    spec("GROUPING", Scalar, 1, ANY),
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
    spec("TRUNC", Scalar, 1, 1),
    spec("LN", Scalar, 1, 1),
    spec("LOG10", Scalar, 1, 1),
    spec("EXP", Scalar, 1, 1),
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
    spec("INSTR", Scalar, 2, 2),
    spec("SPLIT_PART", Scalar, 3, 3),
    spec("LPAD", Scalar, 2, 3),
    spec("RPAD", Scalar, 2, 3),
    spec("CONCAT", Scalar, 1, ANY),
    spec("JSON_VALUE", Scalar, 2, 2),
    spec("REGEXP_LIKE", Scalar, 2, 3),
    spec("REGEXP_REPLACE", Scalar, 3, 4),
    spec("REGEXP_SUBSTR", Scalar, 2, 3),
    spec("YEAR", Date, 1, 1),
    spec("QUARTER", Date, 1, 1),
    spec("MONTH", Date, 1, 1),
    spec("DAY", Date, 1, 1),
    spec("EXTRACT", Date, 2, 2),
    spec("DATE_PART", Date, 2, 2),
    spec("DATE_TRUNC", Date, 2, 2),
    spec("DATE_ADD", Date, 3, 3),
    spec("DATE_DIFF", Date, 3, 3),
    spec("ELAPSED", Date, 3, 3),
    spec("CURRENT_DATE", Date, 0, 0),
    spec("CURRENT_TIMESTAMP", Date, 0, 0),
    spec("MAKE_DATE", Date, 3, 3),
    spec("DAY_NAME", Date, 1, 1),
    spec("MONTH_NAME", Date, 1, 1),
    spec("CONVERT_TZ", Date, 3, 3),
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

/// The keys of a `JSON_VALUE` path, `'$.key'` or `'$.key.inner'`: each key a plain name
/// (a letter or `_`, then letters, digits or `_`), so every dialect's path syntax spells it
/// alike and no quoting is needed. `Err` says what is wrong with the path.
pub fn json_path(path: &Expr) -> Result<Vec<&str>, String> {
    let why = "JSON_VALUE's second argument is a path literal such as '$.key' or \
               '$.key.inner', keys made of letters, digits and _ (no array indexes)";
    let Expr::Literal(Literal::Text(text)) = path else {
        return Err(format!("{why}."));
    };
    let keys: Vec<&str> = match text.strip_prefix("$.") {
        Some(rest) => rest.split('.').collect(),
        None => return Err(format!("{why}, not {text:?}.")),
    };
    if keys.iter().all(|k| is_plain_identifier(k)) {
        Ok(keys)
    } else {
        Err(format!("{why}, not {text:?}."))
    }
}

/// The most parts `SPLIT_PART` reaches into: where a dialect has no such function each
/// part is found by cutting off the ones before it, which nests as deep as the part.
pub const SPLIT_PART_MOST: i64 = 8;

/// `SPLIT_PART(text, delimiter, n)`'s delimiter and part: a non-empty text literal and a
/// whole number literal from 1 to `SPLIT_PART_MOST`. `Err` says what is wrong.
pub fn split_part_args<'a>(delimiter: &'a Expr, n: &Expr) -> Result<(&'a str, i64), String> {
    match (delimiter, n) {
        (Expr::Literal(Literal::Text(d)), Expr::Literal(Literal::Integer(n)))
            if !d.is_empty() && (1..=SPLIT_PART_MOST).contains(n) =>
        {
            Ok((d, *n))
        }
        _ => Err(format!(
            "SPLIT_PART(text, delimiter, n) takes a non-empty text literal as the delimiter and \
             a whole number from 1 to {SPLIT_PART_MOST} as the part (counted from 1)."
        )),
    }
}

/// The widest `LPAD`/`RPAD` pads to: SQLite's form writes the padding out as a literal.
pub const PAD_MOST: i64 = 1000;

/// `LPAD`/`RPAD(text, width[, fill])`'s width and fill: a whole number literal from 0 to
/// `PAD_MOST`, and one character as a text literal (a space when absent). A longer fill
/// repeats differently per engine. `Err` says what is wrong.
pub fn pad_args(name: &str, args: &[Expr]) -> Result<(i64, char), String> {
    let why = || {
        format!(
            "{name}(text, width, fill) takes a whole number from 0 to {PAD_MOST} as the width \
             and one character as the fill (a space when left out)."
        )
    };
    let width = match args.get(1) {
        Some(Expr::Literal(Literal::Integer(n))) if (0..=PAD_MOST).contains(n) => *n,
        _ => return Err(why()),
    };
    let fill = match args.get(2) {
        None => ' ',
        Some(Expr::Literal(Literal::Text(t))) => {
            let mut chars = t.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => c,
                _ => return Err(why()),
            }
        }
        Some(_) => return Err(why()),
    };
    Ok((width, fill))
}

/// A regular expression call, read from its `FuncCall`.
#[derive(Debug, Clone, PartialEq)]
pub enum RegexCall<'a> {
    /// `REGEXP_LIKE(text, pattern[, 'i'])`: whether the pattern matches somewhere in the text.
    Like(&'a Expr, Pattern),
    /// `REGEXP_REPLACE(text, pattern, replacement[, 'g' and/or 'i'])`: the text with the
    /// first match (every match with `g`) replaced by the literal replacement.
    Replace {
        /// The text searched.
        text: &'a Expr,
        /// The pattern.
        pattern: Pattern,
        /// What each match becomes, as written.
        replacement: &'a str,
        /// Every match, not only the first.
        all: bool,
    },
    /// `REGEXP_SUBSTR(text, pattern[, 'i'])`: the first match's text, NULL when none.
    Substr(&'a Expr, Pattern),
}

/// The portable forms, for messages.
pub const REGEX_FORMS: &str = "REGEXP_LIKE(text, 'pattern'[, 'i']), \
REGEXP_REPLACE(text, 'pattern', 'replacement'[, 'g', 'i' or 'gi']) and \
REGEXP_SUBSTR(text, 'pattern'[, 'i'])";

/// Reads a regular expression call. `None` when `f` is not one; `Some(Err(why))` when its
/// pattern, replacement or flags are not read alike by every engine.
pub fn regex_call(f: &FuncCall) -> Option<Result<RegexCall<'_>, String>> {
    let spec = lookup(&f.name)?;
    let name = spec.name;
    if !matches!(name, "REGEXP_LIKE" | "REGEXP_REPLACE" | "REGEXP_SUBSTR") {
        return None;
    }
    Some(read_regex(name, &f.args).map_err(|why| format!("{name}: {why} Use {REGEX_FORMS}.")))
}

fn read_regex<'a>(name: &str, args: &'a [Expr]) -> Result<RegexCall<'a>, String> {
    let literal = |e: Option<&'a Expr>, what: &str| match e {
        Some(Expr::Literal(Literal::Text(t))) => Ok(t.as_str()),
        _ => Err(format!("the {what} must be a text literal.")),
    };
    let replace = name == "REGEXP_REPLACE";
    let (Some(text), Some(pattern)) = (args.first(), args.get(1)) else {
        return Err("wrong number of arguments.".into());
    };
    let pattern = literal(Some(pattern), "pattern")?;
    let flags_at = if replace { 3 } else { 2 };
    let flags = match args.get(flags_at) {
        None => "",
        Some(f) => literal(Some(f), "flags argument")?,
    };
    let allowed = if replace { "gi" } else { "i" };
    let mut seen = String::new();
    for c in flags.chars() {
        if !allowed.contains(c) || seen.contains(c) {
            return Err(format!(
                "the flags {flags:?} are not a set of {}.",
                if replace {
                    "'g' (every match) and 'i' (any case)"
                } else {
                    "'i' (any case)"
                }
            ));
        }
        seen.push(c);
    }
    let pattern = regex::parse(
        pattern,
        Flags {
            ignore_case: seen.contains('i'),
        },
    )?;
    let whole_match = |why: &str| {
        if pattern.ambiguous {
            Err(format!(
                "a pattern with alternatives (|) or a repeated group can match different text \
                 on different engines (PostgreSQL takes the longest match, the others the \
                 first alternative that fits){why}; REGEXP_LIKE reads it alike."
            ))
        } else {
            Ok(())
        }
    };
    match name {
        "REGEXP_LIKE" => Ok(RegexCall::Like(text, pattern)),
        "REGEXP_SUBSTR" => {
            whole_match("")?;
            Ok(RegexCall::Substr(text, pattern))
        }
        _ => {
            whole_match(", so what it replaces may differ")?;
            let replacement = literal(args.get(2), "replacement")?;
            if !regex::plain_replacement(replacement) {
                return Err(format!(
                    "the replacement {replacement:?} holds \\ or $, which some engines read as \
                     a reference to a group and others as themselves."
                ));
            }
            let all = seen.contains('g');
            if all && pattern.matches_empty {
                return Err(
                    "a pattern that can match the empty text is replaced everywhere differently \
                     by each engine; make it match at least one character."
                        .into(),
                );
            }
            Ok(RegexCall::Replace {
                text,
                pattern,
                replacement,
                all,
            })
        }
    }
}

/// A portable date function call, read from its `FuncCall`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DateCall<'a> {
    /// `DATE_PART(unit, x)` (also `YEAR(x)` …, `EXTRACT(unit, x)`): an integer.
    Part(DateUnit, &'a Expr),
    /// `DATE_TRUNC(unit, x)`: the start of `x`'s period, of `x`'s type: a date stays a
    /// date, a timestamp a timestamp (and any value truncated to an hour, minute or second).
    Trunc(DateUnit, &'a Expr),
    /// `DATE_ADD(unit, n, x)`: `x` moved by `n` units, of `x`'s type as `Trunc`'s is (a
    /// month's end clamps: Jan 31 + 1 month is Feb 28/29).
    Add(DateUnit, &'a Expr, &'a Expr),
    /// `DATE_DIFF(unit, a, b)`: unit boundaries crossed from `a` to `b` (whole weeks for
    /// weeks).
    Diff(DateUnit, &'a Expr, &'a Expr),
    /// `ELAPSED(unit, a, b)`: whole units elapsed from `a` to `b`, toward zero (an age in
    /// years, a tenure in months): a month has elapsed once `b`'s day and time of the month
    /// reach `a`'s.
    Elapsed(DateUnit, &'a Expr, &'a Expr),
    /// `CURRENT_DATE`: today, pinned by the `today` setting when set.
    CurrentDate,
    /// `CURRENT_TIMESTAMP`: now, a timestamp; the start of the pinned day when `today` is
    /// set.
    CurrentTimestamp,
    /// `MAKE_DATE(year, month, day)`: the date of three whole numbers.
    Make(&'a Expr, &'a Expr, &'a Expr),
    /// `DAY_NAME(x)` (`Monday` …) or `MONTH_NAME(x)` (`January` …): the English name of
    /// `x`'s day of the week or month, whatever the database's language.
    Name(NameOf, &'a Expr),
    /// `CONVERT_TZ(x, from, to)`: a timestamp, the wall-clock time in zone `to` when zone
    /// `from`'s showed `x`; zones are IANA names, literals checked by [`zone_name`].
    ConvertZone(&'a Expr, &'a Expr, &'a Expr),
}

/// What a date's name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameOf {
    /// The day of the week.
    Day,
    /// The month.
    Month,
}

/// The portable forms, for messages.
pub const DATE_FORMS: &str = "DATE_PART('unit', date), DATE_TRUNC('unit', date), \
DATE_ADD('unit', n, date), DATE_DIFF('unit', start, end), ELAPSED('unit', start, end) \
(whole units elapsed: an age in years), CURRENT_DATE(), \
CURRENT_TIMESTAMP(), MAKE_DATE(year, month, day), DAY_NAME(date), MONTH_NAME(date) and \
CONVERT_TZ(timestamp, 'from zone', 'to zone'), where unit is one of year, quarter, month, week, day, hour, minute or \
second (DATE_PART also takes dow, isodow, doy and epoch; YEAR(date), QUARTER(date), \
MONTH(date) and DAY(date) also work)";

/// A text literal that cannot be a time zone's IANA name (a column or an expression may
/// hold one: the database checks those).
fn bad_zone(e: &Expr) -> Option<&str> {
    match e {
        Expr::Literal(Literal::Text(z)) if !zone_name(z) => Some(z),
        _ => None,
    }
}

/// Whether `z` is spelt as an IANA zone name: letters, `_` and `-` in `/`-separated parts
/// (`America/Port-au-Prince`), or `Etc/GMT±n`. Spellings that some databases read as
/// POSIX rules (`UTC+5`, where `+` means west) and others as offsets are not.
pub fn zone_name(z: &str) -> bool {
    let part = |p: &str| {
        p.starts_with(|c: char| c.is_ascii_alphabetic())
            && p.chars()
                .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-')
    };
    let etc_offset = z.strip_prefix("Etc/GMT").is_some_and(|n| {
        n.strip_prefix(['+', '-'])
            .is_some_and(|h| !h.is_empty() && h.len() <= 2 && h.chars().all(|c| c.is_ascii_digit()))
    });
    etc_offset || (!z.is_empty() && z.len() <= 64 && z.split('/').all(part))
}

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
        ("CURRENT_TIMESTAMP", []) => Some(Ok(DateCall::CurrentTimestamp)),
        ("CURRENT_DATE" | "CURRENT_TIMESTAMP", _) => bad("takes no arguments"),
        ("MAKE_DATE", [y, m, d]) => Some(Ok(DateCall::Make(y, m, d))),
        ("DAY_NAME", [x]) => Some(Ok(DateCall::Name(NameOf::Day, x))),
        ("MONTH_NAME", [x]) => Some(Ok(DateCall::Name(NameOf::Month, x))),
        ("CONVERT_TZ", [x, from, to]) => match [from, to].into_iter().find_map(bad_zone) {
            Some(zone) => bad(&format!(
                "'{zone}' is not a time zone's name: zones are IANA names such as 'UTC' or \
                 'America/New_York' (offsets such as '+05:00' are read differently by \
                 different databases)"
            )),
            None => Some(Ok(DateCall::ConvertZone(x, from, to))),
        },
        ("EXTRACT" | "DATE_PART" | "DATE_TRUNC", [a, b]) => {
            // The unit may come first or second, as the reference engine accepts.
            let (unit, x) = match (unit_of(a), unit_of(b)) {
                (Some(u), _) => (u, b),
                (None, Some(u)) => (u, a),
                (None, None) => return bad("the unit must be a text literal naming a unit"),
            };
            if spec.name == "DATE_TRUNC" {
                if !unit.is_period() {
                    return bad(&format!("{unit} is a part, not a period to truncate to"));
                }
                Some(Ok(DateCall::Trunc(unit, x)))
            } else {
                Some(Ok(DateCall::Part(unit, x)))
            }
        }
        ("DATE_ADD" | "DATE_DIFF" | "ELAPSED", [u, ..]) => match unit_of(u) {
            Some(unit) if !unit.is_period() => {
                bad(&format!("{unit} is a part, not a period to count in"))
            }
            Some(unit) => match (spec.name, args) {
                ("DATE_ADD", [_, n, x]) => Some(Ok(DateCall::Add(unit, n, x))),
                ("DATE_DIFF", [_, a, b]) => Some(Ok(DateCall::Diff(unit, a, b))),
                ("ELAPSED", [_, a, b]) => Some(Ok(DateCall::Elapsed(unit, a, b))),
                _ => bad("wrong number of arguments"),
            },
            None => bad("the first argument must be a text literal naming a unit"),
        },
        _ => bad("wrong number of arguments"),
    }
}
