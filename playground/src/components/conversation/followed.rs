//! How a question followed its thread: continued (and what its plan changed) or fresh.

use leptos::prelude::*;
use nl2sql_core::result::{ChangeKind, FollowUp as FollowUpRecord};

#[component]
pub fn FollowedAs(record: FollowUpRecord) -> impl IntoView {
    let changes: Vec<(&'static str, String)> = record
        .diff
        .iter()
        .flat_map(|d| &d.changes)
        .map(|c| {
            let (sign, kind) = match c.change {
                ChangeKind::Added => ("+", "added"),
                ChangeKind::Removed => ("−", "removed"),
                ChangeKind::Changed => ("~", "changed"),
            };
            (kind, format!("{sign} {}: {}", c.part.as_str(), c.text))
        })
        .collect();
    let said = if record.continued {
        format!("Follow-up: {}", record.reason)
    } else {
        format!("New thread: {}", record.reason)
    };
    view! {
        <div class="follow-up" data-continued=record.continued.to_string()>
            <p class="follow-up-reason">{said}</p>
            {(!changes.is_empty()).then(|| view! {
                <ul class="plan-diff">
                    {changes.into_iter().map(|(kind, text)| view! { <li class="change" data-change=kind>{text}</li> }).collect_view()}
                </ul>
            })}
        </div>
    }
}
