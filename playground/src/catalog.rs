//! Loading the demo databases into the page: start sql.js and fetch every file at once,
//! then open each in a worker of its own (while sql.js starts in the scratch worker), read
//! it (or take what `nl2sql catalogue` read ahead for these exact bytes) and index them in
//! one session. Nothing here touches the UI.

use crate::browser::mark;
use js_sys::{Promise, Uint8Array};
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::demo::{DemoDatabase, DEMO_DATABASES};
use nl2sql_core::service::Catalogue;
use nl2sql_wasm::{demo_session, js_message, DatabaseHost, DuckDbUrls, Session, Workers};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// sql.js and its wasm, copied next to the page by its build, loaded by the databases'
/// workers; relative so any sub-path works.
const SQLJS_URL: &str = "sql-wasm.js";
const SQLJS_WASM_URL: &str = "sql-wasm.wasm";

/// What loading gave: the session (unless sql.js itself failed) and each database that
/// could not be loaded, with why.
pub struct Loaded {
    pub session: Result<Session, String>,
    pub failures: Vec<(String, String)>,
}

/// The demo databases read ahead of time (`nl2sql catalogue`), copied next to them.
const CATALOGUE_URL: &str = "data/demo-catalogue.json";

/// Loads every demo database, for a session asking with `provider` under `run`. One file
/// failing leaves the others usable.
pub async fn load_demo_databases(provider: ProviderConfig, run: RunConfig) -> Loaded {
    // Start every download before awaiting any, so they overlap with sql.js starting up.
    let catalogue = start_fetch(CATALOGUE_URL);
    let downloads: Vec<(DemoDatabase, Result<Promise, String>)> = DEMO_DATABASES
        .iter()
        .map(|demo| (*demo, start_fetch(&format!("data/{}", demo.file))))
        .collect();
    let workers =
        Workers::new(SQLJS_URL, SQLJS_WASM_URL).with_duckdb(DuckDbUrls::in_folder("duckdb"));
    // sql.js starts in the scratch worker beside the databases' own workers, not before
    // them: they share its compiled wasm, and waiting for it first cost the start of one
    // worker on every load.
    let scratch = workers.starting();
    // Without a catalogue (or for a file it was not made from) the page reads the
    // database itself: slower, never wrong.
    let catalogue: Option<Catalogue> = match catalogue {
        Ok(request) => finish_fetch(request, CATALOGUE_URL)
            .await
            .ok()
            .and_then(|bytes| serde_json::from_str(&String::from_utf8_lossy(&bytes)).ok()),
        Err(_) => None,
    };
    let mut files = Vec::new();
    let mut failures = Vec::new();
    for (demo, download) in downloads {
        let bytes = match download {
            Ok(request) => finish_fetch(request, demo.file).await,
            Err(e) => Err(e),
        };
        match bytes {
            Ok(bytes) => {
                let read_ahead = match (&catalogue, sha256_hex(&bytes).await) {
                    (Some(c), Some(sha)) => c.lookup(demo.id, &sha).cloned(),
                    _ => None,
                };
                files.push((demo, bytes, read_ahead));
            }
            Err(e) => failures.push((demo.id.to_string(), e)),
        }
    }
    mark("downloaded-ms", now_ms());
    let session = demo_session(DatabaseHost::Workers(workers), files, provider, run).await;
    // When sql.js cannot start at all, that is the one thing to say (every database failed
    // to open for the same reason).
    if let Err(e) = scratch.finished().await {
        return Loaded {
            session: Err(format!("sql.js did not start in a Web Worker: {e}")),
            failures: vec![],
        };
    }
    let session = session.map_err(|e| format!("{} ({})", e, e.code));
    Loaded { session, failures }
}

/// The semantic embedder's weights, copied next to the databases (`cargo xtask embedder`).
const SEMANTIC_URL: &str = "data/semantic-wordllama-256.bin";

/// Downloads the semantic embedder's weights (9.3 MB): the page asks for them only once it
/// is ready, so they never delay the first question.
pub async fn fetch_semantic_weights() -> Result<Vec<u8>, String> {
    finish_fetch(start_fetch(SEMANTIC_URL)?, SEMANTIC_URL).await
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

/// The file's SHA-256 as lower-case hex, from the browser's own crypto (absent outside a
/// secure context, where the caller reads the database instead).
async fn sha256_hex(bytes: &[u8]) -> Option<String> {
    let subtle = web_sys::window()?.crypto().ok()?.subtle();
    let data = Uint8Array::from(bytes);
    let digest = subtle
        .digest_with_str_and_buffer_source("SHA-256", &data)
        .ok()?;
    let digest = JsFuture::from(digest).await.ok()?;
    let digest = Uint8Array::new(&digest).to_vec();
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// The bytes of a file the person picked or dropped.
pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("reading {} failed: {}", file.name(), js_message(e)))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}
