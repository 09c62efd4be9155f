//! The Verified queries page: what "Right" proposed, to approve, edit or delete (for a role
//! that approves: admin in the demo policies), and the feedback as a file to export or
//! import. Kept in this browser's IndexedDB; with a server as the engine, its proposals.

use crate::browser::download;
use crate::state::AppState;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::curated::VerifiedQuery;
use nl2sql_core::feedback::{FeedbackBook, Proposal, ProposalStatus};
use wasm_bindgen::JsCast;

#[component]
pub fn VerifiedPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let said = RwSignal::new(None::<(String, String)>);
    let from_server = RwSignal::new(None::<Vec<Proposal>>);
    // With a server as the engine, its proposals are listed (for a key whose role approves).
    Effect::new(move |_| {
        let Some(remote) = state.server.get() else {
            from_server.set(None);
            return;
        };
        spawn_local(async move {
            let transport = nl2sql_wasm::FetchTransport::default();
            match remote.proposals(&transport).await {
                Ok(list) => from_server.set(Some(list)),
                Err(e) => {
                    from_server.set(Some(Vec::new()));
                    said.set(Some((e.code.to_string(), e.message)));
                }
            }
        });
    });
    let may_approve = move || {
        state.role.track();
        state
            .session()
            .is_some_and(|s| s.may_approve(&[state.role.get_untracked()]))
    };
    let export = move |_| {
        let text = state.feedback.with_untracked(FeedbackBook::to_json);
        if let Err(e) = download("nl2sql-feedback.json", "application/json", &text) {
            said.set(Some(("DOWNLOAD_FAILED".into(), e)));
        }
    };
    let import = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            let text = text.ok().and_then(|t| t.as_string()).unwrap_or_default();
            match FeedbackBook::from_json(&text) {
                Ok(other) => {
                    let mut book = state.feedback.get_untracked();
                    let added = book.merge(other);
                    match state.keep_feedback(book).await {
                        Ok(()) => said.set(Some((
                            "IMPORTED".into(),
                            format!("Imported {added} new proposals."),
                        ))),
                        Err(e) => said.set(Some(("IMPORT_FAILED".into(), e))),
                    }
                }
                Err(e) => said.set(Some((e.code.to_string(), e.to_string()))),
            }
        });
    };
    view! {
        <section class="verified-page" id="verified-page">
            <h2>"Verified queries"</h2>
            <p class="hint">
                "Answers marked Right become proposals: the SQL with the question's values as parameters. "
                "A role that approves (admin here) approves, edits or deletes them; approved ones answer their questions with no model call. "
                "Kept in this browser only."
            </p>
            <div class="verified-tools">
                <button type="button" id="export-feedback" on:click=export>"Export feedback"</button>
                <label class="file-button">"Import feedback "
                    <input type="file" id="import-feedback" accept=".json,application/json" on:change=import />
                </label>
                {move || (!may_approve()).then(|| view! {
                    <span class="hint" id="cannot-approve">{move || format!("The role {} may not approve; choose admin to approve.", state.role.get())}</span>
                })}
            </div>
            {move || said.get().map(|(code, text)| view! {
                <p class="said" role="status" data-code=code.clone()><code>{code.clone()}</code>" "{text}</p>
            })}
            {move || match from_server.get() {
                Some(list) => view! { <ServerList list=list said=said /> }.into_any(),
                None => view! { <LocalList said=said may_approve=Signal::derive(may_approve) /> }.into_any(),
            }}
        </section>
    }
}

/// This page's proposals, each with what a role that approves may do.
#[component]
fn LocalList(said: RwSignal<Option<(String, String)>>, may_approve: Signal<bool>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let decide = move |p: Proposal, action: Action| {
        let Some(session) = state.session() else {
            return;
        };
        let roles = vec![state.role.get_untracked()];
        spawn_local(async move {
            let mut book = state.feedback.get_untracked();
            let id = (p.datasource.as_str(), p.query.id.as_str());
            let at = js_sys::Date::new_0()
                .to_iso_string()
                .as_string()
                .unwrap_or_default();
            let by = roles.join(", ");
            let done = match action {
                Action::Approve => session
                    .approve(&mut book, id, &roles, (&by, &at))
                    .await
                    .map(|_| "Approved."),
                Action::Delete => session
                    .delete_proposal(&mut book, id, &roles)
                    .await
                    .map(|()| "Deleted."),
                Action::Edit(query) => session
                    .edit_proposal(&mut book, id, *query, &roles)
                    .await
                    .map(|_| "Saved."),
            };
            match done {
                Ok(words) => match state.keep_feedback(book).await {
                    Ok(()) => said.set(Some(("OK".into(), words.into()))),
                    Err(e) => said.set(Some(("NOT_KEPT".into(), e))),
                },
                Err(e) => said.set(Some((e.code.to_string(), e.to_string()))),
            }
        });
    };
    move || {
        let proposals = state.feedback.with(|b| b.proposals.clone());
        if proposals.is_empty() {
            return view! { <p class="empty" id="no-proposals">"Nothing proposed yet: mark an answer Right on the Ask page."</p> }.into_any();
        }
        view! {
            <ul class="proposals">
                {proposals.into_iter().map(|p| view! { <ProposalCard proposal=p may_approve=may_approve decide=decide /> }).collect_view()}
            </ul>
        }
        .into_any()
    }
}

