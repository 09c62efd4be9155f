//! The whole pipeline in headless Chromium: sql.js datasources, the built-in index, and the
//! mock model provider over `fetch` (started by `cargo xtask test`, address baked in as
//! `NL2SQL_MOCK_URL`): the reference suite's 141 role runs, as natively.
#![cfg(target_arch = "wasm32")]

use nl2sql_core::catalog::Assembled;
use nl2sql_core::engine::{
    Agent, CancelToken, Engine, EngineSettings, Hooks, Parts, Question, Status,
};
use nl2sql_core::error::ErrorCode;
use nl2sql_core::index::BuiltinEmbedder;
use nl2sql_core::policy::Policies;
use nl2sql_core::provider::{ApiKey, Provider, Wire};
use nl2sql_core::{Datasource, Value};
use nl2sql_tests::pipeline::{
    cross_fixtures, reference_fixtures, run_reference_pipeline, Canned, CROSS_QUESTION,
};
use nl2sql_tests::routing::demo_index;
use nl2sql_tests::sqljs::{open_demo, opener, sqljs};
use nl2sql_tests::{add_mock_fixtures, both, mock_url, sleep};
use nl2sql_wasm::{FetchTransport, PageClock, SqlJs, TimeoutSleep};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Gives the mock provider canned `(name, question, answer)` answers.
async fn add_canned(transport: &FetchTransport, canned: &[Canned]) {
    let fixtures: Vec<(&str, &str, &str)> = canned
        .iter()
        .map(|(n, q, a)| (n.as_str(), q.as_str(), a.as_str()))
        .collect();
    add_mock_fixtures(transport, &fixtures).await;
}

/// The three demo databases on sql.js.
fn demo_databases(sql: &SqlJs) -> Vec<Box<dyn Datasource>> {
    ["chinook", "support", "webanalytics"]
        .iter()
        .map(|d| Box::new(open_demo(sql, d)) as Box<dyn Datasource>)
        .collect()
}

#[wasm_bindgen_test]
async fn the_reference_suite_through_the_whole_pipeline_in_the_browser() {
    let url = mock_url();
    let transport = FetchTransport::default();
    add_canned(&transport, &reference_fixtures()).await;

    let sql = sqljs().await;
    let embedder = BuiltinEmbedder::default();
    let index = demo_index(&opener(&sql), &embedder).await;
    let dbs = demo_databases(&sql);
    let policies = Policies {
        refusal_names_tables: false,
        ..Policies::demo()
    };
    let provider = Provider::new(
        Wire::Anthropic,
        url,
        ApiKey::new("sk-ant-mock-0123456789abcdef"),
    );
    let engine = Engine::new(
        Parts {
            catalog: Box::new(Assembled {
                datasources: dbs.iter().map(|d| d.as_ref()).collect(),
                index: &index,
                embedder: &embedder,
                policies: &policies,
            }),
            transport: &transport,
            clock: &PageClock,
        },
        EngineSettings::new(Agent::new(provider, "claude-haiku-4-5")),
    );
    let outcome = run_reference_pipeline(&engine).await;
    assert_eq!(outcome.runs, 141);
    outcome.assert_passed();
}

#[wasm_bindgen_test]
async fn a_cancel_aborts_the_model_calls_in_flight_at_once() {
    let url = mock_url();
    let sql = sqljs().await;
    let embedder = BuiltinEmbedder::default();
    let index = demo_index(&opener(&sql), &embedder).await;
    let chinook = open_demo(&sql, "chinook");
    let policies = Policies::demo();
    let transport = FetchTransport::default();
    let token = CancelToken::new();
    token.on_cancel(transport.canceller());
    let provider = Provider::new(Wire::OpenAi, url, ApiKey::new("sk-mock-0123456789abcdef"));
    // The mock never answers this model: both calls hang until the cancel.
    let engine = Engine::new(
        Parts {
            catalog: Box::new(Assembled {
                datasources: vec![&chinook],
                index: &index,
                embedder: &embedder,
                policies: &policies,
            }),
            transport: &transport,
            clock: &PageClock,
        },
        EngineSettings::new(Agent::new(provider, "fault-hang")),
    );
    let hooks = Hooks {
        cancel: Some(token.clone()),
        ..Hooks::default()
    };
    let cancel_at = std::cell::Cell::new(0.0);
    let cancel = async {
        sleep(100).await;
        cancel_at.set(js_sys::Date::now());
        token.cancel();
    };
    let (r, ()) = both(
        engine.ask(&Question::new("How many albums are there?"), hooks),
        cancel,
    )
    .await;
    let after = js_sys::Date::now() - cancel_at.get();
    let codes: Vec<ErrorCode> = r.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::Cancelled]);
    // The calls hang for 10 s and their timeout is 60 s: ending at all this soon means the
    // cancel aborted them. (The measured time is printed, not held to a tight bound.)
    console_log!("the run ended {after} ms after the cancel");
    assert!(after < 5_000.0, "the run ended {after} ms after the cancel");
}

