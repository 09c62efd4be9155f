//! A PostgreSQL database as a read-only datasource, through the blocking `postgres` client.
//!
//! Three locks stand behind the core guard: every query runs in its own `READ ONLY`
//! transaction that is always rolled back (so even a setting a query changed, say with
//! `set_config`, does not outlive it), PostgreSQL itself must read the text as one
//! statement (it is prepared first, and the extended protocol refuses several), and rows
//! are fetched through a cursor, at most the row cap plus one. The time limit is the
//! server's `statement_timeout`, set for that transaction alone.

use crate::address::{redact, Address};
use crate::interrupt::{Interrupt, Watch};
use crate::tls::TlsMode;
use nl2sql_core::adapter::check_read_only_in;
use nl2sql_core::adapter::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame, Value,
};
use postgres::config::SslMode;
use postgres::error::SqlState;
use postgres::types::{Kind, Type};
use postgres::{Client, NoTls, SimpleQueryMessage};
use std::cell::RefCell;
use std::time::Duration;
use tokio_postgres_rustls::MakeRustlsConnect;

/// An open PostgreSQL session.
pub struct PostgresDb {
    id: String,
    client: RefCell<Client>,
    /// The password, so no message from the server or the driver can carry it out.
    secret: Option<String>,
    /// The connection's TLS, for the cancel request a cancelled run sends.
    tls: Option<MakeRustlsConnect>,
    /// Set when the run is cancelled from elsewhere.
    stop: Option<Interrupt>,
}

/// How long connecting may take when the address does not say.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

impl PostgresDb {
    /// Connects to `address` (`postgres://user[:password]@host[:port]/database`) as
    /// datasource `id`. Without a password in the address, `PGPASSWORD` gives it, as for
    /// PostgreSQL's own tools.
    pub fn connect(id: impl Into<String>, address: &Address) -> Result<Self, DatasourceError> {
        let (config, secret) = connect_config(address)?;
        let fail = |e: postgres::Error| {
            DatasourceError::new(
                connect_failure(&e),
                format!(
                    "cannot connect to PostgreSQL at {address}: {}",
                    redact(&described(&e), secret.as_deref())
                ),
            )
        };
        let tls = connector(address)?;
        let mut client = connect_with(&config, &tls).map_err(fail)?;
        client
            .batch_execute("SET default_transaction_read_only = on")
            .map_err(fail)?;
        Ok(PostgresDb {
            id: id.into(),
            client: RefCell::new(client),
            secret,
            tls,
            stop: None,
        })
    }

    /// This session, its queries also stopped (CANCELLED, by PostgreSQL's cancel request
    /// from a watching thread) when `interrupt` is set.
    pub fn interrupted_by(mut self, interrupt: Interrupt) -> Self {
        self.stop = Some(interrupt);
        self
    }

    fn run(&self, sql: &str, limits: ExecLimits) -> Result<ResultFrame, DatasourceError> {
        check_read_only_in(sql, Dialect::Postgres)?;
        let mut client = self.client.try_borrow_mut().map_err(|_| {
            unavailable("the PostgreSQL session is busy with another query".to_string())
        })?;
        // PostgreSQL parses the text itself here: several statements are refused, so what
        // follows splices exactly one complete statement into the cursor's declaration.
        let statement = client.prepare(sql).map_err(|e| self.to_error(e, limits))?;
        let types: Vec<Type> = statement
            .columns()
            .iter()
            .map(|c| c.type_().clone())
            .collect();
        let columns = statement
            .columns()
            .iter()
            .map(|c| c.name().to_string())
            .collect();
        // Without a limit of its own, a query keeps the role's (a DBA may have set one).
        let timeout = limits.timeout_ms.map_or(String::new(), |ms| {
            format!(
                "SET LOCAL statement_timeout = {}; ",
                ms.min(i32::MAX as u64)
            )
        });
        let fetch = limits.max_rows.saturating_add(1);
        // The newline ends a trailing `--` comment. The transaction is rolled back whatever
        // happened: on success by the last statement, on a fault (which skips the rest of
        // the text and leaves the transaction open) right after.
        let token = client.cancel_token();
        let tls = self.tls.clone();
        let watch = Watch::start(None, self.stop.as_ref(), move || {
            // Best effort: a cancel request that cannot reach the server leaves the query
            // to its time limit.
            let _ = match tls {
                Some(tls) => token.cancel_query(tls),
                None => token.cancel_query(NoTls),
            };
        });
        let outcome = client.simple_query(&format!(
            "BEGIN READ ONLY; {timeout}DECLARE nl2sql_rows NO SCROLL CURSOR FOR {sql}\n; \
             FETCH FORWARD {fetch} FROM nl2sql_rows; ROLLBACK"
        ));
        let stopped = watch.and_then(Watch::finish);
        let messages = match outcome {
            Ok(messages) => messages,
            Err(e) => {
                // Best effort: a closed connection cannot roll back, and reports itself.
                let _ = client.batch_execute("ROLLBACK");
                return Err(match stopped {
                    Some(stop) => stop.error(limits.timeout_ms),
                    None => self.to_error(e, limits),
                });
            }
        };
        let mut frame = ResultFrame {
            columns,
            ..ResultFrame::default()
        };
        for message in &messages {
            let SimpleQueryMessage::Row(row) = message else {
                continue;
            };
            if frame.rows.len() == limits.max_rows {
                frame.truncated = true;
                break;
            }
            frame.rows.push(
                types
                    .iter()
                    .enumerate()
                    .map(|(i, ty)| to_value(row.try_get(i).ok().flatten(), ty))
                    .collect(),
            );
        }
        Ok(frame)
    }

