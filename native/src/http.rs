//! The command line's HTTP transport: a blocking client (ureq, TLS by rustls). The command
//! line runs one question at a time, so blocking inside the future costs nothing.

use nl2sql_core::http::{HttpFailure, HttpRequest, HttpResponse, HttpTransport, Utf8Chunks};
use nl2sql_core::LocalBoxFuture;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Sends the engine's requests with one pooled agent.
pub struct BlockingTransport {
    agent: ureq::Agent,
    cancelled: Arc<AtomicBool>,
}

impl Default for BlockingTransport {
    fn default() -> Self {
        let config = ureq::Agent::config_builder()
            // Provider error bodies carry the words users need: read them, don't raise.
            .http_status_as_error(false)
            .build();
        BlockingTransport {
            agent: config.into(),
            cancelled: Arc::default(),
        }
    }
}

/// Responses larger than this are refused: a batch of embeddings is a few MB.
const MAX_BODY: u64 = 64 * 1024 * 1024;

impl BlockingTransport {
    /// A transport that refuses to send once `flag` is set (by Ctrl-C, say). A blocking
    /// request already in flight runs to its timeout.
    pub fn cancelled_by(flag: Arc<AtomicBool>) -> Self {
        BlockingTransport {
            cancelled: flag,
            ..BlockingTransport::default()
        }
    }

    /// Sends `request`; with `on_chunk`, a successful body is handed over as it arrives.
    fn send(
        &self,
        request: &HttpRequest,
        on_chunk: Option<&mut dyn FnMut(&str)>,
    ) -> Result<HttpResponse, HttpFailure> {
        if self.cancelled.load(Ordering::SeqCst) {
            return Err(HttpFailure::Cancelled);
        }
        let mut builder = self
            .agent
            .post(&request.url)
            .config()
            .timeout_global(Some(Duration::from_millis(request.timeout_ms)))
            .build()
            .header("content-type", "application/json");
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let mut response = builder.send(&request.body).map_err(failure)?;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let streaming = on_chunk.filter(|_| (200..300).contains(&status));
        let body = match streaming {
            Some(on_chunk) => {
                let mut reader = response.body_mut().with_config().limit(MAX_BODY).reader();
                let mut text = Utf8Chunks::default();
                let mut buffer = [0u8; 4096];
                loop {
                    if self.cancelled.load(Ordering::SeqCst) {
                        return Err(HttpFailure::Cancelled);
                    }
                    let n = reader.read(&mut buffer).map_err(|e| match e.kind() {
                        std::io::ErrorKind::TimedOut => HttpFailure::Timeout,
                        _ => HttpFailure::Unreachable(e.to_string()),
                    })?;
                    if n == 0 {
                        break;
                    }
                    let piece = text.push(&buffer[..n]);
                    if !piece.is_empty() {
                        on_chunk(&piece);
                    }
                }
                let rest = text.finish();
                if !rest.is_empty() {
                    on_chunk(&rest);
                }
                String::new()
            }
            None => response
                .body_mut()
                .with_config()
                .limit(MAX_BODY)
                .read_to_string()
                .map_err(failure)?,
        };
        Ok(HttpResponse {
            status,
            headers,
            body,
        })
    }
}

fn failure(e: ureq::Error) -> HttpFailure {
    match e {
        ureq::Error::Timeout(_) => HttpFailure::Timeout,
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => HttpFailure::Timeout,
        other => HttpFailure::Unreachable(other.to_string()),
    }
}

impl HttpTransport for BlockingTransport {
    fn post<'a>(
        &'a self,
        request: &'a HttpRequest,
    ) -> LocalBoxFuture<'a, Result<HttpResponse, HttpFailure>> {
        Box::pin(async move { self.send(request, None) })
    }

    fn post_streaming<'a>(
        &'a self,
        request: &'a HttpRequest,
        on_chunk: &'a mut dyn FnMut(&str),
    ) -> LocalBoxFuture<'a, Result<HttpResponse, HttpFailure>> {
        Box::pin(async move { self.send(request, Some(on_chunk)) })
    }
}

/// Waits by sleeping the thread: the command line runs one question at a time.
pub struct ThreadSleep;

impl nl2sql_core::engine::Sleep for ThreadSleep {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(async move { std::thread::sleep(Duration::from_millis(ms)) })
    }
}
