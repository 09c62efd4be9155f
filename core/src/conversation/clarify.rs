//! Asking back: when the schema shows a question is ambiguous in a way that changes its
//! answer, the run ends with two to four concrete options instead of a guess.
//!
//! The rule (docs/conversations.md), decided by code before any model call: some words of
//! the question are, exactly (letter case aside), a stored value of two to four columns
//! in different tables that name different kinds of thing — "Classical" is both a genre
//! (`Genre.Name`) and a playlist (`Playlist.Name`), and the tracks of one are not the
//! tracks of the other — and the question names none of those tables. Columns that hold
//! the same kind of value (`Customer.Country` and `Invoice.BillingCountry`: both a country)
//! are one meaning, so a reasonable analyst simply answers; so are close or misspelt
//! matches, a time range the question leaves open (a total over every year is the total),
//! and anything about ordering or limits.

use crate::index::text::terms;
use crate::index::{MatchKind, ValueHint, ValueIndex};
use crate::policy::Scope;
use nl2sql_derive::Clean;
use serde::{Deserialize, Serialize};

/// What the engine asks back, with the answers it offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Clarification {
    /// The question asked back, in a sentence.
    #[clean(keep)]
    pub question: String,
    /// Two to four answers to choose from.
    #[clean(keep)]
    pub options: Vec<ClarifyOption>,
}

/// One answer to a question asked back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ClarifyOption {
    /// What a button says.
    pub label: String,
    /// The question to ask next, in the same thread, when this is chosen: the original
    /// question with the meaning spelt out.
    pub question: String,
}

/// Words of a column name that say nothing about what kind of thing it holds.
const GENERIC: &[&str] = &[
    "name",
    "title",
    "label",
    "description",
    "id",
    "code",
    "value",
];

/// Most options offered.
const MOST: usize = 4;

/// What to ask back about `question` on `datasource`, when its words are ambiguous there.
pub fn ambiguity(
    question: &str,
    datasource: &str,
    values: &ValueIndex,
    scope: &Scope<'_>,
) -> Option<Clarification> {
    let hints = values.link(question, Some(datasource), scope, 20);
    let named = terms(question);
    let mut spans: Vec<(String, Vec<&ValueHint>)> = Vec::new();
    for h in hints
        .iter()
        .filter(|h| matches!(h.matched, MatchKind::Exact | MatchKind::CaseInsensitive))
    {
        let span = h.span.to_lowercase();
        match spans.iter_mut().find(|(s, _)| *s == span) {
            Some((_, list)) => list.push(h),
            None => spans.push((span, vec![h])),
        }
    }
    spans
        .into_iter()
        .find_map(|(_, list)| ambiguous(question, &list, &named))
}

fn ambiguous(question: &str, hints: &[&ValueHint], named: &[String]) -> Option<Clarification> {
    let mut columns: Vec<&ValueHint> = Vec::new();
    for h in hints {
        if !columns
            .iter()
            .any(|c| c.table == h.table && c.column == h.column)
        {
            columns.push(h);
        }
    }
    if columns.len() < 2 || columns.len() > MOST {
        return None;
    }
    let concept = |h: &ValueHint| -> Vec<String> {
        terms(&h.column)
            .into_iter()
            .filter(|t| !GENERIC.contains(&t.as_str()))
            .collect()
    };
    for (i, a) in columns.iter().enumerate() {
        for b in &columns[i + 1..] {
            // The same table, or the same kind of value: one meaning.
            if a.table == b.table || concept(a).iter().any(|t| concept(b).contains(t)) {
                return None;
            }
        }
    }
    // A question that names one of the tables has said which it means.
    if columns
        .iter()
        .any(|h| terms(&h.table).iter().any(|t| named.contains(t)))
    {
        return None;
    }
    let kind = |h: &ValueHint| crate::index::text::words(&h.table).join(" ");
    let span = columns[0].span.clone();
    let meanings: Vec<String> = columns
        .iter()
        .map(|h| format!("a {} ({}.{})", kind(h), h.table, h.column))
        .collect();
    let options = columns
        .iter()
        .map(|h| ClarifyOption {
            label: format!("{} as the {} ({}.{})", h.value, kind(h), h.table, h.column),
            question: format!(
                "{} (I mean {} as the {}: {}.{})",
                question.trim(),
                h.value,
                kind(h),
                h.table,
                h.column
            ),
        })
        .collect();
    Some(Clarification {
        question: format!(
            "\"{span}\" could be {}. Which do you mean?",
            join_or(&meanings)
        ),
        options,
    })
}

/// `a`, `a or b`, `a, b or c`.
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policies;

    fn values() -> ValueIndex {
        let mut v = ValueIndex::default();
        v.add(
            "music",
            vec![
                (
                    "Genre".into(),
                    "Name".into(),
                    vec!["Classical".into(), "Rock".into()],
                ),
                (
                    "Playlist".into(),
                    "Name".into(),
                    vec!["Classical".into(), "Grunge".into()],
                ),
                ("Customer".into(), "Country".into(), vec!["Germany".into()]),
                (
                    "Invoice".into(),
                    "BillingCountry".into(),
                    vec!["Germany".into()],
                ),
            ],
        );
        v
    }

    #[test]
    fn a_value_of_two_kinds_of_thing_is_asked_back() {
        let policies = Policies::read_all();
        let scope = policies.scope(&[]);
        let asked = ambiguity(
            "How many tracks are in Classical?",
            "music",
            &values(),
            &scope,
        )
        .unwrap_or_else(|| panic!("asked back"));
        assert_eq!(asked.options.len(), 2);
        assert!(asked
            .question
            .contains("a genre (Genre.Name) or a playlist (Playlist.Name)"));
        assert!(asked.options[0]
            .question
            .starts_with("How many tracks are in Classical?"));
    }

    #[test]
    fn one_meaning_or_a_named_table_is_simply_answered() {
        let policies = Policies::read_all();
        let scope = policies.scope(&[]);
        for q in [
            "What were total sales in Germany?",
            "How many tracks are in the Classical genre?",
            "Which playlists are called Classical?",
            "How many Rock tracks are there?",
            "How many tracks are in Clasical?",
        ] {
            assert_eq!(ambiguity(q, "music", &values(), &scope), None, "{q}");
        }
        assert_eq!(
            ambiguity(
                "How many tracks are in Classical?",
                "other",
                &values(),
                &scope
            ),
            None
        );
    }
}
