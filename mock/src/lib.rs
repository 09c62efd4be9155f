//! A local mock model provider: a small HTTP/1.1 server on 127.0.0.1 that speaks the
//! providers' real wire formats, for tests natively and (started by `cargo xtask test`) for
//! the browser tests.
//!
//! - `POST /v1/embeddings` (OpenAI's format): vectors from the built-in embedder (see
//!   [`embeddings`]).
//! - `POST /v1/chat/completions` (OpenAI) and `POST /v1/messages` (Anthropic), whole or
//!   streamed, structured (tool calls, JSON schema, JSON mode) or text: answers come from
//!   [`Fixture`]s keyed by the structured output's name and the question (see [`chat`]),
//!   added with [`MockProvider::add`] or, from a browser, `POST /mock/fixtures` with a list
//!   of `{name, question, answer}`; `POST /mock/received` lists the calls made so far
//!   (paths and bodies, never headers).
//!
//! Faults are chosen by the model's name, which any client can set: `fault-400`, `fault-401`,
//! `fault-403`, `fault-404`, `fault-429-rate`, `fault-429-quota`, `fault-500`, `fault-503`,
//! `fault-malformed`, `fault-truncated` (the connection closes mid-body), `fault-hang` (no
//! answer for 10 s), `fault-dims` (embeddings of another length per request),
//! `fault-cut-stream` (a stream without its end), `fault-wrapped` (Anthropic tool arguments
//! wrapped one level deep), `fault-flaky` (every other chat call is rate-limited) and
//! `fault-slow-<ms>`. Error bodies echo the caller's key
//! half-masked, as OpenAI's do, so redaction is exercised for real. Every response allows
//! any origin.

pub mod chat;
pub mod embeddings;

pub use chat::Fixture;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One request the mock received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request path, e.g. `/v1/embeddings`.
    pub path: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

/// What every connection shares.
#[derive(Default)]
struct State {
    received: Mutex<Vec<Received>>,
    fixtures: Mutex<Vec<Fixture>>,
    batches: AtomicU32,
    /// Requests for `fault-flaky` so far: every odd one is refused.
    flaky: AtomicU32,
    /// System prompts seen, for reporting prompt-cache hits.
    systems: Mutex<Vec<String>>,
}

/// A running mock; it serves until the process ends.
pub struct MockProvider {
    port: u16,
    state: Arc<State>,
}

impl MockProvider {
    /// Starts on a free port.
    pub fn start() -> std::io::Result<MockProvider> {
        MockProvider::start_on(0)
    }

    /// Starts on `port` (0: any free one).
    pub fn start_on(port: u16) -> std::io::Result<MockProvider> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let port = listener.local_addr()?.port();
        let state = Arc::new(State::default());
        let shared = Arc::clone(&state);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = Arc::clone(&shared);
                thread::spawn(move || serve(stream, &state));
            }
        });
        Ok(MockProvider { port, state })
    }

    /// Adds answers for chat calls.
    pub fn add(&self, fixtures: impl IntoIterator<Item = Fixture>) {
        if let Ok(mut f) = self.state.fixtures.lock() {
            f.extend(fixtures);
        }
    }

    /// The OpenAI-style API base, e.g. `http://127.0.0.1:41234/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every request received so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.state
            .received
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }
}

