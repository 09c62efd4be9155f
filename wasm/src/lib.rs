//! The browser side of nl2sql: SQLite databases through sql.js.

mod sqljs;

pub use sqljs::{SqlJs, SqlJsDatabase};
