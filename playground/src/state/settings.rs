//! The settings: the model provider (its key in memory only), the run's limits, each
//! datasource's own query time limit, and a server's address.

use super::saved::{remembered_key, Saved};
use leptos::prelude::*;
use nl2sql_core::config::{ProviderConfig, RunConfig};
use std::collections::BTreeMap;

#[derive(Clone, Copy)]
pub struct Settings {
    pub provider: RwSignal<ProviderConfig>,
    pub run: RwSignal<RunConfig>,
    /// Each datasource's own query time limit (ms), where the person set one.
    pub limits: RwSignal<BTreeMap<String, u64>>,
    pub remember_key: RwSignal<bool>,
    /// The server's address as last typed (kept across visits; never its key).
    pub server_url: RwSignal<String>,
    /// True when the provider settings could run a question (a key, or an endpoint that
    /// needs none).
    pub provider_ok: Memo<bool>,
}

impl Settings {
    /// The settings kept from earlier visits (the key only if this tab remembers it).
    pub fn load() -> Settings {
        let saved = Saved::load();
        let key = remembered_key();
        let provider = RwSignal::new(ProviderConfig {
            kind: saved.kind,
            model: saved.model,
            api_key: key.clone().unwrap_or_default(),
            base_url: saved.base_url,
            models: saved.models,
        });
        Settings {
            provider,
            run: RwSignal::new(saved.run),
            limits: RwSignal::new(saved.limits),
            remember_key: RwSignal::new(key.is_some()),
            server_url: RwSignal::new(saved.server_url),
            provider_ok: Memo::new(move |_| provider.with(|p| p.check().is_ok())),
        }
    }

    /// Keeps the settings: everything but the key to localStorage, the key to
    /// sessionStorage only when the person asked for it.
    pub fn save(&self) {
        let p = self.provider.get_untracked();
        let saved = Saved {
            kind: p.kind,
            model: p.model,
            base_url: p.base_url,
            models: p.models,
            run: self.run.get_untracked(),
            limits: self.limits.get_untracked(),
            server_url: self.server_url.get_untracked(),
        };
        saved.store(&p.api_key, self.remember_key.get_untracked());
    }

    /// Sets (or, with `None`, clears) datasource `id`'s own time limit, and saves it.
    pub fn set_limit(&self, id: &str, ms: Option<u64>) {
        self.limits.update(|limits| match ms {
            Some(ms) => {
                limits.insert(id.to_string(), ms);
            }
            None => {
                limits.remove(id);
            }
        });
        self.save();
    }
}
