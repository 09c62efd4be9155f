//! The datasource contract suite on sql.js, in headless Chromium (wasm-bindgen-test).
//!
//! sql.js and the demo databases are compiled into the test module, so the browser needs no
//! server of ours: `cargo xtask setup` must have filled `node_modules/` and `data/` first.
#![cfg(target_arch = "wasm32")]

use nl2sql_core::{Datasource, DatasourceErrorKind};
use nl2sql_tests::contract;
use nl2sql_wasm::SqlJs;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const SQLJS_SOURCE: &str = include_str!("../../node_modules/sql.js/dist/sql-wasm.js");
const SQLJS_WASM: &[u8] = include_bytes!("../../node_modules/sql.js/dist/sql-wasm.wasm");
const CHINOOK: &[u8] = include_bytes!("../../data/chinook.sqlite");
const SUPPORT: &[u8] = include_bytes!("../../data/support.sqlite");
const WEBANALYTICS: &[u8] = include_bytes!("../../data/webanalytics.sqlite");

async fn sqljs() -> SqlJs {
    match SqlJs::from_source(SQLJS_SOURCE, SQLJS_WASM).await {
        Ok(s) => s,
        Err(e) => panic!("starting sql.js: {e}"),
    }
}

fn opener(sql: &SqlJs) -> impl Fn(&str) -> Box<dyn Datasource> + '_ {
    move |id| {
        let bytes = match id {
            "chinook" => CHINOOK,
            "support" => SUPPORT,
            "webanalytics" => WEBANALYTICS,
            other => panic!("no demo database {other}"),
        };
        match sql.open(id, bytes) {
            Ok(db) => Box::new(db),
            Err(e) => panic!("opening {id}: {e}"),
        }
    }
}

macro_rules! browser_checks {
    ($($check:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test]
            async fn $check() {
                let sql = sqljs().await;
                contract::$check(&opener(&sql)).await;
            }
        )*
    };
}

nl2sql_tests::for_each_contract_check!(browser_checks);

#[wasm_bindgen_test]
async fn bytes_that_are_not_a_database_are_unavailable() {
    let sql = sqljs().await;
    let err = sql
        .open(
            "x",
            b"this is not a SQLite file, just some text long enough to look like a header",
        )
        .err()
        .expect("text is not a database");
    assert_eq!(err.kind, DatasourceErrorKind::Unavailable, "{err}");
}
