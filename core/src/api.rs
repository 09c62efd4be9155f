//! The HTTP API's own contract (`nl2sql serve`): its requests, its errors, and the stream an
//! ask answers with — plain data both sides read as types, the server (native) and the page
//! that uses a server (wasm). Results are the engine's own types (`QueryResult`, `SqlRun`,
//! `Routing`, `DatasourceInfo`, `Event`), and a question is asked in the engine's one
//! shape, [`Question`] (`POST /api/v1/ask`, `/api/v1/ask/stream`, the MCP tool `ask`).

pub use crate::engine::Question;
use crate::engine::{Event, QueryResult};
use crate::error::ErrorCode;
use serde::{Deserialize, Serialize};

/// `POST /api/v1/feedback`; the MCP tool `feedback`: Right or Wrong on an answer. "Right"
/// proposes a verified query from the answer's SQL, which the server checks for the caller's
/// role and renders again itself (the SQL sent is never stored as given).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FeedbackRequest {
    /// The question as asked.
    pub question: String,
    /// The datasource that answered.
    pub datasource: String,
    /// The SQL of the answer (the result's `sub_queries[0].sql`); needed for "right".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    /// `right` or `wrong`.
    pub verdict: crate::feedback::Verdict,
    /// What the person adds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// As this role (narrowing only, as for asks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// `POST /api/v1/sql`; the MCP tool `run_sql`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SqlRequest {
    /// One read-only query; it is checked exactly like the engine's own plans.
    pub sql: String,
    /// Where to run it (none: the first datasource the role may reach).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasource: Option<String>,
    /// Run as this role (narrowing only, as for asks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// `POST /api/v1/route`; the MCP tool `route`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RouteRequest {
    /// The question to rank the datasources for.
    pub question: String,
    /// Route as this role (narrowing only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}

/// The MCP tool `describe_datasource`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DescribeRequest {
    /// The datasource's id (see `list_datasources`).
    pub datasource: String,
}

/// A datasource as `GET /api/v1/datasources` lists it: the tables the role may read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DatasourceSummary {
    /// Its id.
    pub id: String,
    /// What it holds.
    pub description: String,
    /// The tables the caller's role may read (none while it is left out).
    pub tables: Vec<String>,
    /// Why it is left out for now (it could not be reached or read), when it is: the
    /// server tries it again every so often.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<ErrorBody>,
}

/// Whether the server works with every datasource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    /// Every datasource is in use.
    Ok,
    /// Some datasources are left out (unreachable, refused, unreadable); the others work.
    Degraded,
}

/// `GET /healthz`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Health {
    /// `ok`, or `degraded` while some datasources are left out.
    pub status: HealthStatus,
    /// How many datasources are left out now (which, to a caller with a key: the
    /// datasource list).
    pub unavailable_datasources: usize,
    /// The server's version.
    pub version: String,
    /// Engine threads: runs served at once.
    pub engine_threads: usize,
}

/// Every error the API sends: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ApiError {
    /// What went wrong.
    pub error: ErrorBody,
}

/// The error itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorBody {
    /// The stable code (its HTTP status: [`ErrorCode::http_status`]).
    pub code: ErrorCode,
    /// One plain sentence.
    pub message: String,
}

impl ApiError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            error: ErrorBody {
                code,
                message: message.into(),
            },
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error.code.as_str(), self.error.message)
    }
}

/// One item of `/api/v1/ask/stream`, read back.
#[derive(Debug, Clone, PartialEq)]
pub enum Streamed {
    /// One of the engine's events (`node_started`, …).
    Event(Event),
    /// The run's result, the last item.
    Result(Box<QueryResult>),
}

/// The server-sent event name of an item of the stream.
pub fn event_name(item: &Streamed) -> &'static str {
    match item {
        Streamed::Event(e) => match e {
            Event::NodeStarted { .. } => "node_started",
            Event::NodeFinished { .. } => "node_finished",
            Event::Routed { .. } => "routed",
            Event::LlmCall { .. } => "llm_call",
            Event::Rows { .. } => "rows",
            Event::AnswerDelta { .. } => "answer_delta",
        },
        Streamed::Result(_) => "result",
    }
}

/// Reads `/api/v1/ask/stream` as it arrives, split anywhere: each complete server-sent
/// event becomes a typed item (keep-alive comments are skipped); an event whose data is
/// not the type its name says is an error naming it.
#[derive(Debug, Default)]
pub struct StreamParser {
    pending: String,
}

impl StreamParser {
    /// Takes the next piece of text; the items it completed.
    pub fn push(&mut self, text: &str) -> Vec<Result<Streamed, String>> {
        // Normalised after joining, so a CRLF split between two pieces is still one break.
        self.pending.push_str(text);
        if self.pending.contains('\r') {
            self.pending = self.pending.replace("\r\n", "\n");
        }
        let mut out = Vec::new();
        while let Some(end) = self.pending.find("\n\n") {
            let block: String = self.pending.drain(..end + 2).collect();
            if let Some(item) = parse_block(&block) {
                out.push(item);
            }
        }
        out
    }
}

fn parse_block(block: &str) -> Option<Result<Streamed, String>> {
    let mut name = None;
    let mut data = String::new();
    for line in block.lines() {
        if let Some(n) = line.strip_prefix("event:") {
            name = Some(n.trim().to_string());
        } else if let Some(d) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(d.strip_prefix(' ').unwrap_or(d));
        }
    }
    let name = name?;
    let parsed = if name == "result" {
        serde_json::from_str::<QueryResult>(&data).map(|r| Streamed::Result(Box::new(r)))
    } else {
        serde_json::from_str::<Event>(&data).map(Streamed::Event)
    };
    Some(parsed.map_err(|e| format!("the server's {name} event could not be read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NodeStatus;
    use crate::error::Node;

    #[test]
    fn the_stream_reads_back_as_types_however_it_is_split() {
        let event = Event::NodeFinished {
            node: Node::Executor,
            attempt: 1,
            status: NodeStatus::Ok,
            duration_ms: 3,
        };
        let item = Streamed::Event(event.clone());
        let text = format!(
            ": keep-alive\n\nevent: {}\ndata: {}\n\nevent: answer_delta\r\ndata: {}\r\n\r\n",
            event_name(&item),
            serde_json::to_string(&event).unwrap_or_default(),
            r#"{"event":"answer_delta","text":"Hi"}"#
        );
        for cut in [1, 7, 30, text.len() / 2, text.len() - 1] {
            let mut parser = StreamParser::default();
            let mut items = parser.push(&text[..cut]);
            items.extend(parser.push(&text[cut..]));
            assert_eq!(
                items,
                vec![
                    Ok(item.clone()),
                    Ok(Streamed::Event(Event::AnswerDelta { text: "Hi".into() }))
                ],
                "cut at {cut}"
            );
        }
        let broken = StreamParser::default().push("event: rows\ndata: {}\n\n");
        assert!(
            matches!(&broken[..], [Err(e)] if e.contains("rows")),
            "{broken:?}"
        );
    }
}
