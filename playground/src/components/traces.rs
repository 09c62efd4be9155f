//! The trace viewer: open a trace file (a run's JSON, as "Download trace" or
//! `nl2sql ask --trace` writes it) and see its timeline, answer and results, offline.

use super::{AnswerCard, ResultPanels, Timeline};
use crate::catalog::read_file;
use crate::run::RunView;
use crate::state::{Nav, Page, RunState};
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::result::QueryResult;
use wasm_bindgen::JsCast;

#[component]
pub fn TracesPage() -> impl IntoView {
    let run = expect_context::<RunState>();
    let nav = expect_context::<Nav>();
    let (failure, set_failure) = signal(None::<String>);
    let open = move |file: web_sys::File| {
        spawn_local(async move {
            let parsed = read_file(&file).await.and_then(|bytes| {
                serde_json::from_str::<QueryResult>(&String::from_utf8_lossy(&bytes)).map_err(|e| {
                    format!(
                        "{} is not an nl2sql trace (a run's result, as \"Download trace\" writes it): {e}",
                        file.name()
                    )
                })
            });
            match parsed {
                Ok(v) => {
                    set_failure.set(None);
                    run.view.set(RunView::from_trace(v));
                }
                Err(e) => set_failure.set(Some(e)),
            }
        });
    };
    view! {
        <div class="ask-page">
            <section class="ask-main">
                <h2>"Traces"</h2>
                <p>"Every run can be downloaded as JSON from the Ask page (" <a href="#" on:click=nav.go(Page::Ask)>"Download trace"</a>
                   "). Open one here to see it again — no key and no database needed."</p>
                <label class="drop-zone">
                    <span>"Open a trace file (.json)"</span>
                    <input type="file" id="open-trace" accept=".json,application/json" on:change=move |ev| {
                        let input: Option<web_sys::HtmlInputElement> = ev.target().and_then(|t| t.dyn_into().ok());
                        if let Some(f) = input.and_then(|i| i.files()).and_then(|l| l.get(0)) {
                            open(f);
                        }
                    } />
                </label>
                {move || failure.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                <AnswerCard />
                <ResultPanels />
            </section>
            <aside class="ask-side"><Timeline /></aside>
        </div>
    }
}
