//! Adding a datasource: files picked or dropped, an id and a description; they stay in
//! this page and are added to its own engine.

use super::files::{add_files, slug};
use super::Message;
use crate::state::{Engines, Settings};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

#[component]
pub fn Upload(set_message: WriteSignal<Message>) -> impl IntoView {
    let engines = expect_context::<Engines>();
    let settings = expect_context::<Settings>();
    let chosen = StoredValue::new_local(Vec::<web_sys::File>::new());
    let (file_name, set_file_name) = signal(String::new());
    let (id, set_id) = signal(String::new());
    let (description, set_description) = signal(String::new());
    let (busy, set_busy) = signal(false);
    let choose = move |list: web_sys::FileList| {
        let picked: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        let Some(first) = picked.first() else {
            return;
        };
        set_id.set(slug(&first.name()));
        set_file_name.set(
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
            let say = "Choose or drop a SQLite, DuckDB, CSV or Parquet file first.";
            return set_message.set(Some((false, say.into())));
        }
        let Some(page) = engines.in_page() else {
            return;
        };
        set_busy.set(true);
        let (new_id, desc) = (id.get_untracked(), description.get_untracked());
        spawn_local(async move {
            let added = add_files(&page, &picked, new_id, desc).await;
            set_busy.set(false);
            if added.is_ok() {
                page.apply_limits(&settings.limits.get_untracked());
                chosen.set_value(Vec::new());
                set_file_name.set(String::new());
            }
            set_message.set(Some(match added {
                Ok(said) => (true, said),
                Err(e) => (false, e),
            }));
        });
    };
    let picked = move || match file_name.get() {
        name if name.is_empty() => {
            "Drop .sqlite, .duckdb, .csv or .parquet files here, or choose them".to_string()
        }
        name => name,
    };
    view! {
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
                <span>{picked}</span>
                <input type="file" id="upload-file" multiple
                    accept=".sqlite,.sqlite3,.db,.duckdb,.ddb,.csv,.tsv,.txt,.parquet,.pq,text/csv,application/vnd.sqlite3,application/x-sqlite3"
                    on:change=move |ev| {
                        let input: Option<web_sys::HtmlInputElement> = ev.target().and_then(|t| t.dyn_into().ok());
                        if let Some(list) = input.and_then(|i| i.files()) {
                            choose(list);
                        }
                    } />
            </label>
            <label>"Id " <input type="text" id="upload-id" prop:value=id on:input=move |ev| set_id.set(event_target_value(&ev)) /></label>
            <label>"What it holds " <input type="text" id="upload-description" placeholder="e.g. Our shop's orders, products and customers"
                prop:value=description on:input=move |ev| set_description.set(event_target_value(&ev)) /></label>
            <button type="submit" class="primary" id="upload-add" disabled=busy>"Add"</button>
        </form>
    }
}
