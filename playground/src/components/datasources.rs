//! Datasources: the demo databases and the files the person adds (picked or dropped): a
//! SQLite or DuckDB database, or CSV and Parquet files that become one table each of one
//! datasource; introspected, indexed and routable at once; and removed again.

use crate::catalog::read_file;
use crate::state::AppState;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::files;
use nl2sql_wasm::{add_file, DatabaseFile, NamedBytes};
use wasm_bindgen::JsCast;

#[component]
pub fn DatasourcesPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let chosen = StoredValue::new_local(Vec::<web_sys::File>::new());
    let file_name = RwSignal::new(String::new());
    let id = RwSignal::new(String::new());
    let description = RwSignal::new(String::new());
    let message = RwSignal::new(None::<(bool, String)>);
    let busy = RwSignal::new(false);

    let choose = move |list: web_sys::FileList| {
        let picked: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        let Some(first) = picked.first() else {
            return;
        };
        id.set(slug(&first.name()));
        file_name.set(
            picked
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", "),
        );
        chosen.set_value(picked);
    };
    let add = move || {
        let picked = chosen.get_value();
        if picked.is_empty() {
            message.set(Some((
                false,
                "Choose or drop a SQLite, DuckDB, CSV or Parquet file first.".into(),
            )));
            return;
        }
        let Some(session) = state.session() else {
            return;
        };
        busy.set(true);
        let (new_id, desc) = (id.get_untracked(), description.get_untracked());
        spawn_local(async move {
            let outcome = match read_files(&picked).await {
                Err(e) => Err(e),
                Ok(files) => add_file(
                    &session,
                    DatabaseFile {
                        id: new_id.clone(),
                        description: desc,
                        examples: vec![],
                        files,
                        read_ahead: None,
                        notes: Default::default(),
                        query_timeout_ms: None,
                    },
                )
                .await
                .map_err(|e| format!("{} ({})", e, e.code)),
            };
            busy.set(false);
            match outcome {
                Ok(()) => {
                    state.apply_limits();
                    state.refresh_sources();
                    let tables = state.sources.with_untracked(|s| {
                        s.iter()
                            .find(|s| s.id == new_id)
                            .map_or(0, |s| s.schema.tables.len())
                    });
                    message.set(Some((true, format!("Added {new_id}: {tables} tables, read and indexed; questions can be routed to it now."))));
                    chosen.set_value(Vec::new());
                    file_name.set(String::new());
                }
                Err(e) => message.set(Some((false, e))),
            }
        });
    };
    let remove = move |ds: String| {
        let Some(session) = state.session() else {
            return;
        };
        spawn_local(async move {
            match session.remove(&ds).await {
                Ok(()) => {
                    state.refresh_sources();
                    message.set(Some((true, format!("Removed {ds}."))));
                }
                Err(e) => message.set(Some((false, format!("{} ({})", e, e.code)))),
            }
        });
    };

    view! {
        <section class="datasources">
            <h2>"Datasources"</h2>
            {move || state.server.get().map(|remote| view! {
                <p class="notice" id="server-datasources">
                    "These are the datasources of the server at " {remote.base().to_string()} ", as its key's role sees them. Files added below are used when the engine is this page again (Settings → Engine)."
                </p>
            })}
            <ul class="source-list">
                {move || state.sources.get().into_iter().map(|s| {
                    let ds = s.id.clone();
                    let limit_id = s.id.clone();
                    view! {
                        <li class="source" data-id=s.id.clone()>
                            <div>
                                <strong>{s.id.clone()}</strong>
                                {s.demo.then(|| view! { <span class="badge">"demo"</span> })}
                                <p class="muted">{s.description.clone()}</p>
                                <p class="muted">{format!("{} tables · {} rows", s.schema.tables.len(), s.schema.tables.iter().map(|t| t.row_count).sum::<u64>())}</p>
                            </div>
                            // The server's datasources are its operator's to change.
                            {move || state.server.with(Option::is_none).then(|| {
                                let (ds, limit_id) = (ds.clone(), limit_id.clone());
                                view! {
                                    <LimitField id=limit_id />
                                    <button type="button" class="remove" on:click=move |_| remove(ds.clone())>"Remove"</button>
                                }
                            })}
                        </li>
                    }
                }).collect_view()}
            </ul>
            <form class="upload" on:submit=move |ev| { ev.prevent_default(); add(); }>
                <h3>"Add your own data"</h3>
                <p class="muted">"A SQLite or DuckDB database, or CSV and Parquet files (one table each, joinable). They stay in this page: nothing is uploaded anywhere."</p>
                <label class="drop-zone"
                    on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default()
                    on:drop=move |ev: web_sys::DragEvent| {
                        ev.prevent_default();
                        if let Some(list) = ev.data_transfer().and_then(|d| d.files()) {
                            choose(list);
                        }
                    }>
                    <span>{move || if file_name.get().is_empty() { "Drop .sqlite, .duckdb, .csv or .parquet files here, or choose them".to_string() } else { file_name.get() }}</span>
                    <input type="file" id="upload-file" multiple
                        accept=".sqlite,.sqlite3,.db,.duckdb,.ddb,.csv,.tsv,.txt,.parquet,.pq,text/csv,application/vnd.sqlite3,application/x-sqlite3"
                        on:change=move |ev| {
                            let input: Option<web_sys::HtmlInputElement> = ev.target().and_then(|t| t.dyn_into().ok());
                            if let Some(list) = input.and_then(|i| i.files()) {
                                choose(list);
                            }
                        } />
                </label>
                <label>"Id " <input type="text" id="upload-id" prop:value=move || id.get() on:input=move |ev| id.set(event_target_value(&ev)) /></label>
                <label>"What it holds " <input type="text" id="upload-description" placeholder="e.g. Our shop's orders, products and customers"
                    prop:value=move || description.get() on:input=move |ev| description.set(event_target_value(&ev)) /></label>
                <button type="submit" class="primary" id="upload-add" disabled=move || busy.get()>"Add"</button>
            </form>
            {move || message.get().map(|(ok, m)| view! { <p class=if ok { "notice" } else { "error" } role="status" id="datasource-message">{m}</p> })}
        </section>
    }
}

