//! Chat calls over real HTTP to the mock provider, through the command line's transport:
//! both wires, every structured-output method, whole and streamed, usage and prompt caching,
//! and the faults a chat call can meet, with no key in any error.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::error::ErrorCode;
use nl2sql_core::plan::plan_json_schema;
use nl2sql_core::provider::chat::{call, ChatError, PriceTable};
use nl2sql_core::provider::{
    ApiKey, ChatRequest, Message, Output, Provider, Role, StructuredMethod, Wire,
};
use nl2sql_native::BlockingTransport;
use nl2sql_tests::mock::{Fixture, MockProvider};

const KEY: &str = "sk-mock-0123456789abcdefghijKLMN";
const PLAN: &str = r#"{"tables": [{"name": "Track", "alias": "t"}], "select_items": [{"expr": {"kind": "column", "alias": "t", "column_name": "Name"}}], "limit": 5}"#;
const QUESTION: &str = "Name five tracks.";

fn mock() -> MockProvider {
    let mock = MockProvider::start().unwrap_or_else(|e| panic!("mock provider: {e}"));
    mock.add([
        Fixture::new("plan", QUESTION, PLAN),
        Fixture::new(
            "text",
            QUESTION,
            "Here are five tracks: « For Those About To Rock », and four more.",
        ),
    ]);
    mock
}

fn provider(mock: &MockProvider, wire: Wire) -> Provider {
    Provider::new(wire, &mock.base_url(), ApiKey::new(KEY))
}

fn request(model: &str, output: Output, stream: bool) -> ChatRequest {
    ChatRequest {
        model: model.to_string(),
        system: "You write query plans for a music store's database.".to_string(),
        messages: vec![Message {
            role: Role::User,
            content: format!("Question: {QUESTION}"),
        }],
        temperature: None,
        max_tokens: 2_000,
        output,
        stream,
        timeout_ms: 5_000,
    }
}

