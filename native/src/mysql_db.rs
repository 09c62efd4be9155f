//! A MySQL or MariaDB database as a read-only datasource, through the blocking `mysql`
//! client.
//!
//! Three locks stand behind the core guard: the session's transactions are read-only
//! (`SET SESSION TRANSACTION READ ONLY`), the server itself must read the text as one
//! statement (it is prepared, and a prepared statement holds one), and comments the server
//! would execute are refused. Values come typed by the binary protocol. The time limit is MariaDB's `max_statement_time` or MySQL's
//! `max_execution_time`.

use crate::address::{redact, Address};
use crate::interrupt::{Interrupt, Watch};
use crate::tls::TlsMode;
use mysql::consts::ColumnType;
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, SslOpts};
use nl2sql_core::adapter::check_read_only_in;
use nl2sql_core::adapter::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame, Value,
};
use std::cell::{Cell, RefCell};
use std::time::Duration;

/// An open MySQL or MariaDB session.
pub struct MySqlDb {
    id: String,
    conn: RefCell<Conn>,
    /// Which server it is: their time limits are set differently.
    mariadb: bool,
    /// The statement time limit (ms, 0: none) and row limit the session has now, so they
    /// are sent only when a query needs others.
    session: Cell<Option<(u64, usize)>>,
    /// The password, so no message from the server or the driver can carry it out.
    secret: Option<String>,
    /// How to connect again: a cancelled run's query is killed from a second connection.
    opts: Opts,
    /// Set when the run is cancelled from elsewhere.
    stop: Option<Interrupt>,
}

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The binary collation's character set: a text column with it holds bytes.
const BINARY_CHARSET: u16 = 63;

impl MySqlDb {
    /// Connects to `address` (`mysql://user[:password]@host[:port]/database`, or
    /// `mariadb://…`) as datasource `id`. Without a password in the address, `MYSQL_PWD`
    /// gives it, as for MySQL's own tools.
    pub fn connect(id: impl Into<String>, address: &Address) -> Result<Self, DatasourceError> {
        let (opts, secret) = connect_opts(address)?;
        let fail = |e: mysql::Error| {
            DatasourceError::new(
                connect_failure(&e),
                format!(
                    "cannot connect to MySQL at {address}: {}",
                    redact(&e.to_string(), secret.as_deref())
                ),
            )
        };
        let mut conn = Conn::new(opts.clone()).map_err(fail)?;
        let version: Option<String> = conn.query_first("SELECT VERSION()").map_err(fail)?;
        let mariadb = version.is_some_and(|v| v.contains("MariaDB"));
        conn.query_drop("SET SESSION TRANSACTION READ ONLY")
            .map_err(fail)?;
        Ok(MySqlDb {
            id: id.into(),
            conn: RefCell::new(conn),
            mariadb,
            session: Cell::new(None),
            secret,
            opts,
            stop: None,
        })
    }

    /// This session, its queries also stopped (CANCELLED, by `KILL QUERY` from a second
    /// connection) when `interrupt` is set.
    pub fn interrupted_by(mut self, interrupt: Interrupt) -> Self {
        self.stop = Some(interrupt);
        self
    }

    fn run(&self, sql: &str, limits: ExecLimits) -> Result<ResultFrame, DatasourceError> {
        check_read_only_in(sql, Dialect::MySql)?;
        // The servers run code hidden in these comments (`/*! … */`, MariaDB's `/*M! … */`)
        // and obey hints in `/*+ … */` (a hint can lift the time limit); the guard's parser
        // reads them as comments, so they are refused here.
        let lower = sql.to_ascii_lowercase();
        if ["/*!", "/*m!", "/*+"]
            .iter()
            .any(|mark| lower.contains(mark))
        {
            return Err(DatasourceError::new(
                DatasourceErrorKind::Refused,
                "refused: executable comments and optimizer hints are not allowed",
            ));
        }
        let mut conn = self
            .conn
            .try_borrow_mut()
            .map_err(|_| unavailable("the MySQL session is busy with another query".to_string()))?;
        // The row cap is the server's too (`sql_select_limit`): dropping a result reads it to
        // its end, so the server must not send more than the cap and one.
        let want = (
            limits.timeout_ms.unwrap_or(0),
            limits.max_rows.saturating_add(1),
        );
        if self.session.get() != Some(want) {
            let time = if self.mariadb {
                format!("max_statement_time = {}", want.0 as f64 / 1000.0)
            } else {
                format!("max_execution_time = {}", want.0)
            };
            conn.query_drop(format!("SET SESSION {time}, sql_select_limit = {}", want.1))
                .map_err(|e| self.to_error(e, limits))?;
            self.session.set(Some(want));
        }
        // Prepared: the server parses the text itself and refuses several statements.
        let statement = conn.prep(sql).map_err(|e| self.to_error(e, limits))?;
        let (opts, id) = (self.opts.clone(), conn.connection_id());
        let watch = Watch::start(None, self.stop.as_ref(), move || {
            // Best effort: a kill that cannot connect leaves the query to its time limit.
            if let Ok(mut killer) = Conn::new(opts) {
                let _ = killer.query_drop(format!("KILL QUERY {id}"));
            }
        });
        let fetched = self.fetch(&mut conn, &statement, limits);
        let fetched = match (fetched, watch.and_then(Watch::finish)) {
            (Err(_), Some(stop)) => Err(stop.error(limits.timeout_ms)),
            (fetched, _) => fetched,
        };
        // Closed whatever happened: with no statement cache, a statement left open would
        // count against the server's limit for the session's whole life.
        let closed = conn.close(statement);
        let frame = fetched?;
        closed.map_err(|e| self.to_error(e, limits))?;
        Ok(frame)
    }