/// What a person who approves does with a proposal.
#[derive(Clone)]
enum Action {
    Approve,
    Edit(Box<VerifiedQuery>),
    Delete,
}

#[component]
fn ProposalCard(
    proposal: Proposal,
    may_approve: Signal<bool>,
    decide: impl Fn(Proposal, Action) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(serde_json::to_string_pretty(&proposal.query).unwrap_or_default());
    let error = RwSignal::new(None::<String>);
    let key = format!("{}.{}", proposal.datasource, proposal.query.id);
    let shown = key.clone();
    let status = match proposal.status {
        ProposalStatus::Proposed => "proposed",
        ProposalStatus::Approved => "approved",
    };
    let approved = proposal.status == ProposalStatus::Approved;
    let (p1, p2) = (proposal.clone(), proposal.clone());
    let edited = StoredValue::new(proposal.clone());
    let save = move |_| match serde_json::from_str::<VerifiedQuery>(&draft.get_untracked()) {
        Ok(q) => {
            error.set(None);
            editing.set(false);
            decide(edited.get_value(), Action::Edit(Box::new(q)));
        }
        Err(e) => error.set(Some(format!("not a verified query: {e}"))),
    };
    view! {
        <li class="proposal" data-proposal=key.clone() data-status=status>
            <h3><code>{shown}</code>" "<span class="badge">{status}</span></h3>
            <p class="phrasings">{proposal.query.questions.join(" · ")}</p>
            <pre class="sql"><code>{proposal.query.sql.clone()}</code></pre>
            <p class="provenance">
                {format!("Proposed by {} at {}", proposal.proposed_by, proposal.proposed_at)}
                {proposal.approved_by.clone().map(|by| format!("; approved by {by}"))}
            </p>
            <div class="proposal-actions">
                {(!approved).then(|| view! {
                    <button type="button" class="approve primary" disabled=move || !may_approve.get()
                        on:click=move |_| decide(p1.clone(), Action::Approve)>"Approve"</button>
                })}
                <button type="button" class="edit" disabled=move || !may_approve.get()
                    on:click=move |_| editing.update(|e| *e = !*e)>"Edit"</button>
                <button type="button" class="delete" disabled=move || !may_approve.get()
                    on:click=move |_| decide(p2.clone(), Action::Delete)>"Delete"</button>
            </div>
            {move || editing.get().then(|| view! {
                <div class="edit-query">
                    <textarea rows="10" prop:value=move || draft.get() on:input=move |ev| draft.set(event_target_value(&ev))></textarea>
                    <button type="button" class="save primary" on:click=save>"Save"</button>
                    {move || error.get().map(|e| view! { <p class="config-error" role="alert">{e}</p> })}
                </div>
            })}
        </li>
    }
}

/// The server's proposals: approving goes to the server; editing and deleting are the
/// server's API (PUT and DELETE) or its command line.
#[component]
fn ServerList(list: Vec<Proposal>, said: RwSignal<Option<(String, String)>>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let approve = move |p: Proposal| {
        let Some(remote) = state.server.get_untracked() else {
            return;
        };
        spawn_local(async move {
            let transport = nl2sql_wasm::FetchTransport::default();
            match remote.approve(&transport, &p.datasource, &p.query.id).await {
                Ok(_) => said.set(Some(("OK".into(), "Approved on the server.".into()))),
                Err(e) => said.set(Some((e.code.to_string(), e.message))),
            }
        });
    };
    view! {
        <ul class="proposals" data-source="server">
            {list.into_iter().map(|p| {
                let key = format!("{}.{}", p.datasource, p.query.id);
                let shown = key.clone();
                let proposed = p.status == ProposalStatus::Proposed;
                let sql = p.query.sql.clone();
                let phrasings = p.query.questions.join(" · ");
                view! {
                    <li class="proposal" data-proposal=key.clone()>
                        <h3><code>{shown}</code></h3>
                        <p class="phrasings">{phrasings}</p>
                        <pre class="sql"><code>{sql}</code></pre>
                        {proposed.then(|| view! { <button type="button" class="approve primary" on:click=move |_| approve(p.clone())>"Approve"</button> })}
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}
