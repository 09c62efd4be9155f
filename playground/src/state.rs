//! The page's state: a few signals shared through context, and where settings are kept.
//!
//! The key lives in a signal (memory) only; when the person ticks "remember in this tab" it
//! is also written to sessionStorage. Nothing ever writes it to localStorage, a URL or a
//! trace: the other settings go to localStorage as JSON built without it.

use crate::run::RunView;
use leptos::prelude::*;
use nl2sql_core::config::{NodeModels, ProviderConfig, ProviderKind, RunConfig};
use nl2sql_core::conversation::Thread;
use nl2sql_core::engine::QueryResult;
use nl2sql_core::feedback::FeedbackBook;
use nl2sql_core::SchemaSnapshot;
use nl2sql_wasm::DatabaseHost;
use nl2sql_wasm::{Remote, Session};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// The pages of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Ask,
    Sql,
    Inspect,
    Datasources,
    Verified,
    Settings,
    Traces,
}

impl Page {
    pub const ALL: [Page; 7] = [
        Page::Ask,
        Page::Sql,
        Page::Inspect,
        Page::Datasources,
        Page::Verified,
        Page::Settings,
        Page::Traces,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Page::Ask => "Ask",
            Page::Sql => "SQL",
            Page::Inspect => "Routing",
            Page::Datasources => "Datasources",
            Page::Verified => "Verified queries",
            Page::Settings => "Settings",
            Page::Traces => "Traces",
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Page::Ask => "ask",
            Page::Sql => "sql",
            Page::Inspect => "inspect",
            Page::Datasources => "datasources",
            Page::Verified => "verified",
            Page::Settings => "settings",
            Page::Traces => "traces",
        }
    }
}

/// One datasource as the page lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInfo {
    pub id: String,
    pub description: String,
    pub schema: SchemaSnapshot,
    pub demo: bool,
}

/// Loading the demo databases, then ready (or not).
#[derive(Debug, Clone, PartialEq)]
pub enum Load {
    Loading,
    /// Ready, with the databases that could not be loaded and why.
    Ready {
        failures: Vec<(String, String)>,
    },
    /// Nothing can run (sql.js did not start).
    Failed(String),
}

/// The signals every component may read; all `Copy` handles.
#[derive(Clone, Copy)]
pub struct AppState {
    pub session: StoredValue<Option<Rc<Session>>, LocalStorage>,
    pub load: RwSignal<Load>,
    pub sources: RwSignal<Vec<SourceInfo>>,
    pub page: RwSignal<Page>,
    pub role: RwSignal<String>,
    pub provider: RwSignal<ProviderConfig>,
    pub run_config: RwSignal<RunConfig>,
    /// Each datasource's own query time limit (ms), where the person set one.
    pub limits: RwSignal<BTreeMap<String, u64>>,
    pub remember_key: RwSignal<bool>,
    pub run: RwSignal<RunView>,
    /// The datasource whose schema the side panel shows.
    pub schema_of: RwSignal<String>,
    /// A server the page uses as its engine (Settings → Engine), once connected: asks,
    /// SQL mode, routing and the datasource list go to its API; none: the engine is this
    /// page. Its key is held here, in memory only.
    pub server: RwSignal<Option<Remote>>,
    /// The server's address as last typed (kept across visits; never the key).
    pub server_url: RwSignal<String>,
    /// The conversation the next follow-up continues (the last result's thread).
    pub thread: RwSignal<Thread>,
    /// The earlier turns of that conversation, oldest first, shown above the latest answer.
    pub turns: RwSignal<Vec<Arc<QueryResult>>>,
    /// Feedback and the verified queries it proposed, as kept in this browser's IndexedDB.
    pub feedback: RwSignal<FeedbackBook>,
}

impl AppState {
    pub fn new() -> AppState {
        let saved = Saved::load();
        let remember = key_from_session().is_some();
        let provider = ProviderConfig {
            kind: saved.kind,
            model: saved.model,
            api_key: key_from_session().unwrap_or_default(),
            base_url: saved.base_url,
            models: saved.models,
        };
        AppState {
            session: StoredValue::new_local(None),
            load: RwSignal::new(Load::Loading),
            sources: RwSignal::new(Vec::new()),
            page: RwSignal::new(Page::Ask),
            role: RwSignal::new("admin".to_string()),
            provider: RwSignal::new(provider),
            run_config: RwSignal::new(saved.run),
            limits: RwSignal::new(saved.limits),
            remember_key: RwSignal::new(remember),
            run: RwSignal::new(RunView::default()),
            schema_of: RwSignal::new("chinook".to_string()),
            server: RwSignal::new(None),
            server_url: RwSignal::new(saved.server_url),
            thread: RwSignal::new(Thread::default()),
            turns: RwSignal::new(Vec::new()),
            feedback: RwSignal::new(FeedbackBook::default()),
        }
    }

