//! Chat calls on both wires: the request body, the answer (whole or streamed), usage.
//!
//! OpenAI's Chat Completions (also spoken by Ollama, LM Studio, vLLM and OpenRouter) and
//! Anthropic's Messages. A structured answer comes back as JSON text whichever way it was
//! asked for (strict JSON schema, a forced tool call, or JSON mode); parsing it into a type
//! is the caller's, so the exact text can be traced and sent back on a parse retry.

use super::failure::{classify, from_transport};
use super::{ApiKey, Provider, Wire};
use crate::error::ProviderFailure;
use crate::http::{HttpFailure, HttpRequest, HttpResponse, HttpTransport};
use serde_json::{json, Map, Value};
use std::fmt;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The engine, asking.
    User,
    /// The model, answering (sent back on a parse retry).
    Assistant,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub content: String,
}

/// How a structured answer is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredMethod {
    /// A forced call of one tool whose parameters are the schema (both wires).
    ToolCalling,
    /// OpenAI's `response_format: json_schema`, strict. On the Anthropic wire, as JSON mode.
    JsonSchema,
    /// Any JSON object, the schema given in the system prompt.
    JsonMode,
}

/// What kind of answer a call wants.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Free text (the written answer).
    Text,
    /// One JSON object of `schema`, named `name` (the tool's or the schema's name).
    Structured {
        /// `[a-zA-Z0-9_-]`, e.g. `plan`.
        name: String,
        /// What the object is, for the model.
        description: String,
        /// Its JSON Schema.
        schema: Value,
        /// How to ask.
        method: StructuredMethod,
    },
}

/// One call to a chat model.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The model's name at the provider.
    pub model: String,
    /// The stable instructions. Kept byte-identical across questions so providers cache it
    /// (Anthropic gets an explicit cache breakpoint on it).
    pub system: String,
    /// The conversation, the question last.
    pub messages: Vec<Message>,
    /// Sent only when set: some models refuse any temperature.
    pub temperature: Option<f32>,
    /// The most output tokens.
    pub max_tokens: u32,
    /// Text or structured.
    pub output: Output,
    /// Ask for server-sent events.
    pub stream: bool,
    /// Give up after this many milliseconds.
    pub timeout_ms: u64,
}

/// Tokens as the provider reported them; `None` when it did not say (never a made-up 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Usage {
    /// Input tokens, cached ones included.
    pub input: Option<u64>,
    /// Input tokens read from the provider's prompt cache.
    pub cached: Option<u64>,
    /// Input tokens written to the prompt cache (Anthropic).
    pub cache_write: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatAnswer {
    /// The text, or the structured answer's JSON text.
    pub content: String,
    /// Why the model stopped (`stop`, `length`, `tool_use`, `end_turn`, …).
    pub stop: Option<String>,
    /// Token counts.
    pub usage: Usage,
}

/// Why a call produced no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatError {
    /// A provider failure with its code (auth, rate, quota, timeout, unavailable, model).
    Provider(ProviderFailure),
    /// The provider refused the request as malformed (HTTP 400): the node explains it.
    Rejected(String),
    /// The answer could not be read (not the wire's shape, a stream cut short).
    Unreadable(String),
}

impl fmt::Display for ChatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChatError::Provider(p) => f.write_str(&p.message),
            ChatError::Rejected(why) => write!(f, "the request was refused: {why}"),
            ChatError::Unreadable(why) => write!(f, "the answer could not be read: {why}"),
        }
    }
}

/// The HTTP request for `call` at `provider`.
pub fn request(provider: &Provider, call: &ChatRequest) -> HttpRequest {
    let (path, body) = match provider.wire {
        Wire::OpenAi => ("/chat/completions", openai_body(provider, call)),
        Wire::Anthropic => ("/messages", anthropic_body(call)),
    };
    let mut headers = provider.auth_headers();
    if provider.wire == Wire::Anthropic {
        headers.push(("anthropic-version".into(), "2023-06-01".into()));
        // The page calls Anthropic directly with the user's own key; without this header
        // Anthropic refuses browser requests.
        headers.push((
            "anthropic-dangerous-direct-browser-access".into(),
            "true".into(),
        ));
    }
    HttpRequest {
        url: provider.url(path),
        headers,
        body: body.to_string(),
        timeout_ms: call.timeout_ms,
    }
}

