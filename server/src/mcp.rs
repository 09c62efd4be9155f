//! The MCP server (rmcp, the official Rust SDK): tools `ask`, `run_sql`,
//! `list_datasources`, `describe_datasource`, `route` and `feedback`, and each datasource's
//! schema as a resource. Over stdio the role is the configuration's; over streamable HTTP (`/mcp` under
//! `nl2sql serve`) it is the API key's, found by the same authentication as the API's.
//! A refusal or an unknown datasource is a tool error (`isError`), never a protocol fault.

use crate::auth::Caller;
use crate::shared::Shared;
use crate::types::{
    ApiError, DescribeRequest, ErrorCode, FeedbackRequest, Question, RouteRequest, SqlRequest,
};
use nl2sql_core::result::Value;
use nl2sql_core::result::{QueryResult, Status};
use nl2sql_core::result::{SqlRun, SqlStatus};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ClientJsonRpcMessage, ClientNotification, ContentBlock, Implementation,
    JsonRpcMessage, ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, RequestId, Resource, ResourceContents,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Rows an answer carries to the model: enough to read, few enough for its context.
pub const ROWS_SHOWN: usize = 50;

/// The tools, over the shared engine.
#[derive(Clone)]
pub struct Tools {
    shared: Arc<Shared>,
    /// The one caller over stdio; none over HTTP, where each request's key says.
    fixed: Option<Caller>,
    /// Over HTTP, the calls in flight, for `notifications/cancelled`.
    in_flight: Option<Arc<InFlight>>,
    tool_router: ToolRouter<Tools>,
}

/// The HTTP calls in flight, each by the key that made it and its request id, with what
/// cancels it. Served with no session, each request on its own, rmcp hands a client's
/// `notifications/cancelled` to nothing: [`cancellations`] reads it and cancels here. (Two
/// clients sharing a key and a request id would cancel each other's call: the key is who
/// asks.)
#[derive(Default)]
pub struct InFlight {
    calls: Mutex<Vec<Call>>,
    /// Each held call's number, so its guard removes it alone.
    next: AtomicU64,
}

type Call = (u64, String, RequestId, Box<dyn Fn() + Send>);

impl InFlight {
    /// Holds `cancel` for `request` of `key` until the returned guard is dropped.
    fn hold(self: &Arc<Self>, key: &str, request: RequestId, cancel: Box<dyn Fn() + Send>) -> Held {
        let serial = self.next.fetch_add(1, Ordering::Relaxed);
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        calls.push((serial, key.to_string(), request, cancel));
        Held {
            in_flight: Arc::clone(self),
            serial,
        }
    }

    fn cancel(&self, key: &str, request: &RequestId) {
        let calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        for (_, _, _, cancel) in calls.iter().filter(|c| c.1 == key && c.2 == *request) {
            cancel();
        }
    }
}

/// A call in [`InFlight`] while it runs.
struct Held {
    in_flight: Arc<InFlight>,
    serial: u64,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut calls = (self.in_flight.calls.lock()).unwrap_or_else(PoisonError::into_inner);
        calls.retain(|c| c.0 != self.serial);
    }
}

/// What `ask` answers with (as JSON text).
#[derive(Debug, Serialize)]
struct Asked {
    status: Status,
    answer: Option<String>,
    datasources: Vec<String>,
    sql: Vec<String>,
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
    row_count: usize,
    rows_shown: usize,
    checks: Vec<String>,
    errors: Vec<String>,
    warnings: Vec<String>,
    /// What the engine asks back instead of answering, with the questions to choose from.
    #[serde(skip_serializing_if = "Option::is_none")]
    clarification: Option<nl2sql_core::result::Clarification>,
    /// The conversation: pass it as `thread` with the next question to follow up.
    thread: nl2sql_core::result::Thread,
}

/// What `run_sql` answers with (as JSON text).
#[derive(Debug, Serialize)]
struct Ran {
    datasource: String,
    sql: Option<String>,
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
    row_count: usize,
    rows_shown: usize,
    truncated: bool,
    warnings: Vec<String>,
}

#[tool_router]
impl Tools {
    /// The tools for `fixed` (stdio), or for each HTTP request's key (`None`).
    pub fn new(shared: Arc<Shared>, fixed: Option<Caller>) -> Tools {
        Tools {
            shared,
            fixed,
            in_flight: None,
            tool_router: Self::tool_router(),
        }
    }

    /// Holds this HTTP call where a `notifications/cancelled` from its key finds it.
    fn hold(&self, caller: &Caller, context: &RequestContext<RoleServer>) -> Option<Held> {
        let in_flight = self.in_flight.as_ref()?;
        let ct = context.ct.clone();
        Some(in_flight.hold(
            &caller.key_id,
            context.id.clone(),
            Box::new(move || ct.cancel()),
        ))
    }

