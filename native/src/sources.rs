//! Where a command's databases come from: a project file (`--config`, or `./nl2sql.toml`
//! when it exists), one database a person names with `--db` (and perhaps `--id`): a SQLite
//! file, a PostgreSQL or a MySQL or MariaDB server — or else the demo folder (`--data`).
//! DuckDB files open too. Addresses of engines without an adapter yet are refused by name ([`Address::parse`]),
//! so a person learns what is missing rather than that their file "is not a database".

use crate::address::{Address, Engine};
use crate::cache::{cache_path, SchemaCache, CACHE_FORMAT};
use crate::configured::Configured;
use crate::demo::demo_path;
use crate::errors::{unreadable, usage};
use crate::project::{Project, DEFAULT_FILE};
use crate::{Interrupt, MySqlDb, PostgresDb, SqliteFile};
use nl2sql_core::adapter::Metadata;
use nl2sql_core::adapter::SemanticEmbedder;
use nl2sql_core::adapter::{BlendedEmbedder, BuiltinEmbedder, DatasourceProfile, Embedder};
use nl2sql_core::adapter::{Datasource, DatasourceError, SchemaSnapshot};
use nl2sql_core::config::Policies;
use nl2sql_core::demo::{demo_database, demo_profile, DEMO_DATABASES, DEMO_VERIFIED};
use nl2sql_core::error::Error;
use nl2sql_core::feedback::Curated;
use nl2sql_core::service::{read_source, valid_id, Opening, ReadSource, Unavailable, Workspace};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A database opened, with how routing describes it.
pub type Opened = (DatasourceProfile, Rc<dyn Datasource>);

/// How [`Sources::workspace_with`] reads and indexes the databases.
pub struct Reading {
    /// Who may read what.
    pub policies: Policies,
    /// The verified queries in force.
    pub verified: Curated,
    /// What embeds the index's entries.
    pub embedder: Rc<dyn Embedder>,
    /// Reads every database again, past the schema cache (and rewrites it).
    pub fresh: bool,
}

/// A database opened and read.
pub struct Read {
    /// How routing describes it.
    pub profile: DatasourceProfile,
    /// The open database.
    pub datasource: Rc<dyn Datasource>,
    /// Its schema with statistics, and its text values.
    pub read: ReadSource,
}

/// What reading a command's databases gave.
pub struct Readings {
    /// The databases opened and read.
    pub reads: Vec<Read>,
    /// Those left out, each with its code and reason.
    pub unavailable: Vec<Unavailable>,
    /// What was done with the schema cache.
    pub cache: CacheReport,
}

impl Readings {
    /// These readings when at least one database was read (or none was named); else the
    /// first one's failure, since there is nothing to work with.
    pub fn some(self) -> Result<Readings, Error> {
        match (self.reads.is_empty(), self.unavailable.first()) {
            (true, Some(first)) => Err(Error::new(first.code, first.reason.clone())),
            _ => Ok(self),
        }
    }
}

/// The variable that names the semantic embedder's weights where a project file does not.
pub const SEMANTIC_WEIGHTS_VARIABLE: &str = "NL2SQL_SEMANTIC_WEIGHTS";

/// The semantic embedder's weights as `cargo xtask setup` writes them, in the demo data
/// folder.
pub const SEMANTIC_WEIGHTS_FILE: &str = "semantic-wordllama-256.bin";

/// What reading a project's databases did with its schema cache.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheReport {
    /// The cache file, for a project.
    pub path: Option<PathBuf>,
    /// Datasources whose cached read was used.
    pub reused: Vec<String>,
    /// Datasources read from the database.
    pub read: Vec<String>,
    /// Whether the cache file was written.
    pub written: bool,
    /// Why the cache could not be used or written, when it could not (the databases were
    /// read instead; nothing is lost).
    pub problems: Vec<String>,
    /// What of the project's configuration could not be applied to what was read (a
    /// relationship naming a column the table lacks), each left out alone.
    pub dropped: Vec<String>,
}

/// The databases a command reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Sources {
    /// The three demo databases in this folder.
    Demo(PathBuf),
    /// One database of the person's own, under this id.
    One {
        /// Its datasource id: `--id`, else the database's or file's name.
        id: String,
        /// Where it is.
        address: Address,
    },
    /// The datasources a project file names.
    Project(Rc<Project>),
}

