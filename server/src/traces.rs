//! OpenTelemetry traces of the runs, sent over OTLP/HTTP (JSON) to a collector; off unless
//! an endpoint is configured (`nl2sql serve --otlp-endpoint`, or the standard
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT`).
//!
//! Each run is one span (`nl2sql.ask` or `nl2sql.sql`) with a child span per node record of
//! its trace, at the times the trace measured. Spans carry names, timings, statuses, codes
//! and counts only: no question, SQL, value, model message, error message, key or table
//! name leaves in one, so neither a secret nor a name a caller's role hides can reach the
//! collector.
//!
//! The batch processor exports from a thread of its own, so a slow or absent collector
//! never holds a run; the HTTP client is the server's ureq (no second HTTP stack).

use nl2sql_core::error::PipelineError;
use nl2sql_core::result::{LlmCall, NodeRecord, NodeStatus, QueryResult};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry::trace::{Span as _, SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, SdkTracer, SdkTracerProvider,
};
use opentelemetry_sdk::Resource;
use std::time::{Duration, SystemTime};

/// The path OTLP/HTTP receives traces on, under a collector's base address.
const TRACES_PATH: &str = "/v1/traces";

/// How long spans wait before they are sent: short, so a trace shows up while one looks.
const EXPORT_DELAY: Duration = Duration::from_millis(500);

/// Where traces go, from the option or the standard variables (none: traces are off).
pub fn endpoint(option: Option<&str>) -> Option<String> {
    let given = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if let Some(url) = option.map(str::to_string) {
        return Some(traces_url(&url));
    }
    // The traces variable is the full address; the general one is a base address.
    given("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .or_else(|| given("OTEL_EXPORTER_OTLP_ENDPOINT").map(|base| traces_url(&base)))
}

/// A collector's base address with the traces path, unless it has it already.
fn traces_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    if url.ends_with(TRACES_PATH) {
        url.to_string()
    } else {
        format!("{url}{TRACES_PATH}")
    }
}

/// The trace exporter of a running server.
pub struct Traces {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl Traces {
    /// Starts exporting to `url` (the full traces address).
    pub fn start(url: &str) -> Result<Traces, String> {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(Blocking::default())
            .with_protocol(Protocol::HttpJson)
            .with_endpoint(url)
            .build()
            .map_err(|e| format!("the OTLP trace exporter cannot start: {e}"))?;
        let batch = BatchSpanProcessor::builder(exporter)
            .with_batch_config(
                BatchConfigBuilder::default()
                    .with_scheduled_delay(EXPORT_DELAY)
                    .build(),
            )
            .build();
        let resource = Resource::builder()
            .with_service_name("nl2sql")
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(batch)
            .with_resource(resource)
            .build();
        let tracer = provider.tracer("nl2sql-server");
        Ok(Traces { provider, tracer })
    }

    /// A question's run, begun at `started`: its span and one per node record.
    pub fn asked(&self, started: SystemTime, result: &QueryResult, cancelled: bool) {
        let ended = started + Duration::from_millis(result.duration_ms);
        let mut attributes = vec![
            KeyValue::new("nl2sql.status", result.status.as_str()),
            KeyValue::new("nl2sql.cancelled", cancelled),
            KeyValue::new("nl2sql.llm.calls", i64::from(result.usage.calls)),
            KeyValue::new("nl2sql.sub_queries", count(result.sub_queries.len())),
        ];
        attributes.extend(tokens(
            result.usage.input_tokens,
            result.usage.output_tokens,
        ));
        if let Some(cost) = result.usage.cost_usd {
            attributes.push(KeyValue::new("nl2sql.llm.cost_usd", cost));
        }
        let code = first_code(&result.errors);
        attributes.extend(code.map(|c| KeyValue::new("nl2sql.error_code", c)));
        let mut run = self
            .tracer
            .span_builder("nl2sql.ask")
            .with_kind(SpanKind::Server)
            .with_start_time(started)
            .with_attributes(attributes)
            .start(&self.tracer);
        if let Some(code) = code {
            run.set_status(Status::error(code));
        }
        let parent = Context::current_with_span(run);
        for record in &result.trace {
            self.node(&parent, started, record);
        }
        parent.span().end_with_timestamp(ended);
    }

    /// A SQL-mode run, begun at `started`, which took `took` and ended as `outcome` says.
    pub fn queried(&self, started: SystemTime, took: Duration, outcome: &'static str) {
        let mut span = self
            .tracer
            .span_builder("nl2sql.sql")
            .with_kind(SpanKind::Server)
            .with_start_time(started)
            .with_attributes([KeyValue::new("nl2sql.outcome", outcome)])
            .start(&self.tracer);
        span.end_with_timestamp(started + took);
    }

    fn node(&self, parent: &Context, run_started: SystemTime, record: &NodeRecord) {
        let started = run_started + Duration::from_millis(record.started_ms);
        let calls = &record.llm_calls;
        let mut attributes = vec![
            KeyValue::new("nl2sql.node", record.node().to_string()),
            KeyValue::new("nl2sql.attempt", i64::from(record.attempt)),
            KeyValue::new("nl2sql.llm.calls", count(calls.len())),
        ];
        let sum = |f: fn(&LlmCall) -> Option<u64>| calls.iter().filter_map(f).reduce(|a, b| a + b);
        attributes.extend(tokens(sum(|c| c.usage.input), sum(|c| c.usage.output)));
        // A sub-query's id is not sent: a decomposer's model may have named it.
        attributes.push(KeyValue::new(
            "nl2sql.sub_query",
            record.sub_query_id.is_some(),
        ));
        let code = first_code(&record.errors);
        attributes.extend(code.map(|c| KeyValue::new("nl2sql.error_code", c)));
        let mut span = self
            .tracer
            .span_builder(record.node().to_string())
            .with_start_time(started)
            .with_attributes(attributes)
            .start_with_context(&self.tracer, parent);
        if record.status == NodeStatus::Error {
            span.set_status(Status::error(code.unwrap_or("error")));
        }
        span.end_with_timestamp(started + Duration::from_millis(record.duration_ms));
    }

    /// Sends what is waiting (at shutdown); a collector that cannot take it is logged.
    pub fn flush(&self) {
        if let Err(e) = self.provider.force_flush() {
            tracing::warn!(target: "nl2sql::serve", error = %e, "traces could not be sent to the collector");
        }
    }
}

/// The first error's code: what a span's status and attribute say (codes only, no text).
fn first_code(errors: &[PipelineError]) -> Option<&'static str> {
    errors.first().map(|e| e.error_code.as_str())
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn tokens(input: Option<u64>, output: Option<u64>) -> Vec<KeyValue> {
    let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let mut out = Vec::new();
    if let Some(n) = input {
        out.push(KeyValue::new("nl2sql.llm.input_tokens", as_i64(n)));
    }
    if let Some(n) = output {
        out.push(KeyValue::new("nl2sql.llm.output_tokens", as_i64(n)));
    }
    out
}

/// OTLP's HTTP client: ureq, blocking, on the batch processor's own thread.
#[derive(Debug)]
struct Blocking {
    agent: ureq::Agent,
}

/// A collector that has not answered by then is given up on (the batch is dropped).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a collector's answer read.
const MAX_ANSWER: u64 = 1024 * 1024;

impl Default for Blocking {
    fn default() -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(EXPORT_TIMEOUT))
            .build();
        Blocking {
            agent: config.into(),
        }
    }
}

#[async_trait::async_trait]
impl HttpClient for Blocking {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let mut builder = self.agent.post(parts.uri.to_string());
        for (name, value) in &parts.headers {
            builder = builder.header(name.as_str(), value.as_bytes());
        }
        let mut answer = builder.send(&body[..])?;
        let status = answer.status();
        let read = answer
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_vec()?;
        Ok(Response::builder().status(status).body(Bytes::from(read))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_address_gets_the_traces_path_once() {
        assert_eq!(
            traces_url("http://127.0.0.1:4318"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://collector:4318/v1/traces/"),
            "http://collector:4318/v1/traces"
        );
        assert_eq!(
            endpoint(Some("http://c:4318")).as_deref(),
            Some("http://c:4318/v1/traces")
        );
    }
}