    /// Sorts a driver error into the datasource error kinds by its SQLSTATE class.
    fn to_error(&self, e: postgres::Error, limits: ExecLimits) -> DatasourceError {
        let message = redact(&described(&e), self.secret.as_deref());
        let Some(db) = e.as_db_error() else {
            return unavailable(format!("the PostgreSQL connection failed: {message}"));
        };
        let text = redact(db.message(), self.secret.as_deref());
        let code = db.code();
        if *code == SqlState::QUERY_CANCELED {
            let limit = limits.timeout_ms.map_or_else(
                || "its time limit".to_string(),
                |ms| format!("its time limit of {ms} ms"),
            );
            return DatasourceError::new(
                DatasourceErrorKind::TimedOut,
                format!("it ran past {limit}"),
            );
        }
        let refused = [
            SqlState::READ_ONLY_SQL_TRANSACTION,
            SqlState::INSUFFICIENT_PRIVILEGE,
        ];
        let kind = if refused.contains(code) {
            DatasourceErrorKind::Refused
        } else {
            // Connection, authentication, resources, operator intervention, system and
            // internal errors are the server's state, not the query's fault.
            match code.code().get(..2).unwrap_or_default() {
                "08" | "28" | "3D" | "53" | "57" | "58" | "XX" => DatasourceErrorKind::Unavailable,
                _ => DatasourceErrorKind::InvalidQuery,
            }
        };
        DatasourceError::new(kind, text)
    }
}

impl Datasource for PostgresDb {
    fn id(&self) -> &str {
        &self.id
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute<'a>(
        &'a self,
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(std::future::ready(self.run(sql, limits)))
    }
}

/// The client configuration `address` gives, and the password it holds: from the address,
/// else from `PGPASSWORD` as for PostgreSQL's own tools.
pub(crate) fn connect_config(
    address: &Address,
) -> Result<(postgres::Config, Option<String>), DatasourceError> {
    let mut config: postgres::Config = address.url().parse().map_err(|e: postgres::Error| {
        unavailable(format!(
            "the PostgreSQL address {address} does not parse: {}",
            redact(&e.to_string(), address.password())
        ))
    })?;
    let secret = match (config.get_password(), address.password()) {
        (Some(p), _) => Some(String::from_utf8_lossy(p).into_owned()),
        (None, Some(p)) => Some(p.to_string()),
        (None, None) => std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()),
    };
    if let (None, Some(p)) = (config.get_password(), &secret) {
        config.password(p);
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    config.ssl_mode(match address.tls().mode {
        TlsMode::Disable => SslMode::Disable,
        TlsMode::Prefer => SslMode::Prefer,
        TlsMode::Require | TlsMode::VerifyFull => SslMode::Require,
    });
    config.application_name("nl2sql");
    Ok((config, secret))
}

