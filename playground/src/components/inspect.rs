//! The routing and retrieval inspector: how a question is routed and what schema the
//! planner would be sent, with no model call (it works without a key).

use crate::state::AppState;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::api::RouteRequest;
use nl2sql_core::index::{Retrieval, Routing};
use nl2sql_wasm::FetchTransport;

#[component]
pub fn InspectPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let question = RwSignal::new("Which artists have the most albums?".to_string());
    let routing = RwSignal::new(None::<Routing>);
    let retrieval = RwSignal::new(None::<Retrieval>);
    let failure = RwSignal::new(None::<String>);
    let inspect = move || {
        if let Some(remote) = state.server.get_untracked() {
            let request = RouteRequest {
                question: question.get_untracked(),
                role: None,
            };
            retrieval.set(None);
            spawn_local(async move {
                match remote.route(&FetchTransport::default(), &request).await {
                    Ok(r) => {
                        routing.set(Some(r));
                        failure.set(None);
                    }
                    Err(e) => failure.set(Some(e.to_string())),
                }
            });
            return;
        }
        let Some(session) = state.session() else {
            return;
        };
        let q = question.get_untracked();
        let roles = vec![state.role.get_untracked()];
        spawn_local(async move {
            match session.route(&q, &roles).await {
                Ok(r) => {
                    let top = r.ranked.first().cloned();
                    routing.set(Some(r));
                    failure.set(None);
                    retrieval.set(None);
                    if let Some(top) = top {
                        match session.retrieve(&q, &top, &roles).await {
                            Ok(x) => retrieval.set(Some(x)),
                            Err(e) => failure.set(Some(e.to_string())),
                        }
                    }
                }
                Err(e) => failure.set(Some(e.to_string())),
            }
        });
    };
    view! {
        <section class="inspect">
            <form class="ask" on:submit=move |ev| { ev.prevent_default(); inspect(); }>
                <label for="inspect-question">"A question to route (no model call; works without a key)"</label>
                <div class="ask-options">
                    <input id="inspect-question" type="text" prop:value=move || question.get()
                        on:input=move |ev| question.set(event_target_value(&ev)) />
                    <button type="submit" class="primary" id="inspect">"Route"</button>
                </div>
            </form>
            {move || failure.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || routing.get().map(|r| view! { <RoutingTables routing=r /> })}
            {move || retrieval.get().map(|r| view! { <RetrievalTables retrieval=r /> })}
        </section>
    }
}

/// Routing's decision and every signal's pool and ranking.
#[component]
pub fn RoutingTables(routing: Routing) -> impl IntoView {
    let Routing {
        ranked,
        dropped,
        signals,
        fused,
    } = routing;
    view! {
        <div class="routing">
            <h4>"Routing"</h4>
            <p class="ranked">"Kept, best first: " <strong>{ranked.join(", ")}</strong></p>
            {(!dropped.is_empty()).then(|| view! {
                <p>"Dropped: " {dropped.iter().map(|d| format!("{} ({})", d.id, d.reason)).collect::<Vec<_>>().join(", ")}</p>
            })}
            <table class="grid fused">
                <thead><tr><th>"Datasource"</th><th>"Fused score"</th></tr></thead>
                <tbody>{fused.into_iter().map(|(id, score)| view! {
                    <tr><td>{id}</td><td class="num">{format!("{score:.4}")}</td></tr>
                }).collect_view()}</tbody>
            </table>
            {signals.into_iter().map(|s| {
                view! {
                    <details class="signal" data-signal=s.name.clone()>
                        <summary>{format!("Signal {}: {}", s.name, s.ranking.join(" > "))}</summary>
                        <table class="grid">
                            <thead><tr><th>"Datasource"</th><th>"Entry"</th><th>"Similarity"</th></tr></thead>
                            <tbody>{s.pool.into_iter().map(|p| view! {
                                <tr>
                                    <td>{p.datasource}</td>
                                    <td>{p.entry}</td>
                                    <td class="num">{format!("{:.3}", p.similarity)}</td>
                                </tr>
                            }).collect_view()}</tbody>
                        </table>
                    </details>
                }
            }).collect_view()}
        </div>
    }
}

/// What retrieval would send the planner.
#[component]
pub fn RetrievalTables(retrieval: Retrieval) -> impl IntoView {
    let Retrieval {
        datasource,
        tables,
        columns,
        values,
        full_snapshot,
        notes,
    } = retrieval;
    view! {
        <div class="retrieval" data-datasource=datasource.clone()>
            <h4>{format!("Retrieval from {datasource}")}</h4>
            <p>{if full_snapshot { "The whole readable schema is sent." } else { "Searched:" }}</p>
            <p class="retrieved-tables">"Tables: " {tables.join(", ")}</p>
            <p class="retrieved-columns">"Columns: " {columns.join(", ")}</p>
            {(!values.is_empty()).then(|| view! {
                <table class="grid">
                    <thead><tr><th>"Words"</th><th>"Value"</th><th>"Match"</th><th>"Score"</th></tr></thead>
                    <tbody>{values.into_iter().map(|v| view! {
                        <tr>
                            <td>{v.span}</td>
                            <td>{format!("{}.{} = '{}'", v.table, v.column, v.value)}</td>
                            <td>{v.matched.as_str()}</td>
                            <td class="num">{format!("{:.2}", v.score)}</td>
                        </tr>
                    }).collect_view()}</tbody>
                </table>
            })}
            {(!notes.is_empty()).then(|| view! {
                <ul class="retrieved-notes">
                    {notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                </ul>
            })}
        </div>
    }
}
