//! The native side of nl2sql, shared by every native front end (the command line, the HTTP
//! server and MCP, the tests): SQLite files through rusqlite, PostgreSQL through the
//! `postgres` client, MySQL and MariaDB through the `mysql` client, DuckDB files through
//! the `duckdb` crate (the `duckdb` feature), Spark over Spark Connect (the `spark`
//! feature), database addresses that never print their password, the scratch database
//! for combining results, the blocking HTTP transport to model providers, the wall clock,
//! the host the engine's facade runs on, where a command's databases come from (the demo
//! folder or one `--db`), and the demo databases read ahead into a catalogue.

pub mod address;
pub mod cache;
pub mod catalogue;
pub mod clock;
pub mod configured;
pub mod copy;
pub mod demo;
#[cfg(feature = "duckdb")]
pub mod duckdb_db;
mod errors;
pub mod feedback_file;
pub mod host;
pub mod http;
pub mod interrupt;
pub mod mysql_db;
pub mod postgres_db;
pub mod project;
pub mod scratch;
pub mod sources;
#[cfg(feature = "spark")]
pub mod spark_db;
pub mod sqlite_file;
mod sqlite_math;
pub mod tls;

pub use clock::{now_rfc3339, WallClock};
pub use demo::{demo_path, open_demo};
#[cfg(feature = "duckdb")]
pub use duckdb_db::DuckDbFile;
pub use host::{demo_workspace, NativeHost};
pub use http::{BlockingTransport, ThreadSleep};
pub use interrupt::Interrupt;
pub use mysql_db::MySqlDb;
pub use postgres_db::PostgresDb;
pub use scratch::MemoryScratch;
pub use sources::{CacheReport, Read, Reading, Sources};
#[cfg(feature = "spark")]
pub use spark_db::SparkDb;
pub use sqlite_file::SqliteFile;