impl Sources {
    /// `--db` (with `--id`) when given; else the project file `config` names, or
    /// `./nl2sql.toml` when it exists; else the demo databases in `data`. A project file
    /// that is wrong is a usage error worded as CONFIG_INVALID.
    pub fn new(
        db: Option<&str>,
        id: Option<&str>,
        config: Option<&Path>,
        data: &Path,
    ) -> Result<Sources, Error> {
        let Some(db) = db else {
            if id.is_some() {
                return Err(usage("--id names the database --db opens; give --db too"));
            }
            let file = config.map(Path::to_path_buf).or_else(|| {
                Path::new(DEFAULT_FILE)
                    .is_file()
                    .then(|| DEFAULT_FILE.into())
            });
            return match file {
                Some(file) => Project::load(&file)
                    .map(|p| Sources::Project(Rc::new(p)))
                    .map_err(|e| usage(e.to_string())),
                None => Ok(Sources::Demo(data.to_path_buf())),
            };
        };
        if config.is_some() {
            return Err(usage("--db and --config both name the databases; give one"));
        }
        let address = Address::parse(db).map_err(|e| usage(e.message))?;
        if address.path().is_some_and(|path| !path.is_file()) {
            return Err(unreadable(format!(
                "cannot open {address}: there is no such file (a SQLite file's path is expected)"
            )));
        }
        let id = match id {
            Some(id) if valid_id(id) => id.to_string(),
            Some(id) => {
                return Err(usage(format!(
                    "--id {id:?}: an id is 1 to 64 letters, digits, `_` or `-`"
                )))
            }
            None => safe_id(address.database().unwrap_or_default()),
        };
        Ok(Sources::One { id, address })
    }

    /// The ids, in order.
    pub fn ids(&self) -> Vec<String> {
        match self {
            Sources::Demo(_) => DEMO_DATABASES.iter().map(|d| d.id.to_string()).collect(),
            Sources::One { id, .. } => vec![id.clone()],
            Sources::Project(p) => p.file.datasources.iter().map(|d| d.id.clone()).collect(),
        }
    }

    /// The id `id` names, checked (none: the first database, Chinook among the demo ones);
    /// a demo database's file must be there.
    pub fn id(&self, id: Option<&str>) -> Result<String, Error> {
        match (self, id) {
            (Sources::Demo(data), id) => Ok(demo_path(id.unwrap_or("chinook"), data)?.0),
            (Sources::One { id: own, address }, Some(asked)) if asked != own => Err(usage(
                format!("no datasource {asked:?}: --db opened {address} as {own:?}"),
            )),
            (Sources::One { id, .. }, _) => Ok(id.clone()),
            (Sources::Project(p), asked) => {
                let ids = self.ids();
                match asked {
                    None => ids
                        .first()
                        .cloned()
                        .ok_or_else(|| usage(format!("{} names no datasource", p.path.display()))),
                    Some(asked) if ids.iter().any(|i| i == asked) => Ok(asked.to_string()),
                    Some(asked) => Err(usage(format!(
                        "no datasource {asked:?} in {}: it names {}",
                        p.path.display(),
                        ids.join(", ")
                    ))),
                }
            }
        }
    }

    /// `id` (as [`Sources::id`]) opened read-only.
    pub fn open(&self, id: Option<&str>) -> Result<Rc<dyn Datasource>, Error> {
        self.open_interruptible(id, None)
    }

    /// [`Sources::open`], the database's queries also stopped when `interrupt` is set (a
    /// server's run whose client went away).
    pub fn open_interruptible(
        &self,
        id: Option<&str>,
        interrupt: Option<&Interrupt>,
    ) -> Result<Rc<dyn Datasource>, Error> {
        match self {
            Sources::Demo(data) => {
                let (id, path) = demo_path(id.unwrap_or("chinook"), data)?;
                Ok(Rc::new(open_sqlite(&id, &path, interrupt.cloned())?))
            }
            Sources::One { address, .. } => open_address(&self.id(id)?, address, interrupt, None),
            Sources::Project(project) => {
                let id = self.id(id)?;
                let entry = project
                    .file
                    .datasources
                    .iter()
                    .find(|d| d.id == id)
                    .ok_or_else(|| Error::no_datasource(&id))?;
                let address = project.address(entry).map_err(|e| usage(e.to_string()))?;
                let opened = open_address(&id, &address, interrupt, entry.schemas.as_deref())?;
                Ok(Rc::new(Configured::new(opened, entry).map_err(usage)?))
            }
        }
    }

