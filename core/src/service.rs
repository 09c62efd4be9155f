//! The one facade every front end uses — the command line, the page, the npm package, the
//! HTTP server and MCP: a workspace, the provider and run configuration, runs in flight (so
//! cancel reaches them), ask, SQL mode, routing and retrieval, the datasources as a role sees
//! them, feedback and verified queries, and a connection test.
//!
//! A front end brings a [`Host`] (HTTP, the clock, a scratch database, a way to wait) and
//! says how to open its databases; everything else — which settings a run gets, the row cap
//! SQL mode uses, which datasource SQL mode defaults to, how a connection test's failure is
//! coded — is decided here once.

use crate::config::{engine_settings, ProviderConfig, RunConfig};
use crate::curated::{Curated, VerifiedQuery};
use crate::engine::{
    Agent, AnswerMode, CancelToken, EngineSettings, Events, QueryResult, Replay, Sleep, TraceForm,
    Writer,
};
pub use crate::engine::{Hooks, Question};
use crate::error::RunWarning;
use crate::error::{Error, ErrorCode};
use crate::feedback::{FeedbackBook, Given, Proposal, Recorded};
use crate::http::{HttpTransport, Offline};
use crate::index::{render, Clock, Embedder, EntryKind, Retrieval, Routing};
use crate::plan_cache::PlanCache;
use crate::policy::Policies;
use crate::provider::chat::{ChatError, PriceTable};
use crate::provider::probe::{probe, Probe};
use crate::provider::{ApiKey, Provider, Wire};
pub use crate::run::{sql_mode, verified_sql, SqlQuery, SqlRun, SqlStatus, Statement};
use crate::schema::SchemaSnapshot;
use crate::scratch::Scratch;
use crate::validate::ValidatorSettings;
use crate::workspace::World;
pub use crate::workspace::{
    read_source, valid_id, Catalogue, CatalogueEntry, Opening, ReadSource, Source, Unavailable,
    Workspace, CATALOGUE_FORMAT,
};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// What a front end lends the runs: the outside world, behind small traits.
pub trait Host {
    /// HTTP for one run; it must abort what is in flight as soon as `cancel` fires.
    fn transport(&self, cancel: &CancelToken) -> Box<dyn HttpTransport>;
    /// Milliseconds.
    fn clock(&self) -> &dyn Clock;
    /// A fresh database to combine one run's sub-results in; `None`: questions across
    /// datasources are refused.
    fn scratch(&self) -> Option<Box<dyn Scratch>>;
    /// Waits between retries of a rate-limited call; `None`: no retry waits.
    fn sleep(&self) -> Option<&dyn Sleep>;
}

/// One run, ready to go and cancellable from the moment [`Service::request`] made it: a
/// [`Service::cancel`] in the same tick, before the run has even started, stops it.
pub struct Ask {
    question: Question,
    settings: EngineSettings,
    /// The prices in force when the run was requested (none: the published table).
    prices: Option<PriceTable>,
    replay: Option<Replay>,
    cancel: CancelToken,
}

