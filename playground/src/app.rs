//! The root component: owns the loaded catalogue and the selected datasource.

use crate::catalog::{load_demo_databases, now_ms, LoadedDatasource};
use crate::components::{DatasourceSwitcher, LoadStatus, SchemaPanel};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

/// The page's state while the databases load, and after.
pub type Catalog = Option<Arc<Vec<LoadedDatasource>>>;

#[component]
pub fn App() -> impl IntoView {
    let (catalog, set_catalog) = signal::<Catalog>(None);
    let (selected, set_selected) = signal(String::from("chinook"));

    spawn_local(async move {
        let loaded = load_demo_databases().await;
        mark_ready();
        set_catalog.set(Some(Arc::new(loaded)));
    });

    let current = move || {
        catalog.get().and_then(|all| {
            let id = selected.get();
            all.iter().find(|d| d.demo.id == id).cloned()
        })
    };

    view! {
        <header class="top">
            <h1>"nl2sql"</h1>
            <p class="tagline">"Questions in plain language, answered from your databases — in this page, with nothing installed."</p>
        </header>
        <main class="layout" data-ready=move || catalog.get().is_some().to_string()>
            <LoadStatus catalog=catalog />
            <aside class="sidebar">
                <DatasourceSwitcher catalog=catalog selected=selected on_select=set_selected />
            </aside>
            <section class="content">
                {move || current().map(|d| view! { <SchemaPanel datasource=d /> })}
            </section>
        </main>
    }
}

/// Records when the page became usable, for the end-to-end timing (milliseconds since
/// navigation started, as `performance.now()` counts them).
fn mark_ready() {
    let now = now_ms();
    let body = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body());
    if let Some(body) = body {
        // Best effort: a failed attribute write only loses the timing, never the page.
        let _ = body.set_attribute("data-ready-ms", &format!("{now:.1}"));
    }
}