    /// Every database opened, each with how routing describes it, or left out with why it
    /// could not be opened (each query also stopped when `interrupt` is set).
    pub fn open_each(&self, interrupt: Option<&Interrupt>) -> Vec<Result<Opened, Unavailable>> {
        self.ids()
            .iter()
            .map(|id| match self.open_interruptible(Some(id), interrupt) {
                Ok(datasource) => Ok((self.profile(id), datasource)),
                Err(e) => Err(Unavailable::new(id, &e)),
            })
            .collect()
    }

    /// Datasource `id` opened anew (its queries also stopped when `interrupt` is set) with
    /// what reading it gave: how a server brings back a datasource that was left out.
    pub fn opening(
        &self,
        id: &str,
        interrupt: Option<&Interrupt>,
        read: ReadSource,
    ) -> Result<Opening, Error> {
        Ok(Opening {
            datasource: self.open_interruptible(Some(id), interrupt)?,
            profile: self.profile(id),
            read_ahead: Some(read),
        })
    }

    /// Datasource `id` opened and read now, past the schema cache: how a server tries
    /// again a datasource that was left out.
    pub fn open_read(&self, id: &str) -> Result<Opening, Error> {
        let datasource = self.open(Some(id))?;
        let read = pollster::block_on(read_source(id, datasource.as_ref()))?;
        Ok(Opening {
            profile: self.profile(id),
            datasource,
            read_ahead: Some(read),
        })
    }

    /// How routing describes `id`: a demo database's own words, else its engine and name
    /// (never a file's folders or a server's host, which would reach the model provider in
    /// the prompts).
    pub fn profile(&self, id: &str) -> DatasourceProfile {
        if let Sources::Project(p) = self {
            if let Some(entry) = p.file.datasources.iter().find(|d| d.id == id) {
                let description = if entry.description.trim().is_empty() {
                    p.address(entry).map_or_else(
                        |_| format!("The database {id}."),
                        |a| {
                            format!(
                                "The {} database {}.",
                                a.engine().name(),
                                a.database().unwrap_or(id)
                            )
                        },
                    )
                } else {
                    entry.description.clone()
                };
                return DatasourceProfile {
                    id: id.to_string(),
                    description,
                    examples: entry.examples.clone(),
                    verified: vec![],
                    notes: entry.notes(),
                };
            }
        }
        let description = match (self, demo_database(id)) {
            (Sources::Demo(_), Some(d)) => return demo_profile(d),
            (Sources::One { address, .. }, _) => format!(
                "The {} database {}.",
                address.engine().name(),
                address.database().unwrap_or(id)
            ),
            (Sources::Demo(_), None) | (Sources::Project(_), _) => {
                format!("The database {id}.")
            }
        };
        DatasourceProfile {
            id: id.to_string(),
            description,
            examples: vec![],
            verified: vec![],
            // The demo's notes follow its ids, as its policies do.
            notes: nl2sql_core::demo::demo_notes(id),
        }
    }

