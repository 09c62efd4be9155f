//! Whether a question continues its thread or starts fresh, decided from its words alone, so
//! the decision costs no model call and reads the same every time.
//!
//! A question follows up when the last turn asked back (its answer is this question), when
//! it opens with a word that continues a thought ("and", "now", "only", "what about", …),
//! when it points back at the previous answer ("those", "them", "instead", …), or when it
//! is too short to name a subject of its own ("by month?"). Anything else names its own
//! subject and starts fresh.

use super::Thread;

/// How a question relates to its thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continuation {
    /// True when it continues the thread.
    pub follows: bool,
    /// Why, in words, for the trace.
    pub reason: String,
}

/// Openings that continue the previous question.
const OPENINGS: &[&str] = &[
    "and",
    "but",
    "now",
    "also",
    "then",
    "only",
    "just",
    "instead",
    "same",
    "so",
    "ok",
    "okay",
    "plus",
    "except",
    "excluding",
    "without",
    "limit",
    "sort",
    "order",
    "break",
    "split",
    "filter",
    "exclude",
    "include",
    "restrict",
    "narrow",
];

/// Two-word openings that continue it.
const PAIRS: &[&str] = &[
    "what about",
    "how about",
    "what if",
    "and what",
    "same for",
    "same but",
    "now show",
    "show only",
    "group by",
    "broken down",
];

/// Words that point back at the previous answer.
/// (Not "it" or "their": standalone questions use them of their own subject.)
const BACK: &[&str] = &[
    "those", "these", "them", "previous", "above", "instead", "ones", "same",
];

/// Openings that continue only a short question ("for 2012?", "in Germany?", "by month").
const SHORT_OPENINGS: &[&str] = &["for", "in", "by", "per", "from", "with", "during", "at"];

/// A question of at most this many words cannot name a subject of its own.
const SHORT: usize = 3;

/// Up to this many words, a short opening continues.
const SHORT_OPENING: usize = 6;

/// Whether `question` continues `thread`.
pub fn continuation(question: &str, thread: &Thread) -> Continuation {
    let said = |follows: bool, reason: String| Continuation { follows, reason };
    let Some(last) = thread.last() else {
        return said(false, "there is no earlier turn".into());
    };
    if last.clarification.is_some() {
        return said(true, "it answers the question the engine asked back".into());
    }
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        return said(false, "it has no words".into());
    }
    if let Some(first) = words.first().filter(|w| OPENINGS.contains(&w.as_str())) {
        return said(true, format!("it opens with \"{first}\""));
    }
    if words.len() >= 2 {
        let pair = format!("{} {}", words[0], words[1]);
        if PAIRS.contains(&pair.as_str()) {
            return said(true, format!("it opens with \"{pair}\""));
        }
    }
    if let Some(back) = words.iter().find(|w| BACK.contains(&w.as_str())) {
        return said(
            true,
            format!("\"{back}\" points back at the previous answer"),
        );
    }
    if words.len() <= SHORT {
        return said(true, "it is too short to name a subject of its own".into());
    }
    if words.len() <= SHORT_OPENING && SHORT_OPENINGS.contains(&words[0].as_str()) {
        return said(true, format!("it is short and opens with \"{}\"", words[0]));
    }
    said(false, "it names its own subject".into())
}

#[cfg(test)]
mod tests {
    use super::super::{Clarification, Turn};
    use super::*;

    fn thread() -> Thread {
        Thread::default().with(
            Turn {
                question: "How many invoices are there per billing country?".into(),
                ..Turn::default()
            },
            5,
        )
    }

    #[test]
    fn follow_ups_are_told_by_their_words() {
        for q in [
            "and only for 2012?",
            "Now group them by month instead",
            "What about Germany?",
            "which of those are in Germany?",
            "by month?",
            "For 2012 only?",
            "Only the top 5",
        ] {
            let c = continuation(q, &thread());
            assert!(c.follows, "{q}: {}", c.reason);
        }
    }

    #[test]
    fn a_question_with_its_own_subject_starts_fresh() {
        for q in [
            "How many tracks are in each genre?",
            "Which customers are based in Brazil?",
            "For each genre, how many tracks are longer than five minutes?",
            "List the five longest tracks with their album",
        ] {
            let c = continuation(q, &thread());
            assert!(!c.follows, "{q}: {}", c.reason);
        }
        assert!(!continuation("and only for 2012?", &Thread::default()).follows);
    }

    #[test]
    fn a_question_asked_back_is_always_continued() {
        let asked = Thread::default().with(
            Turn {
                question: "How many tracks are in Classical?".into(),
                clarification: Some(Clarification {
                    question: "Which Classical?".into(),
                    options: vec![],
                }),
                ..Turn::default()
            },
            5,
        );
        let c = continuation("Which customers are based in Brazil?", &asked);
        assert!(c.follows);
    }
}