    #[tool(
        description = "Answer a question about the databases in plain words: the engine picks \
                       the datasource (or takes the one named), plans a typed query, checks it \
                       against the schema and the caller's role, runs it and answers. Returns \
                       the answer, the SQL, the first rows, the checks and any errors."
    )]
    async fn ask(
        &self,
        Parameters(request): Parameters<Question>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let caller = self.caller(&context)?;
        let _held = self.hold(&caller, &context);
        let outcome = until_cancelled(&context, self.shared.ask(&caller, request)).await;
        Ok(match outcome {
            Ok(result) => asked(&result),
            Err(e) => refused(&e),
        })
    }

    #[tool(
        description = "Run one read-only SQL query on a datasource, checked exactly like the \
                       engine's own plans (read-only, the schema, the caller's role). Returns \
                       the columns and the first rows, or why it was refused."
    )]
    async fn run_sql(
        &self,
        Parameters(request): Parameters<SqlRequest>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let caller = self.caller(&context)?;
        let _held = self.hold(&caller, &context);
        let outcome = until_cancelled(&context, self.shared.sql(&caller, request)).await;
        Ok(match outcome {
            Ok(run) => ran(run),
            Err(e) => refused(&e),
        })
    }

    #[tool(
        description = "List the datasources the caller may ask about, each with its \
                       description and the tables the caller may read."
    )]
    async fn list_datasources(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let caller = self.caller(&context)?;
        Ok(json_result(&self.shared.datasources(&caller.role)))
    }

    #[tool(
        description = "Describe one datasource as the caller may see it: its tables, columns \
                       with types, primary and foreign keys, and statistics (row counts, null \
                       fractions, distinct counts, ranges, sample values)."
    )]
    async fn describe_datasource(
        &self,
        Parameters(request): Parameters<DescribeRequest>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let caller = self.caller(&context)?;
        Ok(
            match self.shared.schema(&request.datasource, &caller.role) {
                Ok(info) => json_result(&info),
                Err(e) => refused(&e),
            },
        )
    }

    #[tool(
        description = "Say whether an answer was right or wrong. For a right one, give the \
                       question, its datasource and the SQL ask returned: the server proposes \
                       it as a verified query, which a person whose role approves may approve."
    )]
    async fn feedback(
        &self,
        Parameters(request): Parameters<FeedbackRequest>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let caller = self.caller(&context)?;
        Ok(match self.shared.feedback(&caller, request) {
            Ok(recorded) => json_result(&recorded),
            Err(e) => refused(&e),
        })
    }

    #[tool(
        description = "Rank the datasources the caller may reach for a question, with the \
                       signals behind each score; no model call."
    )]
    async fn route(
        &self,
        Parameters(request): Parameters<RouteRequest>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let caller = self.caller(&context)?;
        let outcome = until_cancelled(&context, self.shared.route(&caller, request)).await;
        Ok(match outcome {
            Ok(routing) => json_result(&routing),
            Err(e) => refused(&e),
        })
    }
}

impl Tools {
    /// Who is calling: the fixed caller, or the one the HTTP layer authenticated.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
        if let Some(caller) = &self.fixed {
            return Ok(caller.clone());
        }
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>().cloned())
            .ok_or_else(|| ErrorData::invalid_request("no API key reached this call", None))
    }
}

const SCHEMA_URI: &str = "nl2sql://datasources/";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("nl2sql", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Questions about the configured databases, answered with checked, read-only SQL. \
             Start with list_datasources or ask; describe_datasource shows a schema.",
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let caller = self.caller(&context)?;
        let resources = self
            .shared
            .datasources(&caller.role)
            .into_iter()
            .map(|d| {
                Resource::new(
                    format!("{SCHEMA_URI}{}/schema", d.id),
                    format!("{} schema", d.id),
                )
                .with_description(d.description)
                .with_mime_type("application/json")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let caller = self.caller(&context)?;
        let id = request
            .uri
            .strip_prefix(SCHEMA_URI)
            .and_then(|rest| rest.strip_suffix("/schema"))
            .unwrap_or_default();
        let info = self
            .shared
            .schema(id, &caller.role)
            .map_err(|e| ErrorData::resource_not_found(e.error.message, None))?;
        let text = serde_json::to_string_pretty(&info)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type("application/json")
        ])
        .into())
    }
}

/// `work`, unless the client cancels the call first (`notifications/cancelled`, which over
/// HTTP [`cancellations`] reads; or, over HTTP, by closing its request): then `work` is
/// dropped, which cancels its run, database query included.
async fn until_cancelled<T>(
    context: &RequestContext<RoleServer>,
    work: impl std::future::Future<Output = Result<T, ApiError>>,
) -> Result<T, ApiError> {
    tokio::select! {
        out = work => out,
        () = context.ct.cancelled() => Err(ApiError::new(ErrorCode::Cancelled, "the call was cancelled")),
    }
}

/// Serves the tools over stdin and stdout for `caller` until the client closes them.
pub async fn serve_stdio(shared: Arc<Shared>, caller: Caller) -> Result<(), crate::StartError> {
    let tools = Tools::new(shared, Some(caller));
    let running = tools
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| crate::StartError(format!("the MCP session did not start: {e}")))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| crate::StartError(format!("the MCP session failed: {e}")))
}