    /// Every database opened and read (schema with statistics, text values). A project's
    /// reads come from its schema cache where the database's structure (its fingerprint)
    /// and the datasource's configuration are unchanged; `fresh` reads every database
    /// again. What was read anew is written back when the cache file exists, and always
    /// when `fresh` (which is how `nl2sql index` builds it) — but not a read whose
    /// statistics ran past the time limit, which the next command tries again.
    ///
    /// A database that cannot be opened or read is left out alone, with its code and
    /// reason ([`Readings::unavailable`]); the others are read all the same.
    pub fn read_all(&self, fresh: bool) -> Readings {
        let mut report = CacheReport::default();
        let mut cache = self.load_cache(&mut report);
        let in_use = cache.is_some() || fresh;
        let mut written = false;
        let mut reads = Vec::new();
        let mut unavailable = Vec::new();
        for opened in self.open_each(None) {
            let (profile, datasource) = match opened {
                Ok(opened) => opened,
                Err(left_out) => {
                    unavailable.push(left_out);
                    continue;
                }
            };
            let id = profile.id.clone();
            let cached = match (&cache, fresh) {
                (Some(cache), false) => self.cached(cache, datasource.as_ref()),
                _ => None,
            };
            let read = match cached {
                Some(read) => {
                    report.reused.push(id.clone());
                    read
                }
                None => {
                    let read = match pollster::block_on(read_source(&id, datasource.as_ref())) {
                        Ok(read) => read,
                        Err(e) => {
                            unavailable.push(Unavailable::new(&id, &e));
                            continue;
                        }
                    };
                    report.read.push(id.clone());
                    let whole = read.schema.tables.iter().all(|t| t.unread.is_none());
                    if let (true, true, Some(key)) = (in_use, whole, self.cache_key(&id)) {
                        cache
                            .get_or_insert_with(|| SchemaCache {
                                format: CACHE_FORMAT,
                                ..SchemaCache::default()
                            })
                            .put(&id, key, read.clone());
                        written = true;
                    }
                    read
                }
            };
            reads.push(Read {
                profile,
                datasource,
                read,
            });
        }
        if let (Some(cache), Some(path), true) = (&cache, &report.path, written) {
            match cache.save(path) {
                Ok(()) => report.written = true,
                Err(problem) => report.problems.push(problem.0),
            }
        }
        Readings {
            reads,
            unavailable,
            cache: report,
        }
    }

    /// Datasource `id` (as [`Sources::id`]) opened, with its schema (the cached one when it
    /// still fits, else read now) and what was done with the schema cache.
    pub fn schema(
        &self,
        id: Option<&str>,
    ) -> Result<(Rc<dyn Datasource>, SchemaSnapshot, CacheReport), Error> {
        let datasource = self.open(id)?;
        let mut report = CacheReport::default();
        let cached = self
            .load_cache(&mut report)
            .and_then(|cache| self.cached(&cache, datasource.as_ref()));
        let mut schema = match cached {
            Some(read) => {
                report.reused.push(datasource.id().to_string());
                read.schema
            }
            None => pollster::block_on(datasource.introspect())
                .map_err(|e| unreadable(e.to_string()))?,
        };
        let listed = datasource.schemas().unwrap_or_default();
        for missing in schema.schemas_without_tables(listed) {
            report.dropped.push(format!(
                "schema {missing} of {}, listed in its schemas, holds no table it may read",
                datasource.id()
            ));
        }
        // The project's word on relationships, as a workspace applies it.
        let notes = self.profile(datasource.id()).notes;
        for why in notes.apply_relationships(&mut schema) {
            report
                .dropped
                .push(format!("a relationship was dropped: {why}"));
        }
        Ok((datasource, schema, report))
    }

    /// A project's schema cache, its file named in `report` and any problem reading it
    /// said there; none outside a project or when there is no usable file.
    fn load_cache(&self, report: &mut CacheReport) -> Option<SchemaCache> {
        let Sources::Project(p) = self else {
            return None;
        };
        let path = cache_path(&p.path);
        let loaded = SchemaCache::load(&path);
        report.path = Some(path);
        loaded.unwrap_or_else(|problem| {
            report.problems.push(problem.0);
            None
        })
    }

    /// The cached read of `datasource`, when its configuration and its structure now (only
    /// the fingerprint is read; a failure to read it reads the database) are the cached
    /// read's.
    fn cached(&self, cache: &SchemaCache, datasource: &dyn Datasource) -> Option<ReadSource> {
        let key = self.cache_key(datasource.id())?;
        let now = pollster::block_on(datasource.fingerprint()).ok()?;
        cache.lookup(datasource.id(), &key, &now).cloned()
    }

