//! The routing and retrieval inspector: how a question is routed and what schema the
//! planner would be sent, with no model call (it works without a key).

mod retrieval;
mod routing;

pub use retrieval::RetrievalTables;
pub use routing::RoutingTables;

use crate::state::Engines;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::result::{Retrieval, Routing};

#[component]
pub fn InspectPage() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let (question, set_question) = signal("Which artists have the most albums?".to_string());
    let routing = RwSignal::new(None::<Routing>);
    let retrieval = RwSignal::new(None::<Retrieval>);
    let failure = RwSignal::new(None::<String>);
    let inspect = move || {
        let Some(engine) = engines.engine() else {
            return;
        };
        let (q, role) = (question.get_untracked(), engines.role.get_untracked());
        retrieval.set(None);
        spawn_local(async move {
            let routed = match engine.route(q.clone(), role.clone()).await {
                Ok(r) => r,
                Err(e) => return failure.set(Some(e)),
            };
            let top = routed.ranked.first().cloned();
            routing.set(Some(routed));
            failure.set(None);
            // What the planner would be sent from the datasource routing put first.
            if let Some(top) = top {
                match engine.retrieve(q, top, role).await {
                    Ok(found) => retrieval.set(found),
                    Err(e) => failure.set(Some(e)),
                }
            }
        });
    };
    view! {
        <section class="inspect">
            <form class="ask" on:submit=move |ev| { ev.prevent_default(); inspect(); }>
                <label for="inspect-question">"A question to route (no model call; works without a key)"</label>
                <div class="ask-options">
                    <input id="inspect-question" type="text" prop:value=question
                        on:input=move |ev| set_question.set(event_target_value(&ev)) />
                    <button type="submit" class="primary" id="inspect">"Route"</button>
                </div>
            </form>
            {move || failure.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || routing.get().map(|r| view! { <RoutingTables routing=r /> })}
            {move || retrieval.get().map(|r| view! { <RetrievalTables retrieval=r /> })}
        </section>
    }
}
