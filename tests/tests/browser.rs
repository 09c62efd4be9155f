//! The datasource contract suite on sql.js, in headless Chromium (wasm-bindgen-test).
//!
//! sql.js and the demo databases are compiled into the test module, so the browser needs no
//! server of ours: `cargo xtask setup` must have filled `node_modules/` and `data/` first.
#![cfg(target_arch = "wasm32")]

use nl2sql_core::DatasourceErrorKind;
use nl2sql_tests::contract;
use nl2sql_tests::sqljs::{opener, sqljs, CHINOOK, SQLJS_SOURCE, SQLJS_WASM};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

macro_rules! browser_checks {
    (; $($check:ident),* $(,)?) => {
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

/// The sql.js glue on its own, below the core guard: what SQLite itself lets through.
mod below_the_guard {
    use super::*;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(module = "/../wasm/js/sqljs.js")]
    extern "C" {
        #[wasm_bindgen(catch, js_name = initFromSource)]
        async fn init_from_source(source: &str, wasm: &[u8]) -> Result<JsValue, JsValue>;
        #[wasm_bindgen(catch, js_name = openDatabase)]
        fn open_database(sql: &JsValue, bytes: &[u8]) -> Result<JsValue, JsValue>;
        #[wasm_bindgen(catch)]
        fn query(db: &JsValue, sql: &str, max_rows: f64) -> Result<JsValue, JsValue>;
    }

    #[wasm_bindgen_test]
    async fn sqlite_refuses_writes_and_second_statements_without_the_guard() {
        let module = init_from_source(SQLJS_SOURCE, SQLJS_WASM).await.unwrap();
        let db = open_database(&module, CHINOOK).unwrap();
        for (sql, says) in [
            ("DELETE FROM Track", "readonly"),
            ("INSERT INTO Genre (Name) VALUES ('x')", "readonly"),
            ("SELECT 1; DELETE FROM Track", "more than one statement"),
            ("SELECT 1; SELECT 2", "more than one statement"),
            (
                "ATTACH DATABASE ':memory:' AS other",
                "attaching databases is not allowed",
            ),
            (
                "/* hidden */ attach 'x.db' as x",
                "attaching databases is not allowed",
            ),
        ] {
            let err = query(&db, sql, 10.0).expect_err(sql);
            let message = nl2sql_wasm::js_message(err);
            assert!(message.contains(says), "{sql}: {message}");
        }
        let ok = query(
            &db,
            "SELECT count(*) FROM Track; -- a trailing comment",
            10.0,
        );
        assert!(ok.is_ok(), "a trailing comment is not a statement");
    }
}

/// The playground takes the demo databases' schema, statistics and values from the
/// catalogue `nl2sql catalogue` read natively (rusqlite); that must be exactly what the
/// page would read itself on sql.js.
#[wasm_bindgen_test]
async fn the_catalogue_read_ahead_natively_equals_what_sqljs_reads() {
    use nl2sql_core::workspace::{read_source, Catalogue, CATALOGUE_FORMAT};
    let sql = sqljs().await;
    let catalogue: Catalogue = match serde_json::from_str(nl2sql_tests::sqljs::CATALOGUE) {
        Ok(c) => c,
        Err(e) => panic!("data/demo-catalogue.json does not read: {e}"),
    };
    assert_eq!(catalogue.format, CATALOGUE_FORMAT);
    for id in ["chinook", "support", "webanalytics"] {
        let db = nl2sql_tests::sqljs::open_demo(&sql, id);
        let read = match read_source(id, &db).await {
            Ok(r) => r,
            Err(e) => panic!("{id}: {e}"),
        };
        let Some(entry) = catalogue.sources.get(id) else {
            panic!("the catalogue lacks {id}");
        };
        // Column by column first, so a difference names its place.
        for (ahead, here) in entry.read.schema.tables.iter().zip(&read.schema.tables) {
            for (a, h) in ahead.columns.iter().zip(&here.columns) {
                assert_eq!(a, h, "{id}.{}.{}", ahead.name, a.name);
            }
        }
        for (a, h) in entry.read.values.iter().zip(&read.values) {
            assert_eq!(a, h, "{id}: values of {}.{}", a.0, a.1);
        }
        assert_eq!(
            entry.read, read,
            "{id}: the catalogue differs from sql.js's read"
        );
    }
}
