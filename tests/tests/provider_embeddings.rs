//! Provider embeddings over real HTTP to the local mock provider, through the command
//! line's transport: batching, the same routing as the built-in embedder, every fault
//! mapped to its code with no key anywhere, timeouts, and the circuit breaker.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::error::{ErrorCode, Node};
use nl2sql_core::index::{BuiltinEmbedder, CircuitBreaker, Clock, Embedder, GuardedEmbedder};
use nl2sql_core::provider::{ApiKey, Provider, ProviderEmbedder, Wire};
use nl2sql_native::BlockingTransport;
use nl2sql_tests::mock::MockProvider;
use nl2sql_tests::native::open;
use nl2sql_tests::routing::{demo_index, routing_score, ROUTING_SUITE};
use std::rc::Rc;

const KEY: &str = "sk-mock-0123456789abcdefghijKLMN";

fn mock() -> MockProvider {
    MockProvider::start().unwrap_or_else(|e| panic!("mock provider: {e}"))
}

fn provider(mock: &MockProvider) -> Provider {
    Provider::new(Wire::OpenAi, &mock.base_url(), ApiKey::new(KEY))
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("text number {i}")).collect()
}

#[test]
fn provider_vectors_route_like_the_builtin_embedder_in_batches() {
    let mock = mock();
    let transport = Rc::new(BlockingTransport::default());
    let embedder =
        ProviderEmbedder::new(transport.clone(), provider(&mock), "mock-embed").with_batch_size(50);
    let index = pollster::block_on(demo_index(&open, &embedder));
    let builds = mock.received();
    let entries = index.entries().len();
    assert_eq!(
        builds.len(),
        entries.div_ceil(50),
        "{entries} entries in batches of 50"
    );
    for request in &builds {
        assert_eq!(request.path, "/v1/embeddings");
        let auth = request.headers.iter().find(|(n, _)| n == "authorization");
        assert_eq!(
            auth.map(|(_, v)| v.as_str()),
            Some(format!("Bearer {KEY}").as_str())
        );
        let body: serde_json::Value = serde_json::from_str(&request.body).unwrap_or_default();
        assert_eq!(body["model"], "mock-embed");
        assert_eq!(body["encoding_format"], "float");
        assert!(body["input"]
            .as_array()
            .is_some_and(|a| !a.is_empty() && a.len() <= 50));
    }
    assert!(embedder.tokens() > 0, "usage is read");

    let over_http = pollster::block_on(routing_score(&index, &embedder, ROUTING_SUITE));
    let builtin = BuiltinEmbedder::default();
    let local_index = pollster::block_on(demo_index(&open, &builtin));
    let local = pollster::block_on(routing_score(&local_index, &builtin, ROUTING_SUITE));
    println!(
        "routing with provider embeddings: {}/{}",
        over_http.passed, over_http.total
    );
    assert_eq!(over_http.failures, local.failures);
    assert_eq!(over_http.passed, local.passed);
    // The index is tied to the embedder that built it.
    assert!(embedder
        .id()
        .starts_with("openai:mock-embed@http://127.0.0.1:"));
    assert!(pollster::block_on(index.embed_query(&builtin, "tracks")).is_err());
}

#[test]
fn empty_texts_are_not_sent_and_order_is_kept() {
    let mock = mock();
    let transport = Rc::new(BlockingTransport::default());
    let embedder =
        ProviderEmbedder::new(transport.clone(), provider(&mock), "m").with_batch_size(2);
    let input = vec![
        "albums".to_string(),
        String::new(),
        "tracks".to_string(),
        " ".to_string(),
        "genres".to_string(),
    ];
    let vectors = pollster::block_on(embedder.embed(&input)).unwrap_or_else(|e| panic!("{e}"));
    let builtin = BuiltinEmbedder::default();
    assert_eq!(vectors.len(), 5);
    for i in [0, 2, 4] {
        let want = builtin.vector(&input[i]);
        let close = vectors[i]
            .iter()
            .zip(&want)
            .all(|(a, b)| (a - b).abs() < 1e-5);
        assert!(close, "vector {i} is the one for its own text");
    }
    assert!(vectors[1].iter().all(|x| *x == 0.0));
    assert_eq!(mock.received().len(), 2, "three texts in batches of two");
}

