//! Right or Wrong under the answer; "Right" proposes a verified query to the engine in use.

use crate::engine::Said;
use crate::state::{Engines, Nav, Page, RunState};
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::feedback::Verdict;
use nl2sql_core::result::{QueryResult, Status};
use std::sync::Arc;

#[component]
pub fn Judge() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let run = expect_context::<RunState>();
    let nav = expect_context::<Nav>();
    let said = RwSignal::new(None::<Said>);
    // The answer it was said of: what is said shows under that answer only.
    let said_of = StoredValue::new(None::<Arc<QueryResult>>);
    let judge = move |verdict: Verdict| {
        let (Some(engine), Some(result)) = (engines.engine(), run.result.get_untracked()) else {
            return;
        };
        said_of.set_value(Some(Arc::clone(&result)));
        let role = engines.role.get_untracked();
        spawn_local(async move { said.set(Some(engine.judge(result, verdict, role).await)) });
    };
    let answered = Memo::new(move |_| {
        !run.running.get()
            && run
                .result
                .get()
                .is_some_and(|r| r.status == Status::Success)
    });
    let shown = move || {
        let current = run.result.get();
        let same = said_of.with_value(|of| match (of, &current) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        });
        said.get().filter(|_| same)
    };
    move || {
        answered.get().then(|| {
            view! {
                <section class="judge" id="judge">
                    <span>"Is this answer right?"</span>
                    <button type="button" id="right" on:click=move |_| judge(Verdict::Right)>"👍 Right"</button>
                    <button type="button" id="wrong" on:click=move |_| judge(Verdict::Wrong)>"👎 Wrong"</button>
                    {move || shown().map(|Said { kind, text }| view! {
                        <p class="judged" data-verdict=kind>{text}" "
                            <a href="#" on:click=nav.go(Page::Verified)>"Verified queries"</a>
                        </p>
                    })}
                </section>
            }
        })
    }
}