impl Ask {
    /// Cancels this run alone (keep a clone before handing the `Ask` to [`Service::ask`]);
    /// [`Service::cancel`] stops every run.
    pub fn canceller(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// Ties this run to `flag`: setting it (from any thread) cancels the run, as
    /// [`CancelToken::tie`] says.
    pub fn cancelled_by(self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Ask {
        self.cancel.tie(flag);
        self
    }

    /// True when every model answer comes from a recording.
    pub fn is_replay(&self) -> bool {
        self.replay.is_some()
    }
}

/// A datasource as a front end lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DatasourceInfo {
    /// Its id.
    pub id: String,
    /// What it holds, in plain words.
    pub description: String,
    /// Its schema as read.
    pub schema: SchemaSnapshot,
}

impl DatasourceInfo {
    /// This datasource as `roles` may see it: only the tables they may read, and no key
    /// that points at another (none when they may reach none of it).
    pub fn seen_by(&self, policies: &Policies, roles: &[String]) -> Option<DatasourceInfo> {
        let scope = policies.scope(roles);
        if !scope.can_reach(&self.id) {
            return None;
        }
        let mut seen = self.clone();
        seen.schema
            .tables
            .retain(|t| scope.can_read(&self.id, &t.name));
        let kept: Vec<String> = seen.schema.tables.iter().map(|t| t.name.clone()).collect();
        for t in &mut seen.schema.tables {
            t.foreign_keys.retain(|k| {
                kept.iter()
                    .any(|n| n.eq_ignore_ascii_case(&k.referenced_table))
            });
        }
        Some(seen)
    }
}

/// What the schema index holds: how many entries of each kind, and the embedder that built
/// it (`nl2sql index`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexSummary {
    /// The embedder and its settings, e.g. `builtin-v1-512`.
    pub embedder: String,
    /// Entries by kind.
    pub entries: IndexEntries,
}

/// The schema index's entries by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct IndexEntries {
    /// Datasource descriptions.
    pub datasource: usize,
    /// Example questions.
    pub example: usize,
    /// Verified queries' phrasings.
    pub verified: usize,
    /// Tables.
    pub table: usize,
    /// Columns.
    pub column: usize,
    /// Distinct text values.
    pub value: usize,
}

/// The engine as a front end holds it.
pub struct Service<H: Host> {
    host: H,
    /// Replaced whole on add and remove (and when the embedder changes), so a run keeps the catalogue it started with.
    workspace: RefCell<Rc<Workspace>>,
    provider: RefCell<ProviderConfig>,
    run: RefCell<RunConfig>,
    /// The runs in flight, so [`Service::cancel`] can stop them.
    running: RefCell<Vec<CancelToken>>,
    /// Plans that validated and ran, reused while the run configuration's `plan_cache` is on.
    plans: RefCell<PlanCache>,
}

impl<H: Host> Service<H> {
    /// The facade over `workspace`, asking with `provider` under `run`.
    pub fn new(host: H, workspace: Workspace, provider: ProviderConfig, run: RunConfig) -> Self {
        Service {
            host,
            workspace: RefCell::new(Rc::new(workspace)),
            provider: RefCell::new(provider),
            run: RefCell::new(run),
            running: RefCell::new(Vec::new()),
            plans: RefCell::new(PlanCache::default()),
        }
    }

    /// What the front end lent.
    pub fn host(&self) -> &H {
        &self.host
    }

    /// The catalogue as it is now.
    pub fn workspace(&self) -> Rc<Workspace> {
        Rc::clone(&self.workspace.borrow())
    }

    /// The provider configuration in force.
    pub fn provider(&self) -> ProviderConfig {
        self.provider.borrow().clone()
    }

    /// Replaces the provider and/or the run configuration (each only when given); runs
    /// already requested keep theirs.
    pub fn configure(&self, provider: Option<ProviderConfig>, run: Option<RunConfig>) {
        if let Some(p) = provider {
            *self.provider.borrow_mut() = p;
        }
        if let Some(r) = run {
            *self.run.borrow_mut() = r;
        }
    }

    /// A run of `question` with the configuration in force, registered for cancel at once.
    /// Fails (CONFIG_INVALID) when the configuration cannot be used; nothing is registered
    /// then.
    pub fn request(&self, question: Question) -> Result<Ask, Error> {
        let settings = engine_settings(&self.provider.borrow(), &self.run.borrow())?;
        Ok(self.register(question, settings, None))
    }

