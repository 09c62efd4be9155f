//! Routing's decision and every signal's pool and ranking.

use leptos::prelude::*;
use nl2sql_core::result::Routing;

#[component]
pub fn RoutingTables(routing: Routing) -> impl IntoView {
    let Routing {
        ranked,
        dropped,
        signals,
        fused,
        close_call,
    } = routing;
    let close = close_call.map(|c| {
        format!(
            "Close call: {} (first on {}) and {} (first on {})",
            c.chosen,
            listed(&c.chosen_led),
            c.runner_up,
            listed(&c.runner_up_led)
        )
    });
    let dropped: Vec<String> = dropped
        .iter()
        .map(|d| format!("{} ({})", d.id, d.reason))
        .collect();
    view! {
        <div class="routing">
            <h4>"Routing"</h4>
            <p class="ranked">"Kept, best first: " <strong>{ranked.join(", ")}</strong></p>
            {(!dropped.is_empty()).then(|| view! { <p>"Dropped: " {dropped.join(", ")}</p> })}
            {close.map(|c| view! { <p class="close-call">{c}</p> })}
            <table class="grid fused">
                <thead><tr><th>"Datasource"</th><th>"Fused score"</th></tr></thead>
                <tbody>{fused.into_iter().map(|(id, score)| view! {
                    <tr><td>{id}</td><td class="num">{format!("{score:.4}")}</td></tr>
                }).collect_view()}</tbody>
            </table>
            {signals.into_iter().map(|s| view! {
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
            }).collect_view()}
        </div>
    }
}

/// Signal names, or "no signal".
fn listed(signals: &[String]) -> String {
    if signals.is_empty() {
        "no signal".to_string()
    } else {
        signals.join(", ")
    }
}
