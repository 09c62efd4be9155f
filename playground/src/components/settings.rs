//! Settings: the engine (this page, or a server), the provider, the model per node, the
//! answer mode, limits and prices. The key is kept in memory only, unless "remember in
//! this tab" is ticked (sessionStorage); a server's API key only in memory.

use crate::state::AppState;
use leptos::prelude::*;
use leptos::task::spawn_local;
use nl2sql_core::config::{AnswerConfig, ProviderKind};
use nl2sql_core::error::ErrorCode;
use nl2sql_core::provider::chat::PriceTable;
use nl2sql_core::service::test_connection;
use nl2sql_wasm::{FetchTransport, Remote};

#[component]
pub fn SettingsPage() -> impl IntoView {
    let state = expect_context::<AppState>();
    let p = state.provider;
    let r = state.run_config;
    let save = move || state.save_settings();
    let probe = RwSignal::new(None::<(bool, String, String)>);
    let prices_text = RwSignal::new(
        serde_json::to_string_pretty(
            &r.get_untracked()
                .prices
                .unwrap_or_else(PriceTable::published),
        )
        .unwrap_or_default(),
    );
    let prices_error = RwSignal::new(None::<String>);

    let test = move |_| {
        let config = p.get_untracked();
        if let Err(e) = config.check() {
            probe.set(Some((
                false,
                ErrorCode::ConfigInvalid.as_str().into(),
                e.message,
            )));
            return;
        }
        probe.set(Some((true, String::new(), "Asking the provider…".into())));
        spawn_local(async move {
            let outcome = match test_connection(&config, &FetchTransport::default()).await {
                Ok(ok) => (true, String::new(), ok.summary()),
                Err(e) => (false, e.code.to_string(), e.to_string()),
            };
            probe.set(Some(outcome));
        });
    };
    let text_field =
        move |label: &'static str,
              id: &'static str,
              get: fn(&nl2sql_core::config::ProviderConfig) -> String,
              set: fn(&mut nl2sql_core::config::ProviderConfig, String)| {
            view! {
                <label>{label}
                    <input type="text" id=id prop:value=move || p.with(get)
                        on:change=move |ev| { p.update(|c| set(c, event_target_value(&ev))); save(); } />
                </label>
            }
        };
    view! {
        <section class="settings">
            <EngineChoice />
            <h2>"Model provider"</h2>
            {move || state.server.with(Option::is_some).then(|| view! {
                <p class="notice" id="provider-unused">"Asks go to the server, which uses its own model and key; the settings below apply when the engine is this page."</p>
            })}
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
                    <option value="openai" selected=move || p.with(|c| c.kind == ProviderKind::OpenAi)>"OpenAI"</option>
                    <option value="anthropic" selected=move || p.with(|c| c.kind == ProviderKind::Anthropic)>"Anthropic"</option>
                    <option value="compatible" selected=move || p.with(|c| c.kind == ProviderKind::Compatible)>"OpenAI-compatible (Ollama, LM Studio, vLLM, OpenRouter…)"</option>
                </select>
            </label>
            {text_field("Model ", "model", |c| c.model.clone(), |c, v| c.model = v.trim().to_string())}
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
                <input type="checkbox" id="remember-key" prop:checked=move || state.remember_key.get()
                    on:change=move |ev| { state.remember_key.set(event_target_checked(&ev)); save(); } />
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

            <h2>"Model per node"</h2>
            <p class="muted">"Empty: the model above."</p>
            {text_field("Answerability check ", "model-resolver", |c| c.models.resolver.clone(), |c, v| c.models.resolver = v.trim().to_string())}
            {text_field("Planner ", "model-planner", |c| c.models.planner.clone(), |c, v| c.models.planner = v.trim().to_string())}
            {text_field("Decomposer ", "model-decomposer", |c| c.models.decomposer.clone(), |c, v| c.models.decomposer = v.trim().to_string())}
            {text_field("Written answer ", "model-answer", |c| c.models.answer.clone(), |c, v| c.models.answer = v.trim().to_string())}

            <h2>"Answers and limits"</h2>
            <label>"Answer "
                <select id="answer-mode" on:change=move |ev| { let v = event_target_value(&ev); r.update(|c| c.answer = if v == "template" { AnswerConfig::Template } else { AnswerConfig::Llm }); save(); }>
                    <option value="llm" selected=move || r.with(|c| c.answer == AnswerConfig::Llm)>"written by the model, streamed"</option>
                    <option value="template" selected=move || r.with(|c| c.answer == AnswerConfig::Template)>"a sentence from the rows (no model call)"</option>
                </select>
            </label>
            <label class="check">
                <input type="checkbox" id="refiner" prop:checked=move || r.with(|c| c.refiner)
                    on:change=move |ev| { let v = event_target_checked(&ev); r.update(|c| c.refiner = v); save(); } />
                " Refine rejected plans with a second call before retrying"
            </label>
            <label class="check">
                <input type="checkbox" id="speculative" prop:checked=move || r.with(|c| c.speculative_planning)
                    on:change=move |ev| { let v = event_target_checked(&ev); r.update(|c| c.speculative_planning = v); save(); } />
                " Plan while the answerability check runs (one round trip faster; a refused question may still spend one planning call)"
            </label>
            <NumberField label="Model calls per question " id="max-calls" get=move || r.with(|c| c.max_llm_calls as f64) set=move |v| r.update(|c| c.max_llm_calls = v as u32) />
            <NumberField label="Retries after a rejection " id="retries" get=move || r.with(|c| c.retries_max as f64) set=move |v| r.update(|c| c.retries_max = v as u32) />
            <NumberField label="Time limit (ms) " id="timeout" get=move || r.with(|c| c.timeout_ms as f64) set=move |v| r.update(|c| c.timeout_ms = v as u64) />
            <NumberField label="Each query's time limit (ms; a datasource may set a shorter one) " id="query-timeout" get=move || r.with(|c| c.query_timeout_ms as f64) set=move |v| r.update(|c| c.query_timeout_ms = v as u64) />
            <NumberField label="Row cap " id="row-cap" get=move || r.with(|c| c.row_cap as f64) set=move |v| r.update(|c| c.row_cap = v as u64) />
            <label>"Cost limit per question (USD, empty: none) "
                <input type="number" id="max-cost" min="0" step="0.01" prop:value=move || r.with(|c| c.max_cost_usd.map(|v| v.to_string()).unwrap_or_default())
                    on:change=move |ev| { let v = event_target_value(&ev).trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0); r.update(|c| c.max_cost_usd = v); save(); } />
            </label>
            <h2 id="prices-title">"Prices"</h2>
            <p class="muted" id="prices-help">"USD per million tokens, per model: [[model, {input, cached_input, cache_write, output}], …]. Costs of models not listed show as not priced."</p>
            <textarea id="prices" rows="8" spellcheck="false" aria-labelledby="prices-title" aria-describedby="prices-help" prop:value=move || prices_text.get()
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    prices_text.set(text.clone());
                    match serde_json::from_str::<PriceTable>(&text) {
                        Ok(t) => { r.update(|c| c.prices = Some(t)); prices_error.set(None); save(); }
                        Err(e) => prices_error.set(Some(format!("The prices do not read: {e}"))),
                    }
                }></textarea>
            {move || prices_error.get().map(|e| view! { <p class="error">{e}</p> })}
        </section>
    }
}