fn schema_instruction(output: &Output) -> Option<String> {
    match output {
        Output::Structured {
            name,
            schema,
            method: StructuredMethod::JsonMode,
            ..
        } => Some(format!(
            "Answer with one JSON object ({name}) and nothing else. Its JSON Schema:\n{schema}"
        )),
        _ => None,
    }
}

fn openai_body(provider: &Provider, call: &ChatRequest) -> Value {
    let mut system = call.system.clone();
    if let Some(extra) = schema_instruction(&call.output) {
        system.push_str("\n\n");
        system.push_str(&extra);
    }
    let mut messages = vec![json!({"role": "system", "content": system})];
    messages.extend(
        call.messages
            .iter()
            .map(|m| json!({"role": m.role, "content": m.content})),
    );
    let mut body = Map::new();
    body.insert("model".into(), json!(call.model));
    body.insert("messages".into(), Value::Array(messages));
    // OpenAI's own models want max_completion_tokens; other servers know only max_tokens.
    let limit = if provider.label() == "OpenAI" {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    body.insert(limit.into(), json!(call.max_tokens));
    body.insert("seed".into(), json!(42));
    if let Some(t) = call.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Output::Structured {
        name,
        description,
        schema,
        method,
    } = &call.output
    {
        match method {
            StructuredMethod::ToolCalling => {
                body.insert(
                    "tools".into(),
                    json!([{"type": "function", "function": {
                        "name": name, "description": description, "parameters": schema, "strict": true,
                    }}]),
                );
                body.insert(
                    "tool_choice".into(),
                    json!({"type": "function", "function": {"name": name}}),
                );
            }
            StructuredMethod::JsonSchema => {
                body.insert(
                    "response_format".into(),
                    json!({"type": "json_schema", "json_schema": {
                        "name": name, "description": description, "schema": schema, "strict": true,
                    }}),
                );
            }
            StructuredMethod::JsonMode => {
                body.insert("response_format".into(), json!({"type": "json_object"}));
            }
        }
    }
    if call.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

fn anthropic_body(call: &ChatRequest) -> Value {
    let mut system = vec![json!({
        "type": "text", "text": call.system, "cache_control": {"type": "ephemeral"},
    })];
    if let Some(extra) = schema_instruction(&call.output).or_else(|| match &call.output {
        // Anthropic has no strict JSON-schema mode for schemas like the plan's (recursive):
        // asked for one, it gets the schema as an instruction instead.
        Output::Structured {
            name,
            schema,
            method: StructuredMethod::JsonSchema,
            ..
        } => Some(format!(
            "Answer with one JSON object ({name}) and nothing else. Its JSON Schema:\n{schema}"
        )),
        _ => None,
    }) {
        system.push(json!({"type": "text", "text": extra}));
    }
    let messages: Vec<Value> = call
        .messages
        .iter()
        .map(|m| json!({"role": m.role, "content": m.content}))
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(call.model));
    body.insert("max_tokens".into(), json!(call.max_tokens));
    body.insert("system".into(), Value::Array(system));
    body.insert("messages".into(), Value::Array(messages));
    if let Some(t) = call.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Output::Structured {
        name,
        description,
        schema,
        method: StructuredMethod::ToolCalling,
    } = &call.output
    {
        body.insert(
            "tools".into(),
            json!([{"name": name, "description": description, "input_schema": schema}]),
        );
        body.insert("tool_choice".into(), json!({"type": "tool", "name": name}));
    }
    if call.stream {
        body.insert("stream".into(), json!(true));
    }
    Value::Object(body)
}

/// Makes one call through `transport`: whole, or (when `call.stream`) streamed, each piece
/// of the answer's text handed to `on_delta` as it arrives.
pub async fn call(
    transport: &dyn HttpTransport,
    provider: &Provider,
    call: &ChatRequest,
    on_delta: &mut dyn FnMut(&str),
) -> Result<ChatAnswer, ChatError> {
    let http = request(provider, call);
    if !call.stream {
        let response = transport
            .post(&http)
            .await
            .map_err(|f| transport_failed(provider, &f))?;
        return read(provider, call, &response);
    }
    let mut reader = StreamReader::new(provider, call);
    let response = {
        let mut on_chunk = |chunk: &str| {
            for StreamEvent::Delta(piece) in reader.feed(chunk) {
                on_delta(&piece);
            }
        };
        transport.post_streaming(&http, &mut on_chunk).await
    }
    .map_err(|f| transport_failed(provider, &f))?;
    failed(provider, call, &response)?;
    reader.finish()
}

/// A transport failure, as a chat error.
pub fn transport_failed(provider: &Provider, failure: &HttpFailure) -> ChatError {
    ChatError::Provider(from_transport(provider, failure))
}

/// Reads a whole (not streamed) response.
pub fn read(
    provider: &Provider,
    call: &ChatRequest,
    response: &HttpResponse,
) -> Result<ChatAnswer, ChatError> {
    failed(provider, call, response)?;
    let body: Value = serde_json::from_str(&response.body)
        .map_err(|e| ChatError::Unreadable(format!("the body is not JSON ({e})")))?;
    match provider.wire {
        Wire::OpenAi => read_openai(&body, &call.output),
        Wire::Anthropic => read_anthropic(&body, &call.output),
    }
}

/// The error a non-success response means, if it is one.
fn failed(
    provider: &Provider,
    call: &ChatRequest,
    response: &HttpResponse,
) -> Result<(), ChatError> {
    if let Some(failure) = classify(provider, &call.model, response) {
        return Err(ChatError::Provider(failure));
    }
    if !(200..300).contains(&response.status) {
        let words = super::failure::redact_keys(&excerpt(&response.body), provider.key.expose());
        return Err(ChatError::Rejected(format!(
            "HTTP {}: {words}",
            response.status
        )));
    }
    Ok(())
}

fn excerpt(body: &str) -> String {
    let error = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let e = &v["error"];
        e["message"].as_str().or(e.as_str()).map(str::to_string)
    });
    match error {
        Some(message) => message,
        None => body.chars().take(300).collect(),
    }
}

