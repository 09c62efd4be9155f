//! The template answer: a deterministic sentence from the rows, with no model call, so
//! every number and name in it is in the rows by construction.

use crate::value::Value;

fn show(v: &Value) -> String {
    match v {
        Value::Null => "nothing".to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => {
            let rounded = (r * 100.0).round() / 100.0;
            format!("{rounded}")
        }
        Value::Text(t) => t.clone(),
        Value::Blob(b) => format!("{} bytes", b.len()),
    }
}

/// One sentence about `rows` under `columns`.
pub fn template(columns: &[String], rows: &[Vec<Value>], truncated: bool) -> String {
    let more = if truncated {
        " (the row cap was reached, so there may be more)"
    } else {
        ""
    };
    match (rows, columns) {
        ([], _) => "The query ran and found no rows.".to_string(),
        ([row], [column]) => format!(
            "{}: {}.",
            column,
            row.first().map_or_else(String::new, show)
        ),
        ([row], _) => {
            let parts: Vec<String> = columns
                .iter()
                .zip(row)
                .map(|(c, v)| format!("{c} {}", show(v)))
                .collect();
            format!("One row: {}.", parts.join(", "))
        }
        (rows, _) => {
            let first: Vec<String> = rows
                .iter()
                .take(3)
                .map(|r| r.iter().map(show).collect::<Vec<_>>().join(", "))
                .collect();
            format!(
                "{} rows{more}; the first: {}.",
                rows.len(),
                first.join("; ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_only_repeat_the_rows() {
        let cols = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert_eq!(
            template(&cols(&["n"]), &[], false),
            "The query ran and found no rows."
        );
        assert_eq!(
            template(&cols(&["total"]), &[vec![Value::Real(1.234)]], false),
            "total: 1.23."
        );
        let rows = vec![
            vec![Value::Text("USA".into()), Value::Integer(13)],
            vec![Value::Text("Canada".into()), Value::Integer(8)],
        ];
        assert_eq!(
            template(&cols(&["country", "n"]), &rows, true),
            "2 rows (the row cap was reached, so there may be more); the first: USA, 13; Canada, 8."
        );
    }
}

/// The written answer's instructions (stable across questions).
pub const WRITER_SYSTEM: &str = "You answer a person's question about their data from the result of the query that was run for it. Write one to three short sentences in plain words. Use only the numbers and names in the result; never invent or estimate one. If the result is empty, say that nothing matched. If it was cut at the row cap, say there may be more.";

/// The written answer's question message: the question, then the result (its first 20
/// rows, as tab-separated lines).
pub fn writer_user(
    question: &str,
    columns: &[String],
    rows: &[Vec<Value>],
    truncated: bool,
) -> String {
    let mut text = format!("Question: {question}\nResult ({} rows", rows.len());
    if truncated {
        text.push_str(", cut at the row cap");
    }
    text.push_str("):\n");
    text.push_str(&columns.join("\t"));
    text.push('\n');
    for row in rows.iter().take(20) {
        let cells: Vec<String> = row.iter().map(show).collect();
        text.push_str(&cells.join("\t"));
        text.push('\n');
    }
    if rows.len() > 20 {
        text.push_str(&format!("… and {} more rows\n", rows.len() - 20));
    }
    text
}

/// Ordinary words that start sentences with a capital without being names.
const SENTENCE_OPENERS: &[&str] = &[
    "a",
    "according",
    "across",
    "after",
    "all",
    "among",
    "an",
    "and",
    "as",
    "at",
    "based",
    "because",
    "before",
    "both",
    "but",
    "by",
    "each",
    "every",
    "for",
    "from",
    "here",
    "however",
    "i",
    "in",
    "it",
    "its",
    "most",
    "no",
    "none",
    "nothing",
    "of",
    "on",
    "only",
    "our",
    "overall",
    "so",
    "some",
    "that",
    "the",
    "their",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "together",
    "top",
    "total",
    "we",
    "what",
    "which",
    "while",
    "with",
    "yes",
    "you",
    "your",
];

/// Numbers and names in `answer` that are in neither the rows, the columns nor the
/// question: what a written answer may have made up.
pub fn ungrounded(
    answer: &str,
    question: &str,
    columns: &[String],
    rows: &[Vec<Value>],
) -> Vec<String> {
    let mut known: Vec<String> = Vec::new();
    for v in rows.iter().flatten() {
        match v {
            Value::Integer(i) => known.push(i.to_string()),
            Value::Real(r) => {
                known.push(r.to_string());
                known.push(format!("{:.2}", r));
                known.push(format!("{:.1}", r));
                known.push(format!("{}", r.round()));
            }
            Value::Text(t) => known.push(t.to_lowercase()),
            _ => {}
        }
    }
    known.push(rows.len().to_string());
    let haystack = format!(
        "{} {} {}",
        question.to_lowercase(),
        columns.join(" ").to_lowercase(),
        known.join(" | ")
    );
    let mut out = Vec::new();
    // Commas inside a number are thousands separators, so split on white space only.
    for token in
        answer.split(|c: char| c.is_whitespace() || matches!(c, ';' | '(' | ')' | '"' | '«' | '»'))
    {
        let token = token
            .trim_matches(|c: char| matches!(c, '.' | ',' | ':' | '!' | '?' | '\'' | '$' | '%'));
        if token.is_empty() {
            continue;
        }
        let number = token.chars().any(|c| c.is_ascii_digit());
        if number {
            let plain = token.replace(',', "");
            let grounded = known.contains(&plain)
                || haystack.contains(&plain)
                || plain.parse::<f64>().is_ok_and(|n| {
                    rows.iter().flatten().any(|v| match v {
                        Value::Real(r) => (r - n).abs() < 0.005 + r.abs() * 1e-4,
                        // Beyond 2^53 a double is not the integer: only its exact
                        // digits (matched above) ground it.
                        Value::Integer(i) => {
                            i.unsigned_abs() <= 1 << 53 && (*i as f64 - n).abs() < 1e-9
                        }
                        _ => false,
                    })
                });
            if !grounded {
                out.push(token.to_string());
            }
        }
    }
    // Names: runs of capitalised words, except a sentence's ordinary first word.
    let words: Vec<&str> = answer.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let starts_sentence = i == 0 || words[i - 1].ends_with(['.', '!', '?', ':']);
        let capital = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
        let ordinary = || {
            let bare = words[i]
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            SENTENCE_OPENERS.contains(&bare.as_str())
        };
        if capital(words[i]) && !(starts_sentence && ordinary()) {
            let mut j = i;
            while j < words.len() && capital(words[j]) {
                j += 1;
            }
            let name = words[i..j]
                .join(" ")
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_string();
            if !name.is_empty() && !haystack.contains(&name.to_lowercase()) {
                out.push(name);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod grounding {
    use super::*;

    #[test]
    fn made_up_numbers_and_names_are_caught() {
        let columns = vec!["country".to_string(), "total".to_string()];
        let rows = vec![
            vec![Value::Text("United Kingdom".into()), Value::Real(245.5397)],
            vec![Value::Text("Canada".into()), Value::Integer(8)],
        ];
        let q = "Which countries spent most?";
        assert!(ungrounded(
            "The United Kingdom spent 245.54, and Canada 8.",
            q,
            &columns,
            &rows
        )
        .is_empty());
        assert!(ungrounded(
            "Across 2 countries, the United Kingdom leads with 245.5.",
            q,
            &columns,
            &rows
        )
        .is_empty());
        assert_eq!(
            ungrounded("Brazil spent 1,200 and France leads.", q, &columns, &rows),
            ["1,200", "Brazil", "France"]
        );
    }

    #[test]
    fn an_integer_beyond_2_pow_53_is_grounded_by_its_exact_digits_only() {
        let columns = vec!["big".to_string()];
        let rows = vec![vec![Value::Integer(9_007_199_254_740_993)]];
        let q = "How big is it?";
        assert!(ungrounded("It is 9007199254740993.", q, &columns, &rows).is_empty());
        assert!(ungrounded("It is 9,007,199,254,740,993.", q, &columns, &rows).is_empty());
        // The nearest double, which a careless conversion writes, is not the value.
        assert_eq!(
            ungrounded("It is 9007199254740992.", q, &columns, &rows),
            ["9007199254740992"]
        );
    }
}
