//! sql.js and the demo databases compiled into browser test modules, so the page needs no
//! server of ours (`cargo xtask setup` must have filled `node_modules/` and `data/`).

use nl2sql_core::Datasource;
use nl2sql_wasm::{SqlJs, SqlJsDatabase, Workers};
use wasm_bindgen::prelude::*;

/// sql.js's loader script.
pub const SQLJS_SOURCE: &str = include_str!("../../node_modules/sql.js/dist/sql-wasm.js");
/// sql.js's WebAssembly.
pub const SQLJS_WASM: &[u8] = include_bytes!("../../node_modules/sql.js/dist/sql-wasm.wasm");
/// The demo databases' bytes.
pub const CHINOOK: &[u8] = include_bytes!("../../data/chinook.sqlite");
/// Ditto.
pub const SUPPORT: &[u8] = include_bytes!("../../data/support.sqlite");
/// Ditto.
pub const WEBANALYTICS: &[u8] = include_bytes!("../../data/webanalytics.sqlite");
/// The three read ahead natively (`nl2sql catalogue`, made by `cargo xtask setup`).
pub const CATALOGUE: &str = include_str!("../../data/demo-catalogue.json");

/// Starts sql.js.
pub async fn sqljs() -> SqlJs {
    match SqlJs::from_source(SQLJS_SOURCE, SQLJS_WASM).await {
        Ok(s) => s,
        Err(e) => panic!("starting sql.js: {e}"),
    }
}

#[wasm_bindgen(inline_js = "export function blobUrl(bytes, type) { \
    return URL.createObjectURL(new Blob([bytes], { type })); }")]
extern "C" {
    #[wasm_bindgen(js_name = blobUrl)]
    fn blob_url(bytes: &[u8], kind: &str) -> String;
}

/// Workers that load sql.js from `blob:` URLs of the copies compiled in.
pub fn workers() -> Workers {
    let script = blob_url(SQLJS_SOURCE.as_bytes(), "text/javascript");
    let wasm = blob_url(SQLJS_WASM, "application/wasm");
    Workers::new(&script, &wasm)
}

/// A demo database's bytes by id.
pub fn demo_bytes(id: &str) -> &'static [u8] {
    match id {
        "chinook" => CHINOOK,
        "support" => SUPPORT,
        "webanalytics" => WEBANALYTICS,
        other => panic!("no demo database {other}"),
    }
}

/// Opens a demo database by id.
pub fn open_demo(sql: &SqlJs, id: &str) -> SqlJsDatabase {
    match sql.open(id, demo_bytes(id)) {
        Ok(db) => db,
        Err(e) => panic!("opening {id}: {e}"),
    }
}

/// An opener for the suites that take one: each database in a worker of its own.
pub fn worker_opener(workers: &Workers) -> impl Fn(&str) -> Box<dyn Datasource> + '_ {
    move |id| Box::new(workers.attach(id, demo_bytes(id), None))
}

/// An opener for the suites that take one.
pub fn opener(sql: &SqlJs) -> impl Fn(&str) -> Box<dyn Datasource> + '_ {
    move |id| Box::new(open_demo(sql, id))
}
