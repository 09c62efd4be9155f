//! Feedback with a server as the engine: it records Right or Wrong, proposes from "Right"
//! and keeps its proposals; a key whose role approves approves them there.

use crate::engine::{Action, Failure, Said};
use leptos::prelude::{Notify, Trigger};
use nl2sql_core::api::FeedbackRequest;
use nl2sql_core::error::ErrorCode;
use nl2sql_core::feedback::{Proposal, Verdict};
use nl2sql_core::result::QueryResult;
use nl2sql_wasm::{FetchTransport, Remote};
use std::sync::Arc;

/// Sends `verdict` on `result` to the server: only one datasource's answer to a question
/// standing alone, as on the page itself.
pub async fn judge(remote: Remote, result: Arc<QueryResult>, verdict: Verdict) -> Said {
    let standalone = !result.follow_up.as_ref().is_some_and(|f| f.continued);
    let single = result
        .sub_queries
        .first()
        .filter(|_| result.sub_queries.len() == 1);
    let (Some(sub), None, true) = (single, &result.combined, standalone) else {
        return Said {
            kind: "noted",
            text: "Only one datasource's answer to a question standing alone goes to the server; ask it as one whole question to propose it.".to_string(),
        };
    };
    let request = FeedbackRequest {
        question: result.question.clone(),
        datasource: sub.datasource_id.clone(),
        sql: sub.sql.clone(),
        verdict,
        comment: None,
        role: None,
    };
    match remote.feedback(&FetchTransport::default(), &request).await {
        Ok(recorded) => Said {
            kind: "server",
            text: match recorded.proposal {
                Some(p) => format!(
                    "Thanks. The server proposed verified query {}.{}.",
                    p.datasource, p.query.id
                ),
                None => "Thanks, the server noted it.".to_string(),
            },
        },
        Err(e) => Said {
            kind: "error",
            text: format!("{}: {}", e.code, e.message),
        },
    }
}

/// Approves `proposal` on the server; editing and deleting are its API's (PUT and DELETE)
/// or its command line's.
pub async fn decide(
    remote: Remote,
    proposal: Proposal,
    action: Action,
    changed: Trigger,
) -> Result<&'static str, Failure> {
    let Action::Approve = action else {
        return Err(Failure::new(
            ErrorCode::MethodNotAllowed.as_str(),
            "A server's proposals are edited and deleted through its API (PUT and DELETE) or its command line.",
        ));
    };
    let transport = FetchTransport::default();
    remote
        .approve(&transport, &proposal.datasource, &proposal.query.id)
        .await?;
    changed.notify();
    Ok("Approved on the server.")
}
