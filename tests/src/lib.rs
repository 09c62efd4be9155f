//! Cross-crate test support.
//!
//! [`contract`] is the datasource contract suite: one set of checks every adapter must pass
//! on the real demo databases. `tests/native.rs` runs it on rusqlite, `tests/browser.rs` on
//! sql.js in headless Chromium, both through [`for_each_contract_check!`] so neither can
//! skip a check.

pub mod bench;
pub use nl2sql_suite::compare;
pub mod contract;
pub mod gold;
#[cfg(not(target_arch = "wasm32"))]
pub mod hostile;
pub mod large;
#[cfg(not(target_arch = "wasm32"))]
pub use nl2sql_mock as mock;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod pipeline;
pub mod routing;
pub mod schema_check;
#[cfg(not(target_arch = "wasm32"))]
pub mod servers;
#[cfg(target_arch = "wasm32")]
pub mod sqljs;
pub mod warehouse;

/// Polls two futures together on one thread, until both are done.
pub async fn both<A: std::future::Future, B: std::future::Future>(
    a: A,
    b: B,
) -> (A::Output, B::Output) {
    use std::pin::pin;
    use std::task::Poll;
    let mut a = pin!(a);
    let mut b = pin!(b);
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(move |cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        match (ra.take(), rb.take()) {
            (Some(x), Some(y)) => Poll::Ready((x, y)),
            (x, y) => {
                ra = x;
                rb = y;
                Poll::Pending
            }
        }
    })
    .await
}

/// Waits `ms` milliseconds on the page's clock (`setTimeout`).
#[cfg(target_arch = "wasm32")]
pub async fn sleep(ms: i32) {
    use wasm_bindgen::{JsCast, JsValue};
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let set_timeout = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("setTimeout"))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(f) = set_timeout {
            let _ = f.call2(&JsValue::NULL, &resolve, &JsValue::from(ms));
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The mock provider's API base, baked in by `cargo xtask test` (a page has no environment).
#[cfg(target_arch = "wasm32")]
pub fn mock_url() -> &'static str {
    match option_env!("NL2SQL_MOCK_URL") {
        Some(url) => url,
        None => panic!(
            "NL2SQL_MOCK_URL is not set: run the browser tests with `cargo xtask test`, which starts the mock provider"
        ),
    }
}

/// Adds `(name, question, answer)` fixtures to the mock provider over HTTP
/// (`POST /mock/fixtures`), for tests running where the mock's process is out of reach.
#[cfg(target_arch = "wasm32")]
pub async fn add_mock_fixtures(
    transport: &dyn nl2sql_core::http::HttpTransport,
    fixtures: &[(&str, &str, &str)],
) {
    let list: Vec<serde_json::Value> = fixtures
        .iter()
        .map(|(name, question, answer)| {
            serde_json::json!({"name": name, "question": question, "answer": answer})
        })
        .collect();
    let added = transport
        .post(&nl2sql_core::http::HttpRequest {
            url: format!("{}/mock/fixtures", mock_url().trim_end_matches("/v1")),
            headers: vec![],
            body: serde_json::Value::Array(list).to_string(),
            timeout_ms: 10_000,
        })
        .await;
    assert_eq!(
        added.map(|r| r.status).ok(),
        Some(200),
        "the mock takes the fixtures"
    );
}

/// Calls `$harness!(check, check, …)` with every check of the contract suite; with more
/// arguments, `$harness!(args; check, check, …)` (an engine's opener, say).
#[macro_export]
macro_rules! for_each_contract_check {
    ($harness:ident $(, $arg:tt)*) => {
        $harness!(
            $($arg)* ;
            chinook_tables_and_row_counts,
            chinook_keys_and_nullability,
            chinook_types_and_categories,
            statistics_match_hand_counts,
            fingerprints_are_structural_and_stable,
            typed_values_round_trip,
            writes_attach_and_batches_are_refused,
            query_faults_are_invalid_queries,
            row_cap_is_honoured_and_reported,
            empty_results_keep_their_columns,
            every_demo_database_introspects,
        );
    };
}

/// Calls `$harness!(args; check, check, …)` with every hostile-corpus check in
/// [`hostile`], so each engine's test file runs them all.
#[macro_export]
macro_rules! for_each_hostile_check {
    ($harness:ident $(, $arg:tt)*) => {
        $harness!(
            $($arg)* ;
            sql_in_literals_and_aliases_is_rendered_harmlessly,
            sql_in_names_is_refused_with_the_right_code,
            unicode_look_alikes_name_nothing,
            a_nul_byte_is_refused,
            huge_plans_are_handled_and_deep_ones_refused_without_a_crash,
            hostile_sql_is_refused_on_import,
            long_chains_are_bounded_or_flattened,
            sql_whose_meaning_a_plan_cannot_keep_is_refused,
        );
    };
}
