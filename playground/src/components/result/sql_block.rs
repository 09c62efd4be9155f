//! SQL, highlighted, with a copy button.

use crate::browser::copy;
use leptos::prelude::*;

#[component]
pub fn SqlBlock(sql: String) -> impl IntoView {
    let pieces = highlight(&sql);
    view! {
        <div class="sql-block">
            <pre class="sql"><code>
                {pieces.into_iter().map(|(class, t)| view! { <span class=class>{t}</span> }).collect_view()}
            </code></pre>
            <button type="button" class="copy" on:click=move |_| copy(&sql)>"Copy"</button>
        </div>
    }
}

/// The words shown as keywords.
const KEYWORDS: &str = "SELECT FROM WHERE GROUP BY ORDER LIMIT OFFSET JOIN LEFT RIGHT INNER OUTER \
    CROSS FULL ON AS AND OR NOT IN IS NULL DESC ASC HAVING DISTINCT CASE WHEN THEN ELSE END \
    WITH UNION ALL INTERSECT EXCEPT OVER PARTITION CAST LIKE BETWEEN EXISTS COUNT SUM AVG MIN \
    MAX COALESCE ROUND";

/// Splits SQL into `(class, text)` pieces: keywords, strings, numbers, identifiers.
fn highlight(sql: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let chars: Vec<char> = sql.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let class = if c == '\'' || c == '"' {
            i = quoted_end(&chars, i);
            if c == '\'' {
                "sql-string"
            } else {
                "sql-ident"
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            "sql-number"
        } else if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect::<String>().to_uppercase();
            if KEYWORDS.split_whitespace().any(|k| k == word) {
                "sql-keyword"
            } else {
                "sql-name"
            }
        } else {
            i += 1;
            "sql-punct"
        };
        out.push((class, chars[start..i].iter().collect()));
    }
    out
}

/// Where the quoted text opening at `start` ends (a doubled quote stays inside).
fn quoted_end(chars: &[char], start: usize) -> usize {
    let quote = chars[start];
    let mut i = start + 1;
    while i < chars.len() {
        if chars[i] == quote {
            if chars.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    i
}