fn serve(mut stream: TcpStream, state: &State) {
    let Some(request) = read_request(&stream) else {
        return;
    };
    if request.method == "OPTIONS" {
        let _ = write_response(&mut stream, 204, "");
        return;
    }
    if let Ok(mut log) = state.received.lock() {
        log.push(request.received.clone());
    }
    let json: serde_json::Value =
        serde_json::from_str(&request.received.body).unwrap_or(serde_json::Value::Null);
    let model = json["model"].as_str().unwrap_or_default().to_string();
    let key = bearer(&request.received.headers);
    let outcome = match (request.received.path.as_str(), model.as_str()) {
        (_, "fault-hang") => {
            thread::sleep(Duration::from_secs(10));
            return;
        }
        (_, "fault-truncated") => {
            let body =
                r#"{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,"#;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{CORS}connection: close\r\n\r\n",
                body.len() + 100
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
        ("/v1/chat/completions" | "/v1/messages", "fault-flaky")
            if state
                .flaky
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
                .is_multiple_of(2) =>
        {
            fault_response("fault-429-rate", &key)
        }
        (_, fault) if fault.starts_with("fault-slow-") => {
            let ms = fault["fault-slow-".len()..].parse().unwrap_or(0);
            thread::sleep(Duration::from_millis(ms));
            answer(&mut stream, &request.received.path, &json, state);
            return;
        }
        (_, fault) if fault.starts_with("fault-") && !ANSWERING_FAULTS.contains(&fault) => {
            fault_response(fault, &key)
        }
        (path, _) => {
            answer(&mut stream, path, &json, state);
            return;
        }
    };
    let _ = write_response(&mut stream, outcome.0, &outcome.1);
}

/// Faults that still answer, wrongly.
const ANSWERING_FAULTS: &[&str] = &[
    "fault-dims",
    "fault-cut-stream",
    "fault-wrapped",
    "fault-flaky",
];

fn answer(stream: &mut TcpStream, path: &str, json: &serde_json::Value, state: &State) {
    let model = json["model"].as_str().unwrap_or_default();
    let outcome = match path {
        // Tests running elsewhere (in the browser) add their fixtures over HTTP.
        "/mock/fixtures" => {
            let added: Vec<Fixture> = json
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| {
                    let field = |k: &str| f[k].as_str().unwrap_or_default();
                    Fixture::new(field("name"), field("question"), field("answer"))
                })
                .collect();
            let n = added.len();
            if let Ok(mut f) = state.fixtures.lock() {
                f.extend(added);
            }
            (200, serde_json::json!({ "added": n }).to_string())
        }
        // What was asked so far (paths and bodies; never the headers, which hold keys),
        // for tests that check a call was or was not made.
        "/mock/received" => {
            let log = state.received.lock().map(|r| r.clone()).unwrap_or_default();
            let list: Vec<serde_json::Value> = log
                .iter()
                .filter(|r| !r.path.starts_with("/mock/"))
                .map(|r| {
                    let body: serde_json::Value =
                        serde_json::from_str(&r.body).unwrap_or(serde_json::Value::Null);
                    serde_json::json!({"path": r.path, "body": body})
                })
                .collect();
            (200, serde_json::Value::from(list).to_string())
        }
        "/v1/embeddings" => embeddings::answer(json, model, &state.batches),
        "/v1/chat/completions" | "/v1/messages" => {
            let fixtures = state.fixtures.lock().map(|f| f.clone()).unwrap_or_default();
            let seen = chat::seen_before(&state.systems, path, json);
            match chat::answer(path, json, &fixtures, seen) {
                chat::Reply::Whole(status, body) => (status, body),
                chat::Reply::Stream(events) => {
                    let _ = write_stream(stream, &events);
                    return;
                }
            }
        }
        other => (
            404,
            openai_error(
                "invalid_request_error",
                "unknown_url",
                &format!("Unknown request URL: POST {other}."),
            ),
        ),
    };
    let _ = write_response(stream, outcome.0, &outcome.1);
}

/// Writes server-sent events, one flush per event, then closes.
fn write_stream(stream: &mut TcpStream, events: &[String]) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n{CORS}connection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes())?;
    for e in events {
        stream.write_all(e.as_bytes())?;
        stream.flush()?;
    }
    stream.shutdown(Shutdown::Both)
}

/// Browsers never let `*` stand for `authorization`, so the headers are named.
const CORS: &str = "access-control-allow-origin: *\r\naccess-control-allow-headers: authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access\r\naccess-control-allow-methods: POST, OPTIONS\r\n";

struct Request {
    method: String,
    received: Received,
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        received: Received {
            path,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        },
    })
}

fn write_response(stream: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        204 => "No Content",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        503 => "Service Unavailable",
        _ => "Error",
    };
    let retry = if status == 429 {
        "retry-after: 1\r\n"
    } else {
        ""
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{retry}{CORS}access-control-expose-headers: retry-after\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

/// The caller's key, from either wire's header.
fn bearer(headers: &[(String, String)]) -> String {
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "))
        .or_else(|| header("x-api-key").map(String::as_str))
        .unwrap_or_default()
        .to_string()
}

/// The key as OpenAI echoes it: the first 8 characters, stars, the last 4.
fn half_masked(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 12 {
        return key.to_string();
    }
    let head: String = chars[..8].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}{}{tail}", "*".repeat(chars.len() - 12))
}

pub(crate) fn openai_error(kind: &str, code: &str, message: &str) -> String {
    serde_json::json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
        .to_string()
}

fn fault_response(fault: &str, key: &str) -> (u16, String) {
    match fault {
        "fault-400" => (
            400,
            openai_error("invalid_request_error", "unsupported_parameter", "Unsupported parameter: 'response_format' is not supported with this model."),
        ),
        "fault-401" => (
            401,
            openai_error(
                "invalid_request_error",
                "invalid_api_key",
                &format!("Incorrect API key provided: {}. You can find your API key at https://platform.openai.com/account/api-keys.", half_masked(key)),
            ),
        ),
        "fault-403" => (
            403,
            openai_error("invalid_request_error", "unsupported_country_region_territory", &format!("Key {key} may not be used from this region.")),
        ),
        "fault-404" => (
            404,
            openai_error("invalid_request_error", "model_not_found", "The model `fault-404` does not exist or you do not have access to it."),
        ),
        "fault-429-rate" => (
            429,
            openai_error("requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 1s."),
        ),
        "fault-429-quota" => (
            429,
            openai_error("insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."),
        ),
        "fault-500" => (500, openai_error("server_error", "server_error", "The server had an error while processing your request.")),
        "fault-503" => (503, "<html>upstream connect error</html>".to_string()),
        _ => (200, "{\"object\": \"list\", \"data\": [".to_string()),
    }
}