    /// A recorded run asked again, every model answer taken from `recorded`: no request
    /// leaves the machine, and the result says where the prompts differed.
    pub fn replaying(&self, recorded: &QueryResult) -> Ask {
        // The model is never asked; the agent only names what the recording answers for.
        let agent = Agent::new(
            Provider::new(Wire::OpenAi, "http://replay.invalid/v1", ApiKey::default()),
            "replay",
        );
        let mut settings = EngineSettings::new(agent.clone());
        if recorded.final_answer.as_ref().map(|a| a.written_by) == Some(Writer::Llm) {
            settings.answer = AnswerMode::Llm(agent);
        }
        let question = Question {
            question: recorded.question.clone(),
            roles: recorded.roles.clone(),
            datasource: recorded.datasource.clone(),
            plan_only: recorded.plan_only,
            trace: TraceForm::Full,
            thread: None,
        };
        self.register(question, settings, Some(Replay::from_result(recorded)))
    }

    fn register(
        &self,
        question: Question,
        settings: EngineSettings,
        replay: Option<Replay>,
    ) -> Ask {
        let cancel = CancelToken::new();
        let mut running = self.running.borrow_mut();
        // A request dropped without being asked leaves its token here alone: forget it.
        running.retain(CancelToken::is_shared);
        running.push(cancel.clone());
        Ask {
            question,
            settings,
            prices: self.run.borrow().prices.clone(),
            replay,
            cancel,
        }
    }

    /// Runs `ask` through the pipeline, `events` hearing it as it goes. Never fails:
    /// problems are in the result.
    pub async fn ask(&self, ask: Ask, events: Option<Events>) -> QueryResult {
        let workspace = self.workspace();
        let transport: Box<dyn HttpTransport> = match ask.replay {
            Some(_) => Box::new(Offline),
            None => self.host.transport(&ask.cancel),
        };
        let scratch = self.host.scratch();
        let world = World {
            transport: transport.as_ref(),
            clock: self.host.clock(),
            scratch: scratch.as_deref(),
            sleep: self.host.sleep(),
        };
        let mut engine = workspace
            .engine(world, ask.settings)
            .caching_plans(&self.plans);
        if let Some(prices) = ask.prices {
            engine = engine.with_prices(prices);
        }
        if let Some(replay) = &ask.replay {
            engine = engine.replaying(replay);
        }
        let hooks = Hooks {
            cancel: Some(ask.cancel.clone()),
            events,
        };
        let result = engine.ask(&ask.question, hooks).await;
        self.running.borrow_mut().retain(|t| *t != ask.cancel);
        result
    }

    /// Records Right or Wrong on an answer in `book` ("Right" proposes a verified query
    /// from it, on the schema of the datasource that answered).
    pub fn feedback(&self, book: &mut FeedbackBook, given: Given<'_>) -> Recorded {
        let workspace = self.workspace();
        let schema = given
            .answered
            .datasource
            .and_then(|d| workspace.source(d))
            .map(|s| &s.schema);
        book.record(given, schema)
    }

    /// What a caller with `roles` may do with proposals: approve, edit, delete, or none.
    pub fn may_approve(&self, roles: &[String]) -> bool {
        self.workspace().policies().scope(roles).may_approve()
    }

    /// Approves proposal `id` of `datasource` in `book` for a caller with `roles` (who must
    /// approve), and puts the book's approved queries in force.
    pub async fn approve(
        &self,
        book: &mut FeedbackBook,
        (datasource, id): (&str, &str),
        roles: &[String],
        (by, at): (&str, &str),
    ) -> Result<Proposal, Error> {
        let workspace = self.workspace();
        let scope = workspace.policies().scope(roles);
        let approved = book.approve(datasource, id, &scope, by, at)?;
        self.use_approved(book).await?;
        Ok(approved)
    }

    /// Replaces proposal `id`'s query in `book` (checked against its datasource's schema)
    /// for a caller with `roles`, and puts the book's approved queries in force.
    pub async fn edit_proposal(
        &self,
        book: &mut FeedbackBook,
        (datasource, id): (&str, &str),
        query: VerifiedQuery,
        roles: &[String],
    ) -> Result<Proposal, Error> {
        let workspace = self.workspace();
        let scope = workspace.policies().scope(roles);
        let schema = &workspace
            .source(datasource)
            .ok_or_else(|| Error::no_datasource(datasource))?
            .schema;
        let edited = book.edit(datasource, id, query, &scope, schema)?;
        self.use_approved(book).await?;
        Ok(edited)
    }

