//! The browser side of nl2sql: SQLite databases through sql.js, model providers through
//! `fetch`, a [`Session`] holding the engine for a page, and the npm package's JavaScript
//! API (`api`, feature `npm`).

#[cfg(feature = "npm")]
mod api;
mod duckdb;
mod fetch;
mod remote;
mod session;
mod sleep;
mod sqljs;
mod worker;

pub use duckdb::DuckDbDatabase;
pub use fetch::FetchTransport;
pub use remote::{Listed, Remote};
pub use session::{
    add_file, blend_semantic, demo_session, open_session, DatabaseFile, DatabaseHost, NamedBytes,
    PageClock, PageHost, Session,
};
pub use sleep::TimeoutSleep;
pub use sqljs::{js_message, SqlJs, SqlJsDatabase, SqlJsScratch};
pub use worker::{DuckDbUrls, Starting, WorkerDatabase, WorkerScratch, Workers};