    /// Replaces the feedback book, keeps it in IndexedDB and puts its approved queries in
    /// force; says why not when it could not.
    pub async fn keep_feedback(&self, book: FeedbackBook) -> Result<(), String> {
        if let Some(session) = self.session() {
            session
                .use_approved(&book)
                .await
                .map_err(|e| format!("{}: {e}", e.code))?;
        }
        crate::store::save(&book).await?;
        self.feedback.set(book);
        Ok(())
    }

    /// The session, once the databases are loaded.
    pub fn session(&self) -> Option<Rc<Session>> {
        self.session.with_value(Clone::clone)
    }

    /// Re-reads the datasource list from the session (after an add or a remove); with a
    /// server as the engine, the list stays the server's.
    pub fn refresh_sources(&self) {
        if self.server.with_untracked(Option::is_some) {
            return;
        }
        let Some(session) = self.session() else {
            return;
        };
        let workspace = session.workspace();
        let list = workspace
            .sources()
            .iter()
            .map(|s| SourceInfo {
                id: s.profile.id.clone(),
                description: s.profile.description.clone(),
                schema: s.schema.clone(),
                demo: nl2sql_core::demo::demo_database(&s.profile.id).is_some(),
            })
            .collect();
        self.sources.set(list);
    }

    /// Makes `remote` the page's engine, listing its datasources (as its key's role sees
    /// them).
    pub fn use_server(
        &self,
        remote: Remote,
        datasources: Vec<nl2sql_core::service::DatasourceInfo>,
    ) {
        let list: Vec<SourceInfo> = datasources
            .into_iter()
            .map(|d| SourceInfo {
                id: d.id,
                description: d.description,
                schema: d.schema,
                demo: false,
            })
            .collect();
        if let Some(first) = list.first() {
            self.schema_of.set(first.id.clone());
        }
        self.server.set(Some(remote));
        self.sources.set(list);
    }

    /// Makes this page the engine again.
    pub fn use_page(&self) {
        self.server.set(None);
        self.refresh_sources();
    }

    /// Hands the settings to the session, which every later run asks with.
    pub fn configure_session(&self) {
        if let Some(session) = self.session() {
            session.configure(
                Some(self.provider.get_untracked()),
                Some(self.run_config.get_untracked()),
            );
        }
    }

    /// Hands every datasource its own time limit (those set for ids not open wait).
    pub fn apply_limits(&self) {
        let Some(session) = self.session() else {
            return;
        };
        if let DatabaseHost::Workers(workers) = session.host().databases() {
            self.limits.with_untracked(|limits| {
                for (id, ms) in limits {
                    workers.set_limit(id, Some(*ms));
                }
            });
        }
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
        if let Some(session) = self.session() {
            if let DatabaseHost::Workers(workers) = session.host().databases() {
                workers.set_limit(id, ms);
            }
        }
        self.save_settings();
    }

    /// Saves the settings: everything but the key to localStorage, the key to
    /// sessionStorage only when the person asked for it.
    pub fn save_settings(&self) {
        self.configure_session();
        let p = self.provider.get_untracked();
        let saved = Saved {
            kind: p.kind,
            model: p.model.clone(),
            base_url: p.base_url.clone(),
            models: p.models.clone(),
            run: self.run_config.get_untracked(),
            limits: self.limits.get_untracked(),
            server_url: self.server_url.get_untracked(),
        };
        if let (Some(store), Ok(text)) = (local_storage(), serde_json::to_string(&saved)) {
            let _ = store.set_item(SETTINGS_KEY, &text);
        }
        if let Some(store) = session_storage() {
            let _ = if self.remember_key.get_untracked() && !p.api_key.is_empty() {
                store.set_item(KEY_KEY, &p.api_key)
            } else {
                store.remove_item(KEY_KEY)
            };
        }
    }

    /// True when a run could be configured (a key, an endpoint that needs none, or a
    /// server that holds its own).
    pub fn has_provider(&self) -> bool {
        self.server.with(Option::is_some) || self.provider.with(|p| p.check().is_ok())
    }
}

const SETTINGS_KEY: &str = "nl2sql.settings";
const KEY_KEY: &str = "nl2sql.key";

/// The settings that may be kept across visits: no key here, ever.
#[derive(Serialize, Deserialize)]
#[serde(default)]
struct Saved {
    kind: ProviderKind,
    model: String,
    base_url: Option<String>,
    models: NodeModels,
    run: RunConfig,
    limits: BTreeMap<String, u64>,
    server_url: String,
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
    fn load() -> Saved {
        local_storage()
            .and_then(|s| s.get_item(SETTINGS_KEY).ok().flatten())
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .map(snake_case_run)
            .and_then(|saved| serde_json::from_str(&saved.to_string()).ok())
            .unwrap_or_default()
    }
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

fn key_from_session() -> Option<String> {
    session_storage()
        .and_then(|s| s.get_item(KEY_KEY).ok().flatten())
        .filter(|k| !k.is_empty())
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.session_storage().ok().flatten())
}
