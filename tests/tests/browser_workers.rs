//! sql.js in Web Workers, in headless Chromium: the datasource contract suite, and what the
//! workers add — a query stopped at its time limit or by Cancel, and the next one working
//! in a new worker that opened the database again.
#![cfg(target_arch = "wasm32")]

use nl2sql_core::engine::Sleep;
use nl2sql_core::scratch::{Scratch, ScratchTable};
use nl2sql_core::{Datasource, DatasourceErrorKind, ExecLimits, Value};
use nl2sql_tests::contract;
use nl2sql_tests::sqljs::{worker_opener, workers, CHINOOK};
use nl2sql_wasm::{TimeoutSleep, Workers};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

macro_rules! worker_checks {
    (; $($check:ident),* $(,)?) => {
        $(
            #[wasm_bindgen_test]
            async fn $check() {
                let workers = workers();
                contract::$check(&worker_opener(&workers)).await;
            }
        )*
    };
}

nl2sql_tests::for_each_contract_check!(worker_checks);

/// Every track paired with every other of its media type, three times over.
const RUNAWAY: &str = "SELECT COUNT(a.TrackId) FROM Track a JOIN Track b ON a.MediaTypeId = \
    b.MediaTypeId JOIN Track c ON b.MediaTypeId = c.MediaTypeId";

fn limited(ms: Option<u64>) -> ExecLimits {
    ExecLimits {
        max_rows: 10,
        timeout_ms: ms,
        reading: false,
    }
}

async fn albums(db: &dyn Datasource) -> Value {
    match db
        .execute("SELECT COUNT(*) FROM Album", limited(None))
        .await
    {
        Ok(frame) => frame.rows[0][0].clone(),
        Err(e) => panic!("counting albums: {e}"),
    }
}

#[wasm_bindgen_test]
async fn a_query_past_its_limit_is_stopped_and_the_next_one_works() {
    let workers = workers();
    let db = match workers.open("chinook", CHINOOK, None).await {
        Ok(db) => db,
        Err(e) => panic!("{e}"),
    };
    let started = js_sys::Date::now();
    let err = db
        .execute(RUNAWAY, limited(Some(300)))
        .await
        .expect_err("billions of rows do not come back in 300 ms");
    let waited = js_sys::Date::now() - started;
    assert_eq!(err.kind, DatasourceErrorKind::TimedOut, "{err}");
    assert!(err.message.contains("300 ms"), "{err}");
    assert!(
        waited >= 300.0,
        "stopped after {waited} ms, before its limit"
    );
    assert_eq!(albums(&db).await, Value::Integer(347));
}

#[wasm_bindgen_test]
async fn a_datasource_limit_shortens_the_runs() {
    let workers = workers();
    let db = match workers.open("chinook", CHINOOK, Some(200)).await {
        Ok(db) => db,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(workers.limit("chinook"), Some(200));
    let err = db.execute(RUNAWAY, limited(Some(60_000))).await.err();
    assert!(
        err.as_ref().is_some_and(|e| e.message.contains("200 ms")),
        "{err:?}"
    );
    // Lifted again, the run's limit is the one.
    assert!(workers.set_limit("chinook", None));
    assert!(!workers.set_limit("nowhere", Some(5)));
    let err = db.execute(RUNAWAY, limited(Some(250))).await.err();
    assert!(
        err.as_ref().is_some_and(|e| e.message.contains("250 ms")),
        "{err:?}"
    );
}

#[wasm_bindgen_test]
async fn an_interrupt_stops_the_query_in_flight_at_once() {
    let workers = workers();
    let db = match workers.open("chinook", CHINOOK, None).await {
        Ok(db) => db,
        Err(e) => panic!("{e}"),
    };
    let stopper = workers.clone();
    wasm_bindgen_futures::spawn_local(async move {
        TimeoutSleep.sleep(200).await;
        stopper.interrupt_one("chinook");
    });
    let started = js_sys::Date::now();
    let err = db.execute(RUNAWAY, limited(Some(30_000))).await.err();
    let waited = js_sys::Date::now() - started;
    assert_eq!(err.map(|e| e.kind), Some(DatasourceErrorKind::Cancelled));
    assert!(waited < 5_000.0, "stopped {waited} ms after it started");
    assert_eq!(albums(&db).await, Value::Integer(347));
    // With nothing in flight, an interrupt changes nothing.
    workers.interrupt();
    assert_eq!(albums(&db).await, Value::Integer(347));
}

#[wasm_bindgen_test]
async fn integers_beyond_2_pow_53_cross_from_the_worker_exactly() {
    let workers = workers();
    let db = workers.attach("chinook", CHINOOK, None);
    let frame = db
        .execute(
            "SELECT 9007199254740993, -9223372036854775808",
            limited(None),
        )
        .await;
    assert_eq!(
        frame.map(|f| f.rows),
        Ok(vec![vec![
            Value::Integer(9_007_199_254_740_993),
            Value::Integer(i64::MIN)
        ]])
    );
}

#[wasm_bindgen_test]
async fn bytes_that_are_not_a_database_do_not_open() {
    let workers = workers();
    let err = workers
        .open(
            "x",
            b"this is not a SQLite file, just some text long enough",
            None,
        )
        .await
        .err()
        .expect("text is not a database");
    assert_eq!(err.kind, DatasourceErrorKind::Unavailable, "{err}");
}

#[wasm_bindgen_test]
async fn sql_js_that_cannot_be_loaded_is_said_so_before_any_database_opens() {
    let workers = Workers::new("/no-such-sql-wasm.js", "/no-such.wasm");
    let err = workers.start().await.expect_err("there is no sql.js there");
    assert!(err.contains("worker"), "{err}");
}

#[wasm_bindgen_test]
async fn the_scratch_worker_combines_rows_under_its_limits() {
    let workers = workers();
    let scratch = workers.scratch();
    let tables = vec![ScratchTable {
        name: "t".into(),
        columns: vec!["n".into()],
        rows: (1..=5).map(|n| vec![Value::Integer(n)]).collect(),
    }];
    let frame = scratch
        .query(&tables, "SELECT SUM(n) FROM t", limited(Some(5_000)))
        .await;
    assert_eq!(frame.map(|f| f.rows), Ok(vec![vec![Value::Integer(15)]]));
    let refused = scratch
        .query(&tables, "DELETE FROM t", limited(None))
        .await
        .err();
    assert_eq!(refused.map(|e| e.kind), Some(DatasourceErrorKind::Refused));
}