fn count(v: &Value) -> Option<u64> {
    v.as_u64()
}

fn read_openai(body: &Value, output: &Output) -> Result<ChatAnswer, ChatError> {
    let choice = &body["choices"][0];
    if choice.is_null() {
        return Err(ChatError::Unreadable("no choices in the answer".into()));
    }
    let message = &choice["message"];
    let content = match output {
        Output::Structured {
            method: StructuredMethod::ToolCalling,
            ..
        } => message["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .or_else(|| message["content"].as_str())
            .map(str::to_string),
        _ => message["content"].as_str().map(str::to_string),
    };
    let Some(content) = content else {
        let refusal = message["refusal"].as_str().unwrap_or("no content");
        return Err(ChatError::Unreadable(format!(
            "the model gave no answer ({refusal})"
        )));
    };
    let usage = &body["usage"];
    Ok(ChatAnswer {
        content,
        stop: choice["finish_reason"].as_str().map(str::to_string),
        usage: Usage {
            input: count(&usage["prompt_tokens"]),
            cached: count(&usage["prompt_tokens_details"]["cached_tokens"]),
            cache_write: None,
            output: count(&usage["completion_tokens"]),
        },
    })
}

fn read_anthropic(body: &Value, output: &Output) -> Result<ChatAnswer, ChatError> {
    let blocks = body["content"].as_array().cloned().unwrap_or_default();
    let structured_tool = match output {
        Output::Structured {
            method: StructuredMethod::ToolCalling,
            schema,
            ..
        } => Some(schema),
        _ => None,
    };
    let content = match structured_tool {
        Some(schema) => blocks
            .iter()
            .find(|b| b["type"] == "tool_use")
            .map(|b| unwrap_one_level(b["input"].clone(), schema).to_string()),
        None => {
            let text: Vec<&str> = blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            (!text.is_empty()).then(|| text.concat())
        }
    };
    let Some(content) = content else {
        return Err(ChatError::Unreadable("the model gave no answer".into()));
    };
    Ok(ChatAnswer {
        content,
        stop: body["stop_reason"].as_str().map(str::to_string),
        usage: anthropic_usage(&body["usage"], Usage::default()),
    })
}

fn anthropic_usage(usage: &Value, mut so_far: Usage) -> Usage {
    let cached = count(&usage["cache_read_input_tokens"]);
    let written = count(&usage["cache_creation_input_tokens"]);
    if let Some(fresh) = count(&usage["input_tokens"]) {
        // Anthropic counts cached and cache-written tokens apart from input_tokens; the
        // input here is all of them, as OpenAI reports it.
        so_far.input = Some(fresh + cached.unwrap_or(0) + written.unwrap_or(0));
    }
    so_far.cached = cached.or(so_far.cached);
    so_far.cache_write = written.or(so_far.cache_write);
    so_far.output = count(&usage["output_tokens"]).or(so_far.output);
    so_far
}

/// Some models wrap tool arguments one level deep under a single key the schema does not
/// know (`{"plan": {…}}` for a schema whose properties are the plan's): unwrap those.
fn unwrap_one_level(input: Value, schema: &Value) -> Value {
    if !is_wrapped(&input, schema) {
        return input;
    }
    match input {
        Value::Object(map) => map
            .into_iter()
            .next()
            .map_or(Value::Null, |(_, inner)| inner),
        other => other,
    }
}

/// One key the schema does not know, holding an object.
fn is_wrapped(input: &Value, schema: &Value) -> bool {
    let Value::Object(map) = input else {
        return false;
    };
    let known = |k: &str| schema["properties"].get(k).is_some();
    map.len() == 1 && map.iter().all(|(k, v)| v.is_object() && !known(k))
}

/// What a stream said so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// More of the answer's text (for structured answers, more of the JSON).
    Delta(String),
}

