//! A workspace: the datasources a front end offers, read once (schema, text values) and
//! indexed, with the policy and the verified queries. Every front end (the playground, the
//! npm package, tests) asks, routes and checks SQL through one.
//!
//! A workspace never changes: adding or removing a datasource builds a new one from the
//! parts already read, so a run that started keeps the catalogue it started with.

#[cfg(feature = "internals")]
pub use crate::catalog::Audience;
pub use crate::catalog::{Notice, Unavailable};
use crate::catalog::{Catalog, Entry};
use crate::curated::Curated;
use crate::datasource::Datasource;
use crate::introspect::Metadata;
use crate::engine::{Engine, EngineSettings, Parts, Sleep};
use crate::error::{Error, ErrorCode, Node, RunWarning};
use crate::http::HttpTransport;
use crate::index::{
    retrieve, route, Clock, DatasourceProfile, Embedder, Retrieval, RetrieveSettings,
    RouteSettings, Routing, SchemaIndex, ValueIndex,
};
use crate::policy::Policies;
use crate::run::{sql_mode, SqlQuery, SqlRun};
use crate::schema::SchemaSnapshot;
use crate::scratch::Scratch;
use crate::validate::ValidatorSettings;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::rc::Rc;

/// Distinct text values read per column for value linking.
pub const VALUE_CAP: usize = 5_000;

/// What reading a datasource gives: its schema (with statistics) and its text columns'
/// distinct values. Reading is most of the time a page takes to get ready, so it can be
/// done ahead of time and shipped as a [`Catalogue`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadSource {
    /// The schema as introspected.
    pub schema: SchemaSnapshot,
    /// `(table, column, values)` for every text column, as [`ValueIndex::read`] gives them.
    pub values: Vec<(String, String, Vec<String>)>,
}

/// The format of [`Catalogue`]; a catalogue of another format is ignored.
pub const CATALOGUE_FORMAT: u32 = 1;

/// Datasources read ahead of time (`nl2sql catalogue`), each tied to the SHA-256 of the
/// exact file it was read from, so a page uses an entry only for those very bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Catalogue {
    /// [`CATALOGUE_FORMAT`] when written.
    pub format: u32,
    /// Per datasource id.
    pub sources: std::collections::BTreeMap<String, CatalogueEntry>,
}

/// One datasource read ahead of time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogueEntry {
    /// Lower-case hex SHA-256 of the database file.
    pub sha256: String,
    /// What reading it gave.
    pub read: ReadSource,
}

impl Catalogue {
    /// What reading `id` gave, when this catalogue has it for a file with `sha256`.
    pub fn lookup(&self, id: &str, sha256: &str) -> Option<&ReadSource> {
        if self.format != CATALOGUE_FORMAT {
            return None;
        }
        self.sources
            .get(id)
            .filter(|e| e.sha256.eq_ignore_ascii_case(sha256))
            .map(|e| &e.read)
    }
}

/// Reads a datasource: schema, statistics and text values. Refuses one with no tables.
pub async fn read_source(id: &str, datasource: &dyn Datasource) -> Result<ReadSource, Error> {
    let unreadable = |e: &dyn fmt::Display| {
        Error::new(
            ErrorCode::DatasourceUnreadable,
            format!("{id} could not be read: {e}"),
        )
    };
    let mut schema = datasource.introspect().await.map_err(|e| unreadable(&e))?;
    if schema.tables.is_empty() {
        return Err(Error::new(
            ErrorCode::DatasourceEmpty,
            format!("{id} has no tables, so there is nothing to ask about"),
        ));
    }
    let values = ValueIndex::read(datasource, &mut schema, VALUE_CAP)
        .await
        .map_err(|e| unreadable(&e))?;
    Ok(ReadSource { schema, values })
}

/// One datasource, read.
pub struct Source {
    /// How routing describes it.
    pub profile: DatasourceProfile,
    /// The open database.
    pub datasource: Rc<dyn Datasource>,
    /// Its schema as read when it was added.
    pub schema: SchemaSnapshot,
    /// Its text columns' distinct values, as [`ValueIndex::read`] returns them.
    values: Vec<(String, String, Vec<String>)>,
    /// The relationships its notes declare or reject that could not be applied, and why.
    dropped: Vec<String>,
}

