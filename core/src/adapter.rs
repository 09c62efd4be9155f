//! What an adapter plugs into the engine, and the helpers it may use: a database
//! ([`Datasource`], its metadata read once per dialect through [`Metadata`]), HTTP to the
//! model providers ([`HttpTransport`]), the clock, a way to wait, a scratch database for
//! questions across datasources, and the embedders the schema index can use.

pub use crate::datasource::{
    Datasource, DatasourceError, DatasourceErrorKind, ExecLimits, LocalBoxFuture, ResultFrame,
    READ_TIMEOUT_MS,
};
pub use crate::engine::{join_all, CancelToken, Sleep};
pub use crate::http::{HttpFailure, HttpRequest, HttpResponse, HttpTransport, Offline, Utf8Chunks};
pub use crate::index::{
    BlendedEmbedder, BuiltinEmbedder, CircuitBreaker, Clock, ColumnNotes, DatasourceProfile,
    Embedder, GuardedEmbedder, Notes, Relationship, SemanticEmbedder, TableNotes, Term,
};
pub use crate::introspect::Metadata;
pub use crate::provider::{ApiKey, Provider, ProviderEmbedder, Wire};
pub use crate::scratch::{create_statement, insert_statement, Scratch, ScratchTable};
pub use nl2sql_plan::guard::{check_read_only, check_read_only_in};
pub use nl2sql_plan::lower::{quote_name, quote_text};
pub use nl2sql_plan::schema::{category_of, ColumnShape, Structure, TableShape};
pub use nl2sql_plan::{
    Column, ColumnStats, Dialect, ForeignKey, SchemaSnapshot, Table, TypeCategory, Value,
};

/// SQLite's own: how its errors read, and its identifiers quoted.
pub mod sqlite {
    pub use crate::sqlite::{classify_error, quote_ident};
}

/// DuckDB's own: how its errors read.
pub mod duckdb {
    pub use crate::duckdb::error_kind;
}