/// Reads a server-sent-events stream chunk by chunk, on either wire. Chunks may split
/// lines anywhere; [`StreamReader::finish`] says whether the stream ended properly.
#[derive(Debug)]
pub struct StreamReader {
    wire: Wire,
    structured_tool: Option<Value>,
    pending: String,
    content: String,
    stop: Option<String>,
    usage: Usage,
    done: bool,
    error: Option<String>,
    /// The provider's key, taken out of an error the stream reports (which a provider may
    /// echo back, as it may in an error response).
    key: ApiKey,
}

impl StreamReader {
    /// A reader for `call`'s stream from `provider`.
    pub fn new(provider: &Provider, call: &ChatRequest) -> StreamReader {
        let structured_tool = match &call.output {
            Output::Structured {
                method: StructuredMethod::ToolCalling,
                schema,
                ..
            } => Some(schema.clone()),
            _ => None,
        };
        StreamReader {
            wire: provider.wire,
            structured_tool,
            pending: String::new(),
            content: String::new(),
            stop: None,
            usage: Usage::default(),
            done: false,
            error: None,
            key: provider.key.clone(),
        }
    }

    /// Feeds one chunk; returns the text deltas it completed.
    pub fn feed(&mut self, chunk: &str) -> Vec<StreamEvent> {
        self.pending.push_str(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            if let Some(data) = line.strip_prefix("data:") {
                if let Some(delta) = self.data(data.trim_start()) {
                    events.push(StreamEvent::Delta(delta));
                }
            }
        }
        events
    }

    fn data(&mut self, data: &str) -> Option<String> {
        if data == "[DONE]" {
            self.done = true;
            return None;
        }
        let v: Value = serde_json::from_str(data).ok()?;
        match self.wire {
            Wire::OpenAi => self.openai_chunk(&v),
            Wire::Anthropic => self.anthropic_event(&v),
        }
    }

