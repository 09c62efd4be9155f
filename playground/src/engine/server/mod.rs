//! A server as the engine (Settings → Engine): asks stream from `nl2sql serve`'s API, SQL
//! mode and routing run there, and its datasources are listed as its API key's role sees
//! them. The key decides the role and the server cleans the traces it sends; the page holds
//! no model key. The server's API key lives in this value only, in memory.

mod asks;
mod feedback;

use crate::engine::{Failure, LeftOut, SourceInfo};
use leptos::prelude::Trigger;
use nl2sql_wasm::{FetchTransport, Remote};

/// A server and what it listed when the page connected.
#[derive(Clone)]
pub struct Server {
    remote: Remote,
    sources: Vec<SourceInfo>,
    left_out: Vec<LeftOut>,
    /// Notified when its proposals change.
    changed: Trigger,
}

impl Server {
    /// The server at `url` (`http://host:port`), to be asked with API key `key`; why not,
    /// when the address or the key cannot be used.
    pub fn address(url: &str, key: &str) -> Result<Remote, Failure> {
        Ok(Remote::new(url, key)?)
    }

    /// Connects to `remote`, reading the datasources its key's role may reach (and which of
    /// them it left out for now).
    pub async fn connect(remote: Remote, changed: Trigger) -> Result<Server, Failure> {
        let listed = remote.datasources(&FetchTransport::default()).await?;
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
        Ok(Server {
            remote,
            sources,
            left_out,
            changed,
        })
    }

    /// The server's address.
    pub fn base(&self) -> &str {
        self.remote.base()
    }
}
