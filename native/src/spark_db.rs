//! A Spark database (one schema of Spark's catalogue) as a datasource, over Spark Connect
//! through the Apache Spark project's Rust client.
//!
//! Spark has no read-only session and no statement timeout. So the guard is the barrier
//! (on Spark it also refuses reads of files by path and calls into Java or outside the
//! database), with the session's `spark.sql.runSQLOnFiles` turned off behind it; rows are
//! capped on the server (a limit on the query's plan); and the time limit and a cancelled
//! run interrupt the operation by its tag from a watching thread.
//!
//! The tables, columns and types come from Spark's catalogue calls, not from SQL. Spark
//! keeps no primary or foreign keys on its tables (nor NOT NULL on Parquet ones), so those
//! come from the table property [`CONSTRAINTS_PROPERTY`] (`nl2sql copy` writes it; anyone
//! may set it on their own tables).

// The client's own error (`SparkError`, 184 bytes) is what its calls return; closures that
// chain them pass it on as it is.
#![allow(clippy::result_large_err)]

use crate::address::{redact, Address};
use crate::interrupt::{Interrupt, Watch};
use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{self as types, DataType, TimeUnit};
use nl2sql_core::adapter::check_read_only_in;
use nl2sql_core::adapter::{quote_name, quote_text};
use nl2sql_core::adapter::{ColumnShape, Structure, TableShape};
use nl2sql_core::adapter::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, ForeignKey,
    LocalBoxFuture, ResultFrame, Value,
};
use serde::{Deserialize, Serialize};
use spark_connect::{SparkError, SparkSession};
use std::cell::{Cell, RefCell};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The table property that declares what Spark's catalogue does not keep of a table, as
/// JSON ([`Constraints`]).
pub const CONSTRAINTS_PROPERTY: &str = "nl2sql.constraints";

/// What [`CONSTRAINTS_PROPERTY`] declares: the keys (Spark keeps none) and the columns
/// that hold no NULL (Spark reads a Parquet table's columns as nullable whatever its DDL
/// said).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constraints {
    /// The primary key's columns, in key order.
    #[serde(default)]
    pub primary_key: Vec<String>,
    /// The foreign keys.
    #[serde(default)]
    pub foreign_keys: Vec<ForeignKey>,
    /// Columns declared NOT NULL.
    #[serde(default)]
    pub not_null: Vec<String>,
}

/// How long reaching the server may take before a session is even tried: the client
/// retries an unreachable server for minutes.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// An open Spark Connect session, its current database the one the address names.
pub struct SparkDb {
    id: String,
    /// Replaced after a query is stopped, so nothing of the stopped operation (its
    /// interrupt, its release) can reach the next one.
    session: RefCell<SparkSession>,
    /// The session's current database (the address's, else the server's current one): its
    /// tables keep bare names.
    database: String,
    /// The databases read, when a project's `schemas` lists them; else `database` alone.
    listed: Option<Vec<String>>,
    /// The token, so no message from the server or the client can carry it out.
    secret: Option<String>,
    /// Set when the run is cancelled from elsewhere.
    stop: Option<Interrupt>,
    /// Whether a query is running (a session runs one at a time here).
    busy: Cell<bool>,
    /// Numbers each operation's tag.
    operations: Cell<u64>,
}

impl SparkDb {
    /// Connects to `address` (`sc://host:port[/database][;token=…]`) as datasource `id`.
    pub fn connect(id: impl Into<String>, address: &Address) -> Result<Self, DatasourceError> {
        let (session, secret) = open_session(address)?;
        let fail = |e: SparkError| {
            unavailable(format!(
                "cannot use Spark at {address}: {}",
                redact(&e.to_string(), secret.as_deref())
            ))
        };
        let database = match address.database() {
            Some(db) => {
                if !session.catalog().database_exists(db).map_err(fail)? {
                    return Err(unavailable(format!(
                        "Spark at {address} has no database {db}"
                    )));
                }
                db.to_string()
            }
            None => session.catalog().current_database().map_err(fail)?,
        };
        prepare(&session, &database).map_err(fail)?;
        Ok(SparkDb {
            id: id.into(),
            session: RefCell::new(session),
            database,
            listed: None,
            secret,
            stop: None,
            busy: Cell::new(false),
            operations: Cell::new(0),
        })
    }