fn plan_output(method: StructuredMethod) -> Output {
    Output::Structured {
        name: "plan".to_string(),
        description: "A query plan.".to_string(),
        schema: plan_json_schema(),
        method,
    }
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn structured_and_text_answers_on_both_wires_whole_and_streamed() {
    let mock = mock();
    let transport = BlockingTransport::default();
    let mut runs = 0;
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let p = provider(&mock, wire);
        for method in [
            StructuredMethod::ToolCalling,
            StructuredMethod::JsonSchema,
            StructuredMethod::JsonMode,
        ] {
            for stream in [false, true] {
                let mut deltas = String::new();
                let answer = pollster::block_on(call(
                    &transport,
                    &p,
                    &request("m", plan_output(method), stream),
                    &mut |d| deltas.push_str(d),
                ))
                .unwrap_or_else(|e| panic!("{wire:?} {method:?} stream={stream}: {e}"));
                assert_eq!(
                    json(&answer.content),
                    json(PLAN),
                    "{wire:?} {method:?} {stream}"
                );
                assert!(answer.usage.input.is_some_and(|n| n > 0));
                assert!(answer.usage.output.is_some_and(|n| n > 0));
                if stream {
                    assert_eq!(json(&deltas), json(PLAN), "the deltas make the answer");
                } else {
                    assert!(deltas.is_empty());
                }
                runs += 1;
            }
        }
        let mut deltas = String::new();
        let text = pollster::block_on(call(
            &transport,
            &p,
            &request("m", Output::Text, true),
            &mut |d| deltas.push_str(d),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            text.content.starts_with("Here are five tracks: « For"),
            "{}",
            text.content
        );
        assert_eq!(deltas, text.content);
    }
    assert_eq!(runs, 12);
}

#[test]
fn requests_carry_each_wire_s_fields_and_a_repeated_system_prompt_is_cached() {
    let mock = mock();
    let transport = BlockingTransport::default();
    let anthropic = provider(&mock, Wire::Anthropic);
    let first = pollster::block_on(call(
        &transport,
        &anthropic,
        &request(
            "claude-haiku-4-5",
            plan_output(StructuredMethod::ToolCalling),
            false,
        ),
        &mut |_| {},
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let second = pollster::block_on(call(
        &transport,
        &anthropic,
        &request(
            "claude-haiku-4-5",
            plan_output(StructuredMethod::ToolCalling),
            false,
        ),
        &mut |_| {},
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(first.usage.cached, Some(0));
    assert!(
        second.usage.cached.is_some_and(|n| n > 0),
        "{:?}",
        second.usage
    );
    assert_eq!(
        first.usage.input, second.usage.input,
        "input counts cached tokens too"
    );
    let cost = PriceTable::published().cost("claude-haiku-4-5", &second.usage);
    let full = PriceTable::published().cost("claude-haiku-4-5", &first.usage);
    assert!(
        cost.is_some_and(|c| full.is_some_and(|f| c < f)),
        "{cost:?} {full:?}"
    );

    let received = mock.received();
    let sent = &received[0];
    let header = |name: &str| {
        sent.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(header("x-api-key"), Some(KEY));
    assert_eq!(header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        header("anthropic-dangerous-direct-browser-access"),
        Some("true")
    );
    let body = json(&sent.body);
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(
        body["tool_choice"],
        serde_json::json!({"type": "tool", "name": "plan"})
    );
    assert!(
        body.get("temperature").is_none(),
        "no temperature unless set"
    );

    let openai = provider(&mock, Wire::OpenAi);
    let mut with_t = request("m", plan_output(StructuredMethod::JsonSchema), true);
    with_t.temperature = Some(0.0);
    pollster::block_on(call(&transport, &openai, &with_t, &mut |_| {}))
        .unwrap_or_else(|e| panic!("{e}"));
    let received = mock.received();
    let sent = received.last().unwrap_or_else(|| panic!("a request"));
    let body = json(&sent.body);
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(body["seed"], 42);
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(
        body["max_tokens"], 2_000,
        "a server that is not OpenAI's gets max_tokens"
    );
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["messages"][0]["role"], "system");
}

#[test]
fn faults_map_to_codes_and_no_key_leaks() {
    let mock = mock();
    let transport = BlockingTransport::default();
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let p = provider(&mock, wire);
        for (model, stream, want) in [
            ("fault-401", false, Some(ErrorCode::ProviderAuthFailed)),
            ("fault-404", true, Some(ErrorCode::ProviderModelUnavailable)),
            ("fault-429-rate", true, Some(ErrorCode::ProviderRateLimited)),
            (
                "fault-429-quota",
                false,
                Some(ErrorCode::ProviderQuotaExceeded),
            ),
            ("fault-500", false, Some(ErrorCode::ProviderUnavailable)),
            (
                "fault-truncated",
                false,
                Some(ErrorCode::ProviderUnavailable),
            ),
            ("fault-malformed", false, None),
            ("fault-cut-stream", true, None),
        ] {
            let got = pollster::block_on(call(
                &transport,
                &p,
                &request(model, plan_output(StructuredMethod::ToolCalling), stream),
                &mut |_| {},
            ));
            let err = match got {
                Ok(a) => panic!("{wire:?} {model}: answered {}", a.content),
                Err(e) => e,
            };
            let shown = format!("{err} {err:?}");
            assert!(
                !shown.contains("0123456789") && !shown.contains("KLMN"),
                "{model}: {shown}"
            );
            match (want, &err) {
                (Some(code), ChatError::Provider(f)) => {
                    assert_eq!(f.code, code, "{wire:?} {model}")
                }
                (None, ChatError::Unreadable(_)) => {}
                _ => panic!("{wire:?} {model}: {err:?}"),
            }
        }
    }
    // A provider refusing the request as malformed is the node's to explain.
    let err = pollster::block_on(call(
        &transport,
        &provider(&mock, Wire::OpenAi),
        &request("m", plan_output(StructuredMethod::ToolCalling), false)
            .clone_with_question("unknown"),
        &mut |_| {},
    ));
    assert!(
        matches!(err, Err(ChatError::Rejected(ref m)) if m.contains("no fixture")),
        "{err:?}"
    );
}

#[test]
fn wrapped_tool_arguments_are_unwrapped_and_slow_providers_time_out() {
    let mock = mock();
    let transport = BlockingTransport::default();
    let anthropic = provider(&mock, Wire::Anthropic);
    for stream in [false, true] {
        let answer = pollster::block_on(call(
            &transport,
            &anthropic,
            &request(
                "fault-wrapped",
                plan_output(StructuredMethod::ToolCalling),
                stream,
            ),
            &mut |_| {},
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(json(&answer.content), json(PLAN), "stream={stream}");
    }
    let mut slow = request("fault-slow-2000", Output::Text, false);
    slow.timeout_ms = 300;
    let err = pollster::block_on(call(
        &transport,
        &provider(&mock, Wire::OpenAi),
        &slow,
        &mut |_| {},
    ));
    assert!(
        matches!(err, Err(ChatError::Provider(ref f)) if f.code == ErrorCode::ProviderTimeout),
        "{err:?}"
    );
}

trait WithQuestion {
    fn clone_with_question(&self, q: &str) -> ChatRequest;
}

impl WithQuestion for ChatRequest {
    fn clone_with_question(&self, q: &str) -> ChatRequest {
        let mut c = self.clone();
        c.messages = vec![Message {
            role: Role::User,
            content: q.to_string(),
        }];
        c
    }
}