#[component]
fn NumberField(
    label: &'static str,
    id: &'static str,
    get: impl Fn() -> f64 + Send + Sync + 'static,
    set: impl Fn(f64) + 'static,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <label>{label}
            <input type="number" id=id min="1" prop:value=move || get().to_string()
                on:change=move |ev| {
                    if let Some(v) = event_target_value(&ev).trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 1.0) {
                        set(v);
                        state.save_settings();
                    }
                } />
        </label>
    }
}

/// Where questions are answered: in this page (its own databases and model key), or by a
/// server (`nl2sql serve`) reached with one of its API keys, which then holds the model key.
#[component]
fn EngineChoice() -> impl IntoView {
    let state = expect_context::<AppState>();
    let wants_server = RwSignal::new(state.server.with_untracked(Option::is_some));
    let key = RwSignal::new(String::new());
    // (connected, code, text)
    let status = RwSignal::new(None::<(bool, String, String)>);
    let connect = move |_| {
        let remote = match Remote::new(&state.server_url.get_untracked(), &key.get_untracked()) {
            Ok(r) => r,
            Err(e) => {
                status.set(Some((false, e.code.to_string(), e.message)));
                return;
            }
        };
        state.save_settings();
        status.set(Some((false, String::new(), "Connecting…".into())));
        spawn_local(async move {
            match remote.datasources(&FetchTransport::default()).await {
                Ok(list) => {
                    let ids: Vec<String> = list.iter().map(|d| d.id.clone()).collect();
                    let text = format!("Connected to {}: {}.", remote.base(), ids.join(", "));
                    state.use_server(remote, list);
                    status.set(Some((true, String::new(), text)));
                }
                Err(e) => status.set(Some((false, e.code.to_string(), e.message))),
            }
        });
    };
    view! {
        <h2>"Engine"</h2>
        <fieldset class="engine">
            <label class="check">
                <input type="radio" name="engine" id="engine-page" prop:checked=move || !wants_server.get()
                    on:change=move |_| { wants_server.set(false); status.set(None); state.use_page(); } />
                " In this page: its own databases and your model key"
            </label>
            <label class="check">
                <input type="radio" name="engine" id="engine-server" prop:checked=move || wants_server.get()
                    on:change=move |_| wants_server.set(true) />
                " A server (nl2sql serve): its databases, roles and model; the page holds no model key"
            </label>
        </fieldset>
        {move || wants_server.get().then(|| view! {
            <label>"Server "
                <input type="url" id="server-url" placeholder="http://127.0.0.1:8787"
                    prop:value=move || state.server_url.get()
                    on:change=move |ev| state.server_url.set(event_target_value(&ev).trim().to_string()) />
            </label>
            <label>"API key "
                <input type="password" id="server-key" autocomplete="off" placeholder="the key the server's operator gave you"
                    prop:value=move || key.get()
                    on:change=move |ev| key.set(event_target_value(&ev).trim().to_string()) />
            </label>
            <p class="muted">"The key stays in this page's memory; the server's key decides the role."</p>
            <div class="ask-options">
                <button type="button" id="server-connect" on:click=connect>"Connect"</button>
                {move || status.get().map(|(ok, code, text)| view! {
                    <p class=if ok || code.is_empty() { "notice" } else { "error" } id="server-status"
                        data-connected=ok.to_string() data-code=code.clone() role="status">
                        {(!code.is_empty()).then(|| view! { <code>{code.clone()}</code>" " })}{text}
                    </p>
                })}
            </div>
        })}
    }
}
