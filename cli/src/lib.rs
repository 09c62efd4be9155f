//! The native side of nl2sql: SQLite files through rusqlite, and the `nl2sql` command line.

pub mod http;
pub mod scratch;
pub mod sqlite_file;

pub use http::{BlockingTransport, ThreadSleep};
pub use scratch::MemoryScratch;
pub use sqlite_file::SqliteFile;
