//! Text into terms: how a question and a schema name come to share words.
//!
//! Identifiers are split (`InvoiceLine`, `page_views`, `valueUsd`), everything is lower-cased,
//! plurals and simple inflections are folded (`tracks` → `track`, `categories` → `category`,
//! `visited` → `visit`), question words that carry no topic are dropped, and a small table of
//! synonyms maps words of one meaning to one concept (`song` and `track`).

/// Words too common in questions to say anything about where they go.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "between", "both",
    "by", "can", "could", "did", "do", "does", "each", "every", "for", "from", "get", "give",
    "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "last", "least",
    "less", "list", "many", "me", "more", "most", "much", "my", "of", "on", "one", "only", "or",
    "other", "our", "out", "over", "per", "please", "show", "so", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "top", "us", "was", "we",
    "were", "what", "when", "where", "which", "who", "whose", "why", "will", "with", "would",
    "you", "your",
];

/// Words of one meaning, first the concept's name. General, not tuned to any one database;
/// a datasource's configuration can add its own groups.
pub const GENERAL_SYNONYMS: &[&[&str]] = &[
    &["track", "song", "tune", "recording"],
    &["customer", "client", "buyer", "shopper"],
    &[
        "revenue", "sale", "income", "earning", "turnover", "spend", "spent", "spending",
    ],
    &["invoice", "bill", "receipt"],
    &["employee", "staff", "worker", "rep", "representative"],
    &["agent", "rep", "representative", "staff"],
    &["artist", "musician", "band", "singer", "performer"],
    &["album", "record", "release"],
    &["genre", "style"],
    &["session", "visit", "visitor"],
    &["page", "url", "path", "screen"],
    &["view", "pageview", "hit"],
    &["referrer", "source", "referral", "traffic"],
    &["conversion", "signup", "purchase", "checkout", "goal"],
    &["device", "browser", "mobile", "desktop", "tablet", "phone"],
    &[
        "ticket",
        "case",
        "issue",
        "request",
        "complaint",
        "complain",
    ],
    &["message", "reply", "note", "conversation"],
    &["satisfaction", "csat", "rating", "happy", "satisfied"],
    &["priority", "urgent", "urgency"],
    &["country", "nation"],
    &["city", "town"],
    &["length", "duration", "long", "longest", "short", "shortest"],
    &["price", "cost", "expensive", "cheap"],
    &["playlist", "mix"],
    &["bounce", "bounced"],
    &[
        "money", "amount", "total", "price", "cost", "revenue", "sale", "spend", "spent", "earn",
        "income", "paid", "pay", "value", "usd", "dollar",
    ],
    &[
        "date",
        "year",
        "yearly",
        "annual",
        "month",
        "monthly",
        "quarter",
        "quarterly",
        "week",
        "weekly",
        "day",
        "daily",
        "time",
        "when",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ],
    &["quantity", "sold", "sell", "unit", "number"],
    &["name", "title", "called", "named", "who"],
    &["team", "group", "squad"],
];

/// Splits identifiers and words: `InvoiceLine` → `invoice line`, `value_usd` → `value usd`,
/// `HTTP2Server` → `http 2 server`.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut prev: Option<char> = None;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut current, &mut out);
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = (p.is_lowercase() && c.is_uppercase())
                || (p.is_alphabetic() != c.is_alphabetic())
                || (p.is_uppercase() && c.is_uppercase() && next_lower);
            if boundary {
                flush(&mut current, &mut out);
            }
        }
        current.extend(c.to_lowercase());
        prev = Some(c);
    }
    flush(&mut current, &mut out);
    out
}

fn flush(current: &mut String, out: &mut Vec<String>) {
    if !current.is_empty() {
        out.push(std::mem::take(current));
    }
}

