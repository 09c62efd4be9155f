//! The datasource contract: how the engine reaches a database without doing I/O itself.

use nl2sql_plan::schema::Structure;
use nl2sql_plan::validate::ValidatorSettings;
use nl2sql_plan::Value;

pub use nl2sql_plan::Dialect;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// A boxed future that need not be `Send`: the browser runs everything on one thread, and
/// sql.js handles cannot cross threads anyway.
pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Limits on one execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecLimits {
    /// At most this many rows come back; [`ResultFrame::truncated`] says whether more existed.
    pub max_rows: usize,
    /// The query is stopped after this many milliseconds ([`DatasourceErrorKind::TimedOut`]);
    /// `None`: no limit. An adapter that cannot stop a running query says so in its docs.
    pub timeout_ms: Option<u64>,
    /// A catalogue, statistics or value read, not an answer: a datasource's own row limit
    /// (which is for answers) does not apply to it, its time limit does.
    #[serde(default)]
    pub reading: bool,
}

/// How long one catalogue, statistics or value query may run when a datasource is read
/// ([`ExecLimits::reading`]); a datasource's own shorter limit wins.
pub const READ_TIMEOUT_MS: u64 = 30_000;

impl ExecLimits {
    /// At most `max_rows` rows, no time limit (tests).
    pub const fn rows(max_rows: usize) -> ExecLimits {
        ExecLimits {
            max_rows,
            timeout_ms: None,
            reading: false,
        }
    }

    /// These limits with the time limit no longer than `timeout_ms` (`None` leaves it): a
    /// run's limits under a datasource's own.
    pub fn within(self, timeout_ms: Option<u64>) -> ExecLimits {
        let timeout_ms = match (self.timeout_ms, timeout_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        ExecLimits { timeout_ms, ..self }
    }

    /// The limits a validated plan's query runs under: the settings' row cap and time limit.
    pub fn for_plan(settings: &ValidatorSettings) -> ExecLimits {
        ExecLimits {
            max_rows: usize::try_from(settings.lower.row_cap).unwrap_or(usize::MAX),
            timeout_ms: settings.query_timeout_ms,
            reading: false,
        }
    }

    /// At most `max_rows` rows within [`READ_TIMEOUT_MS`]: the limits of every query that
    /// reads a datasource's catalogue, statistics and values.
    pub const fn reading(max_rows: usize) -> ExecLimits {
        ExecLimits {
            max_rows,
            timeout_ms: Some(READ_TIMEOUT_MS),
            reading: true,
        }
    }
}

/// The rows a query returned, as the database typed them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResultFrame {
    /// Column names in result order (duplicates kept as the database gave them).
    pub columns: Vec<String>,
    /// The rows, each as long as `columns`.
    pub rows: Vec<Vec<Value>>,
    /// True when the row cap stopped the read while more rows existed.
    pub truncated: bool,
}

impl ResultFrame {
    /// How many rows came back (after the cap).
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }
}

/// Why a datasource did not return rows. The pipeline maps the kind to its error codes:
/// [`DatasourceErrorKind::InvalidQuery`] becomes the retryable `EXECUTION_FAILED`, the
/// others the fatal `DB_EXECUTION_ERROR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DatasourceErrorKind {
    /// The query itself is wrong (syntax, unknown table or column): a new query can fix it.
    InvalidQuery,
    /// The datasource refuses to run it: anything but exactly one read-only query.
    Refused,
    /// The database could not run it: not a database, corrupt, out of memory, interrupted.
    Unavailable,
    /// The database server could not be reached (nothing listens, unknown host, connecting
    /// timed out).
    Unreachable,
    /// The database server refused the login.
    Denied,
    /// It ran past [`ExecLimits::timeout_ms`] and was stopped.
    TimedOut,
    /// Its run was cancelled and the query stopped.
    Cancelled,
}

/// A datasource failure: its kind and the database's own words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasourceError {
    /// What kind of failure this is; decides whether a retry can help.
    pub kind: DatasourceErrorKind,
    /// A plain sentence, usually the database's own message.
    pub message: String,
}

impl DatasourceError {
    /// A failure of the given kind.
    pub fn new(kind: DatasourceErrorKind, message: impl Into<String>) -> Self {
        DatasourceError {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for DatasourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            DatasourceErrorKind::InvalidQuery => "invalid query",
            DatasourceErrorKind::Refused => "refused",
            DatasourceErrorKind::Unavailable => "database unavailable",
            DatasourceErrorKind::Unreachable => "database unreachable",
            DatasourceErrorKind::Denied => "login refused",
            DatasourceErrorKind::TimedOut => "timed out",
            DatasourceErrorKind::Cancelled => "cancelled",
        };
        write!(f, "{kind}: {}", self.message)
    }
}

impl std::error::Error for DatasourceError {}

/// The read-only guard's refusals as the datasource contract reports them: text that does
/// not parse is an invalid query (a corrected one may run), anything else is refused.
impl From<nl2sql_plan::Error> for DatasourceError {
    fn from(e: nl2sql_plan::Error) -> Self {
        let kind = match e.kind {
            nl2sql_plan::ErrorKind::Unreadable => DatasourceErrorKind::InvalidQuery,
            _ => DatasourceErrorKind::Refused,
        };
        DatasourceError::new(kind, e.message)
    }
}

/// A database the engine can read: what an adapter writes is what is its own — its id, its
/// dialect and how it runs one query (plus, for an engine whose catalogue is not read with
/// SQL, that catalogue). Everything read about it (schema, statistics, fingerprint) comes
/// through [`Metadata`], written once here for every adapter of a dialect. Adapters live
/// outside core (sql.js and DuckDB-WASM in `nl2sql-wasm`, the native clients in
/// `nl2sql-native`); they must refuse anything but exactly one read-only query, which
/// [`nl2sql_plan::guard::check_read_only_in`] decides for them.
///
/// The futures are not `Send`: in the browser everything runs on one thread.
pub trait Datasource {
    /// The datasource id, e.g. `chinook`.
    fn id(&self) -> &str;

    /// The SQL dialect it speaks; it decides how the catalogue is read.
    fn dialect(&self) -> Dialect;

    /// Run one read-only query, reading at most `limits.max_rows` rows.
    fn execute<'a>(
        &'a self,
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>>;

    /// The tables, columns and keys, for an engine whose catalogue is not read with SQL
    /// (Spark's, through its client's catalogue calls). `None`, the default: the catalogue
    /// is read through [`Datasource::execute`] in the dialect's own way. A datasource that
    /// wraps another passes it on.
    fn catalogue(&self) -> LocalBoxFuture<'_, Result<Option<Structure>, DatasourceError>> {
        Box::pin(std::future::ready(Ok(None)))
    }

    /// Whether the engine may see table `name` at all (a project file's `include` and
    /// `exclude`): a hidden table is never read, not even its statistics. Default: every
    /// table.
    fn shows(&self, _name: &str) -> bool {
        true
    }

    /// The schemas (MySQL: the databases on its server) whose tables the engine reads (a
    /// project file's `schemas`). `None`, the default: every schema the login may use,
    /// system schemas excepted (on MySQL, its address's database alone).
    fn schemas(&self) -> Option<&[String]> {
        None
    }
}