#[wasm_bindgen_test]
async fn a_rate_limited_call_waits_with_set_timeout_and_tries_again() {
    let url = mock_url();
    let transport = FetchTransport::default();
    let q = "How many albums are there, asked patiently?";
    add_mock_fixtures(
        &transport,
        &[
            ("answerability", q, r#"{"datasources": ["chinook"], "reason": "albums"}"#),
            ("plan", q, r#"{"tables": [{"name": "Album", "alias": "a"}], "select_items": [{"expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "a", "column_name": "AlbumId"}]}}]}"#),
        ],
    )
    .await;
    let sql = sqljs().await;
    let embedder = BuiltinEmbedder::default();
    let index = demo_index(&opener(&sql), &embedder).await;
    let chinook = open_demo(&sql, "chinook");
    let policies = Policies::demo();
    // The mock rate-limits every other call to this model.
    let provider = Provider::new(Wire::OpenAi, url, ApiKey::new("sk-mock-0123456789abcdef"));
    let engine = Engine::new(
        Parts {
            catalog: Box::new(Assembled {
                datasources: vec![&chinook],
                index: &index,
                embedder: &embedder,
                policies: &policies,
            }),
            transport: &transport,
            clock: &PageClock,
        },
        EngineSettings::new(Agent::new(provider, "fault-flaky")),
    )
    .waiting_with(&TimeoutSleep);
    let r = engine.ask(&Question::new(q), Hooks::default()).await;
    assert_eq!(
        r.status,
        nl2sql_core::engine::Status::Success,
        "{:?}",
        r.errors
    );
    assert_eq!(
        r.sub_queries[0].rows,
        vec![vec![nl2sql_core::Value::Integer(347)]]
    );
}

#[wasm_bindgen_test]
async fn a_question_across_two_databases_is_combined_in_a_scratch_sql_js() {
    let url = mock_url();
    let transport = FetchTransport::default();
    add_canned(&transport, &cross_fixtures()).await;
    let sql = sqljs().await;
    let embedder = BuiltinEmbedder::default();
    let index = demo_index(&opener(&sql), &embedder).await;
    let dbs = demo_databases(&sql);
    let policies = Policies::demo();
    let scratch = sql.scratch();
    let provider = Provider::new(
        Wire::Anthropic,
        url,
        ApiKey::new("sk-ant-mock-0123456789abcdef"),
    );
    let engine = Engine::new(
        Parts {
            catalog: Box::new(Assembled {
                datasources: dbs.iter().map(|d| d.as_ref()).collect(),
                index: &index,
                embedder: &embedder,
                policies: &policies,
            }),
            transport: &transport,
            clock: &PageClock,
        },
        EngineSettings::new(Agent::new(provider, "claude-haiku-4-5")),
    )
    .combining_with(&scratch);
    let r = engine
        .ask(&Question::new(CROSS_QUESTION), Hooks::default())
        .await;
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    let combined = r.combined.expect("combined");
    assert_eq!(combined.rows.len(), 30);
    // The biggest spender with an open ticket, as SQLite computes it over both files.
    assert_eq!(
        combined.rows[0],
        [
            Value::Text("ladislav_kovacs@apple.hu".into()),
            Value::Text("Ladislav".into()),
            Value::Text("Kovács".into()),
            Value::Real(45.62)
        ]
    );
    assert_eq!(r.sequential_llm_calls, 3);
}
