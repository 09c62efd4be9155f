//! sql.js off the page's thread: each database in a Web Worker of its own (and one more
//! for the aggregator's scratch databases), so no query, however long, holds the thread
//! the page renders on. Every query has a time limit: at it the worker is stopped, the
//! query ends `TimedOut`, and the next query starts a new worker, opening the database
//! again from the bytes the page holds. Cancel stops a query in flight the same way, at
//! once. The worker runs the very functions of `js/sqljs.js` the page would.

use crate::sqljs::{classify_sqljs_error, frame, js_message, scratch_tables};
use js_sys::{Promise, Reflect, Uint8Array};
use nl2sql_core::adapter::check_read_only;
use nl2sql_core::adapter::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame,
};
use nl2sql_core::adapter::{Scratch, ScratchTable};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

// Anything with `interrupt()`: a sql.js worker, a DuckDB-WASM host.
#[wasm_bindgen]
extern "C" {
    #[derive(Clone)]
    pub(crate) type Stoppable;
    #[wasm_bindgen(method)]
    fn interrupt(this: &Stoppable);
}

#[wasm_bindgen(module = "/js/sqljs.js")]
extern "C" {
    #[derive(Clone)]
    type DbWorker;
    #[wasm_bindgen(constructor)]
    fn new(sql_js_url: &str, wasm_url: &str, bytes: Option<Uint8Array>) -> DbWorker;
    #[wasm_bindgen(method)]
    fn start(this: &DbWorker) -> Promise;
    #[wasm_bindgen(method)]
    fn query(this: &DbWorker, sql: &str, max_rows: f64, timeout_ms: f64) -> Promise;
    #[wasm_bindgen(method)]
    fn scratch(
        this: &DbWorker,
        tables: &JsValue,
        sql: &str,
        max_rows: f64,
        timeout_ms: f64,
    ) -> Promise;
    #[wasm_bindgen(method)]
    fn close(this: &DbWorker);
}

/// Where the workers load sql.js (and DuckDB-WASM) from, and every database's worker open
/// now, so Cancel reaches them.
#[derive(Clone)]
pub struct Workers {
    sql_js_url: String,
    wasm_url: String,
    pub(crate) duckdb: Option<DuckDbUrls>,
    pub(crate) open: Rc<RefCell<Open>>,
    scratch: DbWorker,
}

/// Where DuckDB-WASM is: the bundled host module (`nl2sql-duckdb.js`), DuckDB's worker
/// script (`duckdb-browser-eh.worker.js`) and its wasm (`duckdb-eh.wasm`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuckDbUrls {
    pub module: String,
    pub worker: String,
    pub wasm: String,
}

impl DuckDbUrls {
    /// The three files in folder `dir` (relative to the page, or absolute).
    pub fn in_folder(dir: &str) -> DuckDbUrls {
        let dir = dir.trim_end_matches('/');
        DuckDbUrls {
            module: format!("{dir}/nl2sql-duckdb.js"),
            worker: format!("{dir}/duckdb-browser-eh.worker.js"),
            wasm: format!("{dir}/duckdb-eh.wasm"),
        }
    }
}

/// The databases' workers, each under a number of its own.
#[derive(Default)]
pub(crate) struct Open {
    next: u64,
    workers: Vec<Opened>,
}

impl Open {
    /// Keeps `worker` as datasource `id`'s; its number, for [`Open::forget`].
    fn keep(&mut self, id: &str, worker: Stoppable, limit: &Rc<Cell<Option<u64>>>) -> u64 {
        self.next += 1;
        self.workers.push(Opened {
            number: self.next,
            id: id.to_string(),
            worker,
            limit: Rc::clone(limit),
        });
        self.next
    }

    fn forget(&mut self, number: u64) {
        self.workers.retain(|o| o.number != number);
    }
}