/// The chosen files' bytes; one too large to open is refused before it is read, so a
/// 200 MB file costs the page nothing.
async fn read_files(picked: &[web_sys::File]) -> Result<Vec<NamedBytes>, String> {
    let mut named = Vec::with_capacity(picked.len());
    for f in picked {
        if let Some(e) = files::too_large(&f.name(), f.size() as u64) {
            return Err(format!("{e} (DATASOURCE_UNREADABLE)"));
        }
        named.push(NamedBytes::new(f.name(), read_file(f).await?));
    }
    Ok(named)
}

/// A datasource's own query time limit: empty for the run's (Settings).
#[component]
fn LimitField(id: String) -> impl IntoView {
    let state = expect_context::<AppState>();
    let key = id.clone();
    let shown = move || {
        state
            .limits
            .with(|l| l.get(&key).map(|ms| ms.to_string()).unwrap_or_default())
    };
    let run_limit = move || state.run_config.with(|c| c.query_timeout_ms.to_string());
    view! {
        <label class="source-limit">"Query time limit (ms) "
            <input type="number" min="1" class="limit" placeholder=run_limit prop:value=shown
                on:change=move |ev| {
                    let v = event_target_value(&ev).trim().parse::<u64>().ok().filter(|v| *v >= 1);
                    state.set_limit(&id, v);
                } />
        </label>
    }
}

/// A datasource id from a file name: `My Shop.sqlite` → `my_shop`.
fn slug(file_name: &str) -> String {
    let stem = file_name.rsplit_once('.').map_or(file_name, |(s, _)| s);
    let s: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches('_').to_string();
    if s.is_empty() {
        "uploaded".into()
    } else {
        s.chars().take(40).collect()
    }
}
