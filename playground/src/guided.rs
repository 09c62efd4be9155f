//! Questions to start from, per demo database (written for this project). Some match a
//! verified query (answered with no planning call), some need the planner, one needs two
//! databases together.

/// `(datasource, question)`; `None` for a question across databases.
pub const GUIDED: [(Option<&str>, &str); 9] = [
    (
        Some("chinook"),
        "Who are the top 5 customers by total spend?",
    ),
    (Some("chinook"), "Which genres have the most tracks?"),
    (Some("chinook"), "What were total sales per year?"),
    (
        Some("support"),
        "How many open tickets are there by priority?",
    ),
    (
        Some("support"),
        "What is the average satisfaction score per ticket category?",
    ),
    (
        Some("webanalytics"),
        "How many sessions came from each channel?",
    ),
    (Some("webanalytics"), "Which pages get the most views?"),
    (
        None,
        "Which customers have an open support ticket, and how much have they spent?",
    ),
    (None, "What will the weather be tomorrow?"),
];
