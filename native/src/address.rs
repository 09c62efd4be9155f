//! A database's address as a person gives it (`--db`, later the config file): a file path
//! or a server URL. The URL may hold a password, so an address prints without it, and
//! [`redact`] takes it out of any message a driver or server words.

use crate::tls::{Tls, TLS_PARAMETERS};
use nl2sql_core::error::Error;
use percent_encoding::percent_decode_str;
use std::fmt;
use std::path::PathBuf;
use url::Url;

/// Which engine an address reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// A SQLite file.
    Sqlite,
    /// A PostgreSQL server (`postgres://` or `postgresql://`).
    Postgres,
    /// A MySQL or MariaDB server (`mysql://` or `mariadb://`).
    MySql,
    /// A DuckDB file (`.duckdb`, `.ddb`, `duckdb:PATH`, or any file DuckDB wrote).
    DuckDb,
    /// A Spark Connect server (`sc://`).
    Spark,
}

impl Engine {
    /// The engine's name for people.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "SQLite",
            Engine::Postgres => "PostgreSQL",
            Engine::MySql => "MySQL",
            Engine::DuckDb => "DuckDB",
            Engine::Spark => "Spark",
        }
    }
}

/// A parsed address.
#[derive(Clone, PartialEq, Eq)]
pub struct Address {
    engine: Engine,
    /// The address as given (for a server, the URL with its password, without the TLS
    /// parameters the driver does not read).
    text: String,
    /// For a server: what its `sslmode` and `sslrootcert` ask.
    tls: Tls,
    /// What it is, without any secret (a server's driver address with its query, a file's
    /// path): two addresses with the same identity reach the same database.
    identity: String,
    /// For a server: the URL without its password, query or fragment, for messages.
    shown: String,
    /// For a server: the password, decoded, if the URL has one.
    password: Option<String>,
    /// The database's name: the URL's path, or the file's stem.
    database: Option<String>,
}

/// Query parameters that carry a password.
const SECRET_PARAMETERS: [&str; 4] = ["password", "pass", "passwd", "pwd"];

/// File name endings that mark a DuckDB file (any other file is told apart by its header).
const DUCKDB_ENDINGS: [&str; 2] = [".duckdb", ".ddb"];

