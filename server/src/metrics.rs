//! What `nl2sql serve` counts, for Prometheus at `/metrics` (the text format, with the
//! Prometheus project's `prometheus-client`): requests by route and status with their
//! latencies; runs by kind and outcome code with their durations and cancels; model calls,
//! tokens and cost; the time runs spent in the databases; datasources left out. Labels are
//! routes, methods, kinds and codes only: never a key, a role, a datasource, a table or a
//! question, so the endpoint needs no key and tells nothing a role hides.

use nl2sql_core::error::Node;
use nl2sql_core::result::{QueryResult, UsageTotals};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RunLabels {
    work: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WorkLabels {
    work: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TokenLabels {
    direction: &'static str,
}

/// Seconds from 5 ms to about 82 s, doubling: a SQL query's milliseconds to a slow
/// model's minute.
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.005, 2.0, 15))
}

/// The server's metrics and the registry that writes them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    request_seconds: Family<RouteLabels, Histogram, fn() -> Histogram>,
    runs: Family<RunLabels, Counter>,
    run_seconds: Family<WorkLabels, Histogram, fn() -> Histogram>,
    cancelled: Family<WorkLabels, Counter>,
    model_calls: Counter,
    tokens: Family<TokenLabels, Counter>,
    cost: Counter<f64, AtomicU64>,
    query_seconds: Histogram,
    unavailable: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("nl2sql");
        let requests = Family::<RequestLabels, Counter>::default();
        let request_seconds =
            Family::<RouteLabels, Histogram, fn() -> Histogram>::new_with_constructor(seconds);
        let runs = Family::<RunLabels, Counter>::default();
        let run_seconds =
            Family::<WorkLabels, Histogram, fn() -> Histogram>::new_with_constructor(seconds);
        let cancelled = Family::<WorkLabels, Counter>::default();
        let model_calls = Counter::default();
        let tokens = Family::<TokenLabels, Counter>::default();
        let cost = Counter::<f64, AtomicU64>::default();
        let query_seconds = seconds();
        let unavailable = Gauge::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route pattern and status",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to each response (to a stream's start), by route pattern",
            request_seconds.clone(),
        );
        registry.register(
            "runs",
            "Runs (ask, sql, route) ended, by kind and outcome code",
            runs.clone(),
        );
        registry.register(
            "run_duration_seconds",
            "Time each run took on an engine thread, by kind",
            run_seconds.clone(),
        );
        registry.register(
            "runs_cancelled",
            "Runs cancelled by their caller or a client that went away, by kind",
            cancelled.clone(),
        );
        registry.register(
            "model_calls",
            "Calls to the model provider",
            model_calls.clone(),
        );
        registry.register(
            "model_tokens",
            "Tokens the provider counted, in (prompts) and out (answers)",
            tokens.clone(),
        );
        registry.register(
            "model_cost_usd",
            "What the priced model calls cost, in US dollars",
            cost.clone(),
        );
        registry.register(
            "query_duration_seconds",
            "Time each run's queries took in the databases",
            query_seconds.clone(),
        );
        registry.register(
            "datasources_unavailable",
            "Datasources left out for now (the server tries them again)",
            unavailable.clone(),
        );
        Metrics {
            registry,
            requests,
            request_seconds,
            runs,
            run_seconds,
            cancelled,
            model_calls,
            tokens,
            cost,
            query_seconds,
            unavailable,
        }
    }

    /// A response: `route` is the matched pattern (`None`: no route matched, counted as
    /// one label, never the path a client sent).
    pub fn request(&self, method: &str, route: Option<&str>, status: u16, seconds: f64) {
        let route = route.unwrap_or("unmatched").to_string();
        self.requests
            .get_or_create(&RequestLabels {
                method: method.to_string(),
                route: route.clone(),
                status,
            })
            .inc();
        self.request_seconds
            .get_or_create(&RouteLabels { route })
            .observe(seconds);
    }

    /// A run that ended on an engine thread.
    pub fn run(&self, work: &'static str, outcome: &'static str, cancelled: bool, seconds: f64) {
        self.runs.get_or_create(&RunLabels { work, outcome }).inc();
        self.run_seconds
            .get_or_create(&WorkLabels { work })
            .observe(seconds);
        if cancelled {
            self.cancelled.get_or_create(&WorkLabels { work }).inc();
        }
    }

    /// An ask's model use and the time its queries took.
    pub fn asked(&self, result: &QueryResult) {
        self.used(&result.usage);
        let queried: Vec<u64> = (result.trace.iter())
            .filter(|r| r.node() == Node::Executor)
            .map(|r| r.duration_ms)
            .collect();
        if !queried.is_empty() {
            let ms: u64 = queried.iter().sum();
            self.query_seconds.observe(ms as f64 / 1e3);
        }
    }

    /// A SQL-mode run's time: its query's in the database, with the checks before it
    /// (a few milliseconds), which the run does not time apart.
    pub fn queried(&self, seconds: f64) {
        self.query_seconds.observe(seconds);
    }

    fn used(&self, usage: &UsageTotals) {
        self.model_calls.inc_by(u64::from(usage.calls));
        for (direction, n) in [("in", usage.input_tokens), ("out", usage.output_tokens)] {
            if let Some(n) = n {
                self.tokens
                    .get_or_create(&TokenLabels { direction })
                    .inc_by(n);
            }
        }
        if let Some(cost) = usage.cost_usd.filter(|c| c.is_finite() && *c > 0.0) {
            self.cost.inc_by(cost);
        }
    }

    /// The text a scrape gets, with the datasources left out now.
    pub fn encode(&self, unavailable: usize) -> Result<String, std::fmt::Error> {
        self.unavailable
            .set(i64::try_from(unavailable).unwrap_or(i64::MAX));
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}