/// The outside world a run needs: HTTP, the clock, and optionally a scratch database (for
/// questions across datasources) and a way to wait (for backoff).
#[derive(Clone, Copy)]
pub struct World<'a> {
    /// HTTP to the model providers.
    pub transport: &'a dyn HttpTransport,
    /// Milliseconds.
    pub clock: &'a dyn Clock,
    /// Where sub-results are combined.
    pub scratch: Option<&'a dyn Scratch>,
    /// Waits between retries of a rate-limited call.
    pub sleep: Option<&'a dyn Sleep>,
}

/// Datasources, read and indexed, with who may read what.
pub struct Workspace {
    sources: Vec<Rc<Source>>,
    index: SchemaIndex,
    embedder: Rc<dyn Embedder>,
    policies: Policies,
    /// Every declared verified query, also of datasources not (or no longer) present.
    declared: Curated,
    /// Verified queries approved from feedback (a declared query with the same id wins).
    approved: Curated,
    /// The declared and approved queries of the datasources present, checked against their
    /// schemas.
    curated: Curated,
    /// What was dropped or is incomplete, each with who may be told it.
    notices: Vec<Notice>,
    /// The datasources left out: they could not be opened or read.
    unavailable: Vec<Unavailable>,
}

impl Workspace {
    /// Reads every datasource (schema, values; unless read ahead) and indexes them; the
    /// first that cannot be read is the error. Verified queries of datasources not given
    /// are kept aside until one with that id is added.
    pub async fn open(
        datasources: Vec<Opening>,
        policies: Policies,
        declared: Curated,
        embedder: Rc<dyn Embedder>,
    ) -> Result<Workspace, Error> {
        let workspace =
            Workspace::open_isolated(datasources, Vec::new(), policies, declared, embedder)
                .await?;
        match workspace.unavailable.first() {
            Some(u) => Err(Error::new(u.code, u.reason.clone())),
            None => Ok(workspace),
        }
    }

    /// [`Workspace::open`], a datasource that cannot be read left out alone (beside
    /// `unavailable`, those that could not even be opened), so one bad database never
    /// stops the others. Fails only for what concerns them all: an id that is not a plain
    /// name or is given twice, or an index that cannot be built.
    pub async fn open_isolated(
        datasources: Vec<Opening>,
        mut unavailable: Vec<Unavailable>,
        policies: Policies,
        declared: Curated,
        embedder: Rc<dyn Embedder>,
    ) -> Result<Workspace, Error> {
        let mut sources = Vec::with_capacity(datasources.len());
        for opening in datasources {
            let id = opening.profile.id.clone();
            check_id(&id, &sources)?;
            if unavailable.iter().any(|u| u.id == id) {
                return Err(taken(&id));
            }
            match opening.read().await {
                Ok(source) => sources.push(Rc::new(source)),
                Err(e) => unavailable.push(Unavailable::new(&id, &e)),
            }
        }
        let parts = (sources, unavailable);
        Workspace::build(parts, policies, (declared, Curated::default()), embedder).await
    }

    /// This workspace with `approved` (verified queries approved from feedback) in force
    /// beside the declared ones, replacing those approved before.
    pub async fn with_approved(&self, approved: Curated) -> Result<Workspace, Error> {
        Workspace::build(
            (self.sources.clone(), self.unavailable.clone()),
            self.policies.clone(),
            (self.declared.clone(), approved),
            Rc::clone(&self.embedder),
        )
        .await
    }

    /// This workspace indexed by `embedder` instead: the page starts with the lexical
    /// embedder and blends in the semantic one once its weights have arrived.
    pub async fn with_embedder(&self, embedder: Rc<dyn Embedder>) -> Result<Workspace, Error> {
        Workspace::build(
            (self.sources.clone(), self.unavailable.clone()),
            self.policies.clone(),
            (self.declared.clone(), self.approved.clone()),
            embedder,
        )
        .await
    }

