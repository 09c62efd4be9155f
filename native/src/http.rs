//! The native HTTP transport: a blocking client (ureq, TLS by rustls). A native run has its
//! own thread (the command line's, or a server's engine thread), so blocking inside the
//! future costs nothing.

use nl2sql_core::adapter::LocalBoxFuture;
use nl2sql_core::adapter::{HttpFailure, HttpRequest, HttpResponse, HttpTransport, Utf8Chunks};
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
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
    /// A transport that refuses to send once `flag` is set (by Ctrl-C, say, or a server
    /// whose client went away); a request in flight is given up at once.
    pub fn cancelled_by(flag: Arc<AtomicBool>) -> Self {
        BlockingTransport {
            cancelled: flag,
            ..BlockingTransport::default()
        }
    }

    /// Sends `request`; with `on_chunk`, a successful body is handed over as it arrives.
    /// The request runs on a thread of its own while this one watches the cancel flag, so
    /// a cancel returns at once even while the provider has not answered (the abandoned
    /// request ends by itself, at the latest at its timeout).
    fn send(
        &self,
        request: &HttpRequest,
        on_chunk: Option<&mut dyn FnMut(&str)>,
    ) -> Result<HttpResponse, HttpFailure> {
        if self.cancelled.load(Ordering::SeqCst) {
            return Err(HttpFailure::Cancelled);
        }
        let (tx, rx) = mpsc::channel::<Piece>();
        let agent = self.agent.clone();
        let cancelled = Arc::clone(&self.cancelled);
        let owned = request.clone();
        let streaming = on_chunk.is_some();
        std::thread::spawn(move || exchange(&agent, &owned, streaming, &cancelled, &tx));
        let mut on_chunk = on_chunk;
        let mut head = None;
        loop {
            if self.cancelled.load(Ordering::SeqCst) {
                return Err(HttpFailure::Cancelled);
            }
            match rx.recv_timeout(WATCH) {
                Ok(Piece::Head(status, headers)) => head = Some((status, headers)),
                Ok(Piece::Chunk(text)) => {
                    if let Some(on_chunk) = on_chunk.as_mut() {
                        on_chunk(&text);
                    }
                }
                Ok(Piece::Body(body)) => {
                    let (status, headers) = head.take().unwrap_or_default();
                    return Ok(HttpResponse {
                        status,
                        headers,
                        body,
                    });
                }
                Ok(Piece::Failed(failure)) => return Err(failure),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(HttpFailure::Unreachable(
                        "the request ended without an answer".into(),
                    ))
                }
            }
        }
    }
}

/// How often a waiting request looks at the cancel flag.
const WATCH: Duration = Duration::from_millis(20);

/// What the thread making a request reports, in order: the head, the streamed pieces,
/// then the body (empty when streamed) or the failure.
enum Piece {
    Head(u16, Vec<(String, String)>),
    Chunk(String),
    Body(String),
    Failed(HttpFailure),
}

/// Makes `request` and reports it piece by piece on `tx` (a closed channel: nobody waits
/// any more, and the request is dropped).
fn exchange(
    agent: &ureq::Agent,
    request: &HttpRequest,
    streaming: bool,
    cancelled: &AtomicBool,
    tx: &mpsc::Sender<Piece>,
) {
    let outcome = (|| {
        let mut builder = agent
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
        if tx.send(Piece::Head(status, headers)).is_err() {
            return Err(HttpFailure::Cancelled);
        }
        if !(streaming && (200..300).contains(&status)) {
            return response
                .body_mut()
                .with_config()
                .limit(MAX_BODY)
                .read_to_string()
                .map_err(failure);
        }
        let mut reader = response.body_mut().with_config().limit(MAX_BODY).reader();
        let mut text = Utf8Chunks::default();
        let mut buffer = [0u8; 4096];
        loop {
            if cancelled.load(Ordering::SeqCst) {
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
            if !piece.is_empty() && tx.send(Piece::Chunk(piece)).is_err() {
                return Err(HttpFailure::Cancelled);
            }
        }
        let rest = text.finish();
        if !rest.is_empty() && tx.send(Piece::Chunk(rest)).is_err() {
            return Err(HttpFailure::Cancelled);
        }
        Ok(String::new())
    })();
    // Nobody may be listening any more; then there is nothing to tell.
    let _ = tx.send(match outcome {
        Ok(body) => Piece::Body(body),
        Err(failure) => Piece::Failed(failure),
    });
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

impl nl2sql_core::adapter::Sleep for ThreadSleep {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(async move { std::thread::sleep(Duration::from_millis(ms)) })
    }
}
