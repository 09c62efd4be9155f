//! Regular expressions a plan may use: the part of the syntax that PostgreSQL, MySQL and
//! MariaDB, DuckDB and Spark read alike, checked once here and spelt for each engine.
//!
//! Each engine has its own flavour (PostgreSQL's ARE, ICU on MySQL, PCRE on MariaDB, RE2 on
//! DuckDB, Java's on Spark), and they disagree at the edges: where `.` stops, what `$`
//! matches before a final newline, what `\b` means, nested classes, lazy quantifiers, and
//! which of several matches at one place wins (PostgreSQL takes the longest, the others
//! the first alternative). A pattern is accepted only when every engine reads it alike,
//! and spelt with the flags that make them agree: `.` matches any character, newlines
//! included, and `$` only the very end. Case is never left to an engine's flag, as each
//! folds letters beyond ASCII its own way (`ſ` is an `s` to some, `İ` an `i` to Java):
//! matched in any case, each ASCII letter is spelt with its other case (`[sS]`), and a
//! letter beyond ASCII is refused.

use crate::dialect::Dialect;

/// The longest pattern accepted: enough for any real pattern, and a bound on the work.
pub const PATTERN_MOST: usize = 1000;
/// The largest bound of a `{n,m}` repetition (PostgreSQL's limit).
const REPEAT_MOST: u32 = 255;

/// One piece of a checked pattern, kept as it is spelt so each engine can be given its own
/// spelling of the few pieces they spell differently.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// A literal character, an escape (`\d`, `\.`) or a bracketed class, as written.
    Atom(String),
    /// `.`
    Any,
    /// `^`
    Start,
    /// `$`
    End,
    /// `(` or `(?:`: every group is spelt non-capturing, since nothing reads its capture.
    Open,
    /// `)`
    Close,
    /// `|`
    Or,
    /// `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}`, as written.
    Repeat(String),
}

/// A pattern every engine reads alike, with what its callers need to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    pieces: Vec<Piece>,
    /// Where a match could be made more than one way (an alternative or a repeated group),
    /// PostgreSQL takes the longest and the others the first that fits: the match's text
    /// may differ, though whether there is one does not.
    pub ambiguous: bool,
    /// It can match the empty text, where engines replace differently.
    pub matches_empty: bool,
    /// It starts with `^` outside any alternative, so it matches once at most.
    pub anchored: bool,
    /// It has a capturing group `( … )`, which PostgreSQL's `substring` returns instead of
    /// the whole match.
    pub captures: bool,
}

/// Reads `pattern`, matched as `flags` say; `Err` says what no engine-independent reading
/// allows.
pub fn parse(pattern: &str, flags: Flags) -> Result<Pattern, String> {
    let fold = flags.ignore_case;
    if pattern.is_empty() {
        return Err("The pattern is empty.".into());
    }
    if pattern.chars().count() > PATTERN_MOST {
        return Err(format!(
            "The pattern is longer than {PATTERN_MOST} characters."
        ));
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut pieces = Vec::new();
    let mut captures = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        let piece = match c {
            '.' => Piece::Any,
            '^' => Piece::Start,
            '$' => Piece::End,
            '|' => Piece::Or,
            ')' => Piece::Close,
            '(' => {
                if chars.get(i) == Some(&'?') {
                    if chars.get(i + 1) != Some(&':') {
                        return Err(
                            "Only (?: …) groups are read alike: lookarounds, flags and named \
                             groups are not."
                                .into(),
                        );
                    }
                    i += 2;
                } else {
                    captures = true;
                }
                Piece::Open
            }
            '*' | '+' | '?' => Piece::Repeat(c.to_string()),
            '{' => {
                let (text, next) = repetition(&chars, i)?;
                i = next;
                Piece::Repeat(text)
            }
            '\\' => {
                let (text, next) = escape(&chars, i, false)?;
                i = next;
                Piece::Atom(text)
            }
            '[' => {
                let (text, next) = class(&chars, i, fold)?;
                i = next;
                Piece::Atom(text)
            }
            ']' | '}' => {
                return Err(format!(
                    "A lone {c} is read differently by different engines; write \\{c}."
                ))
            }
            c if fold => Piece::Atom(either_case(c)?),
            c => Piece::Atom(c.to_string()),
        };
        pieces.push(piece);
    }
    let mut read = shape(pieces)?;
    read.captures = captures;
    Ok(read)
}

