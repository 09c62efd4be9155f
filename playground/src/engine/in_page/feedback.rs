//! Feedback in the page: Right or Wrong recorded in this browser's book, and proposals
//! approved, edited or deleted by a role that approves.

use super::InPage;
use crate::engine::{Action, Failure, Said};
use nl2sql_core::feedback::{Answered, Given, Proposal, Verdict};
use nl2sql_core::result::QueryResult;

impl InPage {
    /// Records `verdict` on `result` as `role`, and keeps the book.
    pub(super) async fn judged(&self, result: &QueryResult, verdict: Verdict, role: &str) -> Said {
        let mut book = self.book();
        let at = now_iso();
        let recorded = self.session.feedback(
            &mut book,
            Given {
                answered: Answered::of(result),
                verdict,
                comment: None,
                by: role,
                at: &at,
            },
        );
        let text = match (&recorded.proposal, &recorded.entry.not_proposed) {
            (Some(p), _) => format!(
                "Thanks. Proposed verified query {}.{}: an approver can approve it on the Verified queries page.",
                p.datasource, p.query.id
            ),
            (None, Some(why)) => format!("Thanks, noted. No verified query was proposed: {why}."),
            (None, None) => "Thanks, noted.".to_string(),
        };
        let kind = match verdict {
            Verdict::Right => "right",
            Verdict::Wrong => "wrong",
        };
        match self.keep(book).await {
            Ok(()) => Said { kind, text },
            Err(e) => Said {
                kind: "error",
                text: format!("The feedback was not kept: {e}"),
            },
        }
    }

    /// Does `action` to `proposal` for `role` (who must approve), and keeps the book.
    pub(super) async fn decided(
        &self,
        proposal: &Proposal,
        action: Action,
        role: String,
    ) -> Result<&'static str, Failure> {
        let mut book = self.book();
        let id = (proposal.datasource.as_str(), proposal.query.id.as_str());
        let roles = [role];
        let session = &self.session;
        let words = match action {
            Action::Approve => {
                let by = roles.join(", ");
                let at = now_iso();
                session
                    .approve(&mut book, id, &roles, (&by, &at))
                    .await
                    .map(|_| "Approved.")
            }
            Action::Delete => session
                .delete_proposal(&mut book, id, &roles)
                .await
                .map(|()| "Deleted."),
            Action::Edit(query) => session
                .edit_proposal(&mut book, id, *query, &roles)
                .await
                .map(|_| "Saved."),
        }?;
        self.keep(book)
            .await
            .map_err(|e| Failure::new("NOT_KEPT", e))?;
        Ok(words)
    }
}

/// Now, as the book records times.
fn now_iso() -> String {
    js_sys::Date::new_0()
        .to_iso_string()
        .as_string()
        .unwrap_or_default()
}
