//! Regular expressions a plan may use: the part of the syntax that PostgreSQL, MySQL and
//! MariaDB, DuckDB and Spark read alike, checked once here and spelt for each engine.
//!
//! Each engine has its own flavour (PostgreSQL's ARE, ICU on MySQL, PCRE on MariaDB, RE2 on
//! DuckDB, Java's on Spark), and they disagree at the edges: where `.` stops, what `$`
//! matches before a final newline, what `\b` means, nested classes, lazy quantifiers, and
//! which of several matches at one place wins (PostgreSQL takes the longest, the others
//! the first alternative). A pattern is accepted only when every engine reads it alike,
//! and spelt with the flags that make them agree: `.` matches any character, newlines
//! included, and `$` only the very end.

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

/// Reads `pattern`; `Err` says what no engine-independent reading allows.
pub fn parse(pattern: &str) -> Result<Pattern, String> {
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
                let (text, next) = class(&chars, i)?;
                i = next;
                Piece::Atom(text)
            }
            ']' | '}' => {
                return Err(format!(
                    "A lone {c} is read differently by different engines; write \\{c}."
                ))
            }
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
    let bound = |s: &str| -> Option<u32> {
        (!s.is_empty() && s.len() <= 3 && s.chars().all(|c| c.is_ascii_digit()))
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

/// A bracketed class after the `[` at `i - 1`: characters, ranges and escapes, negated by a
/// leading `^`. Nested brackets, `[:alpha:]` names and `&&`/`--` (set operations in Java
/// and ICU) are refused.
fn class(chars: &[char], mut i: usize) -> Result<(String, usize), String> {
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
    pub fn spelt(&self, dialect: Dialect, flags: Flags) -> Option<String> {
        // ICU (MySQL), PCRE (MariaDB) and Java (Spark) let `$` match before a final
        // newline; `\z` is the very end in all three.
        let end = match dialect {
            Dialect::Postgres | Dialect::DuckDb => "$",
            Dialect::MySql | Dialect::Spark => "\\z",
            Dialect::Sqlite | Dialect::SqlServer => return None,
        };
        let mut out = String::from(match (dialect, flags.ignore_case) {
            // PostgreSQL's `.` already matches a newline.
            (Dialect::Postgres, false) => "",
            (Dialect::Postgres, true) => "(?i)",
            // MySQL's case follows the column's collation unless the pattern says.
            (Dialect::MySql, false) => "(?s-i)",
            // Java folds only ASCII letters unless told `u`.
            (Dialect::Spark, true) => "(?siu)",
            (_, false) => "(?s)",
            (_, true) => "(?si)",
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

/// Whether `replacement` means itself to every engine's replace: PostgreSQL and DuckDB read
/// `\1` in it, Java, ICU and PCRE `$1`.
pub fn plain_replacement(replacement: &str) -> bool {
    !replacement.contains(['\\', '$'])
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASE: Flags = Flags { ignore_case: false };

    #[test]
    fn a_pattern_every_engine_reads_alike_is_spelt_for_each() {
        let p = parse(r"^the\.(a|b)[a-z\d_-]{2,5}\W$").unwrap();
        assert!(p.ambiguous && !p.matches_empty && p.anchored);
        assert_eq!(
            p.spelt(Dialect::Postgres, CASE).unwrap(),
            r"^the\.(?:a|b)[a-z0-9_-]{2,5}[^A-Za-z0-9_]$"
        );
        assert_eq!(
            p.spelt(Dialect::Spark, Flags { ignore_case: true })
                .unwrap(),
            r"(?siu)^the\.(?:a|b)[a-z0-9_-]{2,5}[^A-Za-z0-9_]\z"
        );
        assert_eq!(
            p.spelt(Dialect::MySql, CASE).unwrap(),
            r"(?s-i)^the\.(?:a|b)[a-z0-9_-]{2,5}[^A-Za-z0-9_]\z"
        );
        assert_eq!(
            parse(r"\s").unwrap().spelt(Dialect::DuckDb, CASE).unwrap(),
            "(?s)[ \t\n\r\u{b}\u{c}]"
        );
        assert_eq!(p.spelt(Dialect::Sqlite, CASE), None);
        assert_eq!(p.spelt(Dialect::SqlServer, CASE), None);
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
        ] {
            let err = parse(pattern).unwrap_err();
            assert!(err.contains(why), "{pattern}: {err}");
        }
    }

    #[test]
    fn what_can_match_nothing_and_what_is_anchored_is_known() {
        let empty = |p: &str| parse(p).unwrap().matches_empty;
        assert!(empty("a*") && empty("(ab)?c*") && empty("a|b*") && empty("^$"));
        assert!(!empty("a+") && !empty("(a|b)c*") && !empty("x{1,3}") && !empty("(a*)b"));
        assert!(!parse("^a|b").unwrap().anchored);
        assert!(parse("^(a|b)").unwrap().anchored);
        assert!(!parse("abc+").unwrap().ambiguous);
        assert!(parse("(ab)+").unwrap().ambiguous);
        assert!(parse("a(b)").unwrap().captures && !parse("a(?:b)").unwrap().captures);
    }

    #[test]
    fn only_plain_replacements_are_portable() {
        assert!(plain_replacement("the "));
        assert!(!plain_replacement(r"\1") && !plain_replacement("$1"));
    }
}