    /// What a project datasource's cached read depends on besides the database: the
    /// engine, the address in full without its password, the schema list, the table
    /// patterns, the limits and the engine's version (a newer one may read more). `None`
    /// outside a project.
    fn cache_key(&self, id: &str) -> Option<String> {
        let Sources::Project(p) = self else {
            return None;
        };
        let entry = p.file.datasources.iter().find(|d| d.id == id)?;
        let address = p.address(entry).ok()?;
        Some(format!(
            "{} {} schemas={:?} include={:?} exclude={:?} limits={:?} nl2sql={}",
            address.engine().name(),
            address.identity(),
            entry.schemas,
            entry.include,
            entry.exclude,
            entry.limits,
            env!("CARGO_PKG_VERSION")
        ))
    }

    /// Every database read and indexed, with `policies` and the demo's verified queries (a
    /// query of a database not opened is kept aside; one that no longer fits is dropped
    /// with a notice); a project's reads through its schema cache ([`Sources::read_all`]).
    pub fn workspace(&self, policies: Policies) -> Result<Workspace, Error> {
        self.workspace_reporting(policies).map(|(w, _)| w)
    }

    /// [`Sources::workspace`], with what it did with the schema cache.
    pub fn workspace_reporting(
        &self,
        policies: Policies,
    ) -> Result<(Workspace, CacheReport), Error> {
        self.workspace_with(Reading {
            policies,
            verified: self.verified()?,
            embedder: self.embedder()?,
            fresh: false,
        })
    }

    /// The embedder the index is built with: the lexical one, blended with the semantic one
    /// when its weights are found: where the project file's `[index] semantic_weights`
    /// says (relative to it), else where `NL2SQL_SEMANTIC_WEIGHTS` says, else
    /// `semantic-wordllama-256.bin` in the demo data folder (`./data` unless the demo's
    /// own folder is given). Weights named but unreadable are CONFIG_INVALID: routing never
    /// falls back quietly to something other than what was asked for. With none found, the
    /// lexical embedder alone (`semantic_weights = ""` asks for that).
    pub fn embedder(&self) -> Result<Rc<dyn Embedder>, Error> {
        let configured = match self {
            Sources::Project(p) => (p.file.index.semantic_weights.as_ref()).map(|w| {
                // `semantic_weights = ""`: the lexical embedder alone.
                (!w.as_os_str().is_empty())
                    .then(|| p.path.parent().unwrap_or_else(|| Path::new("")).join(w))
            }),
            _ => None,
        };
        let named = configured.or_else(|| {
            std::env::var_os(SEMANTIC_WEIGHTS_VARIABLE)
                .filter(|v| !v.is_empty())
                .map(|v| Some(PathBuf::from(v)))
        });
        let path = match named {
            Some(path) => path,
            None => {
                let data = match self {
                    Sources::Demo(data) => data.clone(),
                    _ => PathBuf::from("data"),
                };
                Some(data.join(SEMANTIC_WEIGHTS_FILE)).filter(|p| p.is_file())
            }
        };
        let Some(path) = path else {
            return Ok(Rc::new(BuiltinEmbedder::default()));
        };
        let bytes = std::fs::read(&path).map_err(|e| {
            Error::config(format!(
                "The semantic embedder's weights {} cannot be read: {e}",
                path.display()
            ))
        })?;
        let semantic = SemanticEmbedder::from_bytes("wordllama", &bytes)?;
        Ok(Rc::new(BlendedEmbedder::new(
            BuiltinEmbedder::default(),
            semantic,
            BlendedEmbedder::SHARE,
        )))
    }

    /// Every database read (`fresh`: past the schema cache, rewriting it) and indexed by
    /// `embedder`, with `policies` and `verified` in force; what was done with the cache.
    /// A database that cannot be opened or read is left out ([`Workspace::unavailable`]),
    /// unless none can be: then the first one's failure is the error.
    pub fn workspace_with(&self, reading: Reading) -> Result<(Workspace, CacheReport), Error> {
        let Readings {
            reads,
            unavailable,
            cache,
        } = self.read_all(reading.fresh).some()?;
        let openings = reads
            .into_iter()
            .map(|r| Opening {
                profile: r.profile,
                datasource: r.datasource,
                read_ahead: Some(r.read),
            })
            .collect();
        let workspace = pollster::block_on(Workspace::open_isolated(
            openings,
            unavailable,
            reading.policies,
            reading.verified,
            reading.embedder,
        ))?;
        Ok((workspace, cache))
    }

