//! The three demo databases every front end offers: ids, files and descriptions in one place.

/// One demo database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoDatabase {
    /// The datasource id.
    pub id: &'static str,
    /// The file name under `data/` (the playground serves it under `data/` too).
    pub file: &'static str,
    /// What it holds, in the words routing and the answerability check will use.
    pub description: &'static str,
    /// Questions it answers, for routing's examples signal (written for this project).
    pub examples: &'static [&'static str],
}

/// The demo databases, in the order the playground lists them.
pub const DEMO_DATABASES: [DemoDatabase; 3] = [
    DemoDatabase {
        id: "chinook",
        file: "chinook.sqlite",
        description: "A digital music store: artists, albums, tracks with genres and media \
                      types, playlists, customers, their invoices and invoice lines, and the \
                      employees who support them.",
        examples: &[
            "Which artists have released the most albums?",
            "What are the best-selling music genres by revenue?",
            "List the songs on an album with their running time.",
            "Which customers spent the most on music purchases?",
            "How many invoices did each sales support employee handle?",
            "Which playlists contain the most tracks?",
        ],
    },
    DemoDatabase {
        id: "support",
        file: "support.sqlite",
        description: "A customer-support desk: support agents and their teams, customers, \
                      tickets with category, status, priority and satisfaction, and the \
                      messages exchanged on each ticket.",
        examples: &[
            "How many support tickets are still open, by priority?",
            "Which agents closed the most tickets last month?",
            "What is the average satisfaction score per ticket category?",
            "How long does it take to resolve a ticket on average?",
            "Which customers opened the most support requests?",
        ],
    },
    DemoDatabase {
        id: "webanalytics",
        file: "webanalytics.sqlite",
        description: "Website analytics: visitor sessions with device, referrer and marketing \
                      channel, the pages viewed in each session, and conversions such as \
                      sign-ups and purchases with their value.",
        examples: &[
            "How many website sessions came from each marketing channel?",
            "Which pages get the most views?",
            "What is the bounce rate by device type?",
            "How many sign-ups converted this month?",
            "Which referrer domains bring the most visitors?",
        ],
    },
];

/// The demo databases' verified queries (the curated format, as JSON; written for this
/// project).
pub const DEMO_VERIFIED: &str = include_str!("demo_verified.json");

/// The demo database with this id.
pub fn demo_database(id: &str) -> Option<&'static DemoDatabase> {
    DEMO_DATABASES.iter().find(|d| d.id == id)
}

/// The routing profile of a demo database.
pub fn demo_profile(d: &DemoDatabase) -> crate::index::DatasourceProfile {
    crate::index::DatasourceProfile {
        id: d.id.to_string(),
        description: d.description.to_string(),
        examples: d.examples.iter().map(|q| q.to_string()).collect(),
        verified: serde_json::from_str::<crate::curated::Curated>(DEMO_VERIFIED)
            .map(|c| c.phrases(d.id))
            .unwrap_or_default(),
        notes: demo_notes(d.id),
    }
}

/// The demo databases' notes: what their tables and columns hold and the words people use
/// for them (written for this project, as a data person would for colleagues), as JSON.
pub const DEMO_NOTES: &str = include_str!("demo_notes.json");

/// Demo database `id`'s notes (none when the file has none for it).
pub fn demo_notes(id: &str) -> crate::index::Notes {
    serde_json::from_str::<std::collections::BTreeMap<String, crate::index::Notes>>(DEMO_NOTES)
        .ok()
        .and_then(|mut all| all.remove(id))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_declarations_parse_and_name_the_tables_they_read() {
        let curated: crate::curated::Curated =
            serde_json::from_str(DEMO_VERIFIED).expect("the demo's verified queries parse");
        let phrases = curated.phrases("chinook");
        let top = phrases.iter().find(|p| p.text.contains("top 5 customers"));
        assert_eq!(
            top.map(|p| p.reads.clone()),
            Some(vec!["Customer".to_string(), "Invoice".to_string()])
        );
    }

    #[test]
    fn every_demo_database_has_notes_that_parse() {
        let all: std::collections::BTreeMap<String, crate::index::Notes> =
            serde_json::from_str(DEMO_NOTES).expect("the demo notes parse");
        for d in DEMO_DATABASES {
            assert!(all.get(d.id).is_some_and(|n| !n.is_empty()), "{}", d.id);
            assert!(!demo_notes(d.id).is_empty());
        }
    }
}
