//! A DuckDB file as a read-only datasource, through the `duckdb` crate over the DuckDB
//! library (linked, not compiled here: its C++ build alone would take longer than the whole
//! test run, `docs/benchmarks.md`).
//!
//! Three locks stand behind the core guard: the file is opened `READ_ONLY`; external
//! access is off, so no query reads or writes another file (`read_csv`, `COPY … TO`),
//! attaches a database or loads an extension; and the configuration is locked, so no query
//! can switch either back on. (The crate runs every statement of a batch but the last, so
//! one statement rests on the guard here.) The time limit, and a cancelled run, is an
//! interrupt sent from a watching thread (`interrupt::Watch`). Rows are streamed in DuckDB's chunks (2,048 rows), and
//! the fetching stops at the chunk that passes the row cap.

use crate::interrupt::{Interrupt, Watch};
use duckdb::arrow::array::{Array, ArrayRef, AsArray};
use duckdb::arrow::datatypes::{
    DataType, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use duckdb::arrow::util::display::{ArrayFormatter, FormatOptions};
use duckdb::{AccessMode, Config, Connection, InterruptHandle};
use nl2sql_core::adapter::check_read_only_in;
use nl2sql_core::adapter::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame, Value,
};
use std::path::Path;
use std::sync::Arc;

/// A DuckDB file opened read-only.
pub struct DuckDbFile {
    id: String,
    conn: Connection,
    interrupt: Arc<InterruptHandle>,
    /// Set when the run is cancelled from elsewhere.
    stop: Option<Interrupt>,
}

impl DuckDbFile {
    /// Opens `path` read-only as datasource `id`.
    pub fn open(id: impl Into<String>, path: impl AsRef<Path>) -> Result<Self, DatasourceError> {
        let path = path.as_ref();
        let cannot = |why: String| unavailable(format!("cannot open {}: {why}", path.display()));
        // DuckDB creates a missing file, even when asked to read one.
        if !path.is_file() {
            return Err(cannot("there is no such file".into()));
        }
        let conn = Connection::open_with_flags(path, locked_config().map_err(&cannot)?)
            .map_err(|e| cannot(e.to_string()))?;
        let interrupt = conn.interrupt_handle();
        Ok(DuckDbFile {
            id: id.into(),
            conn,
            interrupt,
            stop: None,
        })
    }

    /// This database, its queries also stopped (CANCELLED) when `interrupt` is set.
    pub fn interrupted_by(mut self, interrupt: Interrupt) -> Self {
        self.stop = Some(interrupt);
        self
    }

    fn run(&self, sql: &str, limits: ExecLimits) -> Result<ResultFrame, DatasourceError> {
        check_read_only_in(sql, Dialect::DuckDb)?;
        let handle = Arc::clone(&self.interrupt);
        let watch = Watch::start(limits.timeout_ms, self.stop.as_ref(), move || {
            handle.interrupt()
        });
        let fetched = self.run_behind_guard(sql, limits);
        match (fetched, watch.and_then(Watch::finish)) {
            (Err(_), Some(stop)) => Err(stop.error(limits.timeout_ms)),
            (fetched, _) => fetched,
        }
    }

    /// What runs once the guard has admitted the text; on its own it must still refuse to
    /// write or to reach outside the file (the tests below call it directly to prove that).
    fn run_behind_guard(
        &self,
        sql: &str,
        limits: ExecLimits,
    ) -> Result<ResultFrame, DatasourceError> {
        let mut statement = self.conn.prepare(sql).map_err(to_error)?;
        // Executed as a stream: DuckDB produces rows as they are fetched, so a cap stops the
        // work too. The crate's own iterator panics on a failed fetch; `step` returns it.
        drop(statement.stream_arrow([]).map_err(to_error)?);
        let mut frame = ResultFrame {
            columns: statement.column_names(),
            ..ResultFrame::default()
        };
        while let Some(chunk) = statement.step().map_err(to_error)? {
            let room = limits.max_rows - frame.rows.len();
            let take = chunk.len().min(room);
            let columns: Vec<Vec<Value>> = chunk
                .columns()
                .iter()
                .map(|c| column_values(c, take))
                .collect();
            for row in 0..take {
                frame
                    .rows
                    .push(columns.iter().map(|c| c[row].clone()).collect());
            }
            if chunk.len() > room {
                frame.truncated = true;
                break;
            }
        }
        Ok(frame)
    }
}

