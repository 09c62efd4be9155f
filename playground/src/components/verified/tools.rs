//! This browser's feedback as a file: exported, or imported and merged in.

use super::Said;
use crate::browser::download;
use crate::state::Engines;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

#[component]
pub fn Tools(set_said: WriteSignal<Said>) -> impl IntoView {
    let engines = expect_context::<Engines>();
    let export = move |_| {
        let Some(page) = engines.in_page() else {
            return;
        };
        if let Err(e) = download(
            "nl2sql-feedback.json",
            "application/json",
            &page.book().to_json(),
        ) {
            set_said.set(Some(("DOWNLOAD_FAILED".into(), e)));
        }
    };
    let import = move |ev: leptos::ev::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        let (Some(file), Some(page)) = (
            input.and_then(|i| i.files()).and_then(|f| f.get(0)),
            engines.in_page(),
        ) else {
            return;
        };
        spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            let text = text.ok().and_then(|t| t.as_string()).unwrap_or_default();
            match page.import(&text).await {
                Ok(added) => set_said.set(Some((
                    "IMPORTED".into(),
                    format!("Imported {added} new proposals."),
                ))),
                Err(f) => set_said.set(Some((f.code, f.message))),
            }
        });
    };
    view! {
        <div class="verified-tools">
            <button type="button" id="export-feedback" on:click=export>"Export feedback"</button>
            <label class="file-button">"Import feedback "
                <input type="file" id="import-feedback" accept=".json,application/json" on:change=import />
            </label>
            {move || (!engines.may_approve.get()).then(|| view! {
                <span class="hint" id="cannot-approve">{move || format!("The role {} may not approve; choose admin to approve.", engines.role.get())}</span>
            })}
        </div>
    }
}