#[test]
fn every_fault_has_its_code_and_no_key_leaks() {
    let mock = mock();
    let transport = Rc::new(BlockingTransport::default());
    let cases = [
        ("fault-401", Some(ErrorCode::ProviderAuthFailed)),
        ("fault-403", Some(ErrorCode::ProviderAuthFailed)),
        ("fault-404", Some(ErrorCode::ProviderModelUnavailable)),
        ("fault-429-rate", Some(ErrorCode::ProviderRateLimited)),
        ("fault-429-quota", Some(ErrorCode::ProviderQuotaExceeded)),
        ("fault-500", Some(ErrorCode::ProviderUnavailable)),
        ("fault-503", Some(ErrorCode::ProviderUnavailable)),
        ("fault-truncated", Some(ErrorCode::ProviderUnavailable)),
        ("fault-malformed", None),
    ];
    for (model, code) in cases {
        let embedder = ProviderEmbedder::new(transport.clone(), provider(&mock), model);
        let err = match pollster::block_on(embedder.embed(&texts(3))) {
            Ok(_) => panic!("{model} succeeded"),
            Err(e) => e,
        };
        let shown = format!("{err} {err:?}");
        let error = err.at(Node::SchemaRetriever);
        let json = serde_json::to_string(&error).unwrap_or_default();
        assert_eq!(
            error.error_code,
            code.unwrap_or(ErrorCode::SchemaRetrievalFailed),
            "{model}: {json}"
        );
        for text in [&shown, &json] {
            assert!(
                !text.contains("0123456789"),
                "{model} leaks the key: {text}"
            );
            assert!(
                !text.contains("sk-mock"),
                "{model} leaks the key prefix: {text}"
            );
            assert!(
                !text.contains("KLMN"),
                "{model} leaks the key's end: {text}"
            );
        }
        if code.is_some() {
            assert_eq!(
                error.provider.as_deref(),
                Some("The OpenAI-compatible provider"),
                "{model}"
            );
            assert!(
                !error.is_retryable(),
                "{model}: provider failures are fatal"
            );
        }
    }
    let embedder = ProviderEmbedder::new(transport.clone(), provider(&mock), "fault-401");
    let error = pollster::block_on(embedder.embed(&texts(1)))
        .err()
        .map(|e| e.at(Node::SchemaRetriever));
    let words = error.and_then(|e| e.provider_response).unwrap_or_default();
    assert!(
        words
            .starts_with("HTTP 401 (invalid_api_key): Incorrect API key provided: [redacted key]."),
        "{words}"
    );
}

#[test]
fn timeouts_unreachable_servers_and_mixed_dimensions() {
    let mock = mock();
    let transport = Rc::new(BlockingTransport::default());
    let slow = ProviderEmbedder::new(transport.clone(), provider(&mock), "fault-hang")
        .with_timeout_ms(300);
    let err = pollster::block_on(slow.embed(&texts(1)))
        .err()
        .map(|e| e.at(Node::SchemaRetriever));
    assert_eq!(err.map(|e| e.error_code), Some(ErrorCode::ProviderTimeout));

    // A port nothing listens on: bind one, then let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("{e}"));
    let gone = Provider::new(
        Wire::OpenAi,
        &format!("http://127.0.0.1:{port}/v1"),
        ApiKey::new(KEY),
    );
    let err =
        pollster::block_on(ProviderEmbedder::new(transport.clone(), gone, "m").embed(&texts(1)))
            .err()
            .map(|e| e.at(Node::SchemaRetriever));
    assert_eq!(
        err.as_ref().map(|e| e.error_code),
        Some(ErrorCode::ProviderUnavailable)
    );
    assert!(err.is_some_and(|e| e.message.contains("could not be reached")));

    let dims =
        ProviderEmbedder::new(transport.clone(), provider(&mock), "fault-dims").with_batch_size(1);
    let err = pollster::block_on(dims.embed(&texts(2))).err();
    assert!(err.is_some_and(|e| e.message.contains("dimensions")));
}

struct FixedClock;

impl Clock for FixedClock {
    fn now_ms(&self) -> u64 {
        1_000
    }
}

#[test]
fn the_breaker_stops_calling_a_failing_provider() {
    let mock = mock();
    let transport = Rc::new(BlockingTransport::default());
    let failing = ProviderEmbedder::new(transport.clone(), provider(&mock), "fault-500");
    let guarded = GuardedEmbedder::new(
        Rc::new(failing),
        CircuitBreaker::vector(),
        Rc::new(FixedClock),
    );
    for _ in 0..8 {
        assert!(pollster::block_on(guarded.embed(&texts(1))).is_err());
    }
    assert_eq!(
        mock.received().len(),
        5,
        "the breaker opens after five failures"
    );
    let err = pollster::block_on(guarded.embed(&texts(1)))
        .err()
        .map(|e| e.at(Node::DatasourceResolver));
    assert_eq!(
        err.map(|e| e.error_code),
        Some(ErrorCode::SchemaRetrievalFailed)
    );
}
