//! nl2sql-core: the engine, free of I/O.
//!
//! Everything outside the engine (databases, the model provider's HTTP, the clock) reaches
//! it through small traits, so the same code runs in the browser, in the native command line
//! and in tests. This crate never spawns threads, never blocks, and never touches the
//! network or the file system.
//!
//! Front ends (the command line, the HTTP server and MCP, the npm package, the page) see
//! the facade and the types it speaks, nothing else:
//! - [`service`]: the front door — [`service::Service`] asks, runs SQL mode, routes, lists
//!   datasources, records feedback;
//! - [`result`]: what a run gives (the result, its typed trace, events, SQL mode's report);
//! - [`config`]: provider, run, policy and SQL-mode settings;
//! - [`error`]: the one error vocabulary;
//! - [`feedback`]: feedback and verified queries;
//! - [`api`]: the HTTP API's requests and errors;
//! - [`adapter`]: what an adapter implements (a database, HTTP, the clock) and may use;
//! - [`files`] and [`demo`]: the files a person drops in, and the demo data.
//!
//! The engine's inner modules are private; the `internals` feature opens them to this
//! workspace's tests, benchmarks and fuzz targets only (`cargo xtask deps` checks that no
//! front end names them).

pub mod adapter;
pub mod api;
pub mod chart;
pub mod config;
pub mod demo;
pub mod error;
pub mod feedback;
pub mod files;
pub mod result;
pub mod service;
#[cfg(feature = "ts")]
pub mod typescript;

/// Declares the engine's inner modules: private, or public under the `internals` feature.
macro_rules! internal {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        mod $name;
    )*};
}

internal!(
    catalog,
    conversation,
    curated,
    datasource,
    duckdb,
    engine,
    http,
    index,
    introspect,
    plan_cache,
    provider,
    run,
    scratch,
    sqlite,
    workspace,
);

// The pure plan layer, under the names the engine's modules use.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use nl2sql_plan::{guard, import, lower, policy, schema, validate, value};
#[cfg(not(feature = "internals"))]
use nl2sql_plan::{guard, import, lower, policy, schema, validate, value};

#[cfg(feature = "internals")]
#[doc(hidden)]
pub use nl2sql_plan as plan;
#[cfg(not(feature = "internals"))]
use nl2sql_plan as plan;

// The names the tests reach from the root.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use {
    datasource::{
        Datasource, DatasourceError, DatasourceErrorKind, ExecLimits, LocalBoxFuture, ResultFrame,
    },
    introspect::Metadata,
    nl2sql_plan::{
        Column, ColumnStats, Dialect, ForeignKey, SchemaSnapshot, Table, TypeCategory, Value,
    },
};