    /// This workspace with one more datasource, read and indexed (one left out before
    /// comes back this way).
    pub async fn with_source(&self, opening: Opening) -> Result<Workspace, Error> {
        let source = self.read_new(opening).await?;
        self.with_read(source).await
    }

    /// Reads `opening`, whose id must be new here: the slow half of
    /// [`Workspace::with_source`], after which the caller may build on a newer workspace.
    pub async fn read_new(&self, opening: Opening) -> Result<Source, Error> {
        check_id(&opening.profile.id, &self.sources)?;
        opening.read().await
    }

    /// This workspace with `source` (from [`Workspace::read_new`]) added and indexed.
    pub async fn with_read(&self, source: Source) -> Result<Workspace, Error> {
        check_id(&source.profile.id, &self.sources)?;
        let mut sources = self.sources.clone();
        sources.push(Rc::new(source));
        self.rebuilt((sources, self.unavailable.clone())).await
    }

    /// This workspace without datasource `id` (read or left out).
    pub async fn without(&self, id: &str) -> Result<Workspace, Error> {
        let present = |wanted: &str| wanted == id;
        if !self.sources.iter().any(|s| present(&s.profile.id))
            && !self.unavailable.iter().any(|u| present(&u.id))
        {
            return Err(Error::no_datasource(id));
        }
        let sources = self
            .sources
            .iter()
            .filter(|s| s.profile.id != id)
            .cloned()
            .collect();
        let unavailable = self.unavailable.iter().filter(|u| u.id != id);
        self.rebuilt((sources, unavailable.cloned().collect())).await
    }

    async fn rebuilt(
        &self,
        (sources, unavailable): (Vec<Rc<Source>>, Vec<Unavailable>),
    ) -> Result<Workspace, Error> {
        // A datasource read now is no longer left out.
        let unavailable = unavailable
            .into_iter()
            .filter(|u| !sources.iter().any(|s| s.profile.id == u.id))
            .collect();
        Workspace::build(
            (sources, unavailable),
            self.policies.clone(),
            (self.declared.clone(), self.approved.clone()),
            Rc::clone(&self.embedder),
        )
        .await
    }