/// Checks where repetitions and groups stand, and works out the pattern's properties.
fn shape(pieces: Vec<Piece>) -> Result<Pattern, String> {
    let mut depth = 0usize;
    let mut ambiguous = false;
    for (k, p) in pieces.iter().enumerate() {
        let before = k.checked_sub(1).map(|b| &pieces[b]);
        match p {
            Piece::Open => depth += 1,
            Piece::Close => {
                depth = depth.checked_sub(1).ok_or("A ) closes no group.")?;
                if matches!(before, Some(Piece::Open)) {
                    return Err(
                        "An empty group () is read differently by different engines.".into(),
                    );
                }
            }
            Piece::Or => {
                ambiguous = true;
                if matches!(before, None | Some(Piece::Open | Piece::Or)) {
                    return Err(
                        "An empty alternative is read differently by different engines.".into(),
                    );
                }
            }
            Piece::Repeat(r) => match before {
                Some(Piece::Atom(_) | Piece::Any) => {}
                Some(Piece::Close) => ambiguous = true,
                Some(Piece::Repeat(_)) => {
                    return Err(format!(
                        "A repetition followed by {r} is lazy or possessive in some engines and \
                         an error in others; repeat a group instead."
                    ))
                }
                _ => return Err(format!("{r} repeats nothing.")),
            },
            _ => {}
        }
    }
    if depth > 0 {
        return Err("A ( is not closed.".into());
    }
    if matches!(pieces.last(), Some(Piece::Or)) {
        return Err("An empty alternative is read differently by different engines.".into());
    }
    let top_level_or = {
        let mut d = 0i32;
        pieces.iter().any(|p| {
            match p {
                Piece::Open => d += 1,
                Piece::Close => d -= 1,
                _ => {}
            }
            d == 0 && *p == Piece::Or
        })
    };
    let anchored = pieces.first() == Some(&Piece::Start) && !top_level_or;
    let matches_empty = nullable(&pieces);
    Ok(Pattern {
        pieces,
        ambiguous,
        matches_empty,
        anchored,
        captures: false,
    })
}

/// Whether the pieces (a well-formed sequence) can match the empty text.
fn nullable(pieces: &[Piece]) -> bool {
    // Each alternative at this level is a sequence of items; an item is an atom or a group,
    // with the repetition after it.
    let mut alternatives = vec![true];
    let mut k = 0;
    while k < pieces.len() {
        let (item_empty, next) = match &pieces[k] {
            Piece::Open => {
                let end = closing(pieces, k);
                (nullable(&pieces[k + 1..end]), end + 1)
            }
            Piece::Or => {
                alternatives.push(true);
                k += 1;
                continue;
            }
            Piece::Start | Piece::End => (true, k + 1),
            _ => (false, k + 1),
        };
        let optional = match pieces.get(next) {
            Some(Piece::Repeat(r)) => repeat_optional(r),
            _ => false,
        };
        let skip = usize::from(matches!(pieces.get(next), Some(Piece::Repeat(_))));
        if let Some(last) = alternatives.last_mut() {
            *last &= item_empty || optional;
        }
        k = next + skip;
    }
    alternatives.into_iter().any(|a| a)
}