/// The configuration every DuckDB file is opened with: read-only, nothing outside the file
/// reachable, and locked so a query cannot change it.
fn locked_config() -> Result<Config, String> {
    let configure = || -> duckdb::Result<Config> {
        Config::default()
            .access_mode(AccessMode::ReadOnly)?
            .enable_external_access(false)?
            .enable_autoload_extension(false)?
            .with("autoinstall_known_extensions", "false")?
            .with("allow_community_extensions", "false")?
            .with("lock_configuration", "true")
    };
    configure().map_err(|e| format!("the read-only configuration was refused: {e}"))
}

impl Datasource for DuckDbFile {
    fn id(&self) -> &str {
        &self.id
    }

    fn dialect(&self) -> Dialect {
        Dialect::DuckDb
    }

    fn execute<'a>(
        &'a self,
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(std::future::ready(self.run(sql, limits)))
    }
}

fn unavailable(message: String) -> DatasourceError {
    DatasourceError::new(DatasourceErrorKind::Unavailable, message)
}

/// A DuckDB failure, sorted as every DuckDB adapter sorts them.
fn to_error(e: duckdb::Error) -> DatasourceError {
    let message = e.to_string();
    DatasourceError::new(nl2sql_core::adapter::duckdb::error_kind(&message), message)
}

/// The first `take` values of a result column, as SQLite would store them: whole numbers and
/// booleans as integers, other numbers as reals (an exact decimal without a fraction, such
/// as a sum of integers, stays whole when it fits), text and bytes as themselves, and
/// everything else (dates, times, intervals, lists) as the text DuckDB's Arrow form writes,
/// with a space between a timestamp's date and time as SQLite and PostgreSQL write it.
fn column_values(array: &ArrayRef, take: usize) -> Vec<Value> {
    let n = array.len().min(take);
    let each = |f: &dyn Fn(usize) -> Value| -> Vec<Value> {
        (0..n)
            .map(|i| if array.is_null(i) { Value::Null } else { f(i) })
            .collect()
    };
    macro_rules! ints {
        ($t:ty) => {
            array
                .as_primitive_opt::<$t>()
                .map(|a| each(&|i| Value::Integer(i64::from(a.value(i)))))
        };
    }
    macro_rules! reals {
        ($t:ty) => {
            array
                .as_primitive_opt::<$t>()
                .map(|a| each(&|i| Value::Real(f64::from(a.value(i)))))
        };
    }
    let typed = match array.data_type() {
        DataType::Null => Some(vec![Value::Null; n]),
        DataType::Boolean => array
            .as_boolean_opt()
            .map(|a| each(&|i| Value::Integer(i64::from(a.value(i))))),
        DataType::Int8 => ints!(Int8Type),
        DataType::Int16 => ints!(Int16Type),
        DataType::Int32 => ints!(Int32Type),
        DataType::Int64 => ints!(Int64Type),
        DataType::UInt8 => ints!(UInt8Type),
        DataType::UInt16 => ints!(UInt16Type),
        DataType::UInt32 => ints!(UInt32Type),
        DataType::UInt64 => array.as_primitive_opt::<UInt64Type>().map(|a| {
            each(&|i| {
                let v = a.value(i);
                i64::try_from(v).map_or(Value::Real(v as f64), Value::Integer)
            })
        }),
        DataType::Float32 => reals!(Float32Type),
        DataType::Float64 => reals!(Float64Type),
        DataType::Decimal128(_, scale) => {
            let scale = i32::from(*scale);
            array
                .as_primitive_opt::<Decimal128Type>()
                .map(|a| each(&|i| decimal(a.value(i), scale)))
        }
        DataType::Utf8 => array
            .as_string_opt::<i32>()
            .map(|a| each(&|i| Value::Text(a.value(i).to_string()))),
        DataType::LargeUtf8 => array
            .as_string_opt::<i64>()
            .map(|a| each(&|i| Value::Text(a.value(i).to_string()))),
        DataType::Utf8View => array
            .as_string_view_opt()
            .map(|a| each(&|i| Value::Text(a.value(i).to_string()))),
        DataType::Binary => array
            .as_binary_opt::<i32>()
            .map(|a| each(&|i| Value::Blob(a.value(i).to_vec()))),
        DataType::LargeBinary => array
            .as_binary_opt::<i64>()
            .map(|a| each(&|i| Value::Blob(a.value(i).to_vec()))),
        DataType::BinaryView => array
            .as_binary_view_opt()
            .map(|a| each(&|i| Value::Blob(a.value(i).to_vec()))),
        _ => None,
    };
    typed.unwrap_or_else(|| formatted(array, n))
}

