//! Datasources: the demo databases and the files the person adds (picked or dropped): a
//! SQLite or DuckDB database, or CSV and Parquet files that become one table each of one
//! datasource; introspected, indexed and routable at once; and removed again.

mod files;
mod list;
mod upload;

use crate::state::Engines;
use leptos::prelude::*;
use list::SourceList;
use upload::Upload;

/// What the last change did: (it worked, in words).
type Message = Option<(bool, String)>;

#[component]
pub fn DatasourcesPage() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let (message, set_message) = signal(None);
    // The datasources are someone else's to change: whose, as the engine says.
    let owner = Memo::new(move |_| engines.current().and_then(|e| e.sources_owner()));
    view! {
        <section class="datasources">
            <h2>"Datasources"</h2>
            {move || owner.get().map(|owner| view! {
                <p class="notice" id="server-datasources">
                    "These are the datasources of " {owner} ". Files added below are used when the engine is this page again (Settings → Engine)."
                </p>
            })}
            <SourceList editable=Signal::derive(move || owner.with(Option::is_none)) set_message=set_message />
            <Upload set_message=set_message />
            {move || message.get().map(|(ok, m)| view! {
                <p class=if ok { "notice" } else { "error" } role="status" id="datasource-message">{m}</p>
            })}
        </section>
    }
}
