//! The plan path in headless Chromium (wasm): the same work as `benches/plan.rs`, timed with
//! the page's clock. Ignored by `cargo xtask test` (timings are not test results); run by
//! `cargo xtask bench`, which prints the numbers.
#![cfg(target_arch = "wasm32")]

use nl2sql_core::policy::Policies;
use nl2sql_core::Metadata;
use nl2sql_tests::bench::{gold_plan_json, percentiles, plan_to_sql};
use nl2sql_tests::sqljs::{open_demo, sqljs};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    js_sys::Date::now()
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: run it with `cargo xtask bench`"]
async fn plan_path_in_the_browser() {
    let db = open_demo(&sqljs().await, "chinook");
    let schema = db.introspect().await.unwrap_or_else(|e| panic!("{e}"));
    let policies = Policies::demo();
    let plans = gold_plan_json();
    // The page's clock ticks in milliseconds, so each plan is timed over a batch of runs and
    // the batch's mean is one sample; the p50/p95 are over those per-plan means.
    const BATCH: usize = 200;
    // Chromium first runs wasm with its baseline compiler and optimises hot code later; a
    // warm-up pass measures the engine a page that has been answering for a while runs.
    for _ in 0..20 {
        for (_, json) in &plans {
            std::hint::black_box(plan_to_sql(json, &schema, &policies));
        }
    }
    let mut means = Vec::with_capacity(plans.len());
    for (id, json) in &plans {
        assert!(
            plan_to_sql(json, &schema, &policies) > 0,
            "{id} does not get through"
        );
        let t = now_ms();
        for _ in 0..BATCH {
            std::hint::black_box(plan_to_sql(std::hint::black_box(json), &schema, &policies));
        }
        means.push((now_ms() - t) * 1000.0 / BATCH as f64);
    }
    let (p50, p95) = percentiles(means);
    console_log!(
        "plan path (parse + validate + lower + render), wasm in headless Chromium, {} gold \
         plans x {BATCH} runs after a warm-up: p50 {p50:.1} us, p95 {p95:.1} us (per-plan \
         means)",
        plans.len()
    );
}
