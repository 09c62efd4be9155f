//! Provider embeddings in headless Chromium: `fetch` to the local mock provider (started by
//! `cargo xtask test`, which bakes its address in as `NL2SQL_MOCK_URL`), the same routing as
//! the built-in embedder, faults with no key in sight, timeouts and cancellation; chat calls
//! on both wires, streamed piece by piece through `fetch`'s body reader.
#![cfg(target_arch = "wasm32")]

use nl2sql_core::error::{ErrorCode, Node, PipelineError};
use nl2sql_core::index::{BuiltinEmbedder, Embedder};
use nl2sql_core::provider::chat::call;
use nl2sql_core::provider::{
    ApiKey, ChatRequest, Message, Output, Provider, ProviderEmbedder, Role, StructuredMethod, Wire,
};
use nl2sql_tests::routing::{demo_index, routing_score, ROUTING_SUITE};
use nl2sql_tests::sqljs::{opener, sqljs};
use nl2sql_tests::{add_mock_fixtures, both, mock_url, sleep};
use nl2sql_wasm::FetchTransport;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const KEY: &str = "sk-mock-0123456789abcdefghijKLMN";

fn provider() -> Provider {
    Provider::new(Wire::OpenAi, mock_url(), ApiKey::new(KEY))
}

async fn failure(embedder: &ProviderEmbedder) -> PipelineError {
    match embedder.embed(&["tracks".to_string()]).await {
        Ok(_) => panic!("the call succeeded"),
        Err(e) => e.at(Node::SchemaRetriever),
    }
}

#[wasm_bindgen_test]
async fn provider_embeddings_over_fetch_route_like_the_builtin_embedder() {
    let sql = sqljs().await;
    let transport = std::rc::Rc::new(FetchTransport::default());
    let embedder =
        ProviderEmbedder::new(transport.clone(), provider(), "mock-embed").with_batch_size(64);
    let index = demo_index(&opener(&sql), &embedder).await;
    assert!(embedder.requests() >= 2, "{} requests", embedder.requests());
    let over_fetch = routing_score(&index, &embedder, ROUTING_SUITE).await;
    let builtin = BuiltinEmbedder::default();
    let local_index = demo_index(&opener(&sql), &builtin).await;
    let local = routing_score(&local_index, &builtin, ROUTING_SUITE).await;
    assert_eq!(over_fetch.failures, local.failures);
    assert_eq!(over_fetch.passed, local.passed);
}

#[wasm_bindgen_test]
async fn faults_map_to_codes_without_the_key() {
    let transport = std::rc::Rc::new(FetchTransport::default());
    for (model, code) in [
        ("fault-401", ErrorCode::ProviderAuthFailed),
        ("fault-404", ErrorCode::ProviderModelUnavailable),
        ("fault-429-quota", ErrorCode::ProviderQuotaExceeded),
        ("fault-429-rate", ErrorCode::ProviderRateLimited),
        ("fault-503", ErrorCode::ProviderUnavailable),
    ] {
        let e = failure(&ProviderEmbedder::new(transport.clone(), provider(), model)).await;
        assert_eq!(e.error_code, code, "{model}");
        let json = serde_json::to_string(&e).unwrap_or_default();
        assert!(
            !json.contains("0123456789") && !json.contains("KLMN"),
            "{json}"
        );
    }
}

#[wasm_bindgen_test]
async fn a_slow_provider_times_out_and_a_cancel_aborts_at_once() {
    let transport = std::rc::Rc::new(FetchTransport::default());
    let slow =
        ProviderEmbedder::new(transport.clone(), provider(), "fault-hang").with_timeout_ms(300);
    assert_eq!(failure(&slow).await.error_code, ErrorCode::ProviderTimeout);

    let transport = std::rc::Rc::new(FetchTransport::default());
    let hanging =
        ProviderEmbedder::new(transport.clone(), provider(), "fault-hang").with_timeout_ms(9_000);
    let started = js_sys::Date::now();
    let cancel = async {
        sleep(50).await;
        transport.cancel();
    };
    let (e, ()) = both(failure(&hanging), cancel).await;
    let waited = js_sys::Date::now() - started;
    assert_eq!(e.error_code, ErrorCode::Cancelled);
    assert!(
        waited < 3_000.0,
        "the cancel took {waited} ms against a 9 s timeout"
    );
    // A cancelled transport sends nothing more.
    assert_eq!(failure(&hanging).await.error_code, ErrorCode::Cancelled);
}

#[wasm_bindgen_test]
async fn chat_answers_stream_through_fetch_on_both_wires() {
    let transport = FetchTransport::default();
    let plan = r#"{"tables": [{"name": "Genre", "alias": "g"}], "select_items": [{"expr": {"kind": "column", "alias": "g", "column_name": "Name"}}]}"#;
    let question = "List the genres, from the browser.";
    add_mock_fixtures(
        &transport,
        &[
            ("plan", question, plan),
            (
                "text",
                question,
                "There are 25 genres, from Rock to Opera — «all» of them listed above.",
            ),
        ],
    )
    .await;
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let p = Provider::new(wire, mock_url(), ApiKey::new(KEY));
        for output in [
            Output::Structured {
                name: "plan".into(),
                description: "A query plan.".into(),
                schema: nl2sql_core::plan::plan_json_schema(),
                method: StructuredMethod::ToolCalling,
            },
            Output::Text,
        ] {
            let request = ChatRequest {
                model: "m".into(),
                system: "You answer questions about a music store.".into(),
                messages: vec![Message {
                    role: Role::User,
                    content: format!("Question: {question}"),
                }],
                temperature: None,
                max_tokens: 1_000,
                output: output.clone(),
                stream: true,
                timeout_ms: 5_000,
            };
            let mut pieces = Vec::new();
            let answer = call(&transport, &p, &request, &mut |d| {
                pieces.push(d.to_string())
            })
            .await
            .unwrap_or_else(|e| panic!("{wire:?}: {e}"));
            assert!(pieces.len() > 1, "{wire:?}: streamed in pieces");
            assert_eq!(pieces.concat(), answer.content);
            match output {
                Output::Text => assert!(answer.content.contains("«all»"), "{}", answer.content),
                Output::Structured { .. } => {
                    let got: serde_json::Value =
                        serde_json::from_str(&answer.content).unwrap_or_default();
                    let want: serde_json::Value = serde_json::from_str(plan).unwrap_or_default();
                    assert_eq!(got, want);
                }
            }
        }
    }
}

/// A page that uses a server as its engine says by code why it could not: an address that
/// is no server's, a server that is not there, and an answer that is not the API's.
#[wasm_bindgen_test]
async fn a_server_that_cannot_be_used_is_said_by_code() {
    use nl2sql_wasm::Remote;
    let refused = Remote::new("ftp://127.0.0.1:9", "key").map(|_| ());
    assert_eq!(refused.map_err(|e| e.code), Err(ErrorCode::ConfigInvalid));
    let transport = FetchTransport::default();
    let nobody = Remote::new("http://127.0.0.1:9", "key").unwrap_or_else(|e| panic!("{e}"));
    let gone = nobody.datasources(&transport).await.map(|_| ());
    assert_eq!(gone.map_err(|e| e.code), Err(ErrorCode::ServerUnreachable));
    // The mock model provider answers, but not as an nl2sql server does.
    let stranger = Remote::new(mock_url(), "key").unwrap_or_else(|e| panic!("{e}"));
    let odd = stranger.datasources(&transport).await.map(|_| ());
    assert_eq!(
        odd.map_err(|e| e.code),
        Err(ErrorCode::ServerResponseUnreadable)
    );
}
