//! Approved verified queries as eval cases, in the suite format `nl2sql eval` reads: what
//! `nl2sql feedback export --good` writes (and the page's export of good answers).

use nl2sql_core::feedback::{FeedbackBook, ProposalStatus};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct File {
    version: u32,
    cases: Vec<Case>,
}

#[derive(Serialize)]
struct Case {
    id: String,
    question: String,
    datasources: Vec<String>,
    outcome: BTreeMap<String, String>,
    order_matters: bool,
    sql: String,
    tags: Vec<String>,
}

/// The approved proposals of `book` as a suite: one case per proposal, its question as
/// first asked and the SQL that answered it, allowed for the role it was asked with, tagged
/// `feedback`. The header says where the cases came from.
pub fn good_cases(book: &FeedbackBook) -> Result<String, String> {
    let cases = book
        .proposals
        .iter()
        .filter(|p| p.status == ProposalStatus::Approved)
        .map(|p| Case {
            id: format!("feedback_{}_{}", p.datasource, p.query.id),
            question: p.example.question.clone(),
            datasources: vec![p.datasource.clone()],
            outcome: p
                .example
                .role
                .iter()
                .map(|r| (r.clone(), "allowed".to_string()))
                .collect(),
            order_matters: p.example.order_matters,
            sql: p.example.sql.clone(),
            tags: vec!["feedback".to_string()],
        })
        .collect();
    let yaml = serde_norway::to_string(&File { version: 1, cases })
        .map_err(|e| format!("the cases do not serialize: {e}"))?;
    Ok(format!(
        "# Eval cases from answers marked Right and approved as verified queries (nl2sql feedback export --good).\n{yaml}"
    ))
}