    /// This session reading the databases `listed` (a project's `schemas`) rather than its
    /// current one alone: their tables named `database.table`, the current one's bare. A
    /// listed database the server does not have holds no table (the workspace says so).
    pub fn reading(mut self, listed: Option<&[String]>) -> Self {
        self.listed = listed.map(<[String]>::to_vec);
        self
    }

    /// This session, its queries also stopped (CANCELLED) when `interrupt` is set.
    pub fn interrupted_by(mut self, interrupt: Interrupt) -> Self {
        self.stop = Some(interrupt);
        self
    }

    fn run(&self, sql: &str, limits: ExecLimits) -> Result<ResultFrame, DatasourceError> {
        check_read_only_in(sql, Dialect::Spark)?;
        let _busy = Busy::take(&self.busy)?;
        let session = self.session.borrow().clone();
        let n = self.operations.get() + 1;
        self.operations.set(n);
        let tag = format!("nl2sql-{}-{n}", std::process::id());
        session.add_tag(&tag).map_err(|e| self.to_error(&e))?;
        let (interrupter, watched) = (session.clone(), tag.clone());
        let watch = Watch::start(limits.timeout_ms, self.stop.as_ref(), move || {
            // Best effort: an interrupt that cannot reach the server leaves the query to end.
            let _ = interrupter.interrupt_tag(&watched);
        });
        let fetch = i32::try_from(limits.max_rows.saturating_add(1)).unwrap_or(i32::MAX);
        let outcome = collect_aside(&session, sql, fetch, watch.as_ref());
        session.remove_tag(&tag);
        let stopped = watch.and_then(Watch::release);
        if stopped.is_some() {
            self.renew(&session);
        }
        let (columns, batches) = match (outcome, stopped) {
            // Rows that arrived as the interrupt went out are still the answer.
            (Some(Ok(read)), _) => read,
            (_, Some(stop)) => return Err(stop.error(limits.timeout_ms)),
            (Some(Err(e)), None) => return Err(self.to_error(&e)),
            (None, None) => {
                return Err(unavailable(
                    "the Spark client stopped before the query ended".into(),
                ))
            }
        };
        let mut frame = ResultFrame {
            columns,
            ..ResultFrame::default()
        };
        'batches: for batch in &batches {
            for row in 0..batch.num_rows() {
                if frame.rows.len() == limits.max_rows {
                    frame.truncated = true;
                    break 'batches;
                }
                frame.rows.push(
                    batch
                        .columns()
                        .iter()
                        .map(|column| to_value(column.as_ref(), row))
                        .collect(),
                );
            }
        }
        Ok(frame)
    }

    /// A new server-side session on the same connection in place of `stopped`'s. Best
    /// effort: if it cannot be prepared, the old one stays in use.
    fn renew(&self, stopped: &SparkSession) {
        let fresh = stopped.new_session();
        if prepare(&fresh, &self.database).is_ok() {
            *self.session.borrow_mut() = fresh;
        }
    }

    /// Sorts a client error into the datasource error kinds.
    fn to_error(&self, e: &SparkError) -> DatasourceError {
        use spark_connect_core::SparkErrorKind as K;
        let message = redact(&e.to_string(), self.secret.as_deref());
        // Interrupted by someone else than this session's watch (another client, an
        // operator): the run did not cancel it, but it was cancelled.
        if e.error_class.contains("OPERATION_CANCELED") || message.contains("OPERATION_CANCELED") {
            return DatasourceError::new(
                DatasourceErrorKind::Cancelled,
                format!("the query was cancelled on the Spark server: {message}"),
            );
        }
        let kind = match e.kind {
            K::Connect | K::ConnectGrpc | K::SessionNotSame => DatasourceErrorKind::Unavailable,
            _ => DatasourceErrorKind::InvalidQuery,
        };
        DatasourceError::new(kind, message)
    }

    /// The catalogue could not be read: why, the token left out.
    fn unreadable(&self, e: &SparkError) -> DatasourceError {
        unavailable(format!(
            "could not read the schema: {}",
            redact(&e.to_string(), self.secret.as_deref())
        ))
    }

    /// The databases' tables and views from Spark's catalogue, each with its columns and
    /// the keys its [`CONSTRAINTS_PROPERTY`] declares.
    fn structure(&self) -> Result<Structure, DatasourceError> {
        let fail = |e: SparkError| self.unreadable(&e);
        let session = self.session.borrow().clone();
        let catalog = session.catalog();
        // Spark's catalogue keeps database names in lower case and compares them so: a
        // database listed twice, in any case, is read once.
        let mut databases: Vec<String> = match &self.listed {
            Some(listed) => listed.iter().map(|d| d.to_ascii_lowercase()).collect(),
            None => vec![self.database.clone()],
        };
        databases.sort();
        databases.dedup();
        let mut shapes = Vec::new();
        for database in &databases {
            if !catalog.database_exists(database).map_err(fail)? {
                continue;
            }
            let own = database.eq_ignore_ascii_case(&self.database);
            shapes.extend(self.tables_of(database, own)?);
        }
        // A key names its table as the copy's source spelt it, within its own database;
        // the catalogue's spelling (Spark keeps names in lower case) is the one queries and
        // the snapshot use.
        let names: Vec<(Option<String>, String)> = shapes
            .iter()
            .map(|t| (t.schema.clone(), t.name.clone()))
            .collect();
        for table in &mut shapes {
            for key in &mut table.foreign_keys {
                let found = names.iter().find(|(schema, name)| {
                    *schema == table.schema
                        && TableShape::named(schema.as_deref(), &key.referenced_table)
                            .0
                            .eq_ignore_ascii_case(name)
                });
                if let Some((_, name)) = found {
                    key.referenced_table = name.clone();
                }
            }
        }
        Ok(shapes)
    }

    /// Database `database`'s tables and views; `own`: the session's current one, whose
    /// tables keep bare names.
    fn tables_of(&self, database: &str, own: bool) -> Result<Vec<TableShape>, DatasourceError> {
        let fail = |e: SparkError| self.unreadable(&e);
        let session = self.session.borrow().clone();
        let catalog = session.catalog();
        let tables = catalog
            .list_tables_in_database(database)
            .and_then(|f| f.collect())
            .map_err(fail)?;
        let mut shapes = Vec::new();
        for row in &tables {
            let text = |field: &str| -> Option<String> {
                row.get_by_name(field)
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            };
            if row
                .get_by_name("isTemporary")
                .and_then(|v| v.as_bool())
                .unwrap_or(false)
            {
                continue;
            }
            let Some(name) = text("name") else {
                return Err(unavailable(
                    "could not read the schema: Spark listed a table without a name".into(),
                ));
            };
            let view = text("tableType").is_some_and(|t| t.eq_ignore_ascii_case("VIEW"));
            let keys = self.keys(database, &name)?;
            let columns = catalog
                .list_columns_with_database(&name, Some(database))
                .and_then(|f| f.collect())
                .map_err(fail)?;
            let (shown, schema) = TableShape::named((!own).then_some(database), &name);
            let mut shape = TableShape {
                name: shown,
                schema,
                columns: Vec::new(),
                foreign_keys: keys.foreign_keys,
                view,
            };
            for column in &columns {
                let field = |f: &str| column.get_by_name(f).and_then(|v| v.as_str());
                let (Some(column_name), Some(declared)) = (field("name"), field("dataType")) else {
                    return Err(unavailable(format!(
                        "could not read the schema: Spark listed a column of {name} without \
                         a name or a type"
                    )));
                };
                let position = keys
                    .primary_key
                    .iter()
                    .position(|k| k.eq_ignore_ascii_case(column_name));
                shape.columns.push(ColumnShape {
                    name: column_name.to_string(),
                    declared_type: declared.to_string(),
                    nullable: column
                        .get_by_name("nullable")
                        .and_then(|v| v.as_bool())
                        .unwrap_or(true)
                        && position.is_none()
                        && !keys
                            .not_null
                            .iter()
                            .any(|c| c.eq_ignore_ascii_case(column_name)),
                    primary_key_position: position.and_then(|p| u32::try_from(p + 1).ok()),
                });
            }
            shapes.push(shape);
        }
        Ok(shapes)
    }

    /// What table `name` of `database` declares in its [`CONSTRAINTS_PROPERTY`] (nothing
    /// when it has none); a property that does not read is an error that names the table.
    fn keys(&self, database: &str, name: &str) -> Result<Constraints, DatasourceError> {
        let sql = format!(
            "SHOW TBLPROPERTIES {}.{} ({})",
            quote_name(database, Dialect::Spark),
            quote_name(name, Dialect::Spark),
            quote_text(CONSTRAINTS_PROPERTY, Dialect::Spark)
        );
        let session = self.session.borrow().clone();
        let rows = session.sql(&sql).and_then(|f| f.collect()).map_err(|e| {
            unavailable(format!(
                "could not read the keys of {name}: {}",
                redact(&e.to_string(), self.secret.as_deref())
            ))
        })?;
        let value = rows
            .first()
            .and_then(|r| r.get_by_name("value"))
            .and_then(|v| v.as_str());
        match value {
            // Spark answers a property a table does not have with a sentence, not a row.
            Some(json) if json.trim_start().starts_with('{') => {
                serde_json::from_str(json).map_err(|e| {
                    unavailable(format!(
                        "table {name}'s property {CONSTRAINTS_PROPERTY} does not read as keys: {e}"
                    ))
                })
            }
            _ => Ok(Constraints::default()),
        }
    }
}

