//! SQL mode: SQL in, imported as a plan, validated for the role, rendered and run with the
//! same checks a planned query gets — so a refusal says exactly why.

use super::{Checks, Problems, RowsView, SchemaPanel, SqlBlock};
use crate::state::AppState;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::api::SqlRequest;
use nl2sql_core::run::{SqlRun, SqlStatus};
use nl2sql_wasm::{DatabaseHost, FetchTransport};
use std::rc::Rc;

#[component]
pub fn SqlPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let sql = RwSignal::new("SELECT Name, Composer FROM Track WHERE Milliseconds > 600000 ORDER BY Milliseconds DESC LIMIT 10".to_string());
    let datasource = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<SqlRun>);
    let running = RwSignal::new(false);
    let server_error = RwSignal::new(None::<(String, String)>);
    // The request to the server in flight, so Cancel can close it.
    let in_flight = StoredValue::new_local(None::<Rc<FetchTransport>>);
    let run = move || {
        if running.get_untracked() {
            return;
        }
        let ds = Some(datasource.get_untracked()).filter(|d| !d.is_empty());
        let text = sql.get_untracked();
        server_error.set(None);
        if let Some(remote) = state.server.get_untracked() {
            let transport = Rc::new(FetchTransport::default());
            in_flight.set_value(Some(Rc::clone(&transport)));
            running.set(true);
            spawn_local(async move {
                let request = SqlRequest {
                    sql: text,
                    datasource: ds,
                    role: None,
                };
                let result = remote.sql(&transport, &request).await;
                running.set(false);
                match result {
                    Ok(run) => outcome.set(Some(run)),
                    Err(e) => {
                        outcome.set(None);
                        server_error.set(Some((e.code.to_string(), e.message)));
                    }
                }
            });
            return;
        }
        let Some(session) = state.session() else {
            return;
        };
        let role = state.role.get_untracked();
        running.set(true);
        spawn_local(async move {
            let result = session.sql(&text, ds.as_deref(), &[role]).await;
            running.set(false);
            outcome.set(Some(result));
        });
    };
    // The query in flight is stopped in its worker; it ends CANCELLED.
    let cancel = move |_| {
        if let Some(transport) = in_flight.get_value() {
            // Closing the request cancels the query on the server.
            transport.cancel();
        }
        let Some(session) = state.session() else {
            return;
        };
        let id = Some(datasource.get_untracked())
            .filter(|d| !d.is_empty())
            .or_else(|| session.workspace().ids().first().map(|id| id.to_string()));
        if let (DatabaseHost::Workers(workers), Some(id)) = (session.host().databases(), id) {
            workers.interrupt_one(&id);
        }
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
                        <button type="button" id="cancel-sql" disabled=move || !running.get() on:click=cancel>"Cancel"</button>
                        <button type="submit" class="primary" id="run-sql" disabled=move || running.get()>"Import, check and run"</button>
                    </div>
                </form>
                {move || running.get().then(|| view! { <p class="notice" id="sql-running" role="status">"Running… (Cancel stops it at once; the time limit stops it in any case)"</p> })}
                {move || server_error.get().map(|(code, message)| view! {
                    <p class="error" role="alert" id="sql-server-error" data-code=code.clone()><code>{code.clone()}</code> " " {message}</p>
                })}
                {move || (!running.get()).then(|| outcome.get().map(|o| view! { <SqlOutcome outcome=o /> }))}
            </section>
            <aside class="ask-side"><SchemaPanel /></aside>
        </div>
    }
}

#[component]
fn SqlOutcome(outcome: SqlRun) -> impl IntoView {
    let ok = outcome.status == SqlStatus::Ok;
    let plan = outcome.plan.map(|p| p.to_string());
    view! {
        <section class="panels sql-outcome" data-ok=ok.to_string()>
            <Problems errors=outcome.errors warnings=outcome.warnings />
            {plan.map(|p| view! { <details class="plan" open><summary>"Plan"</summary><p class="plan-text"><code>{p}</code></p></details> })}
            <Checks checks=outcome.checks />
            {outcome.sql.map(|s| view! { <SqlBlock sql=s /> })}
            {ok.then(|| view! {
                <RowsView
                    total=outcome.rows.len()
                    columns=outcome.columns
                    rows=outcome.rows
                    truncated=outcome.truncated
                    name="sql".to_string() />
            })}
        </section>
    }
}