/// The index of the `)` closing the `(` at `open`.
fn closing(pieces: &[Piece], open: usize) -> usize {
    let mut depth = 0;
    for (k, p) in pieces.iter().enumerate().skip(open) {
        match p {
            Piece::Open => depth += 1,
            Piece::Close => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    pieces.len()
}

fn repeat_optional(r: &str) -> bool {
    match r {
        "*" | "?" => true,
        "+" => false,
        _ => r.starts_with("{0"),
    }
}

/// `{n}`, `{n,}` or `{n,m}` starting after the `{` at `i - 1`.
fn repetition(chars: &[char], i: usize) -> Result<(String, usize), String> {
    let end = chars[i..]
        .iter()
        .position(|&c| c == '}')
        .map(|p| i + p)
        .ok_or("A { that does not close a repetition {n,m} is read differently by different engines; write \\{.")?;
    let inner: String = chars[i..end].iter().collect();
    // RE2 reads a count with a leading zero (`{05}`) as the literal text.
    let bound = |s: &str| -> Option<u32> {
        (!s.is_empty()
            && s.len() <= 3
            && s.chars().all(|c| c.is_ascii_digit())
            && (s == "0" || !s.starts_with('0')))
        .then(|| s.parse().ok())
        .flatten()
        .filter(|n| *n <= REPEAT_MOST)
    };
    let ok = match inner.split_once(',') {
        None => bound(&inner).is_some(),
        Some((n, "")) => bound(n).is_some(),
        Some((n, m)) => matches!((bound(n), bound(m)), (Some(n), Some(m)) if n <= m),
    };
    if !ok {
        return Err(format!(
            "{{{inner}}} is not a repetition {{n}}, {{n,}} or {{n,m}} with n ≤ m ≤ {REPEAT_MOST}."
        ));
    }
    Ok((format!("{{{inner}}}"), end + 1))
}

/// The escape after the `\` at `i - 1`: a class (`\d \s \w`, and outside brackets their
/// negations), spelt out in ASCII, a control character (`\t \n \r`) or an escaped
/// punctuation mark.
fn escape(chars: &[char], i: usize, in_class: bool) -> Result<(String, usize), String> {
    let Some(&c) = chars.get(i) else {
        return Err("The pattern ends with a lone \\.".into());
    };
    let ok = match c {
        'd' | 's' | 'w' | 't' | 'n' | 'r' => true,
        'D' | 'S' | 'W' => !in_class,
        c => c.is_ascii_punctuation(),
    };
    if !ok {
        return Err(format!(
            "\\{c} is read differently by different engines (or not at all){}; use \\d, \\s, \\w, \
             their negations, \\t, \\n, \\r or an escaped punctuation mark.",
            if in_class { " inside [ ]" } else { "" }
        ));
    }
    // The classes in ASCII: engines differ on whether an accented letter is a \w, a
    // foreign digit a \d, a vertical tab a \s.
    let members = |class: char| match class {
        'd' => Some(DIGITS),
        'w' => Some(WORD),
        's' => Some(SPACE),
        _ => None,
    };
    let spelt = match (
        members(c.to_ascii_lowercase()),
        c.is_ascii_uppercase(),
        in_class,
    ) {
        (Some(m), _, true) => m.to_string(),
        (Some(m), false, false) => format!("[{m}]"),
        (Some(m), true, false) => format!("[^{m}]"),
        (None, ..) => format!("\\{c}"),
    };
    Ok((spelt, i + 1))
}

const DIGITS: &str = "0-9";
const WORD: &str = "A-Za-z0-9_";
const SPACE: &str = " \t\n\r\u{b}\u{c}";

/// `c` matched in either case: an ASCII letter with its other case, anything else but a
/// letter as itself.
fn either_case(c: char) -> Result<String, String> {
    if c.is_ascii_alphabetic() {
        Ok(format!(
            "[{}{}]",
            c.to_ascii_lowercase(),
            c.to_ascii_uppercase()
        ))
    } else if c.is_alphabetic() {
        Err(format!(
            "{c} in any case: engines fold letters beyond ASCII differently; write both cases \
             in a class ([éÉ]) and match case."
        ))
    } else {
        Ok(c.to_string())
    }
}

/// A range `low-high` of a class, in either case when `fold`.
fn range(low: char, high: char, fold: bool) -> Result<String, String> {
    let spelt = format!("{low}-{high}");
    if !fold {
        return Ok(spelt);
    }
    let within = |a: char, b: char| (low..=high).contains(&a) || (low..=high).contains(&b);
    Ok(match (low, high) {
        (l, h) if l.is_ascii_lowercase() && h.is_ascii_lowercase() => {
            format!(
                "{spelt}{}-{}",
                l.to_ascii_uppercase(),
                h.to_ascii_uppercase()
            )
        }
        (l, h) if l.is_ascii_uppercase() && h.is_ascii_uppercase() => {
            format!(
                "{spelt}{}-{}",
                l.to_ascii_lowercase(),
                h.to_ascii_lowercase()
            )
        }
        _ if !within('A', 'Z') && !within('a', 'z') && high.is_ascii() => spelt,
        _ => {
            return Err(format!(
                "The range {spelt} in any case: only ranges of letters of one case, or of \
                 ASCII characters that are no letters, are folded alike; match case."
            ))
        }
    })
}

/// A bracketed class after the `[` at `i - 1`: characters, ranges and escapes, negated by a
/// leading `^`, each letter in either case when `fold`. Nested brackets, `[:alpha:]` names
/// and `&&`/`--` (set operations in Java and ICU) are refused.
fn class(chars: &[char], mut i: usize, fold: bool) -> Result<(String, usize), String> {
    let mut text = String::from("[");
    if chars.get(i) == Some(&'^') {
        text.push('^');
        i += 1;
    }
    let mut members = 0;
    let mut previous: Option<char> = None;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err("A [ is not closed.".into());
        };
        i += 1;
        match c {
            ']' if members > 0 => {
                text.push(']');
                return Ok((text, i));
            }
            ']' => {
                return Err("An empty class [] is read differently by different engines.".into())
            }
            '[' => {
                return Err(
                    "A [ inside a class (nested classes, [:alpha:]) is read differently by \
                     different engines; write \\[."
                        .into(),
                )
            }
            '\\' => {
                let (e, next) = escape(chars, i, true)?;
                let whole_class = e.chars().count() > 2;
                if whole_class && previous == Some('-') && text.len() > 2 {
                    return Err("A range cannot end in \\d, \\s or \\w.".into());
                }
                if whole_class && chars.get(next) == Some(&'-') && chars.get(next + 1) != Some(&']')
                {
                    return Err("A range cannot start at \\d, \\s or \\w.".into());
                }
                text.push_str(&e);
                i = next;
                previous = None;
            }
            '&' | '-' if previous == Some(c) => {
                return Err(format!(
                    "{c}{c} inside a class is a set operation in some engines; escape one of them."
                ))
            }
            c if chars.get(i) == Some(&'-')
                && chars
                    .get(i + 1)
                    .is_some_and(|h| !matches!(h, ']' | '\\' | '[')) =>
            {
                let high = chars[i + 1];
                text.push_str(&range(c, high, fold)?);
                i += 2;
                previous = Some(high);
            }
            c if fold => {
                let spelt = either_case(c)?;
                text.push_str(spelt.trim_start_matches('[').trim_end_matches(']'));
                previous = Some(c);
            }
            c => {
                text.push(c);
                previous = Some(c);
            }
        }
        members += 1;
    }
}

