//! The root component: provides the state, loads the databases, and shows the page the
//! person chose.

use crate::browser::{mark, note};
use crate::catalog::{fetch_semantic_weights, load_demo_databases, now_ms};
use crate::components::{
    AskPage, DatasourcesPage, InspectPage, LoadStatus, RolePicker, SettingsPage, SqlPage,
    TracesPage, VerifiedPage,
};
use crate::engine::InPage;
use crate::state::{Engines, Load, Nav, Page, RunState, Settings};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub fn App() -> impl IntoView {
    let settings = Settings::load();
    let engines = Engines::new();
    let nav = Nav(RwSignal::new(Page::Ask));
    provide_context(settings);
    provide_context(engines);
    provide_context(RunState::new());
    provide_context(nav);
    engines.follow(settings);
    spawn_local(boot(engines, settings));
    view! {
        <header class="top">
            <div class="brand">
                <h1>"nl2sql"</h1>
                <p class="tagline">"Questions in plain language, answered from your databases — in this page, with nothing installed."</p>
            </div>
            <nav class="tabs" aria-label="Pages">
                {Page::ALL.into_iter().map(|p| view! {
                    <button class="tab" data-page=p.slug()
                        aria-current=move || (nav.0.get() == p).then_some("page")
                        on:click=move |_| nav.0.set(p)>
                        {p.label()}
                    </button>
                }).collect_view()}
            </nav>
            <RolePicker />
        </header>
        <main class="layout" data-ready=move || engines.ready.get().to_string()>
            <LoadStatus />
            {move || match nav.0.get() {
                Page::Ask => view! { <AskPage /> }.into_any(),
                Page::Sql => view! { <SqlPage /> }.into_any(),
                Page::Inspect => view! { <InspectPage /> }.into_any(),
                Page::Datasources => view! { <DatasourcesPage /> }.into_any(),
                Page::Verified => view! { <VerifiedPage /> }.into_any(),
                Page::Settings => view! { <SettingsPage /> }.into_any(),
                Page::Traces => view! { <TracesPage /> }.into_any(),
            }}
        </main>
    }
}

/// Loads the demo databases into the page's own engine, then the feedback this browser
/// kept (its approved queries answer from then on).
async fn boot(engines: Engines, settings: Settings) {
    let loaded = load_demo_databases(
        settings.provider.get_untracked(),
        settings.run.get_untracked(),
    )
    .await;
    let session = match loaded.session {
        Ok(session) => session,
        Err(e) => return engines.load.set(Load::Failed(e)),
    };
    mark("session-ms", now_ms());
    let page = InPage::new(session, engines.changed);
    page.apply_limits(&settings.limits.get_untracked());
    engines.loaded(page.clone(), loaded.failures);
    mark("ready-ms", now_ms());
    match crate::store::load().await {
        Ok(book) => {
            if let Err(e) = page.keep(book).await {
                leptos::logging::warn!("feedback: {e}");
            }
        }
        Err(e) => leptos::logging::warn!("feedback: {e}"),
    }
    blend_semantic(&page).await;
}

/// Routes with the lexical embedder until the semantic one's weights have arrived, then
/// with the blend, as natively. Without them the page keeps working, lexical only.
async fn blend_semantic(page: &InPage) {
    let blended = match fetch_semantic_weights().await {
        Ok(weights) => page.blend(weights).await,
        Err(e) => Err(e),
    };
    match blended {
        Ok(id) => {
            note("embedder", &id);
            mark("blended-ms", now_ms());
        }
        Err(e) => leptos::logging::warn!("the semantic embedder: {e}; routing stays lexical"),
    }
}
