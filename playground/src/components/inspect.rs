//! The routing and retrieval inspector: how a question is routed and what schema the
//! planner would be sent, with no model call (it works without a key).

use crate::state::AppState;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value as Json;

#[component]
pub fn InspectPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let question = RwSignal::new("Which artists have the most albums?".to_string());
    let routing = RwSignal::new(None::<Json>);
    let retrieval = RwSignal::new(None::<Json>);
    let failure = RwSignal::new(None::<String>);
    let inspect = move || {
        let Some(session) = state.session() else {
            return;
        };
        let q = question.get_untracked();
        let roles = vec![state.role.get_untracked()];
        spawn_local(async move {
            match session.route(&q, &roles).await {
                Ok(r) => {
                    let top = r.ranked.first().cloned();
                    routing.set(serde_json::to_value(&r).ok());
                    failure.set(None);
                    retrieval.set(None);
                    if let Some(top) = top {
                        match session.retrieve(&q, &top, &roles).await {
                            Ok(x) => retrieval.set(serde_json::to_value(&x).ok()),
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
pub fn RoutingTables(routing: Json) -> impl IntoView {
    let ranked = super::result::strings(&routing["ranked"]);
    let dropped = routing["dropped"].as_array().cloned().unwrap_or_default();
    let fused = routing["fused"].as_array().cloned().unwrap_or_default();
    let signals = routing["signals"].as_array().cloned().unwrap_or_default();
    view! {
        <div class="routing">
            <h4>"Routing"</h4>
            <p class="ranked">"Kept, best first: " <strong>{ranked.join(", ")}</strong></p>
            {(!dropped.is_empty()).then(|| view! {
                <p>"Dropped: " {dropped.iter().map(|d| format!("{} ({})", d["id"].as_str().unwrap_or("?"), d["reason"].as_str().unwrap_or("?"))).collect::<Vec<_>>().join(", ")}</p>
            })}
            <table class="grid fused">
                <thead><tr><th>"Datasource"</th><th>"Fused score"</th></tr></thead>
                <tbody>{fused.into_iter().map(|f| view! {
                    <tr><td>{f[0].as_str().unwrap_or("?").to_string()}</td><td class="num">{format!("{:.4}", f[1].as_f64().unwrap_or(0.0))}</td></tr>
                }).collect_view()}</tbody>
            </table>
            {signals.into_iter().map(|s| {
                let pool = s["pool"].as_array().cloned().unwrap_or_default();
                view! {
                    <details class="signal" data-signal=s["name"].as_str().unwrap_or_default().to_string()>
                        <summary>{format!("Signal {}: {}", s["name"].as_str().unwrap_or("?"), super::result::strings(&s["ranking"]).join(" > "))}</summary>
                        <table class="grid">
                            <thead><tr><th>"Datasource"</th><th>"Entry"</th><th>"Similarity"</th></tr></thead>
                            <tbody>{pool.into_iter().map(|p| view! {
                                <tr>
                                    <td>{p["datasource"].as_str().unwrap_or_default().to_string()}</td>
                                    <td>{p["entry"].as_str().unwrap_or_default().to_string()}</td>
                                    <td class="num">{format!("{:.3}", p["similarity"].as_f64().unwrap_or(0.0))}</td>
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
pub fn RetrievalTables(retrieval: Json) -> impl IntoView {
    let values = retrieval["values"].as_array().cloned().unwrap_or_default();
    view! {
        <div class="retrieval" data-datasource=retrieval["datasource"].as_str().unwrap_or_default().to_string()>
            <h4>{format!("Retrieval from {}", retrieval["datasource"].as_str().unwrap_or("?"))}</h4>
            <p>{if retrieval["full_snapshot"] == true { "The whole readable schema is sent." } else { "Searched:" }}</p>
            <p class="retrieved-tables">"Tables: " {super::result::strings(&retrieval["tables"]).join(", ")}</p>
            <p class="retrieved-columns">"Columns: " {super::result::strings(&retrieval["columns"]).join(", ")}</p>
            {(!values.is_empty()).then(|| view! {
                <table class="grid">
                    <thead><tr><th>"Words"</th><th>"Value"</th><th>"Match"</th><th>"Score"</th></tr></thead>
                    <tbody>{values.into_iter().map(|v| view! {
                        <tr>
                            <td>{v["span"].as_str().unwrap_or_default().to_string()}</td>
                            <td>{format!("{}.{} = '{}'", v["table"].as_str().unwrap_or("?"), v["column"].as_str().unwrap_or("?"), v["value"].as_str().unwrap_or("?"))}</td>
                            <td>{v["matched"].as_str().unwrap_or_default().to_string()}</td>
                            <td class="num">{format!("{:.2}", v["score"].as_f64().unwrap_or(0.0))}</td>
                        </tr>
                    }).collect_view()}</tbody>
                </table>
            })}
        </div>
    }
}