/// How long a stopped query may take to end on its own before the run goes on without it.
/// Spark kills a job's tasks when they next look at their flag, which under load can be
/// a minute later; the interrupt and the fresh session keep the late end from mattering.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// A query's columns and rows as Spark sent them.
type Collected = (Vec<String>, Vec<RecordBatch>);

/// Runs `sql` (at most `fetch` rows) on a thread of its own and waits for it; once `watch`
/// has fired, waits [`STOP_GRACE`] more and then leaves it (`None`).
fn collect_aside(
    session: &SparkSession,
    sql: &str,
    fetch: i32,
    watch: Option<&Watch>,
) -> Option<Result<Collected, SparkError>> {
    let (sent, outcome) = mpsc::channel();
    let (session, sql) = (session.clone(), sql.to_string());
    std::thread::spawn(move || {
        // The receiver is gone only when the run went on without this query.
        let _ = sent.send(collect(&session, &sql, fetch));
    });
    let Some(watch) = watch else {
        return outcome.recv().ok();
    };
    let mut fired_at = None;
    loop {
        match outcome.recv_timeout(Duration::from_millis(20)) {
            Ok(read) => return Some(read),
            Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if watch.fired().is_some() {
            let since = *fired_at.get_or_insert_with(Instant::now);
            if since.elapsed() >= STOP_GRACE {
                return None;
            }
        }
    }
}

fn collect(session: &SparkSession, sql: &str, fetch: i32) -> Result<Collected, SparkError> {
    let frame = session.sql(sql)?.limit(fetch);
    let batches = frame.collect_record_batches()?;
    // An empty result may come without a batch to name its columns.
    let columns = match batches.first() {
        Some(b) => b
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect(),
        None => frame.columns()?,
    };
    Ok((columns, batches))
}

/// Clears the session's busy mark when the query ends, however it ends.
struct Busy<'a>(&'a Cell<bool>);