    /// A workspace over databases opened afresh (each query also stopped when `interrupt`
    /// is set) with the schemas and values already read in `reads` (by id; a database
    /// without one is read now), those in `left_out` left out unopened: how a server gives
    /// each engine thread its own connections without reading every database once per
    /// thread.
    pub fn workspace_over(
        &self,
        policies: Policies,
        interrupt: Option<&Interrupt>,
        (reads, left_out): (&[(String, ReadSource)], &[Unavailable]),
    ) -> Result<Workspace, Error> {
        let curated = self.verified()?;
        let mut unavailable = left_out.to_vec();
        let mut openings = Vec::new();
        for id in self.ids() {
            if left_out.iter().any(|u| u.id == id) {
                continue;
            }
            let read = reads.iter().find(|(read, _)| *read == id);
            let opened = match read {
                Some((_, read)) => self.opening(&id, interrupt, read.clone()),
                None => self
                    .open_interruptible(Some(&id), interrupt)
                    .map(|datasource| Opening {
                        profile: self.profile(&id),
                        datasource,
                        read_ahead: None,
                    }),
            };
            match opened {
                Ok(opening) => openings.push(opening),
                Err(e) => unavailable.push(Unavailable::new(&id, &e)),
            }
        }
        pollster::block_on(Workspace::open_isolated(
            openings,
            unavailable,
            policies,
            curated,
            self.embedder()?,
        ))
    }

    /// The verified queries in force: the project file's, else the demo's.
    pub fn verified(&self) -> Result<Curated, Error> {
        match self {
            Sources::Project(p) => Ok(p.file.verified.clone()),
            _ => serde_json::from_str(DEMO_VERIFIED)
                .map_err(|e| Error::config(format!("the demo's verified queries: {e}"))),
        }
    }
}

impl Sources {
    /// The model provider the project file names, if any.
    pub fn provider(&self) -> Option<&crate::project::ProviderEntry> {
        match self {
            Sources::Project(p) => p.file.provider.as_ref(),
            _ => None,
        }
    }

    /// Who may read what: the project file's policies, else the demo's.
    pub fn policies(&self) -> Policies {
        match self {
            Sources::Project(p) => p.policies(),
            _ => Policies::demo(),
        }
    }
}

/// The engine `address` names, opened read-only as `id`; `schemas`, a project's list,
/// for an engine whose reading of its catalogue is its own (Spark's databases).
fn open_address(
    id: &str,
    address: &Address,
    interrupt: Option<&Interrupt>,
    schemas: Option<&[String]>,
) -> Result<Rc<dyn Datasource>, Error> {
    let unreadable = |e: DatasourceError| crate::errors::not_opened(&e);
    let stop = interrupt.cloned();
    match (address.engine(), address.path()) {
        (Engine::Sqlite, Some(path)) => Ok(Rc::new(open_sqlite(id, &path, stop)?)),
        (Engine::DuckDb, Some(path)) => open_duckdb(id, &path, address, stop),
        (Engine::Sqlite | Engine::DuckDb, None) => Err(usage(format!("{address} is not a file"))),
        (Engine::Postgres, _) => {
            let db = PostgresDb::connect(id, address).map_err(unreadable)?;
            Ok(Rc::new(match stop {
                Some(stop) => db.interrupted_by(stop),
                None => db,
            }))
        }
        (Engine::MySql, _) => {
            let db = MySqlDb::connect(id, address).map_err(unreadable)?;
            Ok(Rc::new(match stop {
                Some(stop) => db.interrupted_by(stop),
                None => db,
            }))
        }
        (Engine::Spark, _) => open_spark(id, address, stop, schemas),
    }
}

/// The Spark database `address` names, as `id`, reading the databases `schemas` lists.
#[cfg(feature = "spark")]
fn open_spark(
    id: &str,
    address: &Address,
    stop: Option<Interrupt>,
    schemas: Option<&[String]>,
) -> Result<Rc<dyn Datasource>, Error> {
    let db = crate::SparkDb::connect(id, address)
        .map_err(|e| crate::errors::not_opened(&e))?
        .reading(schemas);
    Ok(Rc::new(match stop {
        Some(stop) => db.interrupted_by(stop),
        None => db,
    }))
}

