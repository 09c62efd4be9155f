//! The browser side of nl2sql: SQLite databases through sql.js, and model providers
//! through `fetch`.

mod fetch;
mod sleep;
mod sqljs;

pub use fetch::FetchTransport;
pub use sleep::TimeoutSleep;
pub use sqljs::{js_message, SqlJs, SqlJsDatabase, SqlJsScratch};
