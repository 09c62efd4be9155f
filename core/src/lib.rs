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
pub mod guard;
pub mod http;
pub mod import;
pub mod index;
pub mod introspect;
pub mod lower;
pub mod plan;
pub mod plan_cache;
pub mod policy;
pub mod provider;
pub mod run;
pub mod schema;
pub mod scratch;
pub mod service;
pub mod sqlite;
#[cfg(feature = "ts")]
pub mod typescript;
pub mod validate;
pub mod value;
pub mod workspace;

#[cfg(test)]
mod test_fixtures;

pub use datasource::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame,
};
pub use schema::{Column, ColumnStats, ForeignKey, SchemaSnapshot, Table, TypeCategory};
pub use value::Value;
