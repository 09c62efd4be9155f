//! sql.js and the demo databases compiled into browser test modules, so the page needs no
//! server of ours (`cargo xtask setup` must have filled `node_modules/` and `data/`).

use nl2sql_core::Datasource;
use nl2sql_wasm::{SqlJs, SqlJsDatabase};

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

/// Opens a demo database by id.
pub fn open_demo(sql: &SqlJs, id: &str) -> SqlJsDatabase {
    let bytes = match id {
        "chinook" => CHINOOK,
        "support" => SUPPORT,
        "webanalytics" => WEBANALYTICS,
        other => panic!("no demo database {other}"),
    };
    match sql.open(id, bytes) {
        Ok(db) => db,
        Err(e) => panic!("opening {id}: {e}"),
    }
}

/// An opener for the suites that take one.
pub fn opener(sql: &SqlJs) -> impl Fn(&str) -> Box<dyn Datasource> + '_ {
    move |id| Box::new(open_demo(sql, id))
}
