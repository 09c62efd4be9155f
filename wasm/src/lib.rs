//! The browser side of nl2sql: SQLite databases through sql.js.

mod sqljs;

pub use sqljs::{js_message, SqlJs, SqlJsDatabase};
