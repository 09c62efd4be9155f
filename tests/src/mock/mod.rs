//! A local mock model provider: a small HTTP/1.1 server on 127.0.0.1 that speaks the
//! providers' real wire formats, for tests natively and (started by `cargo xtask test`) for
//! the browser tests.
//!
//! Embeddings (`POST /v1/embeddings`, OpenAI's format) come from the built-in embedder, so a
//! router fed the mock's vectors must route exactly as the built-in one does; the data list
//! comes back in reverse order, as a provider may send it. Faults are chosen by the model's
//! name, which any client can set: `fault-401`, `fault-403`, `fault-404`, `fault-429-rate`,
//! `fault-429-quota`, `fault-500`, `fault-503`, `fault-malformed`, `fault-truncated` (the
//! connection closes mid-body), `fault-hang` (no answer for 10 s) and `fault-dims` (each
//! request gets vectors of another length). Error bodies echo the caller's key half-masked,
//! as OpenAI's do, so redaction is exercised for real. Every response allows any origin.

use nl2sql_core::index::BuiltinEmbedder;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU32, Ordering};
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

/// A running mock; it serves until the process ends.
pub struct MockProvider {
    port: u16,
    received: Arc<Mutex<Vec<Received>>>,
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
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        let batches = Arc::new(AtomicU32::new(0));
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                let batches = Arc::clone(&batches);
                thread::spawn(move || serve(stream, &log, &batches));
            }
        });
        Ok(MockProvider { port, received })
    }

    /// The OpenAI-style API base, e.g. `http://127.0.0.1:41234/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every request received so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn serve(mut stream: TcpStream, log: &Mutex<Vec<Received>>, batches: &AtomicU32) {
    let Some(request) = read_request(&stream) else {
        return;
    };
    if request.method == "OPTIONS" {
        let _ = write_response(&mut stream, 204, "");
        return;
    }
    if let Ok(mut log) = log.lock() {
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
        (_, fault) if fault.starts_with("fault-") && fault != "fault-dims" => {
            fault_response(fault, &key)
        }
        ("/v1/embeddings", _) => embeddings(&json, &model, batches),
        (path, _) => (
            404,
            openai_error(
                "invalid_request_error",
                "unknown_url",
                &format!("Unknown request URL: POST {path}."),
            ),
        ),
    };
    let _ = write_response(&mut stream, outcome.0, &outcome.1);
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

fn bearer(headers: &[(String, String)]) -> String {
    headers
        .iter()
        .find(|(n, _)| n == "authorization")
        .and_then(|(_, v)| v.strip_prefix("Bearer "))
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

fn openai_error(kind: &str, code: &str, message: &str) -> String {
    serde_json::json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
        .to_string()
}

fn fault_response(fault: &str, key: &str) -> (u16, String) {
    match fault {
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

fn embeddings(json: &serde_json::Value, model: &str, batches: &AtomicU32) -> (u16, String) {
    let inputs: Vec<String> = match &json["input"] {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    };
    if inputs.is_empty() || inputs.iter().any(|i| i.is_empty()) {
        return (
            400,
            openai_error(
                "invalid_request_error",
                "invalid_input",
                "'$.input' is invalid: empty strings are not accepted.",
            ),
        );
    }
    let embedder = BuiltinEmbedder::default();
    let batch = batches.fetch_add(1, Ordering::SeqCst);
    let mut tokens = 0;
    let mut data: Vec<serde_json::Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| {
            tokens += text.split_whitespace().count();
            let mut v = embedder.vector(text);
            if model == "fault-dims" {
                v.truncate(v.len() - (batch as usize % 2) * 8);
            }
            serde_json::json!({"object": "embedding", "index": index, "embedding": v})
        })
        .collect();
    data.reverse();
    let body = serde_json::json!({
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    });
    (200, body.to_string())
}
