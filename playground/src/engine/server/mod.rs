//! A server as the engine (Settings → Engine): asks stream from `nl2sql serve`'s API, SQL
//! mode and routing run there, and its datasources are listed as its API key's role sees
//! them. The key decides the role and the server cleans the traces it sends; the page holds
//! no model key. The server's API key lives in this value only, in memory.

mod asks;
mod feedback;

use crate::engine::{Failure, LeftOut, SourceInfo};
use leptos::prelude::{Notify, Trigger};
use leptos::task::spawn_local;
use nl2sql_core::adapter::Sleep;
use nl2sql_wasm::{FetchTransport, Listed, Remote, TimeoutSleep};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// A server and what it lists, read again while it leaves something out.
#[derive(Clone)]
pub struct Server {
    remote: Remote,
    listing: Rc<RefCell<Listing>>,
    /// Notified when its proposals or its list change.
    changed: Trigger,
}

/// The datasources a server lists for the key's role, and those it left out for now.
#[derive(Default)]
struct Listing {
    sources: Vec<SourceInfo>,
    left_out: Vec<LeftOut>,
}

impl From<Listed> for Listing {
    fn from(listed: Listed) -> Listing {
        let sources = (listed.available.into_iter())
            .map(|d| SourceInfo {
                id: d.id,
                description: d.description,
                schema: d.schema,
                demo: false,
            })
            .collect();
        let left_out = (listed.unavailable.into_iter())
            .map(|(id, why)| LeftOut { id, why })
            .collect();
        Listing { sources, left_out }
    }
}

/// The first wait before the list is read again, doubled after each read that still
/// leaves something out, up to [`RELIST_MAX_MS`]: a datasource back in use shows within
/// seconds, and one down for hours costs a request a minute.
const RELIST_FIRST_MS: u64 = 2_000;
const RELIST_MAX_MS: u64 = 60_000;

impl Server {
    /// The server at `url` (`http://host:port`), to be asked with API key `key`; why not,
    /// when the address or the key cannot be used.
    pub fn address(url: &str, key: &str) -> Result<Remote, Failure> {
        Ok(Remote::new(url, key)?)
    }

    /// Connects to `remote`, reading the datasources its key's role may reach (and which of
    /// them it left out for now). While some are left out, the list is read again now and
    /// then (the server tries them again on its own), so one that comes back is listed and
    /// asked without connecting again.
    pub async fn connect(remote: Remote, changed: Trigger) -> Result<Server, Failure> {
        let listed = remote.datasources(&FetchTransport::default()).await?;
        let server = Server {
            remote,
            listing: Rc::new(RefCell::new(Listing::from(listed))),
            changed,
        };
        if !server.listing.borrow().left_out.is_empty() {
            relist(
                server.remote.clone(),
                Rc::downgrade(&server.listing),
                changed,
            );
        }
        Ok(server)
    }

    /// The server's address.
    pub fn base(&self) -> &str {
        self.remote.base()
    }
}

/// Reads the list again, with growing waits, until nothing is left out or the server is no
/// longer the engine (its listing dropped). A read that fails keeps the last list and is
/// said on the console: the runs themselves show what is wrong with the server.
fn relist(remote: Remote, listing: Weak<RefCell<Listing>>, changed: Trigger) {
    spawn_local(async move {
        let mut wait = RELIST_FIRST_MS;
        loop {
            TimeoutSleep.sleep(wait).await;
            wait = (wait * 2).min(RELIST_MAX_MS);
            if listing.upgrade().is_none() {
                return;
            }
            let listed = match remote.datasources(&FetchTransport::default()).await {
                Ok(listed) => listed,
                Err(e) => {
                    leptos::logging::warn!(
                        "the server's datasources could not be read again: {} ({})",
                        e.message,
                        e.code
                    );
                    continue;
                }
            };
            let Some(current) = listing.upgrade() else {
                return;
            };
            let fresh = Listing::from(listed);
            let done = fresh.left_out.is_empty();
            *current.borrow_mut() = fresh;
            changed.notify();
            if done {
                return;
            }
        }
    });
}