    fn fetch(
        &self,
        conn: &mut Conn,
        statement: &mysql::Statement,
        limits: ExecLimits,
    ) -> Result<ResultFrame, DatasourceError> {
        let kinds: Vec<(ColumnType, bool)> = statement
            .columns()
            .iter()
            .map(|c| (c.column_type(), c.character_set() == BINARY_CHARSET))
            .collect();
        let columns = statement
            .columns()
            .iter()
            .map(|c| c.name_str().into_owned())
            .collect();
        let mut frame = ResultFrame {
            columns,
            ..ResultFrame::default()
        };
        let result = conn
            .exec_iter(statement, ())
            .map_err(|e| self.to_error(e, limits))?;
        for row in result {
            let row = row.map_err(|e| self.to_error(e, limits))?;
            if frame.rows.len() == limits.max_rows {
                frame.truncated = true;
                break;
            }
            frame.rows.push(
                row.unwrap()
                    .into_iter()
                    .zip(&kinds)
                    .map(|(v, (ty, binary))| to_value(v, *ty, *binary))
                    .collect(),
            );
        }
        Ok(frame)
    }

    /// Sorts a driver error into the datasource error kinds by the server's error code.
    fn to_error(&self, e: mysql::Error, limits: ExecLimits) -> DatasourceError {
        let text = redact(&e.to_string(), self.secret.as_deref());
        let mysql::Error::MySqlError(server) = &e else {
            return unavailable(format!("the MySQL connection failed: {text}"));
        };
        let message = redact(&server.message, self.secret.as_deref());
        match server.code {
            // MariaDB's max_statement_time, MySQL's max_execution_time.
            1969 | 3024 => {
                let limit = limits.timeout_ms.map_or_else(
                    || "its time limit".to_string(),
                    |ms| format!("its time limit of {ms} ms"),
                );
                DatasourceError::new(
                    DatasourceErrorKind::TimedOut,
                    format!("it ran past {limit}"),
                )
            }
            // A write in a read-only transaction; access denied to a table or column.
            1792 | 1142 | 1143 | 1044 | 1045 => {
                DatasourceError::new(DatasourceErrorKind::Refused, message)
            }
            // Server gone, lost connection, too many connections, out of memory.
            2006 | 2013 | 1040 | 1037 | 1038 | 1041 => unavailable(message),
            _ => DatasourceError::new(DatasourceErrorKind::InvalidQuery, message),
        }
    }
}

impl Datasource for MySqlDb {
    fn id(&self) -> &str {
        &self.id
    }

    fn dialect(&self) -> Dialect {
        Dialect::MySql
    }

    fn execute<'a>(
        &'a self,
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(std::future::ready(self.run(sql, limits)))
    }
}

/// The client options `address` gives, and the password: from the address, else from
/// `MYSQL_PWD`.
pub(crate) fn connect_opts(address: &Address) -> Result<(Opts, Option<String>), DatasourceError> {
    // The driver reads `mysql://` only; `mariadb://` means the same.
    let url = match address.url().split_once("://") {
        Some((_, rest)) => format!("mysql://{rest}"),
        None => address.url().to_string(),
    };
    let opts = Opts::from_url(&url).map_err(|e| {
        unavailable(format!(
            "the MySQL address {address} does not parse: {}",
            redact(&e.to_string(), address.password())
        ))
    })?;
    let secret = opts
        .get_pass()
        .or(address.password())
        .map(str::to_string)
        .or_else(|| std::env::var("MYSQL_PWD").ok().filter(|p| !p.is_empty()));
    // The client cannot fall back from TLS to plain, so `prefer` is plain here.
    let ssl = match address.tls().mode {
        TlsMode::Disable | TlsMode::Prefer => None,
        TlsMode::Require => Some(
            SslOpts::default()
                .with_danger_accept_invalid_certs(true)
                .with_danger_skip_domain_validation(true),
        ),
        TlsMode::VerifyFull => {
            Some(SslOpts::default().with_root_cert_path(address.tls().root_cert.clone()))
        }
    };
    // The client would otherwise reconnect through the server's socket when the host is
    // this machine, leaving the TLS connection asked for.
    let socket = ssl.is_none();
    let opts = OptsBuilder::from_opts(opts)
        .pass(secret.clone())
        .tcp_connect_timeout(Some(CONNECT_TIMEOUT))
        .stmt_cache_size(0)
        .prefer_socket(socket)
        .ssl_opts(ssl);
    Ok((opts.into(), secret))
}

