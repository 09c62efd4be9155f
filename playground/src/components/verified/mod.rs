//! The Verified queries page: what "Right" proposed, to approve, edit or delete (for a role
//! that approves: admin in the demo policies), and the feedback as a file to export or
//! import. The engine in use keeps the proposals: this browser's IndexedDB, or a server.

mod card;
mod tools;

use crate::engine::Action;
use crate::state::Engines;
use card::ProposalCard;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::feedback::Proposal;
use tools::Tools;

/// What the last action did: (its code, in words).
type Said = Option<(String, String)>;

#[component]
pub fn VerifiedPage() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let (said, set_said) = signal(None::<(String, String)>);
    // Listed again whenever the engine, or what it keeps, changes.
    let listed = LocalResource::new(move || {
        engines.changed.track();
        let engine = engines.current();
        async move {
            match engine {
                Some(engine) => engine.proposals().await,
                None => Ok(Vec::new()),
            }
        }
    });
    let decide = move |proposal: Proposal, action: Action| {
        let Some(engine) = engines.engine() else {
            return;
        };
        let role = engines.role.get_untracked();
        spawn_local(async move {
            match engine.decide(proposal, action, role).await {
                Ok(words) => set_said.set(Some(("OK".into(), words.into()))),
                Err(f) => set_said.set(Some((f.code, f.message))),
            }
        });
    };
    let edits = move || engines.current().is_some_and(|e| e.edits_proposals());
    let may_approve = Signal::derive(move || engines.may_approve.get());
    let list = move || {
        match listed.get()? {
        Err(f) => Some(view! { <p class="said" role="status" data-code=f.code.clone()><code>{f.code.clone()}</code>" "{f.message}</p> }.into_any()),
        Ok(list) if list.is_empty() => Some(view! { <p class="empty" id="no-proposals">"Nothing proposed yet: mark an answer Right on the Ask page."</p> }.into_any()),
        Ok(list) => Some(view! {
            <ul class="proposals">
                {list.into_iter().map(|p| view! { <ProposalCard proposal=p may_approve=may_approve edits=edits() decide=decide /> }).collect_view()}
            </ul>
        }.into_any()),
    }
    };
    view! {
        <section class="verified-page" id="verified-page">
            <h2>"Verified queries"</h2>
            <p class="hint">
                "Answers marked Right become proposals: the SQL with the question's values as parameters. "
                "A role that approves (admin here) approves, edits or deletes them; approved ones answer their questions with no model call. "
                "Kept in this browser only."
            </p>
            <Tools set_said=set_said />
            {move || said.get().map(|(code, text)| view! {
                <p class="said" role="status" data-code=code.clone()><code>{code.clone()}</code>" "{text}</p>
            })}
            {list}
        </section>
    }
}