/// Folds a plural or simple inflection to its stem.
pub fn stem(word: &str) -> String {
    let n = word.chars().count();
    let strip = |suffix: &str, keep: usize| -> Option<String> {
        (word.ends_with(suffix) && n >= suffix.len() + keep)
            .then(|| word[..word.len() - suffix.len()].to_string())
    };
    if let Some(base) = strip("ies", 2) {
        return format!("{base}y");
    }
    for (suffix, keep) in [("sses", 2), ("ches", 3), ("shes", 3), ("xes", 3)] {
        if let Some(base) = strip(suffix, keep) {
            return base + &suffix[..suffix.len() - 2];
        }
    }
    // `bonuses`, `statuses`; a shorter word (`causes`) is a plain plural.
    if let Some(base) = strip("uses", 3) {
        return base + "us";
    }
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return word.to_string();
    }
    // A plural folds to its singular's stem, so `hearings` and `hearing` agree.
    if let Some(base) = strip("s", 3) {
        return stem(&base);
    }
    if let Some(base) = strip("ing", 4) {
        return undouble(base);
    }
    if let Some(base) = strip("ed", 4) {
        return undouble(base);
    }
    word.to_string()
}

/// `shopp` → `shop`, `bounc` stays.
fn undouble(base: String) -> String {
    let mut chars: Vec<char> = base.chars().collect();
    let n = chars.len();
    if n >= 3 && chars[n - 1] == chars[n - 2] && !matches!(chars[n - 1], 'l' | 's' | 'z') {
        chars.pop();
        return chars.into_iter().collect();
    }
    base
}

/// The words of a text that carry meaning: split and lower-cased, stopwords dropped, not
/// stemmed (a sub-word vocabulary knows `categories`, not `categori`).
pub fn content_words(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// The terms of a text: words, split and stemmed, stopwords dropped.
pub fn terms(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// A synonym table: stemmed word → the concepts it names.
#[derive(Debug, Clone, Default)]
pub struct Synonyms {
    groups: Vec<(String, Vec<String>)>,
}

impl Synonyms {
    /// The general table.
    pub fn general() -> Synonyms {
        let mut s = Synonyms::default();
        for group in GENERAL_SYNONYMS {
            s.add(group.iter().map(|w| w.to_string()).collect());
        }
        s
    }

    /// Adds a group; its first word names the concept.
    pub fn add(&mut self, group: Vec<String>) {
        let mut words: Vec<String> = group.iter().map(|w| stem(&w.to_lowercase())).collect();
        let Some(name) = words.first().cloned() else {
            return;
        };
        words.dedup();
        self.groups.push((name, words));
    }

    /// The concepts a stemmed term belongs to. A year (1900 to 2099) is a date.
    pub fn concepts<'a>(&'a self, term: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let year = is_year(term).then_some("date");
        self.groups
            .iter()
            .filter(move |(_, words)| words.iter().any(|w| w == term))
            .map(|(name, _)| name.as_str())
            .chain(year)
    }
}

fn is_year(term: &str) -> bool {
    term.len() == 4
        && term.bytes().all(|b| b.is_ascii_digit())
        && (term.starts_with("19") || term.starts_with("20"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_and_words_fold() {
        assert_eq!(words("InvoiceLine"), ["invoice", "line"]);
        assert_eq!(words("value_usd"), ["value", "usd"]);
        assert_eq!(words("HTTPServer2"), ["http", "server", "2"]);
        assert_eq!(words("/pricing-page"), ["pricing", "page"]);
        assert_eq!(stem("tracks"), "track");
        assert_eq!(stem("categories"), "category");
        assert_eq!(stem("visited"), "visit");
        assert_eq!(stem("matches"), "match");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("business"), "business");
        assert_eq!(stem("bonuses"), "bonus");
        assert_eq!(stem("statuses"), stem("status"));
        assert_eq!(stem("causes"), stem("cause"));
        assert_eq!(stem("hearings"), stem("hearing"));
        assert_eq!(stem("ratings"), stem("rating"));
        assert_eq!(
            terms("How many tracks are in each genre?"),
            ["track", "genre"]
        );
    }

    #[test]
    fn synonyms_name_their_concept() {
        let s = Synonyms::general();
        assert!(s.concepts("song").any(|c| c == "track"));
        assert!(s.concepts(&stem("clients")).any(|c| c == "customer"));
        assert_eq!(s.concepts("zebra").count(), 0);
        assert_eq!(s.concepts("2012").collect::<Vec<_>>(), ["date"]);
        assert_eq!(s.concepts("1234").count(), 0);
    }
}
