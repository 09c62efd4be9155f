//! The browser side of nl2sql: SQLite databases through sql.js, model providers through
//! `fetch`, a [`Session`] holding the engine for a page, and the npm package's JavaScript
//! API (`api`).

mod api;
mod fetch;
mod session;
mod sleep;
mod sqljs;

pub use fetch::FetchTransport;
pub use session::{
    add_file, demo_session, open_session, DatabaseFile, PageClock, PageHost, Session,
};
pub use sleep::TimeoutSleep;
pub use sqljs::{js_message, SqlJs, SqlJsDatabase, SqlJsScratch};