/// A database's place among the open workers — so Cancel and `set_limit` reach it — and
/// its own time limit; the place is given up when the database is dropped.
pub(crate) struct Kept {
    number: u64,
    limit: Rc<Cell<Option<u64>>>,
    open: Rc<RefCell<Open>>,
}

impl Kept {
    /// Registers `worker` as datasource `id`'s in `workers`, under `limit_ms`.
    pub(crate) fn new(
        workers: &Workers,
        id: &str,
        worker: Stoppable,
        limit_ms: Option<u64>,
    ) -> Kept {
        let limit = Rc::new(Cell::new(limit_ms));
        let number = workers.open.borrow_mut().keep(id, worker, &limit);
        Kept {
            number,
            limit,
            open: Rc::clone(&workers.open),
        }
    }

    /// The shorter of a run's time limit and the database's own (0 to a worker: none).
    pub(crate) fn limit_with(&self, limits: ExecLimits) -> f64 {
        limits
            .within(self.limit.get())
            .timeout_ms
            .map_or(0.0, |ms| ms as f64)
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        if let Ok(mut open) = self.open.try_borrow_mut() {
            open.forget(self.number);
        }
    }
}

/// One database's worker and its own time limit, which Settings may change.
struct Opened {
    number: u64,
    id: String,
    worker: Stoppable,
    limit: Rc<Cell<Option<u64>>>,
}

/// sql.js starting in the scratch databases' worker ([`Workers::starting`]).
pub struct Starting(Promise);

impl Starting {
    /// Waits until sql.js has started there; an error says why it cannot start in a worker
    /// here.
    pub async fn finished(self) -> Result<(), String> {
        JsFuture::from(self.0).await.map(|_| ()).map_err(js_message)
    }
}

impl Workers {
    /// Workers that load sql.js from `sql_js_url` (`sql-wasm.js`) and `wasm_url`
    /// (`sql-wasm.wasm`), relative to the page.
    pub fn new(sql_js_url: &str, wasm_url: &str) -> Workers {
        Workers {
            sql_js_url: sql_js_url.to_string(),
            wasm_url: wasm_url.to_string(),
            duckdb: None,
            open: Rc::default(),
            scratch: DbWorker::new(sql_js_url, wasm_url, None),
        }
    }

    /// The same, opening CSV, Parquet and DuckDB files in DuckDB-WASM from `urls`.
    pub fn with_duckdb(mut self, urls: DuckDbUrls) -> Workers {
        self.duckdb = Some(urls);
        self
    }

    /// Starts sql.js in the scratch databases' worker: an error says why sql.js cannot
    /// start in a worker here (a wrong URL, say) before any database is opened.
    pub async fn start(&self) -> Result<(), String> {
        self.starting().finished().await
    }

    /// Starts sql.js in the scratch databases' worker and returns at once, so databases can
    /// open in their own workers meanwhile (sql.js's wasm is compiled once for all of
    /// them); [`Starting::finished`] says whether it started.
    pub fn starting(&self) -> Starting {
        Starting(self.scratch.start())
    }

    /// Opens a SQLite file's bytes in a worker of its own, read-only, as datasource `id`,
    /// its queries under `limit_ms` when that is shorter than the run's limit.
    pub async fn open(
        &self,
        id: impl Into<String>,
        bytes: &[u8],
        limit_ms: Option<u64>,
    ) -> Result<WorkerDatabase, DatasourceError> {
        let db = self.attach(id, bytes, limit_ms);
        JsFuture::from(db.worker.start())
            .await
            .map_err(|e| opening_error(&e))?;
        Ok(db)
    }

    /// Like [`Workers::open`], but the worker starts with the first query, which then
    /// fails if the bytes are not a database.
    pub fn attach(
        &self,
        id: impl Into<String>,
        bytes: &[u8],
        limit_ms: Option<u64>,
    ) -> WorkerDatabase {
        let id = id.into();
        let worker = DbWorker::new(
            &self.sql_js_url,
            &self.wasm_url,
            Some(Uint8Array::from(bytes)),
        );
        let kept = Kept::new(self, &id, worker.clone().unchecked_into(), limit_ms);
        WorkerDatabase { id, worker, kept }
    }