    /// Deletes proposal `id` from `book` for a caller with `roles`, and puts the book's
    /// approved queries in force.
    pub async fn delete_proposal(
        &self,
        book: &mut FeedbackBook,
        (datasource, id): (&str, &str),
        roles: &[String],
    ) -> Result<(), Error> {
        let workspace = self.workspace();
        let scope = workspace.policies().scope(roles);
        book.delete(datasource, id, &scope)?;
        self.use_approved(book).await
    }

    /// Puts `book`'s approved queries in force beside the declared ones (the curated
    /// matcher answers with them from the next question on).
    pub async fn use_approved(&self, book: &FeedbackBook) -> Result<(), Error> {
        self.use_verified(book.approved()).await
    }

    /// Puts `approved` (verified queries approved from feedback) in force beside the
    /// declared ones, replacing those put in force before.
    pub async fn use_verified(&self, approved: Curated) -> Result<(), Error> {
        let next = self.workspace().with_approved(approved).await?;
        *self.workspace.borrow_mut() = Rc::new(next);
        Ok(())
    }

    /// Forgets every cached plan (the next question of each kind is planned again).
    pub fn clear_plan_cache(&self) {
        self.plans.borrow_mut().clear();
    }

    /// Plans the cache holds.
    pub fn cached_plans(&self) -> usize {
        self.plans.borrow().len()
    }

    /// Stops every run in flight at once: model calls are aborted, nothing else starts.
    pub fn cancel(&self) {
        // Taken out first: a token's hooks run outside the borrow.
        let tokens = std::mem::take(&mut *self.running.borrow_mut());
        for token in tokens {
            token.cancel();
        }
    }

    /// SQL mode ([`crate::run::sql_mode`]) under the run configuration's row cap and time
    /// limit, on the datasource named, else the first the roles may reach.
    pub async fn query(&self, query: &SqlQuery) -> SqlRun {
        let mut settings = ValidatorSettings::default();
        settings.lower.row_cap = self.run.borrow().row_cap;
        settings.query_timeout_ms = Some(self.run.borrow().query_timeout_ms);
        self.workspace().sql(query, &settings).await
    }

    /// [`Service::query`] for SQL to run on `datasource` (none: the first `roles` reach).
    pub async fn sql(&self, sql: &str, datasource: Option<&str>, roles: &[String]) -> SqlRun {
        self.query(&SqlQuery {
            datasource: datasource.map(str::to_string),
            roles: roles.to_vec(),
            ..SqlQuery::sql(sql)
        })
        .await
    }

    /// Ranks the datasources `roles` may reach for `question`, with no model call.
    pub async fn route(&self, question: &str, roles: &[String]) -> Result<Routing, Error> {
        self.workspace().route(question, roles).await
    }

    /// What the planner would be sent from `datasource` for `question` (search forced).
    pub async fn retrieve(
        &self,
        question: &str,
        datasource: &str,
        roles: &[String],
    ) -> Result<Retrieval, Error> {
        self.retrieval(question, datasource, roles, true).await
    }

    /// What the planner would be sent from `datasource` for `question`; `force_search`
    /// runs the search even where the whole schema would fit.
    pub async fn retrieval(
        &self,
        question: &str,
        datasource: &str,
        roles: &[String],
        force_search: bool,
    ) -> Result<Retrieval, Error> {
        self.workspace()
            .retrieve(question, datasource, roles, force_search)
            .await
    }

