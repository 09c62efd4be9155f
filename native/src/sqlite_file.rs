//! A SQLite file as a read-only datasource, through rusqlite's bundled SQLite.

use crate::interrupt::{Interrupt, Stop};
use nl2sql_core::adapter::check_read_only;
use nl2sql_core::adapter::sqlite::classify_error;
use nl2sql_core::adapter::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame, Value,
};
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A SQLite file opened read-only. Three locks stand behind the core guard: the file is
/// opened read-only, `query_only` is on, and an authorizer denies every action but reading.
/// A query with a time limit is interrupted by SQLite's progress handler at its deadline,
/// and at once when the [`Interrupt`] it was given is set.
pub struct SqliteFile {
    id: String,
    conn: Connection,
    /// When the running query must stop; `None` while none runs or it has no limit.
    deadline: Arc<Mutex<Option<Instant>>>,
    interrupt: Option<Interrupt>,
}

/// SQLite virtual-machine steps between deadline checks: about a millisecond of work, so a
/// stop comes promptly and the check costs nothing measurable.
const STEPS_PER_CHECK: i32 = 10_000;

impl SqliteFile {
    /// Opens `path` read-only as datasource `id`.
    pub fn open(id: impl Into<String>, path: impl AsRef<Path>) -> Result<Self, DatasourceError> {
        let path = path.as_ref();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| {
            DatasourceError::new(
                DatasourceErrorKind::Unavailable,
                format!("cannot open {}: {e}", path.display()),
            )
        })?;
        Self::lock(id, conn)
    }

    /// `conn` behind the locks every datasource here keeps: query-only, no attaching, an
    /// authorizer that allows reading alone.
    pub(crate) fn lock(
        id: impl Into<String>,
        mut conn: Connection,
    ) -> Result<Self, DatasourceError> {
        conn.pragma_update(None, "query_only", true)
            .map_err(to_error)?;
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)
            .map_err(to_error)?;
        // Opening is lazy in SQLite: reading the schema now turns "not a database" into an
        // error here rather than at the first question.
        conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
            .map_err(to_error)?;
        crate::sqlite_math::register(&conn).map_err(to_error)?;
        conn.authorizer(Some(authorize)).map_err(to_error)?;
        let mut file = SqliteFile {
            id: id.into(),
            conn,
            deadline: Arc::default(),
            interrupt: None,
        };
        file.watch()?;
        Ok(file)
    }

    /// This database, its queries also stopped (CANCELLED) when `interrupt` is set.
    pub fn interrupted_by(mut self, interrupt: Interrupt) -> Result<Self, DatasourceError> {
        self.interrupt = Some(interrupt);
        self.watch()?;
        Ok(self)
    }

    /// Installs the progress handler that stops a query at its deadline or its interrupt.
    fn watch(&mut self) -> Result<(), DatasourceError> {
        let watched = Arc::clone(&self.deadline);
        let interrupt = self.interrupt.clone();
        self.conn
            .progress_handler(
                STEPS_PER_CHECK,
                Some(move || {
                    let due = *watched.lock().unwrap_or_else(PoisonError::into_inner);
                    due.is_some_and(|d| Instant::now() >= d)
                        || interrupt.as_ref().is_some_and(Interrupt::is_set)
                }),
            )
            .map_err(to_error)
    }

    /// Runs `f` with the deadline `limits` give set, and turns SQLite's interruption at the
    /// deadline into [`DatasourceErrorKind::TimedOut`].
    fn within<T>(
        &self,
        limits: ExecLimits,
        f: impl FnOnce() -> Result<T, DatasourceError>,
    ) -> Result<T, DatasourceError> {
        let due = limits
            .timeout_ms
            .map(|ms| Instant::now() + Duration::from_millis(ms));
        self.set_deadline(due);
        let out = f();
        self.set_deadline(None);
        // SQLite's own word for either is "interrupted"; the cause says more.
        match out {
            Err(_) if self.interrupt.as_ref().is_some_and(Interrupt::is_set) => {
                Err(Stop::Interrupted.error(limits.timeout_ms))
            }
            Err(_) if due.is_some_and(|d| Instant::now() >= d) => {
                Err(Stop::Deadline.error(limits.timeout_ms))
            }
            out => out,
        }
    }

    fn set_deadline(&self, due: Option<Instant>) {
        *self.deadline.lock().unwrap_or_else(PoisonError::into_inner) = due;
    }

    pub(crate) fn run(
        &self,
        sql: &str,
        limits: ExecLimits,
    ) -> Result<ResultFrame, DatasourceError> {
        check_read_only(sql)?;
        self.within(limits, || self.run_behind_guard(sql, limits))
    }

    /// What runs once the guard has admitted the text; on its own it must still refuse to
    /// write (the tests below call it directly to prove that).
    fn run_behind_guard(
        &self,
        sql: &str,
        limits: ExecLimits,
    ) -> Result<ResultFrame, DatasourceError> {
        let mut stmt = self.conn.prepare(sql).map_err(to_error)?;
        if !stmt.readonly() {
            return Err(DatasourceError::new(
                DatasourceErrorKind::Refused,
                "refused: SQLite reports that this statement writes",
            ));
        }
        let columns: Vec<String> = stmt.column_names().map(String::from).collect();
        let width = columns.len();
        let mut rows = stmt.query([]).map_err(to_error)?;
        let mut frame = ResultFrame {
            columns,
            ..ResultFrame::default()
        };
        while let Some(row) = rows.next().map_err(to_error)? {
            if frame.rows.len() == limits.max_rows {
                frame.truncated = true;
                break;
            }
            let mut values = Vec::with_capacity(width);
            for i in 0..width {
                values.push(to_value(row.get_ref(i).map_err(to_error)?));
            }
            frame.rows.push(values);
        }
        Ok(frame)
    }
}

