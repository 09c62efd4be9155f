//! Where settings are kept across visits: everything but the key in localStorage as JSON
//! built without it; the key in sessionStorage only when the person asks for it, never in
//! localStorage, a URL or a trace.

use nl2sql_core::config::{NodeModels, ProviderKind, RunConfig};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const SETTINGS_KEY: &str = "nl2sql.settings";
const KEY_KEY: &str = "nl2sql.key";

/// The settings that may be kept across visits: no key here, ever.
#[derive(Serialize, Deserialize)]
#[serde(default)]
pub struct Saved {
    pub kind: ProviderKind,
    pub model: String,
    pub base_url: Option<String>,
    pub models: NodeModels,
    pub run: RunConfig,
    pub limits: BTreeMap<String, u64>,
    pub server_url: String,
}

impl Default for Saved {
    fn default() -> Self {
        Saved {
            kind: ProviderKind::OpenAi,
            model: ProviderKind::OpenAi.default_model().to_string(),
            base_url: None,
            models: NodeModels::default(),
            run: RunConfig {
                row_cap: 10_000,
                ..RunConfig::default()
            },
            limits: BTreeMap::new(),
            server_url: String::new(),
        }
    }
}

impl Saved {
    pub fn load() -> Saved {
        local_storage()
            .and_then(|s| s.get_item(SETTINGS_KEY).ok().flatten())
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .map(snake_case_run)
            .and_then(|saved| serde_json::from_str(&saved.to_string()).ok())
            .unwrap_or_default()
    }

    /// Keeps these settings, and `key` in this tab only when `remember` (else forgets it).
    pub fn store(&self, key: &str, remember: bool) {
        if let (Some(store), Ok(text)) = (local_storage(), serde_json::to_string(self)) {
            let _ = store.set_item(SETTINGS_KEY, &text);
        }
        if let Some(store) = session_storage() {
            let _ = if remember && !key.is_empty() {
                store.set_item(KEY_KEY, key)
            } else {
                store.remove_item(KEY_KEY)
            };
        }
    }
}

/// The key kept in this tab, if any.
pub fn remembered_key() -> Option<String> {
    session_storage()
        .and_then(|s| s.get_item(KEY_KEY).ok().flatten())
        .filter(|k| !k.is_empty())
}

/// Earlier versions saved the run settings with camelCase names (`rowCap`); they are read
/// under today's snake_case names rather than dropped.
fn snake_case_run(mut saved: serde_json::Value) -> serde_json::Value {
    if let Some(run) = saved.get_mut("run").and_then(|r| r.as_object_mut()) {
        let renamed = std::mem::take(run)
            .into_iter()
            .map(|(key, value)| (snake_case(&key), value))
            .collect();
        *run = renamed;
    }
    saved
}

fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.session_storage().ok().flatten())
}
