//! Datasources: the demo databases and any SQLite file the person adds (picked or dropped),
//! introspected, indexed and routable at once; and removed again.

use crate::catalog::read_file;
use crate::state::AppState;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_wasm::{add_file, DatabaseFile};
use wasm_bindgen::JsCast;

#[component]
pub fn DatasourcesPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let file = StoredValue::new_local(None::<web_sys::File>);
    let file_name = RwSignal::new(String::new());
    let id = RwSignal::new(String::new());
    let description = RwSignal::new(String::new());
    let message = RwSignal::new(None::<(bool, String)>);
    let busy = RwSignal::new(false);

    let choose = move |f: web_sys::File| {
        let name = f.name();
        id.set(slug(&name));
        file_name.set(name);
        file.set_value(Some(f));
    };
    let add = move || {
        let Some(f) = file.get_value() else {
            message.set(Some((false, "Choose or drop a SQLite file first.".into())));
            return;
        };
        let Some(session) = state.session() else {
            return;
        };
        busy.set(true);
        let (new_id, desc) = (id.get_untracked(), description.get_untracked());
        spawn_local(async move {
            let outcome = match read_file(&f).await {
                Err(e) => Err(e),
                Ok(bytes) => add_file(
                    &session,
                    DatabaseFile {
                        id: new_id.clone(),
                        description: desc,
                        examples: vec![],
                        bytes,
                        read_ahead: None,
                        notes: Default::default(),
                    },
                )
                .await
                .map_err(|e| format!("{} ({})", e, e.code())),
            };
            busy.set(false);
            match outcome {
                Ok(()) => {
                    state.refresh_sources();
                    let tables = state.sources.with_untracked(|s| {
                        s.iter()
                            .find(|s| s.id == new_id)
                            .map_or(0, |s| s.schema.tables.len())
                    });
                    message.set(Some((true, format!("Added {new_id}: {tables} tables, read and indexed; questions can be routed to it now."))));
                    file.set_value(None);
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
                Err(e) => message.set(Some((false, format!("{} ({})", e, e.code())))),
            }
        });
    };

    view! {
        <section class="datasources">
            <h2>"Datasources"</h2>
            <ul class="source-list">
                {move || state.sources.get().into_iter().map(|s| {
                    let ds = s.id.clone();
                    view! {
                        <li class="source" data-id=s.id.clone()>
                            <div>
                                <strong>{s.id.clone()}</strong>
                                {s.demo.then(|| view! { <span class="badge">"demo"</span> })}
                                <p class="muted">{s.description.clone()}</p>
                                <p class="muted">{format!("{} tables · {} rows", s.schema.tables.len(), s.schema.tables.iter().map(|t| t.row_count).sum::<u64>())}</p>
                            </div>
                            <button type="button" class="remove" on:click=move |_| remove(ds.clone())>"Remove"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <form class="upload" on:submit=move |ev| { ev.prevent_default(); add(); }>
                <h3>"Add your own SQLite file"</h3>
                <p class="muted">"It stays in this page: nothing is uploaded anywhere."</p>
                <label class="drop-zone"
                    on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default()
                    on:drop=move |ev: web_sys::DragEvent| {
                        ev.prevent_default();
                        if let Some(f) = ev.data_transfer().and_then(|d| d.files()).and_then(|l| l.get(0)) {
                            choose(f);
                        }
                    }>
                    <span>{move || if file_name.get().is_empty() { "Drop a .sqlite / .db file here, or choose one".to_string() } else { file_name.get() }}</span>
                    <input type="file" id="upload-file" accept=".sqlite,.sqlite3,.db,application/vnd.sqlite3,application/x-sqlite3"
                        on:change=move |ev| {
                            let input: Option<web_sys::HtmlInputElement> = ev.target().and_then(|t| t.dyn_into().ok());
                            if let Some(f) = input.and_then(|i| i.files()).and_then(|l| l.get(0)) {
                                choose(f);
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