/// The TLS connector the address asks for; `None`: no TLS.
pub(crate) fn connector(address: &Address) -> Result<Option<MakeRustlsConnect>, DatasourceError> {
    let config = address.tls().client_config().map_err(|e| {
        unavailable(format!(
            "cannot connect to PostgreSQL at {address}: {}",
            redact(&e, address.password())
        ))
    })?;
    Ok(config.map(MakeRustlsConnect::new))
}

/// Connects with `tls` when there is one.
pub(crate) fn connect_with(
    config: &postgres::Config,
    tls: &Option<MakeRustlsConnect>,
) -> Result<Client, postgres::Error> {
    match tls {
        Some(tls) => config.connect(tls.clone()),
        None => config.connect(NoTls),
    }
}

/// What kind of failure a failed connection is: a login the server refused, a server not
/// reached (an error of the network, not of the server), or anything else the server said.
fn connect_failure(e: &postgres::Error) -> DatasourceErrorKind {
    let denied = [
        SqlState::INVALID_PASSWORD,
        SqlState::INVALID_AUTHORIZATION_SPECIFICATION,
    ];
    if let Some(code) = e.code() {
        return if denied.contains(code) {
            DatasourceErrorKind::Denied
        } else {
            DatasourceErrorKind::Unavailable
        };
    }
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        if c.is::<std::io::Error>() {
            return DatasourceErrorKind::Unreachable;
        }
        cause = c.source();
    }
    // The driver's own connect timeout is not an I/O error.
    if described(e).contains("timed out") {
        DatasourceErrorKind::Unreachable
    } else {
        DatasourceErrorKind::Unavailable
    }
}

/// A driver error with its causes ("error connecting to server: Connection refused").
pub(crate) fn described(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

fn unavailable(message: String) -> DatasourceError {
    DatasourceError::new(DatasourceErrorKind::Unavailable, message)
}

/// A value in PostgreSQL's text form, typed by its column's type as SQLite would store it:
/// whole numbers and booleans as integers, other numbers as reals, `bytea` as bytes, and
/// everything else (dates, times, JSON, arrays) as the text PostgreSQL writes.
fn to_value(text: Option<&str>, ty: &Type) -> Value {
    let Some(text) = text else {
        return Value::Null;
    };
    if let Kind::Domain(inner) = ty.kind() {
        return to_value(Some(text), inner);
    }
    let as_text = || Value::Text(text.to_string());
    match *ty {
        Type::BOOL => Value::Integer(i64::from(text == "t")),
        Type::INT2 | Type::INT4 | Type::INT8 | Type::OID => text
            .parse()
            .map(Value::Integer)
            .unwrap_or_else(|_| as_text()),
        Type::FLOAT4 | Type::FLOAT8 => text.parse().map(Value::Real).unwrap_or_else(|_| as_text()),
        // An exact number without a fraction (a sum of integers) stays whole when it fits.
        Type::NUMERIC => match text.parse::<i64>() {
            Ok(i) => Value::Integer(i),
            Err(_) => text.parse().map(Value::Real).unwrap_or_else(|_| as_text()),
        },
        Type::BYTEA => text
            .strip_prefix("\\x")
            .and_then(hex)
            .map(Value::Blob)
            .unwrap_or_else(as_text),
        _ => as_text(),
    }
}

fn hex(digits: &str) -> Option<Vec<u8>> {
    let bytes = digits.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_values_are_typed_as_sqlite_stores_them() {
        assert_eq!(to_value(Some("t"), &Type::BOOL), Value::Integer(1));
        assert_eq!(to_value(Some("42"), &Type::INT8), Value::Integer(42));
        assert_eq!(to_value(Some("0.99"), &Type::NUMERIC), Value::Real(0.99));
        assert_eq!(to_value(Some("1297"), &Type::NUMERIC), Value::Integer(1297));
        assert_eq!(to_value(Some("1.5"), &Type::FLOAT8), Value::Real(1.5));
        assert_eq!(
            to_value(Some("\\x00ff"), &Type::BYTEA),
            Value::Blob(vec![0, 255])
        );
        assert_eq!(
            to_value(Some("2009-01-01 00:00:00"), &Type::TIMESTAMP),
            Value::Text("2009-01-01 00:00:00".into())
        );
        assert_eq!(to_value(None, &Type::TEXT), Value::Null);
        assert_eq!(to_value(Some("x"), &Type::INT4), Value::Text("x".into()));
    }
}
