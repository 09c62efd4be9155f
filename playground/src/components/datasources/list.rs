//! The datasources listed, each with its own query time limit and a way to remove it
//! where they are this page's; those the engine left out for now, each with why.

use super::Message;
use crate::engine::{LeftOut, SourceInfo};
use crate::state::{Engines, Settings};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub fn SourceList(editable: Signal<bool>, set_message: WriteSignal<Message>) -> impl IntoView {
    let engines = expect_context::<Engines>();
    view! {
        <ul class="source-list">
            {move || engines.sources.get().into_iter().map(|s| view! {
                <SourceItem source=s editable=editable set_message=set_message />
            }).collect_view()}
            {move || {
                // A server reads its list again while it leaves something out.
                engines.changed.track();
                engines.current().map(|e| e.left_out()).unwrap_or_default()
            }.into_iter()
                .map(|left_out| view! { <LeftOutItem left_out=left_out /> })
                .collect_view()}
        </ul>
    }
}

/// A datasource the engine could not use for now: no tables to show, only why.
#[component]
fn LeftOutItem(left_out: LeftOut) -> impl IntoView {
    let code = left_out.why.code.to_string();
    let (id, shown_id, shown_code) = (left_out.id.clone(), left_out.id, code.clone());
    view! {
        <li class="source left-out" data-id=id data-unavailable=code>
            <div>
                <strong>{shown_id}</strong>
                <span class="badge">"left out"</span>
                <p class="error"><code>{shown_code}</code>" " {left_out.why.message}</p>
                <p class="muted">"The server tries it again every so often, and this list follows; questions go to the others."</p>
            </div>
        </li>
    }
}

#[component]
fn SourceItem(
    source: SourceInfo,
    editable: Signal<bool>,
    set_message: WriteSignal<Message>,
) -> impl IntoView {
    let engines = expect_context::<Engines>();
    let id = StoredValue::new(source.id.clone());
    let remove = move |_| {
        let Some(page) = engines.in_page() else {
            return;
        };
        let ds = id.get_value();
        spawn_local(async move {
            match page.remove(&ds).await {
                Ok(()) => set_message.set(Some((true, format!("Removed {ds}.")))),
                Err(e) => set_message.set(Some((false, e))),
            }
        });
    };
    let tables = &source.schema.tables;
    let summary = format!(
        "{} tables · {} rows",
        tables.len(),
        tables.iter().map(|t| t.row_count).sum::<u64>()
    );
    view! {
        <li class="source" data-id=source.id.clone()>
            <div>
                <strong>{source.id.clone()}</strong>
                {source.demo.then(|| view! { <span class="badge">"demo"</span> })}
                <p class="muted">{source.description}</p>
                <p class="muted">{summary}</p>
            </div>
            {move || editable.get().then(|| view! {
                <LimitField id=id.get_value() />
                <button type="button" class="remove" on:click=remove>"Remove"</button>
            })}
        </li>
    }
}

/// A datasource's own query time limit: empty for the run's (Settings).
#[component]
fn LimitField(id: String) -> impl IntoView {
    let engines = expect_context::<Engines>();
    let settings = expect_context::<Settings>();
    let id = StoredValue::new(id);
    let shown = move || {
        let limit = settings
            .limits
            .with(|l| id.with_value(|id| l.get(id).copied()));
        limit.map(|ms| ms.to_string()).unwrap_or_default()
    };
    let run_limit = move || settings.run.with(|c| c.query_timeout_ms.to_string());
    view! {
        <label class="source-limit">"Query time limit (ms) "
            <input type="number" min="1" class="limit" placeholder=run_limit prop:value=shown
                on:change=move |ev| {
                    let ms = event_target_value(&ev).trim().parse::<u64>().ok().filter(|v| *v >= 1);
                    id.with_value(|id| {
                        settings.set_limit(id, ms);
                        if let Some(page) = engines.in_page() {
                            page.set_limit(id, ms);
                        }
                    });
                } />
        </label>
    }
}
