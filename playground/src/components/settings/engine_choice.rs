//! Where questions are answered: in this page (its own databases and model key), or by a
//! server (`nl2sql serve`) reached with one of its API keys, which then holds the model key.

use crate::engine::{PageEngine, Server};
use crate::state::{Engines, Settings};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// (connected, code, words)
type Status = Option<(bool, String, String)>;

#[component]
pub fn EngineChoice() -> impl IntoView {
    let engines = expect_context::<Engines>();
    let (wants_server, set_wants_server) = signal(engines.serving());
    let (status, set_status) = signal(None);
    let use_page = move |_| {
        set_wants_server.set(false);
        set_status.set(None);
        engines.use_page();
    };
    view! {
        <h2>"Engine"</h2>
        <fieldset class="engine">
            <label class="check">
                <input type="radio" name="engine" id="engine-page" prop:checked=move || !wants_server.get() on:change=use_page />
                " In this page: its own databases and your model key"
            </label>
            <label class="check">
                <input type="radio" name="engine" id="engine-server" prop:checked=wants_server
                    on:change=move |_| set_wants_server.set(true) />
                " A server (nl2sql serve): its databases, roles and model; the page holds no model key"
            </label>
        </fieldset>
        {move || wants_server.get().then(|| view! { <ServerFields status=status set_status=set_status /> })}
    }
}

/// The server's address and API key, and connecting to it.
#[component]
fn ServerFields(status: ReadSignal<Status>, set_status: WriteSignal<Status>) -> impl IntoView {
    let engines = expect_context::<Engines>();
    let settings = expect_context::<Settings>();
    let (key, set_key) = signal(String::new());
    let connect = move |_| {
        let remote =
            match Server::address(&settings.server_url.get_untracked(), &key.get_untracked()) {
                Ok(remote) => remote,
                Err(f) => return set_status.set(Some((false, f.code, f.message))),
            };
        settings.save();
        set_status.set(Some((false, String::new(), "Connecting…".into())));
        spawn_local(async move {
            match Server::connect(remote, engines.changed).await {
                Ok(server) => {
                    let ids: Vec<String> = server.sources().into_iter().map(|d| d.id).collect();
                    let mut text = format!("Connected to {}: {}.", server.base(), ids.join(", "));
                    let left_out: Vec<String> = (server.left_out().into_iter())
                        .map(|l| format!("{} ({})", l.id, l.why.code))
                        .collect();
                    if !left_out.is_empty() {
                        text.push_str(&format!(" Left out for now: {}.", left_out.join(", ")));
                    }
                    engines.use_server(server);
                    set_status.set(Some((true, String::new(), text)));
                }
                Err(f) => set_status.set(Some((false, f.code, f.message))),
            }
        });
    };
    view! {
        <label>"Server "
            <input type="url" id="server-url" placeholder="http://127.0.0.1:8787"
                prop:value=settings.server_url
                on:change=move |ev| settings.server_url.set(event_target_value(&ev).trim().to_string()) />
        </label>
        <label>"API key "
            <input type="password" id="server-key" autocomplete="off" placeholder="the key the server's operator gave you"
                prop:value=key
                on:change=move |ev| set_key.set(event_target_value(&ev).trim().to_string()) />
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
    }
}