    /// Sets datasource `id`'s own time limit (`None`: the run's alone); false when no
    /// database of that id is open.
    pub fn set_limit(&self, id: &str, limit_ms: Option<u64>) -> bool {
        let open = self.open.borrow();
        let found = open.workers.iter().filter(|o| o.id == id);
        let mut any = false;
        for o in found {
            o.limit.set(limit_ms);
            any = true;
        }
        any
    }

    /// Datasource `id`'s own time limit, if it has one.
    pub fn limit(&self, id: &str) -> Option<u64> {
        let open = self.open.borrow();
        open.workers
            .iter()
            .find(|o| o.id == id)
            .and_then(|o| o.limit.get())
    }

    /// The aggregator's scratch databases, in their own worker.
    pub fn scratch(&self) -> WorkerScratch {
        WorkerScratch {
            worker: self.scratch.clone(),
        }
    }

    /// Stops the query in flight on datasource `id`, if one is.
    pub fn interrupt_one(&self, id: &str) {
        for opened in self.open.borrow().workers.iter().filter(|o| o.id == id) {
            opened.worker.interrupt();
        }
    }

    /// Stops every query in flight (their runs were cancelled).
    pub fn interrupt(&self) {
        for opened in &self.open.borrow().workers {
            opened.worker.interrupt();
        }
        self.scratch.unchecked_ref::<Stoppable>().interrupt();
    }
}

/// One database in its worker.
pub struct WorkerDatabase {
    id: String,
    worker: DbWorker,
    kept: Kept,
}

impl Drop for WorkerDatabase {
    fn drop(&mut self) {
        // Its bytes go with it (and its place among the open workers, with `kept`).
        self.worker.close();
    }
}

impl Datasource for WorkerDatabase {
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
        Box::pin(async move {
            check_read_only(sql)?;
            let answer =
                self.worker
                    .query(sql, limits.max_rows as f64, self.kept.limit_with(limits));
            let out = JsFuture::from(answer).await.map_err(|e| query_error(&e))?;
            frame(&out)
        })
    }
}

/// Fresh in-memory databases for combining sub-results, in the scratch worker.
pub struct WorkerScratch {
    worker: DbWorker,
}

impl Scratch for WorkerScratch {
    fn query<'a>(
        &'a self,
        tables: &'a [ScratchTable],
        sql: &'a str,
        limits: ExecLimits,
    ) -> LocalBoxFuture<'a, Result<ResultFrame, DatasourceError>> {
        Box::pin(async move {
            check_read_only(sql)?;
            let tables = scratch_tables(tables)?;
            let limit = limits.timeout_ms.map_or(0.0, |ms| ms as f64);
            let answer = self
                .worker
                .scratch(&tables, sql, limits.max_rows as f64, limit);
            let out = JsFuture::from(answer).await.map_err(|e| query_error(&e))?;
            frame(&out)
        })
    }
}

/// A failed query, by the kind the worker gave it.
fn query_error(e: &JsValue) -> DatasourceError {
    let kind = Reflect::get(e, &JsValue::from_str("kind"))
        .ok()
        .and_then(|k| k.as_string())
        .unwrap_or_default();
    let message = js_message(e.clone());
    match kind.as_str() {
        "timed_out" => DatasourceError::new(DatasourceErrorKind::TimedOut, message),
        "cancelled" => DatasourceError::new(DatasourceErrorKind::Cancelled, message),
        "stopped" => DatasourceError::new(DatasourceErrorKind::Unavailable, message),
        _ => classify_sqljs_error(&message),
    }
}

/// A database that would not open is never the query's fault.
fn opening_error(e: &JsValue) -> DatasourceError {
    let mut err = query_error(e);
    if err.kind == DatasourceErrorKind::InvalidQuery {
        err.kind = DatasourceErrorKind::Unavailable;
    }
    err
}