impl<'a> Busy<'a> {
    fn take(cell: &'a Cell<bool>) -> Result<Busy<'a>, DatasourceError> {
        if cell.replace(true) {
            return Err(unavailable(
                "the Spark session is busy with another query".into(),
            ));
        }
        Ok(Busy(cell))
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl Datasource for SparkDb {
    fn id(&self) -> &str {
        &self.id
    }

    fn dialect(&self) -> Dialect {
        Dialect::Spark
    }

    fn execute<'a>(
        &'a self,
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(std::future::ready(self.run(sql, limits)))
    }

    fn catalogue(&self) -> LocalBoxFuture<'_, Result<Option<Structure>, DatasourceError>> {
        Box::pin(std::future::ready(self.structure().map(Some)))
    }
}

/// Turns off reading paths named as tables (parquet.`/data`), which stay unread even if
/// the guard let one by, and makes `database` the session's current one.
fn prepare(session: &SparkSession, database: &str) -> Result<(), SparkError> {
    session.conf().set("spark.sql.runSQLOnFiles", "false")?;
    session.catalog().set_current_database(database)
}

/// A session on the server `address` names, and the token it carries (from the address,
/// else from `SPARK_CONNECT_TOKEN`, else none). The server is reached first with a time
/// limit, so a server that is down is said at once rather than after the client's retries.
pub(crate) fn open_session(
    address: &Address,
) -> Result<(SparkSession, Option<String>), DatasourceError> {
    let secret = address
        .password()
        .map(str::to_string)
        .or_else(|| std::env::var("SPARK_CONNECT_TOKEN").ok())
        .filter(|t| !t.is_empty());
    let mut url = address.url().to_string();
    let has_token = url.split(';').skip(1).any(|p| {
        p.split('=')
            .next()
            .is_some_and(|k| k.eq_ignore_ascii_case("token"))
    });
    if let (Some(token), false) = (&secret, has_token) {
        // The client's address is `sc://host:port`, or that and `/;key=value…`.
        if !url.contains(';') {
            url.push('/');
        }
        url.push_str(";token=");
        url.push_str(token);
    }
    reachable(address)?;
    let session = SparkSession::builder()
        .remote(&url)
        .get_or_create()
        .and_then(|s| s.version().map(|_| s))
        .map_err(|e| {
            unavailable(format!(
                "cannot connect to Spark at {address}: {}",
                redact(&e.to_string(), secret.as_deref())
            ))
        })?;
    Ok((session, secret))
}

/// Whether the address's host and port take a connection within [`CONNECT_TIMEOUT`].
fn reachable(address: &Address) -> Result<(), DatasourceError> {
    let shown = address.to_string();
    let authority = shown
        .strip_prefix("sc://")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_default()
        .to_string();
    let fail = |why: String| {
        DatasourceError::new(
            DatasourceErrorKind::Unreachable,
            format!("cannot connect to Spark at {address}: {why}"),
        )
    };
    let targets = authority
        .to_socket_addrs()
        .map_err(|e| fail(e.to_string()))?;
    let mut last = None;
    for target in targets {
        match TcpStream::connect_timeout(&target, CONNECT_TIMEOUT) {
            Ok(_) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    Err(fail(last.map_or_else(
        || "the host has no address".to_string(),
        |e| e.to_string(),
    )))
}

pub(crate) fn unavailable(message: String) -> DatasourceError {
    DatasourceError::new(DatasourceErrorKind::Unavailable, message)
}

/// Row `row` of `column` as the engine's value, typed as SQLite would store it: whole
/// numbers and booleans as integers, other numbers as reals (exact decimals with a fraction
/// too), bytes as bytes, dates and times as the text SQLite holds (`2009-01-01 00:00:00`),
/// and anything else (arrays, maps, structs) as Arrow writes it.
fn to_value(column: &dyn Array, row: usize) -> Value {
    // Through the logical nulls: a column of NULL type has no validity bits of its own.
    if column
        .logical_nulls()
        .is_some_and(|nulls| nulls.is_null(row))
    {
        return Value::Null;
    }
    match column.data_type() {
        DataType::Boolean => Value::Integer(i64::from(column.as_boolean().value(row))),
        DataType::Int8 => {
            Value::Integer(column.as_primitive::<types::Int8Type>().value(row).into())
        }
        DataType::Int16 => {
            Value::Integer(column.as_primitive::<types::Int16Type>().value(row).into())
        }
        DataType::Int32 => {
            Value::Integer(column.as_primitive::<types::Int32Type>().value(row).into())
        }
        DataType::Int64 => Value::Integer(column.as_primitive::<types::Int64Type>().value(row)),
        DataType::Float32 => Value::Real(
            column
                .as_primitive::<types::Float32Type>()
                .value(row)
                .into(),
        ),
        DataType::Float64 => Value::Real(column.as_primitive::<types::Float64Type>().value(row)),
        DataType::Decimal128(_, scale) => {
            let raw = column.as_primitive::<types::Decimal128Type>().value(row);
            decimal(raw, *scale)
        }
        DataType::Utf8 => Value::Text(column.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => Value::Text(column.as_string::<i64>().value(row).to_string()),
        DataType::Binary => Value::Blob(column.as_binary::<i32>().value(row).to_vec()),
        DataType::LargeBinary => Value::Blob(column.as_binary::<i64>().value(row).to_vec()),
        DataType::Date32 => {
            let days = column.as_primitive::<types::Date32Type>().value(row);
            arrow::temporal_conversions::date32_to_datetime(days).map_or_else(
                || written(column, row),
                |d| Value::Text(d.format("%Y-%m-%d").to_string()),
            )
        }
        DataType::Timestamp(unit, zone) => {
            let raw = match unit {
                TimeUnit::Microsecond => column
                    .as_primitive::<types::TimestampMicrosecondType>()
                    .value(row),
                _ => return written(column, row),
            };
            match arrow::temporal_conversions::timestamp_us_to_datetime(raw) {
                Some(at) => Value::Text(timestamp_text(at, zone.as_deref())),
                None => written(column, row),
            }
        }
        _ => written(column, row),
    }
}

/// An exact decimal: whole (scale 0, and it fits) as an integer, else a real.
fn decimal(raw: i128, scale: i8) -> Value {
    if scale <= 0 {
        if let Ok(whole) = i64::try_from(raw) {
            return Value::Integer(
                whole.saturating_mul(10_i64.saturating_pow(scale.unsigned_abs().into())),
            );
        }
    }
    // Through the decimal's text, so 0.99 reads as the double nearest 0.99.
    let digits = raw.unsigned_abs().to_string();
    let scale = usize::from(scale.unsigned_abs());
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (whole, fraction) = padded.split_at(padded.len() - scale);
    let sign = if raw < 0 { "-" } else { "" };
    format!("{sign}{whole}.{fraction}").parse().map_or_else(
        |_| Value::Text(format!("{sign}{whole}.{fraction}")),
        Value::Real,
    )
}

/// A timestamp as SQLite's text holds one; with a time zone (an instant), as the UTC time
/// with `Z` unless the zone is UTC itself.
fn timestamp_text(at: chrono::NaiveDateTime, zone: Option<&str>) -> String {
    let mut text = at.format("%Y-%m-%d %H:%M:%S").to_string();
    let nanos = at.and_utc().timestamp_subsec_nanos();
    if nanos != 0 {
        let fraction = format!("{:06}", nanos / 1_000);
        text.push('.');
        text.push_str(fraction.trim_end_matches('0'));
    }
    let utc = ["UTC", "Etc/UTC", "+00:00", "Z", "GMT", "Etc/GMT"];
    match zone {
        Some(z) if !utc.contains(&z) => text + "Z",
        _ => text,
    }
}

/// A value as Arrow writes it, for types the engine has no value of its own for.
fn written(column: &dyn Array, row: usize) -> Value {
    match arrow::util::display::array_value_to_string(column, row) {
        Ok(text) => Value::Text(text),
        Err(e) => Value::Text(format!("(unreadable: {e})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_whole_numbers_only_without_a_fraction() {
        assert_eq!(decimal(1297, 0), Value::Integer(1297));
        assert_eq!(decimal(129_700, 2), Value::Real(1297.0));
        assert_eq!(decimal(99, 2), Value::Real(0.99));
        assert_eq!(decimal(-5, 1), Value::Real(-0.5));
        assert_eq!(decimal(3799500, 5), Value::Real(37.995));
    }

    #[test]
    fn a_server_that_is_not_there_is_said_at_once_without_the_token() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let address = Address::parse(&format!("sc://127.0.0.1:{closed}/db;token=hunter2")).unwrap();
        let Err(e) = SparkDb::connect("db", &address) else {
            panic!("nothing listens there");
        };
        assert_eq!(e.kind, DatasourceErrorKind::Unreachable);
        assert!(e.message.contains("cannot connect to Spark"), "{e}");
        assert!(!e.message.contains("hunter2"), "{e}");
    }

    #[test]
    fn keys_read_from_their_property_and_nothing_else() {
        let keys: Constraints = serde_json::from_str(
            r#"{"primary_key":["TrackId"],"foreign_keys":[{"columns":["AlbumId"],
            "referenced_table":"Album","referenced_columns":["AlbumId"]}]}"#,
        )
        .unwrap();
        assert_eq!(keys.primary_key, vec!["TrackId"]);
        assert_eq!(keys.foreign_keys[0].referenced_table, "Album");
        assert!(serde_json::from_str::<Constraints>(r#"{"primary":["x"]}"#).is_err());
    }
}