impl Datasource for SqliteFile {
    fn id(&self) -> &str {
        &self.id
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute<'a>(
        &'a self,
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(std::future::ready(self.run(sql, limits)))
    }
}

/// Allows reading and the catalogue pragmas introspection uses; denies everything else.
fn authorize(ctx: AuthContext<'_>) -> Authorization {
    match ctx.action {
        // Switched off at run time anyway; denied by name so a future build flag cannot
        // turn a query into native code loading.
        AuthAction::Function {
            function_name: "load_extension",
        } => Authorization::Deny,
        AuthAction::Read { .. }
        | AuthAction::Select
        | AuthAction::Function { .. }
        | AuthAction::Recursive => Authorization::Allow,
        AuthAction::Pragma {
            pragma_name: "table_info" | "foreign_key_list",
            ..
        } => Authorization::Allow,
        _ => Authorization::Deny,
    }
}

fn to_value(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    }
}

fn to_error(e: rusqlite::Error) -> DatasourceError {
    match &e {
        rusqlite::Error::SqliteFailure(err, message) => {
            let text = message.clone().unwrap_or_else(|| err.to_string());
            classify_error(Some(err.extended_code & 0xff), &text)
        }
        rusqlite::Error::MultipleStatement => DatasourceError::new(
            DatasourceErrorKind::Refused,
            "refused: SQLite reads more than one statement in this text",
        ),
        _ => classify_error(None, &e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn chinook() -> SqliteFile {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/chinook.sqlite");
        SqliteFile::open("chinook", path).expect("run `cargo xtask data` first")
    }

    /// Each statement here gets past no guard: SQLite's own locks must stop it.
    #[test]
    fn the_database_refuses_writes_even_without_the_guard() {
        let db = chinook();
        let limits = ExecLimits::rows(10);
        for sql in [
            "DELETE FROM Track",
            "INSERT INTO Genre (Name) VALUES ('x')",
            "UPDATE Track SET Name = 'x'",
            "CREATE TABLE t (a)",
            "ATTACH DATABASE ':memory:' AS other",
            "PRAGMA query_only = OFF",
            "SELECT load_extension('x')",
            "SELECT 1; DELETE FROM Track",
        ] {
            let err = db
                .run_behind_guard(sql, limits)
                .expect_err(&format!("{sql} must be refused"));
            assert_eq!(err.kind, DatasourceErrorKind::Refused, "{sql}: {err}");
        }
        let count = db.run("SELECT count(*) FROM Track", limits).unwrap();
        assert_eq!(count.rows, vec![vec![Value::Integer(3503)]]);
    }
}
