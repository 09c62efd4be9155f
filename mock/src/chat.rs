//! Chat calls on both wires: OpenAI's `/v1/chat/completions` and Anthropic's
//! `/v1/messages`, whole or streamed. The answer is the first [`Fixture`] whose name is the
//! call's structured-output name (`text` for a plain call) and whose question appears in
//! the last user message (the longest such question); with none, a 400 that says what was asked, so a missing fixture
//! is obvious. Usage is counted at about four characters a token, and a system prompt seen
//! before is reported as read from the prompt cache.

use serde_json::{json, Value};
use std::sync::Mutex;

/// One canned answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixture {
    /// The structured output's name (`plan`, `answerability`, …) or `text`.
    pub name: String,
    /// Text the question contains.
    pub question: String,
    /// The answer's content: JSON text for structured calls.
    pub answer: String,
}

impl Fixture {
    /// A fixture.
    pub fn new(name: &str, question: &str, answer: &str) -> Fixture {
        Fixture {
            name: name.to_string(),
            question: question.to_string(),
            answer: answer.to_string(),
        }
    }
}

/// A reply: a whole body, or server-sent events.
pub enum Reply {
    /// Status and JSON body.
    Whole(u16, String),
    /// Each event's text, `data: …` lines and the blank line after.
    Stream(Vec<String>),
}

fn anthropic(path: &str) -> bool {
    path == "/v1/messages"
}

/// The structured output's name the call asks for, or `text`.
fn output_name(path: &str, body: &Value) -> String {
    let from_tool = if anthropic(path) {
        body["tools"][0]["name"].as_str()
    } else {
        body["tools"][0]["function"]["name"].as_str()
    };
    let from_schema = body["response_format"]["json_schema"]["name"].as_str();
    if let Some(name) = from_tool.or(from_schema) {
        return name.to_string();
    }
    // JSON mode: the engine's instruction names the object as "one JSON object (name)".
    let system = system_text(path, body);
    system
        .split_once("one JSON object (")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map_or_else(|| "text".to_string(), |(name, _)| name.to_string())
}

fn system_text(path: &str, body: &Value) -> String {
    if anthropic(path) {
        body["system"]
            .as_array()
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .or_else(|| body["system"].as_str().map(str::to_string))
            .unwrap_or_default()
    } else {
        body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "system")
            .filter_map(|m| m["content"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn last_user_message(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// True when this call's system prompt was seen before (then the mock reports it cached).
pub fn seen_before(systems: &Mutex<Vec<String>>, path: &str, body: &Value) -> bool {
    let system = system_text(path, body);
    let Ok(mut seen) = systems.lock() else {
        return false;
    };
    if seen.contains(&system) {
        return true;
    }
    seen.push(system);
    false
}

/// The reply to one chat call.
pub fn answer(path: &str, body: &Value, fixtures: &[Fixture], cached: bool) -> Reply {
    let name = output_name(path, body);
    let question = last_user_message(body);
    // The longest question contained wins, so "How many customers?" never answers
    // "How many customers per country?".
    let Some(fixture) = fixtures
        .iter()
        .filter(|f| f.name == name && question.contains(&f.question))
        .max_by_key(|f| f.question.len())
    else {
        let message = format!("mock: no fixture named {name:?} for the message {question:?}");
        return Reply::Whole(
            400,
            json!({"error": {"message": message, "type": "invalid_request_error", "code": "no_fixture"}})
                .to_string(),
        );
    };
    let model = body["model"].as_str().unwrap_or_default();
    let system = system_text(path, body);
    let input = tokens(&system) + tokens(&question);
    let cached_tokens = if cached { tokens(&system) } else { 0 };
    let output = tokens(&fixture.answer);
    let structured = name != "text";
    let stream = body["stream"] == true;
    let content = if anthropic(path) && structured && model == "fault-wrapped" {
        format!("{{\"{name}_wrapper\": {}}}", fixture.answer)
    } else {
        fixture.answer.clone()
    };
    let cut = model == "fault-cut-stream";
    let tool = body["tools"].is_array();
    match (anthropic(path), stream) {
        (false, false) => Reply::Whole(
            200,
            openai_whole(model, &name, &content, tool, input, cached_tokens, output),
        ),
        (true, false) => Reply::Whole(
            200,
            anthropic_whole(model, &name, &content, tool, input, cached_tokens, output),
        ),
        (false, true) => Reply::Stream(openai_stream(
            &content,
            tool,
            &name,
            input,
            cached_tokens,
            output,
            cut,
        )),
        (true, true) => Reply::Stream(anthropic_stream(
            &content,
            tool,
            &name,
            input,
            cached_tokens,
            output,
            cut,
        )),
    }
}

fn openai_whole(
    model: &str,
    name: &str,
    content: &str,
    tool: bool,
    input: u64,
    cached: u64,
    output: u64,
) -> String {
    let message = if tool {
        json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": "call_mock", "type": "function", "function": {"name": name, "arguments": content},
        }]})
    } else {
        json!({"role": "assistant", "content": content})
    };
    json!({
        "id": "chatcmpl-mock", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": if tool {"tool_calls"} else {"stop"}}],
        "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output,
                  "prompt_tokens_details": {"cached_tokens": cached}},
    })
    .to_string()
}