/// An exact decimal as PostgreSQL's adapter reads one: without a scale (a sum of integers)
/// an integer when it fits, else a real.
fn decimal(raw: i128, scale: i32) -> Value {
    let unit = 10_f64.powi(scale);
    if scale == 0 {
        if let Ok(i) = i64::try_from(raw) {
            return Value::Integer(i);
        }
    }
    Value::Real(raw as f64 / unit)
}

/// Values of a type with no direct counterpart, as text; a column that cannot even be
/// formatted is reported in its cells rather than dropped.
fn formatted(array: &ArrayRef, n: usize) -> Vec<Value> {
    let options = FormatOptions::new()
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.f"))
        .with_timestamp_tz_format(Some("%Y-%m-%d %H:%M:%S%.f%:z"))
        .with_datetime_format(Some("%Y-%m-%d %H:%M:%S%.f"));
    match ArrayFormatter::try_new(array.as_ref(), &options) {
        Ok(formatter) => (0..n)
            .map(|i| {
                if array.is_null(i) {
                    Value::Null
                } else {
                    Value::Text(formatter.value(i).to_string())
                }
            })
            .collect(),
        Err(e) => vec![Value::Text(format!("<{}: {e}>", array.data_type())); n],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small DuckDB file written for the test, opened read-only.
    fn opened(name: &str) -> DuckDbFile {
        let dir = std::env::temp_dir().join(format!("nl2sql-duckdb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.duckdb"));
        let _ = std::fs::remove_file(&path);
        let w = Connection::open(&path).unwrap();
        w.execute_batch(
            "CREATE TABLE t (a BIGINT PRIMARY KEY, b VARCHAR, d TIMESTAMP, e DATE); \
             INSERT INTO t VALUES (1, 'x', '2009-01-01 00:00:00', '2009-01-02'), \
             (2, NULL, '2009-01-01 10:11:12.5', NULL)",
        )
        .unwrap();
        drop(w);
        DuckDbFile::open("t", &path).unwrap()
    }

    #[test]
    fn behind_the_guard_nothing_is_written_changed_or_read_outside_the_file() {
        let db = opened("locks");
        for sql in [
            "INSERT INTO t VALUES (3, 'y', NULL, NULL)",
            "SELECT 1; DELETE FROM t",
            "CREATE TABLE u (a INTEGER)",
            "SET enable_external_access = true",
            "SET threads = 1",
            "SELECT * FROM read_csv('/etc/passwd')",
            "COPY t TO '/tmp/nl2sql-duckdb-leak.csv'",
            "ATTACH ':memory:' AS m",
            "LOAD httpfs",
        ] {
            let e = db
                .run_behind_guard(sql, ExecLimits::rows(10))
                .expect_err(sql);
            assert_eq!(e.kind, DatasourceErrorKind::Refused, "{sql}: {e}");
        }
        let count = db.run("SELECT count(*) AS n FROM t", ExecLimits::rows(1));
        assert_eq!(count.map(|f| f.rows), Ok(vec![vec![Value::Integer(2)]]));
    }

    #[test]
    fn dates_and_times_read_as_sqlite_and_postgresql_write_them() {
        let db = opened("dates");
        let frame = db
            .run("SELECT d, e, b FROM t ORDER BY a", ExecLimits::rows(10))
            .unwrap();
        assert_eq!(
            frame.rows,
            vec![
                vec![
                    Value::Text("2009-01-01 00:00:00".into()),
                    Value::Text("2009-01-02".into()),
                    Value::Text("x".into())
                ],
                vec![
                    Value::Text("2009-01-01 10:11:12.500".into()),
                    Value::Null,
                    Value::Null
                ],
            ]
        );
    }

    #[test]
    fn exact_decimals_are_whole_only_without_a_scale() {
        assert_eq!(decimal(1297, 0), Value::Integer(1297));
        assert_eq!(decimal(129_700, 2), Value::Real(1297.0));
        assert_eq!(decimal(99, 2), Value::Real(0.99));
        assert_eq!(decimal(-2586, 2), Value::Real(-25.86));
        assert_eq!(decimal(i128::MAX, 0), Value::Real(i128::MAX as f64));
    }
}