fn unavailable(message: String) -> DatasourceError {
    DatasourceError::new(DatasourceErrorKind::Unavailable, message)
}

/// A value as SQLite would store it: whole numbers as integers, other numbers as reals
/// (exact decimals, which come as text, included), dates and times as the ISO text MySQL
/// writes, bytes as bytes, and everything else as text.
fn to_value(value: mysql::Value, ty: ColumnType, binary: bool) -> Value {
    use mysql::Value as My;
    match value {
        My::NULL => Value::Null,
        My::Int(i) => Value::Integer(i),
        My::UInt(u) => i64::try_from(u).map_or(Value::Real(u as f64), Value::Integer),
        My::Float(f) => Value::Real(f64::from(f)),
        My::Double(d) => Value::Real(d),
        My::Date(y, mo, d, h, mi, s, us) => {
            let date = format!("{y:04}-{mo:02}-{d:02}");
            Value::Text(match ty {
                ColumnType::MYSQL_TYPE_DATE | ColumnType::MYSQL_TYPE_NEWDATE => date,
                _ if us > 0 => format!("{date} {h:02}:{mi:02}:{s:02}.{us:06}"),
                _ => format!("{date} {h:02}:{mi:02}:{s:02}"),
            })
        }
        My::Time(negative, days, h, mi, s, us) => {
            let sign = if negative { "-" } else { "" };
            let hours = u64::from(days) * 24 + u64::from(h);
            Value::Text(if us > 0 {
                format!("{sign}{hours:02}:{mi:02}:{s:02}.{us:06}")
            } else {
                format!("{sign}{hours:02}:{mi:02}:{s:02}")
            })
        }
        My::Bytes(bytes) => match ty {
            ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => {
                let text = String::from_utf8_lossy(&bytes);
                match text.parse::<i64>() {
                    Ok(i) => Value::Integer(i),
                    Err(_) => text
                        .parse()
                        .map_or_else(|_| Value::Text(text.into_owned()), Value::Real),
                }
            }
            ColumnType::MYSQL_TYPE_TINY_BLOB
            | ColumnType::MYSQL_TYPE_MEDIUM_BLOB
            | ColumnType::MYSQL_TYPE_LONG_BLOB
            | ColumnType::MYSQL_TYPE_BLOB
            | ColumnType::MYSQL_TYPE_VAR_STRING
            | ColumnType::MYSQL_TYPE_STRING
            | ColumnType::MYSQL_TYPE_BIT
                if binary =>
            {
                Value::Blob(bytes)
            }
            _ => Value::Text(String::from_utf8_lossy(&bytes).into_owned()),
        },
    }
}

/// What kind of failure a failed connection is: a login the server refused (1044: no
/// access to the database, 1045: wrong user or password, 1698: a user who may not log in
/// so), a server not reached (the network, a connect timeout), or anything else.
fn connect_failure(e: &mysql::Error) -> DatasourceErrorKind {
    use mysql::{DriverError, Error};
    match e {
        Error::MySqlError(e) if matches!(e.code, 1044 | 1045 | 1698) => DatasourceErrorKind::Denied,
        Error::IoError(_)
        | Error::DriverError(DriverError::ConnectTimeout | DriverError::CouldNotConnect(_)) => {
            DatasourceErrorKind::Unreachable
        }
        _ => DatasourceErrorKind::Unavailable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mysql::Value as My;

    #[test]
    fn binary_protocol_values_are_typed_as_sqlite_stores_them() {
        let dec = ColumnType::MYSQL_TYPE_NEWDECIMAL;
        assert_eq!(
            to_value(My::Bytes(b"0.99".to_vec()), dec, false),
            Value::Real(0.99)
        );
        assert_eq!(
            to_value(My::Bytes(b"1297".to_vec()), dec, false),
            Value::Integer(1297)
        );
        let dt = ColumnType::MYSQL_TYPE_DATETIME;
        assert_eq!(
            to_value(My::Date(2009, 1, 1, 0, 0, 0, 0), dt, false),
            Value::Text("2009-01-01 00:00:00".into())
        );
        let date = ColumnType::MYSQL_TYPE_DATE;
        assert_eq!(
            to_value(My::Date(2009, 1, 2, 0, 0, 0, 0), date, false),
            Value::Text("2009-01-02".into())
        );
        let blob = ColumnType::MYSQL_TYPE_BLOB;
        assert_eq!(
            to_value(My::Bytes(vec![0, 255]), blob, true),
            Value::Blob(vec![0, 255])
        );
        assert_eq!(
            to_value(My::Bytes(b"text".to_vec()), blob, false),
            Value::Text("text".into())
        );
        assert_eq!(
            to_value(My::UInt(u64::MAX), blob, false),
            Value::Real(u64::MAX as f64)
        );
        assert_eq!(
            to_value(
                My::Time(true, 1, 2, 3, 4, 0),
                ColumnType::MYSQL_TYPE_TIME,
                false
            ),
            Value::Text("-26:03:04".into())
        );
    }
}
