//! The root component: loads the databases, provides the shared state, and shows the
//! page the person chose.

use crate::browser::mark;
use crate::catalog::{load_demo_databases, now_ms};
use crate::components::{
    AskPage, DatasourcesPage, InspectPage, LoadStatus, SettingsPage, SqlPage, TracesPage,
    VerifiedPage,
};
use crate::state::{AppState, Load, Page};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);

    spawn_local(async move {
        let loaded = load_demo_databases(
            state.provider.get_untracked(),
            state.run_config.get_untracked(),
        )
        .await;
        match loaded.session {
            Ok(session) => {
                mark("session-ms", now_ms());
                state.session.set_value(Some(Rc::new(session)));
                // The settings may have changed while the databases loaded.
                state.configure_session();
                state.apply_limits();
                state.refresh_sources();
                state.load.set(Load::Ready {
                    failures: loaded.failures,
                });
                mark("ready-ms", now_ms());
                // Feedback kept in this browser: its approved queries answer from now on.
                match crate::store::load().await {
                    Ok(book) => {
                        if let Err(e) = state.keep_feedback(book).await {
                            leptos::logging::warn!("feedback: {e}");
                        }
                    }
                    Err(e) => leptos::logging::warn!("feedback: {e}"),
                }
            }
            Err(e) => state.load.set(Load::Failed(e)),
        }
    });

    let ready = move || matches!(state.load.get(), Load::Ready { .. });
    view! {
        <header class="top">
            <div class="brand">
                <h1>"nl2sql"</h1>
                <p class="tagline">"Questions in plain language, answered from your databases — in this page, with nothing installed."</p>
            </div>
            <nav class="tabs" aria-label="Pages">
                {Page::ALL
                    .into_iter()
                    .map(|p| view! {
                        <button
                            class="tab"
                            data-page=p.slug()
                            aria-current=move || (state.page.get() == p).then_some("page")
                            on:click=move |_| state.page.set(p)
                        >
                            {p.label()}
                        </button>
                    })
                    .collect_view()}
            </nav>
            <RolePicker />
        </header>
        <main class="layout" data-ready=move || ready().to_string()>
            <LoadStatus />
            {move || match state.page.get() {
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

/// The caller's role, for every page: what they may read decides what they are shown.
#[component]
fn RolePicker() -> impl IntoView {
    let state = expect_context::<AppState>();
    let roles = move || {
        state
            .session()
            .map(|s| s.workspace().policies().roles.clone())
            .unwrap_or_default()
    };
    view! {
        <label class="role">
            "Role "
            <select
                id="role"
                disabled=move || state.server.with(Option::is_some)
                title=move || state.server.with(|s| s.as_ref().map(|_| "The server's API key decides the role").unwrap_or_default())
                on:change=move |ev| state.role.set(event_target_value(&ev))
                prop:value=move || state.role.get()
            >
                {move || {
                    // Re-read when the databases finish loading.
                    state.load.track();
                    roles()
                        .into_iter()
                        .map(|(name, role)| {
                            let selected = name == state.role.get_untracked();
                            view! { <option value=name.clone() title=role.description selected=selected>{name.clone()}</option> }
                        })
                        .collect_view()
                }}
            </select>
        </label>
    }
}