    fn openai_chunk(&mut self, v: &Value) -> Option<String> {
        if let Some(message) = v["error"]["message"].as_str() {
            self.error = Some(message.to_string());
            return None;
        }
        if !v["usage"].is_null() {
            self.usage = Usage {
                input: count(&v["usage"]["prompt_tokens"]),
                cached: count(&v["usage"]["prompt_tokens_details"]["cached_tokens"]),
                cache_write: None,
                output: count(&v["usage"]["completion_tokens"]),
            };
        }
        let choice = &v["choices"][0];
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.stop = Some(reason.to_string());
        }
        let delta = &choice["delta"];
        let piece = delta["content"]
            .as_str()
            .or_else(|| delta["tool_calls"][0]["function"]["arguments"].as_str())?;
        if piece.is_empty() {
            return None;
        }
        self.content.push_str(piece);
        Some(piece.to_string())
    }

    fn anthropic_event(&mut self, v: &Value) -> Option<String> {
        match v["type"].as_str()? {
            "message_start" => {
                self.usage = anthropic_usage(&v["message"]["usage"], self.usage);
                None
            }
            "content_block_delta" => {
                let d = &v["delta"];
                let piece = match d["type"].as_str()? {
                    "text_delta" if self.structured_tool.is_none() => d["text"].as_str()?,
                    "input_json_delta" if self.structured_tool.is_some() => {
                        d["partial_json"].as_str()?
                    }
                    _ => return None,
                };
                self.content.push_str(piece);
                (!piece.is_empty()).then(|| piece.to_string())
            }
            "message_delta" => {
                if let Some(reason) = v["delta"]["stop_reason"].as_str() {
                    self.stop = Some(reason.to_string());
                }
                self.usage = anthropic_usage(&v["usage"], self.usage);
                None
            }
            "message_stop" => {
                self.done = true;
                None
            }
            "error" => {
                self.error = v["error"]["message"].as_str().map(str::to_string);
                None
            }
            _ => None,
        }
    }

    /// The whole answer, once the stream has ended. A stream that stopped before its end
    /// marker, or reported an error, is unreadable: its content may be cut short.
    pub fn finish(mut self) -> Result<ChatAnswer, ChatError> {
        if !self.pending.trim().is_empty() {
            let rest = std::mem::take(&mut self.pending);
            self.feed(&format!("{rest}\n"));
        }
        if let Some(e) = self.error {
            return Err(ChatError::Unreadable(format!(
                "the stream reported an error: {}",
                super::failure::redact_keys(&e, self.key.expose())
            )));
        }
        if !self.done {
            return Err(ChatError::Unreadable(
                "the stream ended before the answer was complete".into(),
            ));
        }
        // The text as streamed, unless it has to be unwrapped.
        let content = match (&self.structured_tool, self.wire) {
            (Some(schema), Wire::Anthropic) => serde_json::from_str::<Value>(&self.content)
                .ok()
                .filter(|v| is_wrapped(v, schema))
                .map_or(self.content, |v| unwrap_one_level(v, schema).to_string()),
            _ => self.content,
        };
        Ok(ChatAnswer {
            content,
            stop: self.stop,
            usage: self.usage,
        })
    }
}

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Price {
    /// Uncached input.
    pub input: f64,
    /// Input read from the cache.
    pub cached_input: f64,
    /// Input written to the cache.
    pub cache_write: f64,
    /// Output.
    pub output: f64,
}

/// A price table the user can edit: model name → price.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct PriceTable(pub Vec<(String, Price)>);

impl PriceTable {
    /// Published prices checked on 2026-09-21 (USD per million tokens).
    pub fn published() -> PriceTable {
        let p = |input, cached_input, cache_write, output| Price {
            input,
            cached_input,
            cache_write,
            output,
        };
        PriceTable(vec![
            ("gpt-5.4".into(), p(2.50, 0.25, 2.50, 15.00)),
            ("gpt-5.4-mini".into(), p(0.75, 0.075, 0.75, 4.50)),
            ("claude-opus-5".into(), p(5.00, 0.50, 6.25, 25.00)),
            ("claude-sonnet-5".into(), p(2.00, 0.20, 2.50, 10.00)),
            ("claude-haiku-4-5".into(), p(1.00, 0.10, 1.25, 5.00)),
        ])
    }