    async fn build(
        (sources, unavailable): (Vec<Rc<Source>>, Vec<Unavailable>),
        policies: Policies,
        (declared, approved): (Curated, Curated),
        embedder: Rc<dyn Embedder>,
    ) -> Result<Workspace, Error> {
        let mut values = ValueIndex::default();
        for s in &sources {
            values.add(&s.profile.id, s.values.clone());
        }
        let schemas: Vec<&SchemaSnapshot> = sources.iter().map(|s| &s.schema).collect();
        let all = crate::feedback::merged(&declared, &approved);
        let present = Curated {
            datasources: all
                .datasources
                .iter()
                .filter(|(id, _)| sources.iter().any(|s| &s.profile.id == *id))
                .map(|(id, queries)| (id.clone(), queries.clone()))
                .collect(),
        };
        // A declared query that no longer fits its schema is dropped alone, and every run
        // says which and why; the engine plans those questions like any other.
        let (curated, dropped) = present.fitting(&schemas);
        // The approved queries in force (those a declared one does not shadow) join the
        // routing signal like the declared ones, whose phrasings the profiles carry.
        let profiles: Vec<(DatasourceProfile, SchemaSnapshot)> = sources
            .iter()
            .map(|s| {
                let id = &s.profile.id;
                let mut profile = s.profile.clone();
                let approved_here =
                    |q: &str| declared.query(id, q).is_none() && approved.query(id, q).is_some();
                profile.verified.extend(
                    curated
                        .phrases(id)
                        .into_iter()
                        .filter(|p| approved_here(&p.query_id)),
                );
                (profile, s.schema.clone())
            })
            .collect();
        let index = SchemaIndex::build(&profiles, values, embedder.as_ref())
            .await
            .map_err(|e| Error {
                message: format!("building the index: {e}"),
                ..e.with_code(ErrorCode::IndexBuildFailed)
            })?;
        // Each is said to those who may read what it names (see `Notice`).
        let mut notices: Vec<Notice> = dropped
            .into_iter()
            .map(|(id, why)| {
                let said = format!("A verified query was dropped: {why}.");
                let warning = RunWarning::new(Node::CuratedMatcher, ErrorCode::ConfigInvalid, said);
                Notice::whole(&id, warning)
            })
            .collect();
        for s in &sources {
            let id = &s.profile.id;
            // A table whose statistics or values ran past the read limit is kept, and said.
            for t in &s.schema.tables {
                if let Some(why) = &t.unread {
                    let said = format!("Table {} of {id}: {why}.", t.name);
                    let warning =
                        RunWarning::new(Node::SchemaRetriever, ErrorCode::StatisticsIncomplete, said);
                    notices.push(Notice::table(id, &t.name, warning));
                }
            }
            // A schema listed to be read that shows nothing is said, not silently empty.
            let listed = s.datasource.schemas().unwrap_or_default();
            notices.extend(s.schema.schemas_without_tables(listed).map(|schema| {
                let said = format!(
                    "Schema {schema} of {id}, listed in its schemas, holds no table it may read."
                );
                let warning = RunWarning::new(Node::SchemaRetriever, ErrorCode::ConfigInvalid, said);
                Notice::whole(id, warning)
            }));
            // Relationships that cannot be applied are left out alone, and said.
            notices.extend(s.dropped.iter().map(|why| {
                let said = format!("A relationship was dropped: {why}.");
                let warning = RunWarning::new(Node::SchemaRetriever, ErrorCode::ConfigInvalid, said);
                Notice::whole(id, warning)
            }));
        }
        // Notes about what a schema does not have are left out alone, and said.
        notices.extend(index.dropped_notes().iter().map(|(id, why)| {
            let said = format!("A note was dropped: {why}.");
            let warning = RunWarning::new(Node::SchemaRetriever, ErrorCode::ConfigInvalid, said);
            Notice::whole(id, warning)
        }));
        Ok(Workspace {
            sources,
            index,
            embedder,
            policies,
            declared,
            approved,
            curated,
            notices,
            unavailable,
        })
    }

    /// The datasources left out, each with its code and reason.
    pub fn unavailable(&self) -> &[Unavailable] {
        &self.unavailable
    }

    /// The datasources, in the order they were added.
    pub fn sources(&self) -> &[Rc<Source>] {
        &self.sources
    }

    /// The datasource `id`.
    pub fn source(&self, id: &str) -> Option<&Source> {
        self.sources
            .iter()
            .find(|s| s.profile.id == id)
            .map(Rc::as_ref)
    }

    /// The index over every datasource.
    pub fn index(&self) -> &SchemaIndex {
        &self.index
    }

    /// Who may read what.
    pub fn policies(&self) -> &Policies {
        &self.policies
    }

    /// Every declared verified query, also of datasources not present.
    pub fn declared(&self) -> &Curated {
        &self.declared
    }

    /// The verified queries in force.
    pub fn curated(&self) -> &Curated {
        &self.curated
    }

    /// What was dropped or is incomplete, each naming what and why, with who may be told
    /// it: every run's result carries those its caller may be told.
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// An engine over this workspace.
    pub fn engine<'a>(&'a self, world: World<'a>, settings: EngineSettings) -> Engine<'a> {
        let engine = Engine::new(
            Parts {
                catalog: Box::new(self),
                transport: world.transport,
                clock: world.clock,
            },
            settings,
        )
        .with_verified(&self.curated);
        let engine = match world.scratch {
            Some(s) => engine.combining_with(s),
            None => engine,
        };
        match world.sleep {
            Some(s) => engine.waiting_with(s),
            None => engine,
        }
    }

    /// Ranks the datasources `roles` may reach for `question`, with no model call.
    pub async fn route(&self, question: &str, roles: &[String]) -> Result<Routing, Error> {
        let scope = self.policies.scope(roles);
        route(
            &self.index,
            self.embedder.as_ref(),
            question,
            &scope,
            &RouteSettings::default(),
        )
        .await
    }