/// How a pattern is matched: case and all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    /// Upper and lower case match each other.
    pub ignore_case: bool,
}

impl Pattern {
    /// The pattern as `dialect`'s regular expression functions read it, with the flags that
    /// make its engine agree with the others. `None` where the dialect has none built in.
    pub fn spelt(&self, dialect: Dialect) -> Option<String> {
        // ICU (MySQL), PCRE (MariaDB) and Java (Spark) let `$` match before a final
        // newline; `\z` is the very end in all three.
        let end = match dialect {
            Dialect::Postgres | Dialect::DuckDb => "$",
            Dialect::MySql | Dialect::Spark => "\\z",
            Dialect::Sqlite | Dialect::SqlServer => return None,
        };
        let mut out = String::from(match dialect {
            // PostgreSQL's `.` already matches a newline.
            Dialect::Postgres => "",
            // MySQL's case follows the column's collation unless the pattern says, and
            // MariaDB's server may set multi-line or extended matching by default.
            Dialect::MySql => "(?s-imx)",
            _ => "(?s)",
        });
        for p in &self.pieces {
            match p {
                Piece::Atom(a) | Piece::Repeat(a) => out.push_str(a),
                Piece::Any => out.push('.'),
                Piece::Start => out.push('^'),
                Piece::End => out.push_str(end),
                Piece::Open => out.push_str("(?:"),
                Piece::Close => out.push(')'),
                Piece::Or => out.push('|'),
            }
        }
        Some(out)
    }
}

