//! A session: the engine's facade ([`Service`]) as a web page uses it. sql.js databases
//! opened from bytes (each in a worker of its own, or on the page's thread where there are
//! no workers), model providers reached with `fetch` (aborted at once on cancel),
//! sub-results combined in a scratch sql.js database, waits through `setTimeout`. The
//! playground calls it from Rust; the npm package's `Engine` class wraps it for JavaScript.

use crate::duckdb;
use crate::worker::Workers;
use crate::{FetchTransport, SqlJs, TimeoutSleep};
use nl2sql_core::adapter::HttpTransport;
use nl2sql_core::adapter::Scratch;
use nl2sql_core::adapter::{join_all, Sleep};
use nl2sql_core::adapter::{BlendedEmbedder, SemanticEmbedder};
use nl2sql_core::adapter::{BuiltinEmbedder, Clock, DatasourceProfile};
use nl2sql_core::adapter::{Datasource, DatasourceError};
use nl2sql_core::config::Policies;
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::demo::{DemoDatabase, DEMO_VERIFIED};
use nl2sql_core::error::{Error, ErrorCode};
use nl2sql_core::feedback::Curated;
use nl2sql_core::files::{self, FileKind};
use nl2sql_core::result::CancelToken;
use nl2sql_core::service::{Host, Service};
use nl2sql_core::service::{Opening, ReadSource, Workspace};
use std::rc::Rc;

/// Milliseconds from the page's clock.
pub struct PageClock;

impl Clock for PageClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }
}

/// Where a page's databases run.
pub enum DatabaseHost {
    /// Each in a Web Worker of its own, under time limits Cancel can cut short: SQLite
    /// files in sql.js, CSV, Parquet and DuckDB files in DuckDB-WASM. The page's way.
    Workers(Workers),
    /// On the calling thread, through a sql.js the caller started: where there are no Web
    /// Workers (Node) and in the tests of sql.js itself. SQLite files only; a query there
    /// cannot be stopped.
    Here(SqlJs),
}

impl DatabaseHost {
    /// Opens `file`'s files, read-only, as its datasource.
    async fn open(&self, file: &DatabaseFile) -> Result<Rc<dyn Datasource>, Error> {
        let id = &file.id;
        let named: Vec<(&str, &[u8])> = file
            .files
            .iter()
            .map(|f| (f.name.as_str(), f.bytes.as_slice()))
            .collect();
        let planned = files::plan(&named)
            .map_err(|e| Error::new(ErrorCode::DatasourceUnreadable, format!("{id}: {e}")))?;
        let unreadable = |e: DatasourceError| {
            Error::new(
                ErrorCode::DatasourceUnreadable,
                format!("{id} could not be opened: {}", e.message),
            )
        };
        let first = &planned[0];
        if first.kind == FileKind::Sqlite {
            let bytes = named[0].1;
            let not_sqlite = |e: DatasourceError| {
                Error::new(
                    ErrorCode::DatasourceUnreadable,
                    format!(
                        "{id}: {} is not a SQLite database sql.js can open: {e}",
                        first.name
                    ),
                )
            };
            return Ok(match self {
                DatabaseHost::Workers(w) => Rc::new(
                    w.open(id, bytes, file.query_timeout_ms)
                        .await
                        .map_err(not_sqlite)?,
                ),
                DatabaseHost::Here(sqljs) => Rc::new(sqljs.open(id, bytes).map_err(not_sqlite)?),
            });
        }
        match self {
            DatabaseHost::Workers(w) => {
                let with_bytes: Vec<(files::PlannedFile, &[u8])> = planned
                    .into_iter()
                    .zip(named.iter().map(|(_, b)| *b))
                    .collect();
                let db = duckdb::open(w, id, &with_bytes, file.query_timeout_ms)
                    .await
                    .map_err(unreadable)?;
                Ok(Rc::new(db))
            }
            DatabaseHost::Here(_) => Err(Error::new(
                ErrorCode::DatasourceUnreadable,
                format!(
                    "{id}: {} needs DuckDB-WASM, which runs in a Web Worker; there are none here",
                    first.name
                ),
            )),
        }
    }
}

/// What a page lends the engine's runs.
pub struct PageHost {
    databases: DatabaseHost,
}

impl PageHost {
    /// Where the session's databases run.
    pub fn databases(&self) -> &DatabaseHost {
        &self.databases
    }
}

impl Host for PageHost {
    fn transport(&self, cancel: &CancelToken) -> Box<dyn HttpTransport> {
        let transport = FetchTransport::default();
        cancel.on_cancel(transport.canceller());
        // A cancelled run's query in flight is stopped too.
        if let DatabaseHost::Workers(workers) = &self.databases {
            let workers = workers.clone();
            cancel.on_cancel(move || workers.interrupt());
        }
        Box::new(transport)
    }

    fn clock(&self) -> &dyn Clock {
        &PageClock
    }

    fn scratch(&self) -> Option<Box<dyn Scratch>> {
        Some(match &self.databases {
            DatabaseHost::Workers(w) => Box::new(w.scratch()),
            DatabaseHost::Here(sqljs) => Box::new(sqljs.scratch()),
        })
    }

