//! The schema index: routing a question to its datasources, retrieving the schema the
//! planner needs, and linking the values a question names, all in memory, with a built-in
//! embedder that needs no download and no key.
//!
//! Build once per set of schema snapshots ([`SchemaIndex::build`] with the values
//! [`ValueIndex::read`] collects), then [`route`] and [`retrieve`] per question. Every
//! search takes the caller's [`crate::policy::Scope`]: tables it may not read never vote,
//! never appear in a result and never reach a trace.

mod breaker;
mod embed;
mod fasthash;
mod layout;
mod notes;
mod retrieve;
mod route;
mod semantic;
mod store;
pub mod text;
mod values;

pub use breaker::{CircuitBreaker, Clock, GuardedEmbedder};
#[cfg(feature = "internals")]
pub use embed::similarity;
pub use embed::{unsearchable, BuiltinEmbedder, Embedder, Vector};
pub use notes::{ColumnNotes, Notes, Relationship, TableNotes, Term};
pub use retrieve::{render, retrieve, Retrieval, RetrieveSettings};
#[cfg(feature = "internals")]
pub use route::PoolEntry;
pub use semantic::{BlendedEmbedder, SemanticEmbedder};
pub use route::{
    route, route_in_thread, CloseCall, Dropped, RouteSettings, Routing, SignalRecord,
};
#[cfg(feature = "internals")]
pub use store::{Entry, Hit};
pub use store::{DatasourceProfile, EntryKind, MismatchPolicy, SchemaIndex, VerifiedPhrase};
pub use values::{MatchKind, ValueHint, ValueIndex};

#[cfg(test)]
mod tests;