/// How the engine a pattern is imported from reads `.` and `$`, where it differs from a
/// plan (whose `.` matches a newline and whose `$` is the very end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// `.` stops at a newline (MySQL's ICU, DuckDB's RE2 and Java by default).
    pub dot_stops_at_newline: bool,
    /// `$` also matches before a final newline (ICU and Java).
    pub end_before_newline: bool,
}

/// `pattern`, written for an engine that reads it as `reading` says, respelt so that a plan
/// means the same: `.` as `[^\n]`, `$` as `\n?$`. That `$` is exact only where the match's
/// own text does not matter (whether it matches), so `Err` where `text_matters`.
pub fn respelt(pattern: &str, reading: Reading, text_matters: bool) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    // Inside a class, and whether a member has been read (a `]` first is one).
    let mut class: Option<bool> = None;
    while let Some(c) = chars.next() {
        match (c, class) {
            ('\\', _) => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
                class = class.map(|_| true);
            }
            (']', Some(true)) => {
                out.push(c);
                class = None;
            }
            ('^', Some(false)) if out.ends_with('[') => out.push(c),
            (_, Some(_)) => {
                out.push(c);
                class = Some(true);
            }
            ('[', None) => {
                out.push(c);
                class = Some(false);
            }
            ('.', None) if reading.dot_stops_at_newline => out.push_str("[^\\n]"),
            ('$', None) if reading.end_before_newline => {
                if text_matters {
                    return Err(
                        "$ also matches before a final newline where this pattern was written, \
                         which a replacement or an extraction cannot keep; anchor with \\z or \
                         drop the $"
                            .into(),
                    );
                }
                out.push_str("\\n?$");
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// Whether `replacement` means itself to every engine's replace: PostgreSQL and DuckDB read
/// `\1` in it, Java, ICU and PCRE `$1`.
pub fn plain_replacement(replacement: &str) -> bool {
    !replacement.contains(['\\', '$'])
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASE: Flags = Flags { ignore_case: false };
    const ANY_CASE: Flags = Flags { ignore_case: true };

    #[test]
    fn a_pattern_every_engine_reads_alike_is_spelt_for_each() {
        let p = parse(r"^the\.(a|b)[a-z\d_-]{2,5}\W$", CASE).unwrap();
        assert!(p.ambiguous && !p.matches_empty && p.anchored);
        assert_eq!(
            p.spelt(Dialect::Postgres).unwrap(),
            r"^the\.(?:a|b)[a-z0-9_-]{2,5}[^A-Za-z0-9_]$"
        );
        assert_eq!(
            p.spelt(Dialect::MySql).unwrap(),
            r"(?s-imx)^the\.(?:a|b)[a-z0-9_-]{2,5}[^A-Za-z0-9_]\z"
        );
        assert_eq!(
            parse(r"\s", CASE).unwrap().spelt(Dialect::DuckDb).unwrap(),
            "(?s)[ \t\n\r\u{b}\u{c}]"
        );
        assert_eq!(p.spelt(Dialect::Sqlite), None);
        assert_eq!(p.spelt(Dialect::SqlServer), None);
        // In any case, each ASCII letter is spelt with its other case, a class's letters
        // and ranges too; no engine's own folding is asked for.
        let folded = parse(r"^The [a-c\dX_]+[^q0-5]", ANY_CASE).unwrap();
        assert_eq!(
            folded.spelt(Dialect::Spark).unwrap(),
            r"(?s)^[tT][hH][eE] [a-cA-C0-9xX_]+[^qQ0-5]"
        );
    }

    #[test]
    fn what_engines_read_differently_is_refused_with_the_reason() {
        for (pattern, why) in [
            (r"\bword", "\\b"),
            ("a*?", "lazy"),
            ("a++", "possessive"),
            ("(?=a)b", "lookarounds"),
            ("[[:alpha:]]", "nested"),
            ("[a&&b]", "set operation"),
            ("a{2", "\\{"),
            ("a{3,2}", "n ≤ m"),
            ("(a", "not closed"),
            ("a)", "closes no group"),
            ("a||b", "empty alternative"),
            ("()", "empty group"),
            ("*a", "repeats nothing"),
            ("[]a]", "empty class"),
            ("a]", "lone ]"),
            ("", "empty"),
            ("x\\", "lone \\"),
            ("[\\D]", "inside [ ]"),
            (r"[a-\d]", "cannot end"),
            (r"[\w-z]", "cannot start"),
            ("a{05}", "n ≤ m"),
        ] {
            let err = parse(pattern, CASE).unwrap_err();
            assert!(err.contains(why), "{pattern}: {err}");
        }
        // Letters beyond ASCII, and ranges over letters and other characters, in any case.
        for (pattern, why) in [
            ("é", "beyond ASCII"),
            ("[à-é]", "in any case"),
            ("[0-z]", "range"),
        ] {
            let err = parse(pattern, ANY_CASE).unwrap_err();
            assert!(err.contains(why), "{pattern}: {err}");
        }
    }

    #[test]
    fn what_can_match_nothing_and_what_is_anchored_is_known() {
        let empty = |p: &str| parse(p, CASE).unwrap().matches_empty;
        assert!(empty("a*") && empty("(ab)?c*") && empty("a|b*") && empty("^$"));
        assert!(!empty("a+") && !empty("(a|b)c*") && !empty("x{1,3}") && !empty("(a*)b"));
        assert!(!parse_("^a|b").unwrap().anchored);
        assert!(parse_("^(a|b)").unwrap().anchored);
        assert!(!parse_("abc+").unwrap().ambiguous);
        assert!(parse_("(ab)+").unwrap().ambiguous);
        assert!(parse_("a(b)").unwrap().captures && !parse_("a(?:b)").unwrap().captures);
    }

    fn parse_(pattern: &str) -> Result<Pattern, String> {
        parse(pattern, CASE)
    }

    #[test]
    fn an_imported_dot_and_end_keep_the_meaning_they_had() {
        let icu = Reading {
            dot_stops_at_newline: true,
            end_before_newline: true,
        };
        assert_eq!(
            respelt(r"a.b$|[.$]\.\$", icu, false).unwrap(),
            r"a[^\n]b\n?$|[.$]\.\$"
        );
        assert!(respelt("a$", icu, true).is_err());
        let re2 = Reading {
            dot_stops_at_newline: true,
            end_before_newline: false,
        };
        assert_eq!(respelt("[]a.]x.$", re2, true).unwrap(), r"[]a.]x[^\n]$");
    }

    #[test]
    fn only_plain_replacements_are_portable() {
        assert!(plain_replacement("the "));
        assert!(!plain_replacement(r"\1") && !plain_replacement("$1"));
    }
}