/// Without the `spark` feature, a Spark address is refused by name.
#[cfg(not(feature = "spark"))]
fn open_spark(
    _id: &str,
    address: &Address,
    _stop: Option<Interrupt>,
    _schemas: Option<&[String]>,
) -> Result<Rc<dyn Datasource>, Error> {
    Err(usage(format!(
        "{address} is a Spark Connect address, and this nl2sql was built without Spark (the \
         `spark` feature)"
    )))
}

/// The SQLite file at `path`, opened read-only as `id`.
fn open_sqlite(id: &str, path: &Path, stop: Option<Interrupt>) -> Result<SqliteFile, Error> {
    let unreadable = |e: DatasourceError| crate::errors::unreadable(e.to_string());
    let file = SqliteFile::open(id, path).map_err(unreadable)?;
    match stop {
        Some(stop) => file.interrupted_by(stop).map_err(unreadable),
        None => Ok(file),
    }
}

/// The DuckDB file at `path`, opened read-only as `id`.
#[cfg(feature = "duckdb")]
fn open_duckdb(
    id: &str,
    path: &Path,
    _address: &Address,
    stop: Option<Interrupt>,
) -> Result<Rc<dyn Datasource>, Error> {
    crate::DuckDbFile::open(id, path)
        .map(|d| match stop {
            Some(stop) => Rc::new(d.interrupted_by(stop)) as Rc<dyn Datasource>,
            None => Rc::new(d) as Rc<dyn Datasource>,
        })
        .map_err(|e| unreadable(e.to_string()))
}

/// Without the `duckdb` feature, a DuckDB file is refused by name.
#[cfg(not(feature = "duckdb"))]
fn open_duckdb(
    _id: &str,
    _path: &Path,
    address: &Address,
    _stop: Option<Interrupt>,
) -> Result<Rc<dyn Datasource>, Error> {
    Err(usage(format!(
        "{address} is a DuckDB file, and this nl2sql was built without DuckDB (the `duckdb` \
         feature)"
    )))
}

/// A datasource id from a database's or file's name: letters, digits, `_` and `-` kept,
/// anything else `_`, at most 64 characters (what a datasource id may hold).
fn safe_id(name: &str) -> String {
    let id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if id.is_empty() {
        "db".into()
    } else {
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nl2sql_core::error::ErrorCode;

    #[test]
    fn wrong_database_options_are_usage_errors_that_never_repeat_an_address() {
        let e = Sources::new(Some("sc://me:hunter2@h/db"), None, None, Path::new("data"));
        assert!(
            matches!(&e, Err(e) if e.code == ErrorCode::ConfigInvalid && e.message.contains("Spark Connect") && !e.message.contains("hunter2"))
        );
        let e =
            Sources::new(Some("/no/such/file.sqlite"), None, None, Path::new("data")).unwrap_err();
        assert_eq!(e.code, ErrorCode::DatasourceUnreadable);
        let e = Sources::new(None, Some("x"), None, Path::new("data")).unwrap_err();
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        // An address it cannot use is refused without repeating it: it may hold a password.
        let secret = "jdbc:postgresql://h/db?user=u&password=hunter2";
        let e = Sources::new(Some(secret), None, None, Path::new("data")).unwrap_err();
        assert!(e.code == ErrorCode::ConfigInvalid && !e.to_string().contains("hunter2"));
        let here = std::env::current_exe().map(|p| p.to_string_lossy().into_owned());
        let here = here.unwrap_or_default();
        let e = Sources::new(Some(&here), Some("a b"), None, Path::new("data")).unwrap_err();
        assert!(e.code == ErrorCode::ConfigInvalid && e.message.contains("--id"));
    }

    #[test]
    fn an_id_comes_from_the_database_name_made_safe() {
        assert_eq!(safe_id("My Shop.v2"), "My_Shop_v2");
        assert_eq!(safe_id(""), "db");
        let s = Sources::new(
            Some("postgres://me:pw@localhost/shop"),
            None,
            None,
            Path::new("data"),
        );
        let s = s.unwrap();
        assert_eq!(s.ids(), vec!["shop".to_string()]);
        let e = s.id(Some("other")).unwrap_err().to_string();
        assert!(
            e.contains("postgres://me@localhost/shop") && !e.contains("pw"),
            "{e}"
        );
    }
}
