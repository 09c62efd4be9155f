//! The gold suites in headless Chromium on sql.js: the reference engine's 43 plans for every
//! role, and our own queries through the importer. The same code as the native run
//! (`nl2sql_tests::gold`), so the wasm build of the engine answers exactly as the native one.
#![cfg(target_arch = "wasm32")]

use nl2sql_tests::gold::{run_own_suite, run_reference_suite};
use nl2sql_tests::sqljs::{open_demo, sqljs};
use nl2sql_wasm::SqlJsDatabase;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

async fn chinook() -> SqlJsDatabase {
    open_demo(&sqljs().await, "chinook")
}

#[wasm_bindgen_test]
async fn every_gold_plan_gives_the_gold_outcome_for_every_role_in_the_browser() {
    let outcome = run_reference_suite(&chinook().await).await;
    outcome.assert_passed();
    assert_eq!(outcome.runs, 129);
}

#[wasm_bindgen_test]
async fn every_own_gold_query_returns_the_rows_of_its_sql_in_the_browser() {
    let outcome = run_own_suite(&chinook().await).await;
    outcome.assert_passed();
    assert!(outcome.runs >= 45, "{} cases", outcome.runs);
}
