//! SQL mode: SQL in, imported as a plan, validated for the role, rendered and run with the
//! same checks a planned query gets — so a refusal says exactly why.

use super::{Checks, Problems, RowsView, SchemaPanel, SqlBlock};
use crate::state::AppState;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::plan::Plan;
use serde_json::Value as Json;

#[component]
pub fn SqlPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let sql = RwSignal::new("SELECT Name, Composer FROM Track WHERE Milliseconds > 600000 ORDER BY Milliseconds DESC LIMIT 10".to_string());
    let datasource = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Json>);
    let run = move || {
        let Some(session) = state.session() else {
            return;
        };
        let ds = Some(datasource.get_untracked()).filter(|d| !d.is_empty());
        let text = sql.get_untracked();
        let role = state.role.get_untracked();
        spawn_local(async move {
            let result = session.sql(&text, ds.as_deref(), &[role]).await;
            outcome.set(serde_json::to_value(&result).ok());
        });
    };
    view! {
        <div class="ask-page">
            <section class="ask-main">
                <form class="ask sql-mode" on:submit=move |ev| { ev.prevent_default(); run(); }>
                    <label for="sql-input">"SQL (one read-only query; it is imported as a plan and checked like any other)"</label>
                    <textarea id="sql-input" rows="5" spellcheck="false"
                        prop:value=move || sql.get()
                        on:input=move |ev| sql.set(event_target_value(&ev))
                        on:keydown=move |ev| if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) { ev.prevent_default(); run(); }
                    ></textarea>
                    <div class="ask-options">
                        <label>"Datasource "
                            <select id="sql-datasource" on:change=move |ev| datasource.set(event_target_value(&ev))>
                                {move || state.sources.get().into_iter().map(|s| view! { <option value=s.id.clone()>{s.id.clone()}</option> }).collect_view()}
                            </select>
                        </label>
                        <span class="spacer"></span>
                        <button type="submit" class="primary" id="run-sql">"Import, check and run"</button>
                    </div>
                </form>
                {move || outcome.get().map(|o| view! { <SqlOutcome outcome=o /> })}
            </section>
            <aside class="ask-side"><SchemaPanel /></aside>
        </div>
    }
}

#[component]
fn SqlOutcome(outcome: Json) -> impl IntoView {
    let errors = outcome["errors"].as_array().cloned().unwrap_or_default();
    let ok = errors.is_empty();
    let plan = serde_json::from_value::<Plan>(outcome["plan"].clone())
        .ok()
        .map(|p| p.to_string());
    view! {
        <section class="panels sql-outcome" data-ok=ok.to_string()>
            <Problems errors=errors warnings=outcome["warnings"].as_array().cloned().unwrap_or_default() />
            {plan.map(|p| view! { <details class="plan" open><summary>"Plan"</summary><p class="plan-text"><code>{p}</code></p></details> })}
            <Checks checks=outcome["checks"].as_array().cloned().unwrap_or_default() />
            {outcome["sql"].as_str().map(|s| view! { <SqlBlock sql=s.to_string() /> })}
            {ok.then(|| view! {
                <RowsView
                    columns=super::result::strings(&outcome["columns"])
                    rows=super::result::rows(&outcome["rows"])
                    total=outcome["rows"].as_array().map_or(0, Vec::len)
                    truncated=outcome["truncated"] == true
                    name="sql".to_string() />
            })}
        </section>
    }
}
