//! Structured logs with `tracing`: one JSON line per request (method, route, key id — never
//! the key —, status, duration) and one per run (kind, key id, outcome code, cancelled,
//! duration), on standard error, so `nl2sql mcp`'s standard output stays the protocol's.
//! Each request is counted in the metrics here too (`crate::metrics`).

use crate::auth::Caller;
use crate::shared::Shared;
use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;
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

/// The request's log line, once its response is ready (a stream's when it starts), and
/// its count and latency in the metrics.
pub async fn request(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    // The route's pattern where routing has matched it already, else the path (never the
    // query string, which a client might fill with anything).
    let matched = (request.extensions().get::<MatchedPath>()).map(|p| p.as_str().to_string());
    let route = matched
        .clone()
        .unwrap_or_else(|| request.uri().path().to_string());
    let response = next.run(request).await;
    let key = response
        .extensions()
        .get::<Caller>()
        .map_or("-", |c| c.key_id.as_str());
    let took = started.elapsed();
    shared.metrics().request(
        &method,
        matched.as_deref(),
        response.status().as_u16(),
        took.as_secs_f64(),
    );
    tracing::info!(
        target: "nl2sql::request",
        method = %method,
        route = %route,
        key = %key,
        status = response.status().as_u16(),
        duration_ms = took.as_millis() as u64,
        "request"
    );
    response
}
