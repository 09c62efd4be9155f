//! CSV, Parquet and DuckDB files as a read-only datasource, in DuckDB-WASM. The bundled
//! host (`js/duckdb/host.js` with DuckDB-WASM's API and Apache Arrow) is imported only when
//! the first such file is opened; DuckDB runs in a Web Worker of its own, under the same
//! time limits and Cancel as the sql.js workers (`worker.rs`), and is started again with
//! the files reloaded from the bytes the page holds after a stop.

use crate::sqljs::{frame, js_message};
use crate::worker::{Kept, Stoppable, Workers};
use js_sys::{Array, Object, Promise, Reflect, Uint8Array};
use nl2sql_core::adapter::check_read_only_in;
use nl2sql_core::adapter::{
    Datasource, DatasourceError, DatasourceErrorKind, Dialect, ExecLimits, LocalBoxFuture,
    ResultFrame,
};
use nl2sql_core::files::PlannedFile;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/js/duckdb.js")]
extern "C" {
    #[wasm_bindgen(js_name = openDuckDb)]
    fn open_duckdb(module_url: &str, worker_url: &str, wasm_url: &str, files: &Array) -> Promise;
}

#[wasm_bindgen]
extern "C" {
    /// An open DuckDB-WASM database (`DuckDbHost` in `js/duckdb/host.js`).
    #[derive(Clone)]
    type DuckHost;
    #[wasm_bindgen(method)]
    fn query(this: &DuckHost, sql: &str, max_rows: f64, timeout_ms: f64) -> Promise;
    #[wasm_bindgen(method)]
    fn close(this: &DuckHost);
}

/// Opens `files` (as [`nl2sql_core::files::plan`] laid them out, with their bytes) as
/// datasource `id` in DuckDB-WASM, its queries under `limit_ms` when that is shorter than
/// the run's.
pub async fn open(
    workers: &Workers,
    id: &str,
    files: &[(PlannedFile, &[u8])],
    limit_ms: Option<u64>,
) -> Result<DuckDbDatabase, DatasourceError> {
    let Some(urls) = &workers.duckdb else {
        return Err(DatasourceError::new(
            DatasourceErrorKind::Unavailable,
            "CSV, Parquet and DuckDB files need DuckDB-WASM, which this page does not provide",
        ));
    };
    let list = Array::new();
    for (file, bytes) in files {
        let entry = Object::new();
        for (key, value) in [
            ("name", JsValue::from_str(&file.name)),
            ("table", JsValue::from_str(&file.table)),
            ("kind", JsValue::from_str(file.kind.extension())),
            ("bytes", Uint8Array::from(*bytes).into()),
        ] {
            let _ = Reflect::set(&entry, &JsValue::from_str(key), &value);
        }
        list.push(&entry);
    }
    let host = JsFuture::from(open_duckdb(&urls.module, &urls.worker, &urls.wasm, &list))
        .await
        .map_err(|e| opening_error(&e, &urls.module))?;
    let host: DuckHost = host.unchecked_into();
    let kept = Kept::new(
        workers,
        id,
        host.clone().unchecked_into::<Stoppable>(),
        limit_ms,
    );
    Ok(DuckDbDatabase {
        id: id.to_string(),
        host,
        kept,
    })
}

/// CSV, Parquet or DuckDB files in their DuckDB-WASM worker.
pub struct DuckDbDatabase {
    id: String,
    host: DuckHost,
    kept: Kept,
}

impl Drop for DuckDbDatabase {
    fn drop(&mut self) {
        self.host.close();
    }
}

impl Datasource for DuckDbDatabase {
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
        Box::pin(async move {
            check_read_only_in(sql, Dialect::DuckDb)?;
            let answer = self
                .host
                .query(sql, limits.max_rows as f64, self.kept.limit_with(limits));
            let out = JsFuture::from(answer).await.map_err(|e| query_error(&e))?;
            frame(&out)
        })
    }
}

/// A failure, by the kind the host gave it.
fn query_error(e: &JsValue) -> DatasourceError {
    let kind = Reflect::get(e, &JsValue::from_str("kind"))
        .ok()
        .and_then(|k| k.as_string())
        .unwrap_or_default();
    let message = js_message(e.clone());
    let kind = match kind.as_str() {
        "timed_out" => DatasourceErrorKind::TimedOut,
        "cancelled" => DatasourceErrorKind::Cancelled,
        "stopped" | "file" => DatasourceErrorKind::Unavailable,
        _ => nl2sql_core::adapter::duckdb::error_kind(&message),
    };
    DatasourceError::new(kind, message)
}

/// Files that would not load, or DuckDB-WASM itself not starting, is never a query's fault.
fn opening_error(e: &JsValue, module_url: &str) -> DatasourceError {
    let message = js_message(e.clone());
    let loaded = Reflect::get(e, &JsValue::from_str("kind"))
        .ok()
        .and_then(|k| k.as_string())
        .is_some();
    let message = if loaded {
        message
    } else {
        format!("DuckDB-WASM did not start (from {module_url}): {message}")
    };
    DatasourceError::new(DatasourceErrorKind::Unavailable, message)
}