    /// The datasources `roles` may reach, as they may see them ([`DatasourceInfo::seen_by`]).
    pub fn datasources_for(&self, roles: &[String]) -> Vec<DatasourceInfo> {
        let workspace = self.workspace();
        self.datasources()
            .iter()
            .filter_map(|d| d.seen_by(workspace.policies(), roles))
            .collect()
    }

    /// Who may read what.
    pub fn policies(&self) -> Policies {
        self.workspace().policies().clone()
    }

    /// What was dropped or is incomplete in the set-up, each naming what and why: all of
    /// them, for the project's owner (a run's result carries those its caller may read).
    pub fn notices(&self) -> Vec<RunWarning> {
        let workspace = self.workspace();
        workspace
            .notices()
            .iter()
            .map(|n| n.warning.clone())
            .collect()
    }

    /// What the schema index holds.
    pub fn index_summary(&self) -> IndexSummary {
        let workspace = self.workspace();
        let index = workspace.index();
        let count = |k: EntryKind| index.entries().iter().filter(|e| e.kind == k).count();
        IndexSummary {
            embedder: index.embedder().to_string(),
            entries: IndexEntries {
                datasource: count(EntryKind::Datasource),
                example: count(EntryKind::Example),
                verified: count(EntryKind::Verified),
                table: count(EntryKind::Table),
                column: count(EntryKind::Column),
                value: index.values().len(),
            },
        }
    }

    /// `retrieval` of `datasource` as the planner's prompt shows it (none: no such
    /// datasource).
    pub fn retrieval_text(&self, datasource: &str, retrieval: &Retrieval) -> Option<String> {
        let workspace = self.workspace();
        let schema = workspace.index().schema(datasource)?;
        Some(render(schema, retrieval))
    }

    /// The datasources with their schemas, in the order they were added.
    pub fn datasources(&self) -> Vec<DatasourceInfo> {
        self.workspace()
            .sources()
            .iter()
            .map(|s| DatasourceInfo {
                id: s.profile.id.clone(),
                description: s.profile.description.clone(),
                schema: s.schema.clone(),
            })
            .collect()
    }

    /// Reads and indexes one more datasource; routable as soon as this returns.
    pub async fn add(&self, opening: Opening) -> Result<(), Error> {
        let source = self.workspace().read_new(opening).await?;
        // Built on the workspace as it is once the read is done, not as it was before it:
        // what changed meanwhile (the page blending in the semantic embedder, feedback
        // approved) is kept.
        let next = self.workspace().with_read(source).await?;
        *self.workspace.borrow_mut() = Rc::new(next);
        Ok(())
    }

    /// Indexes every datasource with `embedder` from now on (a run already started keeps
    /// the index it began with).
    pub async fn use_embedder(&self, embedder: Rc<dyn Embedder>) -> Result<(), Error> {
        let next = self.workspace().with_embedder(embedder).await?;
        *self.workspace.borrow_mut() = Rc::new(next);
        Ok(())
    }

    /// Removes datasource `id`.
    pub async fn remove(&self, id: &str) -> Result<(), Error> {
        let next = self.workspace().without(id).await?;
        *self.workspace.borrow_mut() = Rc::new(next);
        Ok(())
    }

    /// One tiny call to the configured provider and model.
    pub async fn test_connection(&self) -> Result<Probe, Error> {
        let transport = self.host.transport(&CancelToken::new());
        test_connection(&self.provider(), transport.as_ref()).await
    }
}

/// One tiny call to `provider`'s model over `transport`, its failure coded as the facade
/// codes it (for a front end that has no [`Service`] yet, such as a page still loading).
pub async fn test_connection(
    provider: &ProviderConfig,
    transport: &dyn HttpTransport,
) -> Result<Probe, Error> {
    provider.check()?;
    probe(&provider.provider(), provider.model.trim(), transport)
        .await
        .map_err(|e| match e {
            ChatError::Provider(f) => Error::from(f),
            other => Error::new(ErrorCode::ProviderUnavailable, other.to_string()),
        })
}
