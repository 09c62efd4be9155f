//! SQL mode's form: the query, the datasource it runs on, Cancel and Run.

use crate::state::Engines;
use leptos::prelude::*;

#[component]
pub fn SqlForm(
    sql: ReadSignal<String>,
    set_sql: WriteSignal<String>,
    set_datasource: WriteSignal<String>,
    running: ReadSignal<bool>,
    run: impl Fn() + Copy + 'static,
    cancel: impl Fn() + Copy + 'static,
) -> impl IntoView {
    let engines = expect_context::<Engines>();
    view! {
        <form class="ask sql-mode" on:submit=move |ev| { ev.prevent_default(); run(); }>
            <label for="sql-input">"SQL (one read-only query; it is imported as a plan and checked like any other)"</label>
            <textarea id="sql-input" rows="5" spellcheck="false"
                prop:value=sql
                on:input=move |ev| set_sql.set(event_target_value(&ev))
                on:keydown=move |ev| if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) { ev.prevent_default(); run(); }
            ></textarea>
            <div class="ask-options">
                <label>"Datasource "
                    <select id="sql-datasource" on:change=move |ev| set_datasource.set(event_target_value(&ev))>
                        {move || engines.sources.get().into_iter().map(|s| view! { <option value=s.id.clone()>{s.id.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <span class="spacer"></span>
                <button type="button" id="cancel-sql" disabled=move || !running.get() on:click=move |_| cancel()>"Cancel"</button>
                <button type="submit" class="primary" id="run-sql" disabled=move || running.get()>"Import, check and run"</button>
            </div>
        </form>
    }
}