    /// What `usage` of `model` cost, or `None` for a model the table lacks or usage the
    /// provider did not report.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        let (_, price) = self.0.iter().find(|(m, _)| m == model)?;
        let input = usage.input?;
        let cached = usage.cached.unwrap_or(0);
        let written = usage.cache_write.unwrap_or(0);
        let fresh = input.saturating_sub(cached + written);
        let dollars = fresh as f64 * price.input
            + cached as f64 * price.cached_input
            + written as f64 * price.cache_write
            + usage.output? as f64 * price.output;
        Some(dollars / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ApiKey;

    fn ask(output: Output, stream: bool) -> ChatRequest {
        ChatRequest {
            model: "gpt-5.4".into(),
            system: "stable".into(),
            messages: vec![Message {
                role: Role::User,
                content: "Question: q".into(),
            }],
            temperature: None,
            max_tokens: 100,
            output,
            stream,
            timeout_ms: 1_000,
        }
    }

    fn structured(method: StructuredMethod) -> Output {
        Output::Structured {
            name: "plan".into(),
            description: "d".into(),
            schema: json!({"type": "object", "properties": {"tables": {}}}),
            method,
        }
    }

    #[test]
    fn openai_s_own_api_gets_max_completion_tokens_and_no_unset_temperature() {
        let body: Value = serde_json::from_str(
            &request(
                &Provider::openai(ApiKey::new("k")),
                &ask(Output::Text, false),
            )
            .body,
        )
        .unwrap_or_default();
        assert_eq!(body["max_completion_tokens"], 100);
        assert!(body.get("max_tokens").is_none() && body.get("temperature").is_none());
        let json_mode = request(
            &Provider::openai(ApiKey::new("k")),
            &ask(structured(StructuredMethod::JsonMode), false),
        );
        assert!(json_mode.body.contains("one JSON object (plan)"));
        assert!(json_mode.body.contains(r#""type":"json_object""#));
    }

    #[test]
    fn streams_split_anywhere_read_the_same() {
        let p = Provider::new(Wire::Anthropic, "http://x/v1", ApiKey::default());
        let call = ask(structured(StructuredMethod::ToolCalling), true);
        let events = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":7,\"cache_read_input_tokens\":3}}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"wrap\\\": {\\\"tables\\\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\": []}}\"}}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        for size in [1, 7, 64, events.len()] {
            let mut reader = StreamReader::new(&p, &call);
            let chars: Vec<char> = events.chars().collect();
            let mut deltas = String::new();
            for piece in chars.chunks(size) {
                for StreamEvent::Delta(d) in reader.feed(&piece.iter().collect::<String>()) {
                    deltas.push_str(&d);
                }
            }
            assert_eq!(deltas, "{\"wrap\": {\"tables\": []}}");
            let answer = reader.finish().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(answer.content, r#"{"tables":[]}"#, "unwrapped");
            assert_eq!(answer.stop.as_deref(), Some("tool_use"));
            assert_eq!(
                answer.usage,
                Usage {
                    input: Some(10),
                    cached: Some(3),
                    cache_write: None,
                    output: Some(5)
                }
            );
        }
        let mut cut = StreamReader::new(&p, &call);
        cut.feed(&events[..events.len() / 2]);
        assert!(matches!(cut.finish(), Err(ChatError::Unreadable(_))));
    }

    #[test]
    fn an_error_reported_mid_stream_names_no_key() {
        const KEY: &str = "sk-live-0123456789abcdef";
        for (wire, error) in [
            (
                Wire::OpenAi,
                "data: {\"error\":{\"message\":\"Incorrect API key provided: sk-live-0123456789abcdef\"}}\n\n",
            ),
            (
                Wire::Anthropic,
                "event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"bad key sk-live-0123456789abcdef\"}}\n\n",
            ),
        ] {
            let p = Provider::new(wire, "http://x/v1", ApiKey::new(KEY));
            let mut reader = StreamReader::new(&p, &ask(Output::Text, true));
            reader.feed(error);
            let Err(ChatError::Unreadable(why)) = reader.finish() else {
                panic!("{wire:?}: a stream that reported an error is unreadable");
            };
            assert!(why.contains("[redacted key]") && !why.contains(KEY), "{why}");
        }
    }

    #[test]
    fn cost_needs_a_known_model_and_reported_usage() {
        let prices = PriceTable::published();
        let usage = Usage {
            input: Some(1_000_000),
            cached: Some(500_000),
            cache_write: None,
            output: Some(100_000),
        };
        let cost = prices.cost("gpt-5.4", &usage).unwrap_or_default();
        assert!(
            (cost - (0.5 * 2.50 + 0.5 * 0.25 + 0.1 * 15.0)).abs() < 1e-9,
            "{cost}"
        );
        assert_eq!(prices.cost("unknown-model", &usage), None);
        let unreported = Usage {
            output: None,
            ..usage
        };
        assert_eq!(prices.cost("gpt-5.4", &unreported), None);
    }
}
