//! Structured logs with `tracing`: one JSON line per request (method, route, key id — never
//! the key —, status, duration) and one per run (kind, key id, outcome code, cancelled,
//! duration), on standard error, so `nl2sql mcp`'s standard output stays the protocol's.

use crate::auth::Caller;
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use std::time::Instant;

/// Starts the JSON log on standard error; `NL2SQL_LOG` filters it (default `info`).
pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("NL2SQL_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // A second start (tests starting servers in one process) keeps the first.
    let _ = tracing_subscriber::fmt()
        .json()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_current_span(false)
        .try_init();
}

/// The request's log line, once its response is ready (a stream's when it starts).
pub async fn request(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    // The route's pattern where routing has matched it already, else the path (never the
    // query string, which a client might fill with anything).
    let route = request.extensions().get::<MatchedPath>().map_or_else(
        || request.uri().path().to_string(),
        |p| p.as_str().to_string(),
    );
    let response = next.run(request).await;
    let key = response
        .extensions()
        .get::<Caller>()
        .map_or("-", |c| c.key_id.as_str());
    tracing::info!(
        target: "nl2sql::request",
        method = %method,
        route = %route,
        key = %key,
        status = response.status().as_u16(),
        duration_ms = started.elapsed().as_millis() as u64,
        "request"
    );
    response
}
