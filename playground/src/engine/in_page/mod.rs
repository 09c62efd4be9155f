//! This page as the engine: its own databases (sql.js and DuckDB-WASM in Web Workers), its
//! policies and roles, the person's model key, and feedback kept in this browser.

mod asks;
mod feedback;

use super::SourceInfo;
use leptos::prelude::{Notify, Trigger};
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::feedback::FeedbackBook;
use nl2sql_wasm::{add_file, blend_semantic, DatabaseFile, DatabaseHost, Session};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The in-page engine; clones share it.
#[derive(Clone)]
pub struct InPage {
    session: Rc<Session>,
    /// Feedback and the proposals it made, as kept in this browser's IndexedDB.
    book: Rc<RefCell<FeedbackBook>>,
    /// Notified whenever what it lists changes (datasources, proposals).
    changed: Trigger,
}

impl InPage {
    pub fn new(session: Session, changed: Trigger) -> InPage {
        InPage {
            session: Rc::new(session),
            book: Rc::default(),
            changed,
        }
    }

    /// Hands the settings to the session, which every later run asks with.
    pub fn configure(&self, provider: ProviderConfig, run: RunConfig) {
        self.session.configure(Some(provider), Some(run));
    }

    /// Hands every datasource its own time limit (those set for ids not open wait).
    pub fn apply_limits(&self, limits: &BTreeMap<String, u64>) {
        for (id, ms) in limits {
            self.set_limit(id, Some(*ms));
        }
    }

    /// Sets (or, with `None`, clears) datasource `id`'s own time limit.
    pub fn set_limit(&self, id: &str, ms: Option<u64>) {
        if let DatabaseHost::Workers(workers) = self.session.host().databases() {
            workers.set_limit(id, ms);
        }
    }

    /// Opens, reads and indexes one more datasource; routable once this returns.
    pub async fn add(&self, file: DatabaseFile) -> Result<(), String> {
        add_file(&self.session, file)
            .await
            .map_err(|e| format!("{} ({})", e, e.code))?;
        self.changed.notify();
        Ok(())
    }

    /// Blends the semantic embedder (its fetched `weights`) into routing and retrieval;
    /// the index's new embedder id.
    pub async fn blend(&self, weights: Vec<u8>) -> Result<String, String> {
        blend_semantic(&self.session, &weights)
            .await
            .map_err(|e| format!("{} ({})", e, e.code))
    }

    /// Removes datasource `id`.
    pub async fn remove(&self, id: &str) -> Result<(), String> {
        self.session
            .remove(id)
            .await
            .map_err(|e| format!("{} ({})", e, e.code))?;
        self.changed.notify();
        Ok(())
    }

    /// This page's datasources, every one (the role hides tables, not datasources).
    pub fn listed(&self) -> Vec<SourceInfo> {
        self.session
            .datasources()
            .into_iter()
            .map(|d| SourceInfo {
                demo: nl2sql_core::demo::demo_database(&d.id).is_some(),
                id: d.id,
                description: d.description,
                schema: d.schema,
            })
            .collect()
    }

    /// The feedback kept in this browser.
    pub fn book(&self) -> FeedbackBook {
        self.book.borrow().clone()
    }

    /// Replaces the feedback book, keeps it in IndexedDB and puts its approved queries in
    /// force; says why not when it could not.
    pub async fn keep(&self, book: FeedbackBook) -> Result<(), String> {
        self.session
            .use_approved(&book)
            .await
            .map_err(|e| format!("{}: {e}", e.code))?;
        crate::store::save(&book).await?;
        *self.book.borrow_mut() = book;
        self.changed.notify();
        Ok(())
    }

    /// Merges the feedback in `text` (an exported file) into the book; how many proposals
    /// were new.
    pub async fn import(&self, text: &str) -> Result<usize, super::Failure> {
        let other = FeedbackBook::from_json(text).map_err(super::Failure::from)?;
        let mut book = self.book();
        let added = book.merge(other);
        self.keep(book)
            .await
            .map_err(|e| super::Failure::new("IMPORT_FAILED", e))?;
        Ok(added)
    }
}
