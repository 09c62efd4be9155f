//! What the engine reads its datasources from. One trait hands a step a datasource together
//! with its schema and description, plus the index over all of them and the policy, so no
//! step joins parts by id itself and a missing datasource is one error,
//! DATASOURCE_NOT_FOUND.

use crate::datasource::Datasource;
use crate::error::{Error, ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::index::{Embedder, SchemaIndex};
use crate::policy::{Policies, Scope};
use crate::schema::SchemaSnapshot;
use serde::{Deserialize, Serialize};

/// A warning about the set-up (a table read only in part, a verified query, note or
/// relationship dropped), with who may be told it: its words name tables and columns, which
/// a caller who may not read them must not learn from a run's warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// Who may be told it.
    pub audience: Audience,
    /// What is said.
    pub warning: RunWarning,
}

/// Who may be told a [`Notice`].
#[derive(Debug, Clone, PartialEq)]
pub enum Audience {
    /// Callers who may read this table of this datasource.
    Table { datasource: String, table: String },
    /// Callers who may read every table of this datasource: what the notice names (a
    /// query's SQL, a note's target, both ends of a relationship) is not checked name by
    /// name, so only those who may read all of it are told.
    Whole { datasource: String },
}

impl Notice {
    /// A notice about one table.
    pub fn table(datasource: &str, table: &str, warning: RunWarning) -> Notice {
        Notice {
            audience: Audience::Table {
                datasource: datasource.to_string(),
                table: table.to_string(),
            },
            warning,
        }
    }

    /// A notice told only to callers who may read all of `datasource`.
    pub fn whole(datasource: &str, warning: RunWarning) -> Notice {
        Notice {
            audience: Audience::Whole {
                datasource: datasource.to_string(),
            },
            warning,
        }
    }

    /// May the caller of `scope` be told it?
    pub fn told_to(&self, scope: &Scope<'_>) -> bool {
        match &self.audience {
            Audience::Table { datasource, table } => scope.can_read(datasource, table),
            Audience::Whole { datasource } => scope.reads_whole(datasource),
        }
    }
}

/// A datasource left out because it could not be opened or read: the others work without
/// it, and every front end says which and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Unavailable {
    /// Its id.
    pub id: String,
    /// Why, as a stable code: `DATASOURCE_UNREACHABLE`, `DATASOURCE_AUTH_FAILED`,
    /// `DATASOURCE_UNREADABLE`, `DATASOURCE_EMPTY`, …
    pub code: ErrorCode,
    /// The database's or the engine's own words, for the owner (never a password); what
    /// crosses a trust boundary is [`Unavailable::summary`] (a warning's `detail`, which a
    /// cleaned result drops, holds the reason).
    pub reason: String,
}

impl Unavailable {
    /// Datasource `id`, left out for `error`.
    pub fn new(id: &str, error: &Error) -> Unavailable {
        Unavailable {
            id: id.to_string(),
            code: error.code,
            reason: error.message.clone(),
        }
    }

    /// One sentence naming the datasource and the kind of failure, nothing of the server
    /// (its address, its login) or the database's words.
    pub fn summary(&self) -> String {
        let id = &self.id;
        match self.code {
            ErrorCode::DatasourceUnreachable => format!("{id} could not be reached"),
            ErrorCode::DatasourceAuthFailed => format!("{id} refused the login"),
            ErrorCode::DatasourceEmpty => format!("{id} has no tables"),
            _ => format!("{id} could not be read"),
        }
    }

    /// The warning every run's result carries while it is left out: the summary as the
    /// message, the reason as the detail (which a cleaned result drops).
    pub fn warning(&self) -> RunWarning {
        RunWarning {
            detail: Some(serde_json::json!({ "reason": self.reason })),
            ..RunWarning::new(
                Node::DatasourceResolver,
                self.code,
                format!(
                    "{}, so it was left out; questions go to the other datasources.",
                    self.summary()
                ),
            )
        }
    }

