//! A session: the engine as a web page uses it. sql.js databases opened from bytes, a
//! workspace over them, and runs that talk to the model provider with `fetch`, combine
//! sub-results in a scratch sql.js database and can be cancelled at once. The playground
//! calls it from Rust; the npm package's `Engine` class wraps it for JavaScript.

use crate::{FetchTransport, SqlJs, TimeoutSleep};
use nl2sql_core::config::ProviderConfig;
use nl2sql_core::curated::Curated;
use nl2sql_core::demo::{DemoDatabase, DEMO_VERIFIED};
use nl2sql_core::engine::{AskOptions, CancelToken, EngineSettings, Events, QueryResult};
use nl2sql_core::index::{
    BuiltinEmbedder, Clock, DatasourceProfile, EmbedError, Retrieval, Routing,
};
use nl2sql_core::policy::Policies;
use nl2sql_core::provider::chat::PriceTable;
use nl2sql_core::provider::probe::{probe, Probe};
use nl2sql_core::provider::ChatError;
use nl2sql_core::run::SqlRun;
use nl2sql_core::validate::ValidatorSettings;
use nl2sql_core::workspace::{Opening, ReadSource, Workspace, WorkspaceError, World};
use std::cell::RefCell;
use std::rc::Rc;

/// Milliseconds from the page's clock.
pub struct PageClock;

impl Clock for PageClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }
}

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
}

/// What one run asks for; made by [`Session::request`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// The caller's roles (none: the policy's default).
    pub roles: Vec<String>,
    /// One datasource, no routing.
    pub datasource: Option<String>,
    /// Validate and render only.
    pub plan_only: bool,
    /// Registered with the session when the request was made (see [`Session::request`]).
    cancel: CancelToken,
}

/// The engine in a page.
pub struct Session {
    sqljs: SqlJs,
    workspace: RefCell<Rc<Workspace>>,
    /// The runs in flight, so [`Session::cancel`] can stop them.
    running: RefCell<Vec<CancelToken>>,
}

impl Session {
    /// Opens `files` with `policies` and the verified queries `curated` (those naming a
    /// datasource not opened wait until one with that id is added).
    pub async fn open(
        sqljs: SqlJs,
        files: Vec<DatabaseFile>,
        policies: Policies,
        curated: Curated,
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
        Ok(Session {
            sqljs,
            workspace: RefCell::new(Rc::new(workspace)),
            running: RefCell::new(Vec::new()),
        })
    }

    /// The three demo databases (`files` holds their bytes and, when read ahead, what
    /// reading them gave), their verified queries and the demo policy.
    pub async fn demo(
        sqljs: SqlJs,
        files: Vec<(DemoDatabase, Vec<u8>, Option<ReadSource>)>,
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
            })
            .collect();
        Session::open(sqljs, files, Policies::demo(), curated).await
    }

    /// The catalogue as it is now; a run keeps the one it started with.
    pub fn workspace(&self) -> Rc<Workspace> {
        Rc::clone(&self.workspace.borrow())
    }

    /// Opens, reads and indexes one more database; it is routable as soon as this returns.
    pub async fn add(&self, file: DatabaseFile) -> Result<(), WorkspaceError> {
        let current = self.workspace();
        let opening = open_file(&self.sqljs, file, current.declared())?;
        let next = current.with_source(opening).await?;
        *self.workspace.borrow_mut() = Rc::new(next);
        Ok(())
    }

    /// Removes datasource `id`.
    pub async fn remove(&self, id: &str) -> Result<(), WorkspaceError> {
        let next = self.workspace().without(id).await?;
        *self.workspace.borrow_mut() = Rc::new(next);
        Ok(())
    }

    /// Runs `question` through the pipeline. Never fails: problems are in the result.
    pub async fn ask(
        &self,
        question: &str,
        ask: &Ask,
        settings: EngineSettings,
        prices: Option<PriceTable>,
        events: Option<Events>,
    ) -> QueryResult {
        let workspace = self.workspace();
        let transport = FetchTransport::default();
        let token = ask.cancel.clone();
        token.on_cancel(transport.canceller());
        let scratch = self.sqljs.scratch();
        let world = World {
            transport: &transport,
            clock: &PageClock,
            scratch: Some(&scratch),
            sleep: Some(&TimeoutSleep),
        };
        let engine = workspace.engine(world, settings);
        let engine = match prices {
            Some(p) => engine.with_prices(p),
            None => engine,
        };
        let options = AskOptions {
            roles: ask.roles.clone(),
            datasource: ask.datasource.clone(),
            plan_only: ask.plan_only,
            cancel: Some(token.clone()),
            events,
        };
        let result = engine.ask(question, &options).await;
        self.running.borrow_mut().retain(|t| *t != token);
        result
    }

    /// A request for [`Session::ask`], its run cancellable from now on: a [`Session::cancel`]
    /// in the same tick, before the run's future has even started, still stops it.
    pub fn request(&self, roles: Vec<String>, datasource: Option<String>, plan_only: bool) -> Ask {
        let cancel = CancelToken::new();
        self.running.borrow_mut().push(cancel.clone());
        Ask {
            roles,
            datasource,
            plan_only,
            cancel,
        }
    }

    /// Stops every run in flight at once: model calls are aborted, nothing else starts.
    pub fn cancel(&self) {
        for token in self.running.borrow_mut().drain(..) {
            token.cancel();
        }
    }

    /// Ranks the datasources for `question` as `roles`, with no model call.
    pub async fn route(&self, question: &str, roles: &[String]) -> Result<Routing, EmbedError> {
        self.workspace().route(question, roles).await
    }

    /// What the planner would be sent from `datasource` for `question` (search forced).
    pub async fn retrieve(
        &self,
        question: &str,
        datasource: &str,
        roles: &[String],
    ) -> Result<Retrieval, EmbedError> {
        self.workspace().retrieve(question, datasource, roles).await
    }

    /// SQL mode: import, validate for `roles`, render and run on `datasource`.
    pub async fn sql(
        &self,
        datasource: &str,
        sql: &str,
        roles: &[String],
        settings: &ValidatorSettings,
    ) -> SqlRun {
        self.workspace().sql(datasource, sql, roles, settings).await
    }

    /// One tiny call to the configured provider and model.
    pub async fn test_connection(provider: &ProviderConfig) -> Result<Probe, ChatError> {
        let transport = FetchTransport::default();
        probe(&provider.provider(), provider.model.trim(), &transport).await
    }
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
    };
    Ok(Opening {
        profile,
        datasource: Rc::new(db),
        read_ahead: file.read_ahead,
    })
}
