//! nl2sql-core: the engine, free of I/O.
//!
//! Everything outside the engine (databases, the model provider's HTTP, the clock) reaches it through small traits, so the same code runs in the browser, in the
//! native command line and in tests. This crate never spawns threads, never blocks, and never
//! touches the network or the file system.

pub mod api;
pub mod catalog;
pub mod chart;
pub mod config;
pub mod conversation;
pub mod curated;
pub mod datasource;
pub mod demo;
pub mod duckdb;
pub mod engine;
pub mod error;
pub mod eval;
pub mod feedback;
pub mod files;
pub mod http;
pub mod index;
pub mod introspect;
pub mod plan_cache;
pub mod provider;
pub mod run;
pub mod scratch;
pub mod service;
pub mod sqlite;
#[cfg(feature = "ts")]
pub mod typescript;
pub mod workspace;

pub use datasource::{
    Datasource, DatasourceError, DatasourceErrorKind, ExecLimits, LocalBoxFuture, Metadata,
    ResultFrame,
};
pub use nl2sql_plan::{guard, import, lower, policy, schema, validate, value};
pub use nl2sql_plan::{
    Column, ColumnStats, Dialect, ForeignKey, SchemaSnapshot, Table, TypeCategory, Value,
};

/// The typed query plan (see `nl2sql-plan`).
pub mod plan {
    pub use nl2sql_plan::*;
}
