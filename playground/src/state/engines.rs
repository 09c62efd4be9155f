//! The engine in use and what it lists: loading the page's own, switching to a server and
//! back, the role it is asked as, and the datasource whose schema is shown.

use super::Settings;
use crate::engine::{InPage, PageEngine, Roles, Server, SourceInfo};
use leptos::prelude::*;
use std::rc::Rc;

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

#[derive(Clone, Copy)]
pub struct Engines {
    current: Current,
    /// This page's own engine, kept while a server is in use: files are added to it and
    /// its feedback is exported from it.
    in_page: RwSignal<Option<InPage>, LocalStorage>,
    /// True while a server is the engine.
    serving: RwSignal<bool>,
    /// Notified by an engine when what it lists changes.
    pub changed: Trigger,
    pub load: RwSignal<Load>,
    pub role: RwSignal<String>,
    /// The datasource whose schema the side panel shows.
    pub schema_of: RwSignal<String>,
    pub ready: Memo<bool>,
    pub sources: Memo<Vec<SourceInfo>>,
    pub roles: Memo<Option<Roles>>,
    /// True when the engine asks its own model, not the page's settings.
    pub own_model: Memo<bool>,
    pub may_approve: Memo<bool>,
}

impl Engines {
    pub fn new() -> Engines {
        let current = RwSignal::new_local(None::<Rc<dyn PageEngine>>);
        let changed = Trigger::new();
        let load = RwSignal::new(Load::Loading);
        let role = RwSignal::new("admin".to_string());
        Engines {
            current,
            in_page: RwSignal::new_local(None),
            serving: RwSignal::new(false),
            changed,
            load,
            role,
            schema_of: RwSignal::new("chinook".to_string()),
            ready: Memo::new(move |_| matches!(load.get(), Load::Ready { .. })),
            sources: Memo::new(move |_| {
                changed.track();
                read(current, |e| e.sources()).unwrap_or_default()
            }),
            roles: Memo::new(move |_| read(current, |e| e.roles())),
            own_model: Memo::new(move |_| read(current, |e| e.own_model()).unwrap_or(false)),
            may_approve: Memo::new(move |_| {
                let role = role.get();
                current.with(|e| e.as_ref().is_some_and(|e| e.may_approve(&role)))
            }),
        }
    }

    /// The engine in use (tracked), once there is one.
    pub fn current(&self) -> Option<Rc<dyn PageEngine>> {
        self.current.get()
    }

    /// The engine in use, for an event handler (not tracked).
    pub fn engine(&self) -> Option<Rc<dyn PageEngine>> {
        self.current.get_untracked()
    }

    /// This page's own engine, once loaded (not tracked).
    pub fn in_page(&self) -> Option<InPage> {
        self.in_page.get_untracked()
    }

    /// The page's own engine is loaded: it answers unless a server already does.
    pub fn loaded(&self, page: InPage, failures: Vec<(String, String)>) {
        self.in_page.set(Some(page.clone()));
        if self.current.with_untracked(Option::is_none) {
            self.current.set(Some(Rc::new(page)));
        }
        self.load.set(Load::Ready { failures });
    }

    /// Makes `server` the engine, showing its first datasource's schema.
    pub fn use_server(&self, server: Server) {
        if let Some(first) = server.sources().first() {
            self.schema_of.set(first.id.clone());
        }
        self.current.set(Some(Rc::new(server)));
        self.serving.set(true);
    }

    /// Makes this page the engine again.
    pub fn use_page(&self) {
        let page = self.in_page();
        self.current
            .set(page.map(|p| Rc::new(p) as Rc<dyn PageEngine>));
        self.serving.set(false);
    }

    /// True while a server is the engine (for the choice of engine itself).
    pub fn serving(&self) -> bool {
        self.serving.get_untracked()
    }

    /// Hands the settings to the page's own engine whenever they change (every later run
    /// asks with them).
    pub fn follow(&self, settings: Settings) {
        let in_page = self.in_page;
        Effect::new(move |_| {
            let (provider, run) = (settings.provider.get(), settings.run.get());
            in_page.with(|page| {
                if let Some(page) = page {
                    page.configure(provider, run);
                }
            });
        });
    }
}

type Current = RwSignal<Option<Rc<dyn PageEngine>>, LocalStorage>;

/// What `f` reads from the engine in use (tracked), once there is one.
fn read<T>(current: Current, f: impl FnOnce(&dyn PageEngine) -> T) -> Option<T> {
    current.with(|e| e.as_deref().map(f))
}
