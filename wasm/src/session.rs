//! A session: the engine's facade ([`Service`]) as a web page uses it. sql.js databases
//! opened from bytes, model providers reached with `fetch` (aborted at once on cancel),
//! sub-results combined in a scratch sql.js database, waits through `setTimeout`. The
//! playground calls it from Rust; the npm package's `Engine` class wraps it for JavaScript.

use crate::{FetchTransport, SqlJs, TimeoutSleep};
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::curated::Curated;
use nl2sql_core::demo::{DemoDatabase, DEMO_VERIFIED};
use nl2sql_core::engine::{CancelToken, Sleep};
use nl2sql_core::http::HttpTransport;
use nl2sql_core::index::{BuiltinEmbedder, Clock, DatasourceProfile};
use nl2sql_core::policy::Policies;
use nl2sql_core::scratch::Scratch;
use nl2sql_core::service::{Host, Service, ServiceError};
use nl2sql_core::workspace::{Opening, ReadSource, Workspace, WorkspaceError};
use std::rc::Rc;

/// Milliseconds from the page's clock.
pub struct PageClock;

impl Clock for PageClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }
}

/// What a page lends the engine's runs.
pub struct PageHost {
    sqljs: SqlJs,
}

impl Host for PageHost {
    fn transport(&self, cancel: &CancelToken) -> Box<dyn HttpTransport> {
        let transport = FetchTransport::default();
        cancel.on_cancel(transport.canceller());
        Box::new(transport)
    }

    fn clock(&self) -> &dyn Clock {
        &PageClock
    }

    fn scratch(&self) -> Option<Box<dyn Scratch>> {
        Some(Box::new(self.sqljs.scratch()))
    }

    fn sleep(&self) -> Option<&dyn Sleep> {
        Some(&TimeoutSleep)
    }
}

/// The engine in a page.
pub type Session = Service<PageHost>;

/// A database to open: its id, what it holds, questions it answers, and the file's bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseFile {
    /// The datasource id.
    pub id: String,
    /// What it holds, in plain words (routing reads this).
    pub description: String,
    /// Questions it answers, for routing.
    pub examples: Vec<String>,
    /// The SQLite file.
    pub bytes: Vec<u8>,
    /// Its schema and values read ahead of time, when the caller checked they belong to
    /// these bytes (a [`nl2sql_core::workspace::Catalogue`] entry); `None`: read here.
    pub read_ahead: Option<ReadSource>,
    /// What its tables, columns and values are called and mean.
    pub notes: nl2sql_core::index::Notes,
}

/// Opens `files` with `policies` and the verified queries `curated` (those naming a
/// datasource not opened wait until one with that id is added), asking with `provider`
/// under `run`.
pub async fn open_session(
    sqljs: SqlJs,
    files: Vec<DatabaseFile>,
    policies: Policies,
    curated: Curated,
    provider: ProviderConfig,
    run: RunConfig,
) -> Result<Session, WorkspaceError> {
    let mut sources = Vec::with_capacity(files.len());
    for file in files {
        sources.push(open_file(&sqljs, file, &curated)?);
    }
    let workspace = Workspace::open(
        sources,
        policies,
        curated,
        Rc::new(BuiltinEmbedder::default()),
    )
    .await?;
    Ok(Service::new(PageHost { sqljs }, workspace, provider, run))
}

/// The three demo databases (`files` holds their bytes and, when read ahead, what reading
/// them gave), their verified queries and the demo policy.
pub async fn demo_session(
    sqljs: SqlJs,
    files: Vec<(DemoDatabase, Vec<u8>, Option<ReadSource>)>,
    provider: ProviderConfig,
    run: RunConfig,
) -> Result<Session, WorkspaceError> {
    let curated = serde_json::from_str::<Curated>(DEMO_VERIFIED)
        .map_err(|e| WorkspaceError::Config(format!("the demo's verified queries: {e}")))?;
    let files = files
        .into_iter()
        .map(|(d, bytes, read_ahead)| DatabaseFile {
            id: d.id.to_string(),
            description: d.description.to_string(),
            examples: d.examples.iter().map(|q| q.to_string()).collect(),
            bytes,
            read_ahead,
            notes: nl2sql_core::demo::demo_notes(d.id),
        })
        .collect();
    open_session(sqljs, files, Policies::demo(), curated, provider, run).await
}

/// Opens, reads and indexes one more database; it is routable as soon as this returns.
pub async fn add_file(session: &Session, file: DatabaseFile) -> Result<(), ServiceError> {
    let opening = open_file(&session.host().sqljs, file, session.workspace().declared())?;
    session.add(opening).await
}

/// Opens `file` in sql.js and describes it for routing, with the phrasings of any verified
/// queries declared for its id.
fn open_file(
    sqljs: &SqlJs,
    file: DatabaseFile,
    curated: &Curated,
) -> Result<Opening, WorkspaceError> {
    let db = sqljs.open(file.id.clone(), &file.bytes).map_err(|e| {
        WorkspaceError::Unreadable(format!(
            "{} is not a SQLite database sql.js can open: {e}",
            file.id
        ))
    })?;
    let profile = DatasourceProfile {
        verified: curated.phrases(&file.id),
        id: file.id,
        description: file.description,
        examples: file.examples,
        notes: file.notes,
    };
    Ok(Opening {
        profile,
        datasource: Rc::new(db),
        read_ahead: file.read_ahead,
    })
}