fn anthropic_whole(
    model: &str,
    name: &str,
    content: &str,
    tool: bool,
    input: u64,
    cached: u64,
    output: u64,
) -> String {
    let block = if tool {
        let args: Value = serde_json::from_str(content).unwrap_or(Value::Null);
        json!({"type": "tool_use", "id": "toolu_mock", "name": name, "input": args})
    } else {
        json!({"type": "text", "text": content})
    };
    json!({
        "id": "msg_mock", "type": "message", "role": "assistant", "model": model,
        "content": [block], "stop_reason": if tool {"tool_use"} else {"end_turn"},
        "usage": {"input_tokens": input - cached, "cache_read_input_tokens": cached,
                  "cache_creation_input_tokens": 0, "output_tokens": output},
    })
    .to_string()
}

/// Splits text into pieces of about 12 characters, on character boundaries.
fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(12).map(|c| c.iter().collect()).collect()
}

fn event(data: &Value) -> String {
    format!("data: {data}\n\n")
}

fn openai_stream(
    content: &str,
    tool: bool,
    name: &str,
    input: u64,
    cached: u64,
    output: u64,
    cut: bool,
) -> Vec<String> {
    let mut events = Vec::new();
    for (i, piece) in pieces(content).into_iter().enumerate() {
        let delta = if tool {
            let mut call = json!({"index": 0, "function": {"arguments": piece}});
            if i == 0 {
                call["id"] = json!("call_mock");
                call["type"] = json!("function");
                call["function"]["name"] = json!(name);
            }
            json!({"tool_calls": [call]})
        } else {
            json!({"content": piece})
        };
        events.push(event(&json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})));
    }
    if cut {
        events.truncate(events.len() / 2);
        return events;
    }
    let reason = if tool { "tool_calls" } else { "stop" };
    events.push(event(&json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})));
    events.push(event(&json!({"object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output,
                  "prompt_tokens_details": {"cached_tokens": cached}}})));
    events.push("data: [DONE]\n\n".to_string());
    events
}

fn anthropic_stream(
    content: &str,
    tool: bool,
    name: &str,
    input: u64,
    cached: u64,
    output: u64,
    cut: bool,
) -> Vec<String> {
    let named = |kind: &str, data: Value| format!("event: {kind}\ndata: {data}\n\n");
    let mut events = vec![named(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message", "role": "assistant",
            "content": [], "usage": {"input_tokens": input - cached, "cache_read_input_tokens": cached,
            "cache_creation_input_tokens": 0, "output_tokens": 1}}}),
    )];
    let block = if tool {
        json!({"type": "tool_use", "id": "toolu_mock", "name": name, "input": {}})
    } else {
        json!({"type": "text", "text": ""})
    };
    events.push(named(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": block}),
    ));
    for piece in pieces(content) {
        let delta = if tool {
            json!({"type": "input_json_delta", "partial_json": piece})
        } else {
            json!({"type": "text_delta", "text": piece})
        };
        events.push(named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ));
    }
    if cut {
        events.truncate(events.len() / 2);
        return events;
    }
    events.push(named(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    let reason = if tool { "tool_use" } else { "end_turn" };
    events.push(named("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": output}})));
    events.push(named("message_stop", json!({"type": "message_stop"})));
    events
}
