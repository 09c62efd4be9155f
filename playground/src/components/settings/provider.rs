//! The model provider: which, the model, the base URL, the key (remembered in this tab
//! only when asked), and a one-call test of them.

use super::TextField;
use crate::state::Settings;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::config::ProviderKind;
use nl2sql_core::error::ErrorCode;
use nl2sql_core::service::test_connection;
use nl2sql_wasm::FetchTransport;

#[component]
pub fn ProviderFields() -> impl IntoView {
    let settings = expect_context::<Settings>();
    let p = settings.provider;
    let save = move || settings.save();
    // (worked, code, words)
    let (probe, set_probe) = signal(None::<(bool, String, String)>);
    let test = move |_| {
        let config = p.get_untracked();
        if let Err(e) = config.check() {
            return set_probe.set(Some((
                false,
                ErrorCode::ConfigInvalid.as_str().into(),
                e.message,
            )));
        }
        set_probe.set(Some((true, String::new(), "Asking the provider…".into())));
        spawn_local(async move {
            let outcome = match test_connection(&config, &FetchTransport::default()).await {
                Ok(ok) => (true, String::new(), ok.summary()),
                Err(e) => (false, e.code.to_string(), e.to_string()),
            };
            set_probe.set(Some(outcome));
        });
    };
    let kind_is = move |kind: ProviderKind| move || p.with(|c| c.kind == kind);
    view! {
        <label>"Provider "
            <select id="provider-kind" on:change=move |ev| {
                let kind = match event_target_value(&ev).as_str() {
                    "anthropic" => ProviderKind::Anthropic,
                    "compatible" => ProviderKind::Compatible,
                    _ => ProviderKind::OpenAi,
                };
                p.update(|c| { c.kind = kind; c.model = kind.default_model().to_string(); c.base_url = None; });
                save();
            }>
                <option value="openai" selected=kind_is(ProviderKind::OpenAi)>"OpenAI"</option>
                <option value="anthropic" selected=kind_is(ProviderKind::Anthropic)>"Anthropic"</option>
                <option value="compatible" selected=kind_is(ProviderKind::Compatible)>"OpenAI-compatible (Ollama, LM Studio, vLLM, OpenRouter…)"</option>
            </select>
        </label>
        <TextField label="Model " id="model" get=|c| c.model.clone() set=|c, v| c.model = v />
        <label>"Base URL "
            <input type="url" id="base-url" placeholder=move || p.with(|c| c.kind.default_base_url().to_string())
                prop:value=move || p.with(|c| c.base_url.clone().unwrap_or_default())
                on:change=move |ev| { let v = event_target_value(&ev); p.update(|c| c.base_url = Some(v.trim().to_string()).filter(|u| !u.is_empty())); save(); } />
        </label>
        <label>"API key "
            <input type="password" id="api-key" autocomplete="off" placeholder=move || if p.with(|c| c.kind.needs_key()) { "sk-…" } else { "not needed for a local server" }
                prop:value=move || p.with(|c| c.api_key.clone())
                on:change=move |ev| { let v = event_target_value(&ev); p.update(|c| c.api_key = v.trim().to_string()); save(); } />
        </label>
        <label class="check">
            <input type="checkbox" id="remember-key" prop:checked=settings.remember_key
                on:change=move |ev| { settings.remember_key.set(event_target_checked(&ev)); save(); } />
            " Remember the key in this tab (sessionStorage; gone when the tab closes). Otherwise it lives in memory only, and is never written to a trace or a URL."
        </label>
        <div class="ask-options">
            <button type="button" id="test-connection" on:click=test>"Test connection"</button>
            {move || probe.get().map(|(ok, code, text)| view! {
                <p class=if ok { "notice" } else { "error" } id="probe-result" data-code=code.clone() role="status">
                    {(!code.is_empty()).then(|| view! { <code>{code.clone()}</code>" " })}{text}
                </p>
            })}
        </div>
    }
}