    fn sleep(&self) -> Option<&dyn Sleep> {
        Some(&TimeoutSleep)
    }
}

/// The engine in a page.
pub type Session = Service<PageHost>;

/// A datasource to open: its id, what it holds, questions it answers, and its files.
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseFile {
    /// The datasource id.
    pub id: String,
    /// What it holds, in plain words (routing reads this).
    pub description: String,
    /// Questions it answers, for routing.
    pub examples: Vec<String>,
    /// One SQLite or DuckDB file, or CSV and Parquet files (a table each).
    pub files: Vec<NamedBytes>,
    /// Its schema and values read ahead of time, when the caller checked they belong to
    /// these bytes (a [`nl2sql_core::service::Catalogue`] entry); `None`: read here.
    pub read_ahead: Option<ReadSource>,
    /// What its tables, columns and values are called and mean.
    pub notes: nl2sql_core::adapter::Notes,
    /// Its queries' own time limit, when shorter than the run's (`query_timeout_ms`).
    pub query_timeout_ms: Option<u64>,
}

/// A file's name (which names its table, and says which text format it is) and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedBytes {
    pub name: String,
    pub bytes: Vec<u8>,
}

impl NamedBytes {
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> NamedBytes {
        NamedBytes {
            name: name.into(),
            bytes,
        }
    }
}

/// Opens `files` with `policies` and the verified queries `curated` (those naming a
/// datasource not opened wait until one with that id is added), asking with `provider`
/// under `run`.
pub async fn open_session(
    databases: DatabaseHost,
    files: Vec<DatabaseFile>,
    policies: Policies,
    curated: Curated,
    provider: ProviderConfig,
    run: RunConfig,
) -> Result<Session, Error> {
    // Each database starts in a worker of its own, so they open side by side.
    let opened = join_all(
        files
            .into_iter()
            .map(|file| open_file(&databases, file, &curated))
            .collect(),
    )
    .await;
    let sources = opened.into_iter().collect::<Result<Vec<_>, _>>()?;
    let workspace = Workspace::open(
        sources,
        policies,
        curated,
        Rc::new(BuiltinEmbedder::default()),
    )
    .await?;
    Ok(Service::new(
        PageHost { databases },
        workspace,
        provider,
        run,
    ))
}

/// Blends the semantic embedder whose `weights` the page fetched (`cargo xtask embedder`'s
/// file) into `session`'s index, as natively: routing and retrieval use it from the next
/// question on. Returns the index's new embedder id; weights that cannot be read leave the
/// session as it was (CONFIG_INVALID).
pub async fn blend_semantic(session: &Session, weights: &[u8]) -> Result<String, Error> {
    let semantic = SemanticEmbedder::from_bytes("wordllama", weights)?;
    let blend = BlendedEmbedder::new(BuiltinEmbedder::default(), semantic, BlendedEmbedder::SHARE);
    session.use_embedder(Rc::new(blend)).await?;
    Ok(session.index_summary().embedder)
}

/// The three demo databases (`files` holds their bytes and, when read ahead, what reading
/// them gave), their verified queries and the demo policy.
pub async fn demo_session(
    databases: DatabaseHost,
    files: Vec<(DemoDatabase, Vec<u8>, Option<ReadSource>)>,
    provider: ProviderConfig,
    run: RunConfig,
) -> Result<Session, Error> {
    let curated = serde_json::from_str::<Curated>(DEMO_VERIFIED)
        .map_err(|e| Error::config(format!("the demo's verified queries: {e}")))?;
    let files = files
        .into_iter()
        .map(|(d, bytes, read_ahead)| DatabaseFile {
            id: d.id.to_string(),
            description: d.description.to_string(),
            examples: d.examples.iter().map(|q| q.to_string()).collect(),
            files: vec![NamedBytes::new(d.file, bytes)],
            read_ahead,
            notes: nl2sql_core::demo::demo_notes(d.id),
            query_timeout_ms: None,
        })
        .collect();
    open_session(databases, files, Policies::demo(), curated, provider, run).await
}

/// Opens, reads and indexes one more database; it is routable as soon as this returns.
pub async fn add_file(session: &Session, file: DatabaseFile) -> Result<(), Error> {
    let opening = open_file(
        &session.host().databases,
        file,
        session.workspace().declared(),
    )
    .await?;
    session.add(opening).await
}

/// Opens `file` (sql.js or DuckDB-WASM, by what its files are) and describes it for
/// routing, with the phrasings of any verified queries declared for its id.
async fn open_file(
    databases: &DatabaseHost,
    file: DatabaseFile,
    curated: &Curated,
) -> Result<Opening, Error> {
    let db = databases.open(&file).await?;
    let profile = DatasourceProfile {
        verified: curated.phrases(&file.id),
        id: file.id,
        description: file.description,
        examples: file.examples,
        notes: file.notes,
    };
    Ok(Opening {
        profile,
        datasource: db,
        read_ahead: file.read_ahead,
    })
}
