//! One proposal: its phrasings and SQL, who proposed and approved it, and what a role
//! that approves may do with it.

use crate::engine::Action;
use leptos::prelude::*;
use nl2sql_core::feedback::{Proposal, ProposalStatus, VerifiedQuery};

#[component]
pub fn ProposalCard(
    proposal: Proposal,
    may_approve: Signal<bool>,
    /// Whether Edit and Delete are offered (approving always is).
    edits: bool,
    decide: impl Fn(Proposal, Action) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let (editing, set_editing) = signal(false);
    let key = format!("{}.{}", proposal.datasource, proposal.query.id);
    let status = match proposal.status {
        ProposalStatus::Proposed => "proposed",
        ProposalStatus::Approved => "approved",
    };
    let approved = proposal.status == ProposalStatus::Approved;
    let this = StoredValue::new(proposal.clone());
    let act = move |action: Action| decide(this.get_value(), action);
    view! {
        <li class="proposal" data-proposal=key.clone() data-status=status>
            <h3><code>{key.clone()}</code>" "<span class="badge">{status}</span></h3>
            <p class="phrasings">{proposal.query.questions.join(" · ")}</p>
            <pre class="sql"><code>{proposal.query.sql.clone()}</code></pre>
            <p class="provenance">
                {format!("Proposed by {} at {}", proposal.proposed_by, proposal.proposed_at)}
                {proposal.approved_by.clone().map(|by| format!("; approved by {by}"))}
            </p>
            <div class="proposal-actions">
                {(!approved).then(|| view! {
                    <button type="button" class="approve primary" disabled=move || !may_approve.get()
                        on:click=move |_| act(Action::Approve)>"Approve"</button>
                })}
                {edits.then(|| view! {
                    <button type="button" class="edit" disabled=move || !may_approve.get()
                        on:click=move |_| set_editing.update(|e| *e = !*e)>"Edit"</button>
                    <button type="button" class="delete" disabled=move || !may_approve.get()
                        on:click=move |_| act(Action::Delete)>"Delete"</button>
                })}
            </div>
            {move || editing.get().then(|| view! { <EditQuery query=this.with_value(|p| p.query.clone()) done=set_editing act=act /> })}
        </li>
    }
}

/// The proposal's query as JSON to edit; saved only when it reads as a verified query.
#[component]
fn EditQuery(
    query: VerifiedQuery,
    done: WriteSignal<bool>,
    act: impl Fn(Action) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let (draft, set_draft) = signal(serde_json::to_string_pretty(&query).unwrap_or_default());
    let (error, set_error) = signal(None::<String>);
    let save = move |_| match serde_json::from_str::<VerifiedQuery>(&draft.get_untracked()) {
        Ok(q) => {
            set_error.set(None);
            done.set(false);
            act(Action::Edit(Box::new(q)));
        }
        Err(e) => set_error.set(Some(format!("not a verified query: {e}"))),
    };
    view! {
        <div class="edit-query">
            <textarea rows="10" prop:value=draft on:input=move |ev| set_draft.set(event_target_value(&ev))></textarea>
            <button type="button" class="save primary" on:click=save>"Save"</button>
            {move || error.get().map(|e| view! { <p class="config-error" role="alert">{e}</p> })}
        </div>
    }
}