    /// What the planner would be sent from `datasource` for `question` as `roles`;
    /// `force_search` runs the schema search even where the whole schema would fit, so it
    /// can be inspected.
    pub async fn retrieve(
        &self,
        question: &str,
        datasource: &str,
        roles: &[String],
        force_search: bool,
    ) -> Result<Retrieval, Error> {
        let scope = self.policies.scope(roles);
        retrieve(
            &self.index,
            self.embedder.as_ref(),
            datasource,
            question,
            &scope,
            &RetrieveSettings::default(),
            force_search,
        )
        .await
    }

    /// SQL mode ([`sql_mode`]) on the datasource `query` names, else the first its roles
    /// may reach.
    pub async fn sql(&self, query: &SqlQuery, settings: &ValidatorSettings) -> SqlRun {
        let scope = self.policies.scope(&query.roles);
        let id = match &query.datasource {
            Some(id) => id.as_str(),
            None => self
                .ids()
                .into_iter()
                .find(|id| scope.can_reach(id))
                .unwrap_or_default(),
        };
        // Why one is left out is said only to a caller who may reach it.
        let hidden = self.unavailable.iter().any(|u| u.id == id) && !scope.can_reach(id);
        let found = match hidden {
            true => Err(Error::no_datasource(id).at(Node::SqlImport)),
            false => self.require(id, Node::SqlImport),
        };
        match found {
            Ok(source) => {
                sql_mode(source.datasource, source.schema, &self.policies, query, settings).await
            }
            Err(e) => SqlRun::failed(id, query.statement.text(), e),
        }
    }

    /// The datasource ids, in order.
    pub fn ids(&self) -> Vec<&str> {
        self.sources.iter().map(|s| s.profile.id.as_str()).collect()
    }
}

impl Catalog for Workspace {
    fn ids(&self) -> Vec<&str> {
        Workspace::ids(self)
    }

    fn entry(&self, id: &str) -> Option<Entry<'_>> {
        let source = self.source(id)?;
        Some(Entry {
            datasource: source.datasource.as_ref(),
            schema: &source.schema,
            description: &source.profile.description,
        })
    }

    fn index(&self) -> &SchemaIndex {
        &self.index
    }

    fn embedder(&self) -> &dyn Embedder {
        self.embedder.as_ref()
    }

    fn policies(&self) -> &Policies {
        &self.policies
    }

    fn unavailable(&self) -> &[Unavailable] {
        &self.unavailable
    }

    fn notices(&self) -> &[Notice] {
        &self.notices
    }
}

/// What a datasource id may be: 1 to 64 letters, digits, `_` or `-`.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn check_id(id: &str, sources: &[Rc<Source>]) -> Result<(), Error> {
    if !valid_id(id) {
        return Err(Error::new(
            ErrorCode::DatasourceIdInvalid,
            format!("{id:?} cannot name a datasource: use letters, digits, _ and - only"),
        ));
    }
    if sources.iter().any(|s| s.profile.id == id) {
        return Err(taken(id));
    }
    Ok(())
}

fn taken(id: &str) -> Error {
    Error::new(
        ErrorCode::DatasourceIdTaken,
        format!("there is already a datasource {id:?}"),
    )
}

/// A datasource to add: how routing describes it, the open database, and what reading it
/// gave when that was done ahead of time.
pub struct Opening {
    /// How routing describes it.
    pub profile: DatasourceProfile,
    /// The open database.
    pub datasource: Rc<dyn Datasource>,
    /// Its schema and values, read ahead (checked by the caller to belong to these bytes);
    /// `None`: read now.
    pub read_ahead: Option<ReadSource>,
}

impl Opening {
    async fn read(self) -> Result<Source, Error> {
        let mut read = match self.read_ahead {
            Some(read) => read,
            None => read_source(&self.profile.id, self.datasource.as_ref()).await?,
        };
        // The owner's word on relationships overrides the engine's inference, each alone.
        let dropped = self.profile.notes.apply_relationships(&mut read.schema);
        Ok(Source {
            profile: self.profile,
            datasource: self.datasource,
            schema: read.schema,
            values: read.values,
            dropped,
        })
    }
}
