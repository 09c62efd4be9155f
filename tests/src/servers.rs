//! The database servers `cargo xtask test` starts (throwaway instances loaded with the demo
//! databases by `nl2sql copy`'s code), reached through the addresses it passes in the
//! environment. The tests that need them are ignored in a plain `cargo test` and run by
//! xtask's server step with `--ignored`.

use nl2sql_core::Datasource;
use nl2sql_native::address::Address;
use nl2sql_native::{MySqlDb, PostgresDb};

/// A server engine the tests reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Server {
    /// PostgreSQL.
    Postgres,
    /// MariaDB (through the MySQL adapter).
    MariaDb,
}

impl Server {
    /// The variable holding the server's base address (`scheme://user@host:port`).
    pub fn variable(self) -> &'static str {
        match self {
            Server::Postgres => "NL2SQL_POSTGRES_URL",
            Server::MariaDb => "NL2SQL_MARIADB_URL",
        }
    }

    /// The server's base address; panics with the way to get one.
    pub fn url(self) -> String {
        let var = self.variable();
        std::env::var(var).unwrap_or_else(|_| {
            panic!("{var} is not set: `cargo xtask test` starts the servers and sets it")
        })
    }

    /// Demo database `id`'s address on the server.
    pub fn address(self, id: &str) -> String {
        format!("{}/{id}", self.url())
    }

    /// Demo database `id` on the server, as a datasource.
    pub fn open(self, id: &str) -> Box<dyn Datasource> {
        let address = Address::parse(&self.address(id)).unwrap_or_else(|e| panic!("{e}"));
        let opened: Result<Box<dyn Datasource>, _> = match self {
            Server::Postgres => PostgresDb::connect(id, &address).map(|d| Box::new(d) as _),
            Server::MariaDb => MySqlDb::connect(id, &address).map(|d| Box::new(d) as _),
        };
        opened.unwrap_or_else(|e| panic!("{id} on {self:?}: {e}"))
    }
}

/// Demo database `id` on the test PostgreSQL.
pub fn postgres(id: &str) -> Box<dyn Datasource> {
    Server::Postgres.open(id)
}

/// Demo database `id` on the test MariaDB.
pub fn mariadb(id: &str) -> Box<dyn Datasource> {
    Server::MariaDb.open(id)
}
