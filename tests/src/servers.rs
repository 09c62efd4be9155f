//! The engines beyond SQLite the tests hold to SQLite's answers: the database servers
//! `cargo xtask test` starts (throwaway PostgreSQL, MariaDB and Spark Connect instances
//! loaded with the demo databases by `nl2sql copy`'s code), reached through the addresses
//! it passes in the environment, and DuckDB files, which the tests copy the demo databases
//! into themselves. The server tests are
//! ignored in a plain `cargo test` and run by xtask's server step with `--ignored`.

use nl2sql_core::Datasource;
use nl2sql_native::address::Address;
use nl2sql_native::{DuckDbFile, Interrupt, MySqlDb, PostgresDb, SparkDb};
use std::path::PathBuf;
use std::sync::OnceLock;

/// An engine the tests reach beyond SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// PostgreSQL.
    Postgres,
    /// MariaDB (through the MySQL adapter).
    MariaDb,
    /// DuckDB files: no server, the demo databases copied in by this process.
    DuckDb,
    /// Spark, through Spark Connect (a local-mode server).
    Spark,
}

impl Server {
    /// The variable holding the server's base address (`scheme://user@host:port`); none
    /// for DuckDB.
    pub fn variable(self) -> &'static str {
        match self {
            Server::Postgres => "NL2SQL_POSTGRES_URL",
            Server::MariaDb => "NL2SQL_MARIADB_URL",
            Server::Spark => "NL2SQL_SPARK_URL",
            Server::DuckDb => "",
        }
    }

    /// The server's base address; panics with the way to get one.
    pub fn url(self) -> String {
        let var = self.variable();
        std::env::var(var).unwrap_or_else(|_| {
            panic!("{var} is not set: `cargo xtask test` starts the servers and sets it")
        })
    }

    /// Demo database `id`'s address: on the server, or the DuckDB copy's path.
    pub fn address(self, id: &str) -> String {
        match self {
            Server::DuckDb => duckdb_copy(id).to_string_lossy().into_owned(),
            _ => format!("{}/{id}", self.url()),
        }
    }

    /// Demo database `id` on the engine, as a datasource.
    pub fn open(self, id: &str) -> Box<dyn Datasource> {
        self.open_address(id, &self.address(id))
    }

    /// The database at `address` on the engine, as datasource `id`.
    pub fn open_address(self, id: &str, address: &str) -> Box<dyn Datasource> {
        self.connect(id, address)
            .unwrap_or_else(|e| panic!("{id} on {self:?}: {e}"))
    }

    /// Demo database `id` on the engine, its queries stopped when `interrupt` is set (as a
    /// server's engine thread opens it).
    pub fn open_interruptible(self, id: &str, interrupt: Interrupt) -> Box<dyn Datasource> {
        let address = self.address(id);
        let parsed = Address::parse(&address).unwrap_or_else(|e| panic!("{e}"));
        let opened: Result<Box<dyn Datasource>, _> =
            match self {
                Server::Postgres => PostgresDb::connect(id, &parsed)
                    .map(|d| Box::new(d.interrupted_by(interrupt)) as _),
                Server::MariaDb => MySqlDb::connect(id, &parsed)
                    .map(|d| Box::new(d.interrupted_by(interrupt)) as _),
                Server::DuckDb => DuckDbFile::open(id, &address)
                    .map(|d| Box::new(d.interrupted_by(interrupt)) as _),
                Server::Spark => SparkDb::connect(id, &parsed)
                    .map(|d| Box::new(d.interrupted_by(interrupt)) as _),
            };
        opened.unwrap_or_else(|e| panic!("{id} on {self:?}: {e}"))
    }

    /// The database at `address` on the engine, as datasource `id`, or why not.
    pub fn connect(
        self,
        id: &str,
        address: &str,
    ) -> Result<Box<dyn Datasource>, nl2sql_core::DatasourceError> {
        let parsed = Address::parse(address).unwrap_or_else(|e| panic!("{e}"));
        match self {
            Server::Postgres => PostgresDb::connect(id, &parsed).map(|d| Box::new(d) as _),
            Server::MariaDb => MySqlDb::connect(id, &parsed).map(|d| Box::new(d) as _),
            Server::DuckDb => DuckDbFile::open(id, address).map(|d| Box::new(d) as _),
            Server::Spark => SparkDb::connect(id, &parsed).map(|d| Box::new(d) as _),
        }
    }
}

/// Demo database `id` copied into a DuckDB file by `nl2sql copy`'s code, once per process,
/// under `target/tmp/duckdb/<process id>/` (what a process that ended left there is
/// removed first).
pub fn duckdb_copy(id: &str) -> PathBuf {
    static COPIES: OnceLock<PathBuf> = OnceLock::new();
    let folder = COPIES.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/tmp/duckdb");
        if let Ok(entries) = std::fs::read_dir(&root) {
            for entry in entries.flatten() {
                let pid = entry.file_name().to_string_lossy().into_owned();
                if !PathBuf::from("/proc").join(&pid).exists() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        let folder = root.join(std::process::id().to_string());
        std::fs::create_dir_all(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for demo in nl2sql_core::demo::DEMO_DATABASES {
            let source = crate::native::data_dir().join(demo.file);
            let target = folder.join(format!("{}.duckdb", demo.id));
            let address =
                Address::parse(&target.to_string_lossy()).unwrap_or_else(|e| panic!("{e}"));
            nl2sql_native::copy::copy(&source, &address, false, &mut |_| {})
                .unwrap_or_else(|e| panic!("copying {} into DuckDB: {e}", demo.id));
        }
        folder
    });
    folder.join(format!("{id}.duckdb"))
}

/// Demo database `id` as a DuckDB file.
pub fn duckdb(id: &str) -> Box<dyn Datasource> {
    Server::DuckDb.open(id)
}

/// Demo database `id` on the test PostgreSQL.
pub fn postgres(id: &str) -> Box<dyn Datasource> {
    Server::Postgres.open(id)
}

/// Demo database `id` on the test MariaDB.
pub fn mariadb(id: &str) -> Box<dyn Datasource> {
    Server::MariaDb.open(id)
}

/// Demo database `id` on the test Spark Connect server.
pub fn spark(id: &str) -> Box<dyn Datasource> {
    Server::Spark.open(id)
}