impl Address {
    /// Reads `text`: a `postgres://`, `mysql://` or `sc://` URL, a `duckdb:` path, else a
    /// file path (SQLite's, or DuckDB's by its name or its header). Never repeats a URL it
    /// refuses: it may hold a password.
    pub fn parse(text: &str) -> Result<Address, Error> {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("sc://") {
            return Self::spark(text);
        }
        if let Some(path) = text
            .strip_prefix("duckdb:")
            .filter(|p| !p.starts_with("//"))
        {
            return Ok(Self::file(Engine::DuckDb, path));
        }
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            return Self::server(Engine::Postgres, text);
        }
        if lower.starts_with("mysql://") || lower.starts_with("mariadb://") {
            return Self::server(Engine::MySql, text);
        }
        if text.contains("://") {
            return Err(crate::errors::usage(
                "--db takes a SQLite or DuckDB file's path, a postgres://, mysql:// or sc:// \
                 address; the address given is none of these",
            ));
        }
        let duckdb = DUCKDB_ENDINGS.iter().any(|e| lower.ends_with(e)) || written_by_duckdb(text);
        let engine = if duckdb {
            Engine::DuckDb
        } else {
            Engine::Sqlite
        };
        Ok(Self::file(engine, text))
    }

    fn file(engine: Engine, text: &str) -> Address {
        let lower = text.to_ascii_lowercase();
        let path = PathBuf::from(text);
        // Not a URL, yet it may be one mistyped or a key=value connection string: a path
        // that looks as if it holds a secret is never repeated.
        let secretive = ["password", "passwd", "pwd=", "@", "="]
            .iter()
            .any(|mark| lower.contains(mark));
        Address {
            engine,
            text: text.to_string(),
            identity: text.to_string(),
            tls: Tls::default(),
            shown: if secretive {
                "the file given".into()
            } else {
                text.to_string()
            },
            password: None,
            database: path.file_stem().map(|s| s.to_string_lossy().into_owned()),
        }
    }

    fn server(engine: Engine, text: &str) -> Result<Address, Error> {
        let url = Url::parse(text).map_err(|e| {
            crate::errors::usage(format!(
                "the {} address does not parse ({e}); expected {}://user@host:port/database",
                engine.name(),
                match engine {
                    Engine::MySql => "mysql",
                    _ => "postgres",
                }
            ))
        })?;
        // A password may also ride in the query (`?password=…`), which drivers read.
        let in_query = url
            .query_pairs()
            .find(|(k, _)| SECRET_PARAMETERS.contains(&k.to_ascii_lowercase().as_str()))
            .map(|(_, v)| v.into_owned());
        let password = url
            .password()
            .map(|p| percent_decode_str(p).decode_utf8_lossy().into_owned())
            .or(in_query);
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let tls = Tls::from_parameters(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(crate::errors::usage)?;
        // The driver reads the rest of the query (`options`, `connect_timeout`, …), not
        // these, which it would refuse. The rest is kept byte for byte: re-encoding it
        // would write a space as `+`, which the PostgreSQL driver does not read as one.
        let mut driver = url.clone();
        let kept: Vec<&str> = url
            .query()
            .unwrap_or_default()
            .split('&')
            .filter(|part| {
                let key = part.split('=').next().unwrap_or_default();
                !part.is_empty() && !TLS_PARAMETERS.contains(&key)
            })
            .collect();
        driver.set_query((!kept.is_empty()).then(|| kept.join("&")).as_deref());
        // What the address is, for a cache's key: the driver's address without any secret.
        let mut identity = driver.clone();
        let _ = identity.set_password(None);
        let public: Vec<&str> = kept
            .iter()
            .copied()
            .filter(|part| {
                let key = part
                    .split('=')
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                !SECRET_PARAMETERS.contains(&key.as_str())
            })
            .collect();
        identity.set_query((!public.is_empty()).then(|| public.join("&")).as_deref());
        let mut shown = url.clone();
        // Both calls fail only for URLs that cannot have a password, which then has none.
        let _ = shown.set_password(None);
        shown.set_query(None);
        shown.set_fragment(None);
        let database = url
            .path_segments()
            .and_then(|mut s| s.next())
            .filter(|s| !s.is_empty())
            .map(|s| percent_decode_str(s).decode_utf8_lossy().into_owned());
        Ok(Address {
            engine,
            text: driver.to_string(),
            identity: identity.to_string(),
            tls,
            shown: shown.to_string(),
            password,
            database,
        })
    }

    /// A Spark Connect address, `sc://host[:port][/database][;key=value…]`. The database
    /// (a schema of Spark's catalogue) is nl2sql's part; the parameters (`token`,
    /// `use_ssl`, `user_id`, Databricks' `x-databricks-cluster-id`, …) go to the client as
    /// given, and a `token` is the secret.
    fn spark(text: &str) -> Result<Address, Error> {
        let rest = &text["sc://".len()..];
        let (main, parameters) = rest.split_once(';').unwrap_or((rest, ""));
        let (authority, path) = main.split_once('/').unwrap_or((main, ""));
        let usage = "a Spark Connect address is sc://host[:port][/database][;token=…;…]";
        if authority.contains('@') {
            return Err(crate::errors::usage(format!(
                "{usage}: a token goes in `;token=…`, not before the host"
            )));
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !host.ends_with(']') || host.starts_with('[') => (host, port),
            _ => (authority, "15002"),
        };
        if host.is_empty() || port.is_empty() || !port.chars().all(|c| c.is_ascii_digit()) {
            return Err(crate::errors::usage(format!(
                "{usage}; the host or port does not read"
            )));
        }
        let database = percent_decode_str(path.trim_end_matches('/'))
            .decode_utf8_lossy()
            .into_owned();
        if database.contains('/') {
            return Err(crate::errors::usage(format!(
                "{usage}: the path names one database"
            )));
        }
        let pairs: Vec<(&str, &str)> = parameters
            .split(';')
            .filter(|p| !p.is_empty())
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .collect();
        let secret = |key: &str| key.eq_ignore_ascii_case("token");
        let password = pairs
            .iter()
            .find(|(k, _)| secret(k))
            .map(|(_, v)| percent_decode_str(v).decode_utf8_lossy().into_owned());
        let join = |keep: &dyn Fn(&str) -> bool| {
            pairs
                .iter()
                .filter(|(k, _)| keep(k))
                .map(|(k, v)| format!(";{k}={v}"))
                .collect::<String>()
        };
        let base = format!("sc://{host}:{port}");
        let named = if database.is_empty() {
            base.clone()
        } else {
            format!("{base}/{path}")
        };
        let all = join(&|_| true);
        Ok(Address {
            engine: Engine::Spark,
            text: if all.is_empty() {
                base.clone()
            } else {
                format!("{base}/{all}")
            },
            tls: Tls::default(),
            identity: format!("{named}{}", join(&|k| !secret(k))),
            shown: named,
            password,
            database: (!database.is_empty()).then_some(database),
        })
    }

    /// The engine it reaches.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The address as given, password included, without the TLS parameters: only for the
    /// driver.
    pub fn url(&self) -> &str {
        &self.text
    }

    /// What the address asks of the connection's encryption.
    pub fn tls(&self) -> &Tls {
        &self.tls
    }

    /// Which database it reaches, without any secret, in full (a server's query and a
    /// file's path included, which the printed form may leave out): what a cache is keyed
    /// by.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The password the address holds, decoded.
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// The database's name (a URL's path, a file's stem).
    pub fn database(&self) -> Option<&str> {
        self.database.as_deref()
    }

    /// The address with `secret` as its password, when the URL has none (the project file
    /// names the variable that holds it).
    pub fn with_password(mut self, secret: String) -> Address {
        if self.password.is_none() {
            self.password = Some(secret);
        }
        self
    }

    /// For a file: its path.
    pub fn path(&self) -> Option<PathBuf> {
        match self.engine {
            Engine::Sqlite => Some(PathBuf::from(&self.text)),
            Engine::DuckDb => Some(PathBuf::from(
                self.text.strip_prefix("duckdb:").unwrap_or(&self.text),
            )),
            Engine::Postgres | Engine::MySql | Engine::Spark => None,
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Debug for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Address({:?}, {})", self.engine, self.shown)
    }
}

/// Whether the file at `path` starts with the header DuckDB writes: a checksum, then
/// `DUCK` at byte 8. A file that cannot be read is not DuckDB's (opening it will say why).
fn written_by_duckdb(path: &str) -> bool {
    use std::io::Read;
    let mut head = [0u8; 12];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head[8..12] == b"DUCK")
}

