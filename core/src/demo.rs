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
}

/// The demo databases, in the order the playground lists them.
pub const DEMO_DATABASES: [DemoDatabase; 3] = [
    DemoDatabase {
        id: "chinook",
        file: "chinook.sqlite",
        description: "A digital music store: artists, albums, tracks with genres and media \
                      types, playlists, customers, their invoices and invoice lines, and the \
                      employees who support them.",
    },
    DemoDatabase {
        id: "support",
        file: "support.sqlite",
        description: "A customer-support desk: support agents and their teams, customers, \
                      tickets with category, status, priority and satisfaction, and the \
                      messages exchanged on each ticket.",
    },
    DemoDatabase {
        id: "webanalytics",
        file: "webanalytics.sqlite",
        description: "Website analytics: visitor sessions with device, referrer and marketing \
                      channel, the pages viewed in each session, and conversions such as \
                      sign-ups and purchases with their value.",
    },
];

/// The demo database with this id.
pub fn demo_database(id: &str) -> Option<&'static DemoDatabase> {
    DEMO_DATABASES.iter().find(|d| d.id == id)
}
