//! Loading the demo databases into the page: start sql.js, fetch each file, open it
//! read-only and read its schema. Everything starts at once; nothing here touches the UI.

use js_sys::{Promise, Uint8Array};
use nl2sql_core::demo::{DemoDatabase, DEMO_DATABASES};
use nl2sql_core::{Datasource, SchemaSnapshot};
use nl2sql_wasm::{js_message, SqlJs};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// sql.js's wasm, copied next to the page by Trunk; relative so any sub-path works.
const SQLJS_WASM_URL: &str = "sql-wasm.wasm";

/// One demo database after loading: its schema, or why it could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedDatasource {
    pub demo: DemoDatabase,
    pub schema: Result<SchemaSnapshot, String>,
    /// How long reading the schema and statistics took in this page, in milliseconds.
    pub introspect_ms: f64,
}

impl LoadedDatasource {
    pub fn total_rows(&self) -> u64 {
        self.schema
            .as_ref()
            .map(|s| s.tables.iter().map(|t| t.row_count).sum())
            .unwrap_or(0)
    }
}

/// Loads every demo database. A failure to start sql.js fails all of them with the same
/// message; a failure of one file affects only that database.
pub async fn load_demo_databases() -> Vec<LoadedDatasource> {
    // Start every download before awaiting any, so they overlap with sql.js starting up.
    let downloads: Vec<Result<Promise, String>> = DEMO_DATABASES
        .iter()
        .map(|demo| start_fetch(&format!("data/{}", demo.file)))
        .collect();
    let sqljs = SqlJs::from_global(SQLJS_WASM_URL).await;

    let mut loaded = Vec::with_capacity(DEMO_DATABASES.len());
    for (demo, download) in DEMO_DATABASES.iter().zip(downloads) {
        let (schema, introspect_ms) = match &sqljs {
            Ok(sqljs) => open_and_introspect(sqljs, demo, download).await,
            Err(e) => (Err(format!("sql.js did not start: {e}")), 0.0),
        };
        loaded.push(LoadedDatasource {
            demo: *demo,
            schema,
            introspect_ms,
        });
    }
    loaded
}

/// The schema (or why not) and the milliseconds spent opening and introspecting.
async fn open_and_introspect(
    sqljs: &SqlJs,
    demo: &DemoDatabase,
    download: Result<Promise, String>,
) -> (Result<SchemaSnapshot, String>, f64) {
    let bytes = match download {
        Ok(request) => finish_fetch(request, demo.file).await,
        Err(e) => Err(e),
    };
    let started = now_ms();
    let schema = match bytes {
        Ok(bytes) => match sqljs.open(demo.id, &bytes) {
            Ok(db) => db
                .introspect()
                .await
                .map_err(|e| format!("{} could not be read: {e}", demo.file)),
            Err(e) => Err(format!("{} could not be opened: {e}", demo.file)),
        },
        Err(e) => Err(e),
    };
    (schema, now_ms() - started)
}

/// Milliseconds since navigation started (0 where the page has no performance clock).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_default()
}

fn start_fetch(url: &str) -> Result<Promise, String> {
    let window = web_sys::window().ok_or("no window: the playground must run in a page")?;
    Ok(window.fetch_with_str(url))
}

async fn finish_fetch(request: Promise, file: &str) -> Result<Vec<u8>, String> {
    let response = JsFuture::from(request)
        .await
        .map_err(|e| format!("downloading {file} failed: {}", js_message(e)))?;
    let response: web_sys::Response = response
        .dyn_into()
        .map_err(|_| format!("downloading {file} returned no response"))?;
    if !response.ok() {
        return Err(format!(
            "downloading {file} failed: HTTP {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let buffer = response
        .array_buffer()
        .map_err(|e| format!("reading {file} failed: {}", js_message(e)))?;
    let buffer = JsFuture::from(buffer)
        .await
        .map_err(|e| format!("reading {file} failed: {}", js_message(e)))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}