/// The tools over streamable HTTP, for `/mcp` behind the API's authentication. Host
/// checks are off: every request needs a key, which a page that rebinds a name to this
/// server does not have. Each request is served on its own, with no session: then a
/// client that goes away cancels its call, as it cancels an API request (a session's calls
/// would run on to their end), and the key, not a session, is who asks anyway; a client's
/// `notifications/cancelled` is read by [`cancellations`].
pub fn http_service(shared: Arc<Shared>) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .disable_allowed_hosts()
        .with_max_request_body_bytes(shared.limits().max_body_bytes);
    let in_flight = Arc::new(InFlight::default());
    let max_body = shared.limits().max_body_bytes;
    let held = Arc::clone(&in_flight);
    let service: StreamableHttpService<Tools, LocalSessionManager> = StreamableHttpService::new(
        move || {
            let mut tools = Tools::new(Arc::clone(&shared), None);
            tools.in_flight = Some(Arc::clone(&held));
            Ok(tools)
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    axum::Router::new()
        .fallback_service(service)
        .layer(axum::middleware::from_fn_with_state(
            (in_flight, max_body),
            cancellations,
        ))
}

/// Reads each POST's JSON-RPC message on its way to rmcp: a `notifications/cancelled`
/// cancels the call it names, if the same key made it. Everything goes on to rmcp as it
/// came (which acknowledges a notification, and answers a body too large for it).
async fn cancellations(
    axum::extract::State((in_flight, max_body)): axum::extract::State<(Arc<InFlight>, usize)>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    // One byte past the limit is enough for rmcp to refuse the body as too large.
    let bytes = match axum::body::to_bytes(body, max_body.saturating_add(1)).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let refused = ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!("the body is over {max_body} bytes, or could not be read whole: {e}"),
            );
            return axum::response::IntoResponse::into_response(crate::types::Failure(refused));
        }
    };
    if let Ok(JsonRpcMessage::Notification(n)) =
        serde_json::from_slice::<ClientJsonRpcMessage>(&bytes)
    {
        if let ClientNotification::CancelledNotification(c) = n.notification {
            if let (Some(caller), Some(id)) =
                (parts.extensions.get::<Caller>(), &c.params.request_id)
            {
                in_flight.cancel(&caller.key_id, id);
            }
        }
    }
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

fn json_result(value: &impl Serialize) -> CallToolResult {
    match serde_json::to_string_pretty(value) {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
            "the answer could not be written: {e}"
        ))]),
    }
}

fn refused(e: &ApiError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

fn asked(result: &QueryResult) -> CallToolResult {
    let (columns, rows) = result
        .answer_rows()
        .map_or((&[][..], &[][..]), |a| (a.columns, a.rows));
    let (columns, row_count) = (columns.to_vec(), rows.len());
    let shown: Vec<Vec<Value>> = rows.iter().take(ROWS_SHOWN).cloned().collect();
    let answer = Asked {
        status: result.status,
        answer: result.final_answer.as_ref().map(|a| a.text.clone()),
        datasources: result
            .sub_queries
            .iter()
            .map(|q| q.datasource_id.clone())
            .collect(),
        sql: result
            .sub_queries
            .iter()
            .filter_map(|q| q.sql.clone())
            .collect(),
        columns,
        rows_shown: shown.len(),
        rows: shown,
        row_count,
        checks: result
            .sub_queries
            .iter()
            .flat_map(|q| &q.validation)
            .map(|c| {
                let verdict = if c.passed { "passed" } else { "failed" };
                match c.message.is_empty() {
                    true => format!("{:?} {verdict}", c.name),
                    false => format!("{:?} {verdict}: {}", c.name, c.message),
                }
            })
            .collect(),
        errors: result
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.error_code, e.message))
            .collect(),
        warnings: result
            .warnings
            .iter()
            .map(|w| format!("{}: {}", w.code, w.message))
            .collect(),
        clarification: result.clarification.clone(),
        thread: result.thread.clone(),
    };
    let mut out = json_result(&answer);
    if matches!(result.status, Status::Error | Status::Stopped) {
        out.is_error = Some(true);
    }
    out
}

fn ran(run: SqlRun) -> CallToolResult {
    if run.status == SqlStatus::Error {
        let why: Vec<String> = run
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.error_code, e.message))
            .collect();
        return CallToolResult::error(vec![ContentBlock::text(why.join("\n"))]);
    }
    let row_count = run.rows.len();
    let rows: Vec<Vec<Value>> = run.rows.into_iter().take(ROWS_SHOWN).collect();
    json_result(&Ran {
        datasource: run.datasource,
        sql: run.sql,
        columns: run.columns,
        rows_shown: rows.len(),
        rows,
        row_count,
        truncated: run.truncated,
        warnings: run
            .warnings
            .iter()
            .map(|w| format!("{}: {}", w.code, w.message))
            .collect(),
    })
}