/// `text` with every occurrence of `secret` (as given and percent-encoded) replaced.
pub fn redact(text: &str, secret: Option<&str>) -> String {
    match secret.filter(|s| !s.is_empty()) {
        None => text.to_string(),
        Some(secret) => {
            let encoded: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
            text.replace(secret, "***").replace(&encoded, "***")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_address_prints_without_its_password() {
        let a =
            Address::parse("postgres://me:s%3Fcret@db.example:5433/shop?sslmode=disable").unwrap();
        assert_eq!(a.engine(), Engine::Postgres);
        assert_eq!(a.password(), Some("s?cret"));
        assert_eq!(a.database(), Some("shop"));
        assert_eq!(a.to_string(), "postgres://me@db.example:5433/shop");
        assert!(!format!("{a:?}").contains("cret"));
        assert_eq!(redact("no: s?cret, s%3Fcret", a.password()), "no: ***, ***");
    }

    #[test]
    fn other_addresses_are_files_or_named_refusals() {
        let f = Address::parse("/tmp/My Shop.sqlite").unwrap();
        assert_eq!(
            (f.engine(), f.database()),
            (Engine::Sqlite, Some("My Shop"))
        );
        let m = Address::parse("mariadb://me:pw@localhost/shop").unwrap();
        assert_eq!(
            (m.engine(), m.to_string().as_str()),
            (Engine::MySql, "mariadb://me@localhost/shop")
        );
        let s = Address::parse("sc://spark.example:443/sales;use_ssl=true;token=hunter2").unwrap();
        assert_eq!(s.engine(), Engine::Spark);
        assert_eq!(s.database(), Some("sales"));
        assert_eq!(s.password(), Some("hunter2"));
        assert_eq!(s.to_string(), "sc://spark.example:443/sales");
        assert_eq!(
            s.url(),
            "sc://spark.example:443/;use_ssl=true;token=hunter2"
        );
        assert_eq!(s.identity(), "sc://spark.example:443/sales;use_ssl=true");
        assert!(!format!("{s:?}").contains("hunter2"));
        let d = Address::parse("sc://localhost").unwrap();
        assert_eq!((d.url(), d.database()), ("sc://localhost:15002", None));
        for bad in ["sc://", "sc://h:x/db", "sc://me:hunter2@h/db", "sc://h/a/b"] {
            let e = Address::parse(bad).unwrap_err();
            assert!(
                e.message.contains("sc://host") && !e.message.contains("hunter2"),
                "{bad}: {e}"
            );
        }
        for (text, path) in [
            ("warehouse.duckdb", "warehouse.duckdb"),
            ("w.DDB", "w.DDB"),
            ("duckdb:/srv/w.db", "/srv/w.db"),
        ] {
            let d = Address::parse(text).unwrap();
            assert_eq!(d.engine(), Engine::DuckDb, "{text}");
            assert_eq!(d.path(), Some(PathBuf::from(path)));
        }
        let e = Address::parse("jdbc:postgresql://h/db?user=u&password=hunter2").unwrap_err();
        assert!(!e.message.contains("hunter2"));
        let e = Address::parse("postgres://me:hunter2@[bad/x").unwrap_err();
        assert!(!e.message.contains("hunter2"), "{e}");
        for text in [
            "host=h user=me password=hunter2",
            "postgres:/me:hunter2@h/db",
        ] {
            let a = Address::parse(text).unwrap();
            assert!(!a.to_string().contains("hunter2") && !format!("{a:?}").contains("hunter2"));
        }
        let q = Address::parse("postgres://me@h/db?sslmode=require&password=hunter2").unwrap();
        assert_eq!(q.password(), Some("hunter2"));
        assert_eq!(q.to_string(), "postgres://me@h/db");
        assert_eq!(q.tls().mode, crate::tls::TlsMode::Require);
        assert_eq!(
            q.url(),
            "postgres://me@h/db?password=hunter2",
            "TLS is not the driver's"
        );
        assert_eq!(q.identity(), "postgres://me@h/db");
        let o = Address::parse(
            "postgres://me:pw@h/db?options=-c%20search_path%3Dsales&sslmode=disable",
        )
        .unwrap();
        assert_eq!(
            o.url(),
            "postgres://me:pw@h/db?options=-c%20search_path%3Dsales"
        );
        assert_eq!(
            o.identity(),
            "postgres://me@h/db?options=-c%20search_path%3Dsales"
        );
        let e = Address::parse("mysql://me:hunter2@h/db?sslmode=verify-ca").unwrap_err();
        assert!(
            e.message.contains("verify-full") && !e.message.contains("hunter2"),
            "{e}"
        );
    }
}