    /// The error of a step that needs it.
    pub fn error(&self, node: Node) -> PipelineError {
        PipelineError {
            details: Some(serde_json::json!({ "reason": self.reason })),
            ..PipelineError::new(
                node,
                self.code,
                Severity::Error,
                format!("{}; try again later.", self.summary()),
            )
        }
    }
}

/// One datasource as the engine sees it.
#[derive(Clone, Copy)]
pub struct Entry<'c> {
    /// The open database.
    pub datasource: &'c dyn Datasource,
    /// Its schema, as indexed.
    pub schema: &'c SchemaSnapshot,
    /// How routing describes it.
    pub description: &'c str,
}

/// The datasources a run may use, their index and who may read what.
pub trait Catalog {
    /// Every datasource id, in the order they were added.
    fn ids(&self) -> Vec<&str>;
    /// Datasource `id` with its schema, when it is there.
    fn entry(&self, id: &str) -> Option<Entry<'_>>;
    /// The index over every datasource.
    fn index(&self) -> &SchemaIndex;
    /// The embedder that built the index (questions are embedded with it too).
    fn embedder(&self) -> &dyn Embedder;
    /// Who may read what.
    fn policies(&self) -> &Policies;
    /// The datasources left out because they could not be opened or read.
    fn unavailable(&self) -> &[Unavailable] {
        &[]
    }
    /// Warnings about the set-up, each with who may be told it.
    fn notices(&self) -> &[Notice] {
        &[]
    }

    /// Datasource `id`, or the one error saying it is not there (`node` found out): why,
    /// when it was left out.
    fn require(&self, id: &str, node: Node) -> Result<Entry<'_>, PipelineError> {
        if let Some(left_out) = self.unavailable().iter().find(|u| u.id == id) {
            return Err(left_out.error(node));
        }
        self.entry(id).ok_or_else(|| {
            PipelineError::new(
                node,
                ErrorCode::DatasourceNotFound,
                Severity::Error,
                format!(
                    "There is no datasource {id:?}; the datasources are {}.",
                    self.ids().join(", ")
                ),
            )
        })
    }
}

impl<C: Catalog + ?Sized> Catalog for &C {
    fn ids(&self) -> Vec<&str> {
        (**self).ids()
    }

    fn entry(&self, id: &str) -> Option<Entry<'_>> {
        (**self).entry(id)
    }

    fn index(&self) -> &SchemaIndex {
        (**self).index()
    }

    fn embedder(&self) -> &dyn Embedder {
        (**self).embedder()
    }

    fn policies(&self) -> &Policies {
        (**self).policies()
    }

    fn unavailable(&self) -> &[Unavailable] {
        (**self).unavailable()
    }

    fn notices(&self) -> &[Notice] {
        (**self).notices()
    }
}

/// A catalogue put together from its parts: open datasources, the index built over them
/// (which holds their schemas and descriptions), its embedder and the policy. Front ends
/// with a [`crate::workspace::Workspace`] use that instead; the tests and benchmarks build
/// engines over pieces this way.
#[cfg(feature = "internals")]
pub struct Assembled<'a> {
    /// The open datasources, each indexed in `index`.
    pub datasources: Vec<&'a dyn Datasource>,
    /// Their index.
    pub index: &'a SchemaIndex,
    /// The embedder that built the index.
    pub embedder: &'a dyn Embedder,
    /// Who may read what.
    pub policies: &'a Policies,
}

#[cfg(feature = "internals")]
impl Catalog for Assembled<'_> {
    fn ids(&self) -> Vec<&str> {
        self.datasources.iter().map(|d| d.id()).collect()
    }

    fn entry(&self, id: &str) -> Option<Entry<'_>> {
        let datasource = *self.datasources.iter().find(|d| d.id() == id)?;
        Some(Entry {
            datasource,
            schema: self.index.schema(id)?,
            description: self.index.description(id).unwrap_or_default(),
        })
    }

    fn index(&self) -> &SchemaIndex {
        self.index
    }

    fn embedder(&self) -> &dyn Embedder {
        self.embedder
    }

    fn policies(&self) -> &Policies {
        self.policies
    }
}
