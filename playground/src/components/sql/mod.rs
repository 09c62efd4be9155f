//! SQL mode: SQL in, imported as a plan, validated for the role, rendered and run with the
//! same checks a planned query gets — so a refusal says exactly why.

mod form;
mod outcome;

use super::SchemaPanel;
use crate::engine::Failure;
use crate::state::Engines;
use form::SqlForm;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::result::SqlRun;
use outcome::SqlOutcome;
use std::rc::Rc;

#[component]
pub fn SqlPage() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let (sql, set_sql) = signal("SELECT Name, Composer FROM Track WHERE Milliseconds > 600000 ORDER BY Milliseconds DESC LIMIT 10".to_string());
    let (datasource, set_datasource) = signal(String::new());
    let (outcome, set_outcome) = signal(None::<SqlRun>);
    let (running, set_running) = signal(false);
    let (failure, set_failure) = signal(None::<Failure>);
    // Stops the query in flight (it ends CANCELLED).
    let stop = StoredValue::new_local(None::<Rc<dyn Fn()>>);
    let run = move || {
        let Some(engine) = engines.engine().filter(|_| !running.get_untracked()) else {
            return;
        };
        let ds = Some(datasource.get_untracked()).filter(|d| !d.is_empty());
        set_failure.set(None);
        let started = engine.sql(sql.get_untracked(), ds, engines.role.get_untracked());
        stop.set_value(Some(started.cancel));
        set_running.set(true);
        spawn_local(async move {
            let result = started.done.await;
            set_running.set(false);
            match result {
                Ok(run) => set_outcome.set(Some(run)),
                Err(f) => {
                    set_outcome.set(None);
                    set_failure.set(Some(f));
                }
            }
        });
    };
    let cancel = move || {
        if let Some(stop) = stop.get_value() {
            stop();
        }
    };
    view! {
        <div class="ask-page">
            <section class="ask-main">
                <SqlForm sql=sql set_sql=set_sql set_datasource=set_datasource running=running run=run cancel=cancel />
                {move || running.get().then(|| view! { <p class="notice" id="sql-running" role="status">"Running… (Cancel stops it at once; the time limit stops it in any case)"</p> })}
                {move || failure.get().map(|f| view! {
                    <p class="error" role="alert" id="sql-server-error" data-code=f.code.clone()><code>{f.code.clone()}</code> " " {f.message}</p>
                })}
                {move || (!running.get()).then(|| outcome.get().map(|o| view! { <SqlOutcome outcome=o /> }))}
            </section>
            <aside class="ask-side"><SchemaPanel /></aside>
        </div>
    }
}
