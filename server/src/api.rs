//! The HTTP API (axum): JSON in and out, field names as in the typed contract, every error
//! `{"error": {"code", "message"}}` with its status. Routes under `/api/v1` and `/mcp` need
//! `Authorization: Bearer KEY`; `/healthz` and the OpenAPI document do not.

use crate::auth::{Caller, Keys};
use crate::shared::{Decision, Shared};
use crate::types::{
    ApiError, DatasourceSummary, ErrorCode, Failure, FeedbackRequest, Health, HealthStatus,
    Question, RouteRequest, SqlRequest,
};
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderName, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Extension, Json, Router};
use nl2sql_core::api::{event_name, Streamed};
use nl2sql_core::feedback::VerifiedQuery;
use nl2sql_core::feedback::{Proposal, Recorded};
use nl2sql_core::result::QueryResult;
use nl2sql_core::result::Routing;
use nl2sql_core::result::SqlRun;
use nl2sql_core::service::DatasourceInfo;
use std::convert::Infallible;
use std::sync::Arc;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;
use tower_http::cors::{Any, CorsLayer};

/// What every handler reads.
#[derive(Clone)]
pub struct AppState {
    shared: Arc<Shared>,
    keys: Arc<Keys>,
    role_header: Option<HeaderName>,
    openapi: Arc<String>,
}

impl AppState {
    /// The API over `shared`, accepting `keys`.
    pub fn new(shared: Arc<Shared>, keys: Keys) -> AppState {
        AppState {
            shared,
            keys: Arc::new(keys),
            role_header: None,
            openapi: Arc::new(crate::openapi::document()),
        }
    }

    /// Takes the caller's role from `header` (set by a trusted gateway), narrowing the key's.
    pub fn with_role_header(mut self, header: Option<HeaderName>) -> AppState {
        self.role_header = header;
        self
    }
}

/// The whole API: routes, authentication, the body limit, one log line per request.
pub fn router(state: AppState) -> Router {
    let max_body = state.shared.limits().max_body_bytes;
    let authenticated = Router::new()
        .route("/api/v1/ask", post(ask))
        .route("/api/v1/ask/stream", post(ask_stream))
        .route("/api/v1/sql", post(sql))
        .route("/api/v1/route", post(route))
        .route("/api/v1/datasources", get(datasources))
        .route("/api/v1/datasources/{id}/schema", get(schema))
        .route("/api/v1/feedback", post(feedback))
        .route("/api/v1/verified", get(proposals))
        .route(
            "/api/v1/verified/{datasource}/{id}",
            put(edit_proposal).delete(delete_proposal),
        )
        .route("/api/v1/verified/{datasource}/{id}/approve", post(approve))
        .nest_service("/mcp", crate::mcp::http_service(Arc::clone(&state.shared)))
        .route_layer(middleware::from_fn_with_state(state.clone(), authenticate));
    Router::new()
        .route("/healthz", get(health))
        .route("/metrics", get(metrics))
        .route("/api/v1/openapi.json", get(openapi))
        .merge(authenticated)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state.shared),
            crate::log::request,
        ))
        .layer(cors())
        .with_state(state)
}

/// Any page may call the API: a key is sent as a bearer token, never as a cookie, so
/// another origin gains nothing it could not do without a browser (preflights are answered
/// before authentication, as they carry no key).
fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
        .max_age(std::time::Duration::from_secs(600))
}

/// A JSON body whose faults are the API's JSON errors (axum's own are plain text).
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = Failure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(Body(value)),
            Err(rejection) => Err(Failure(rejected(&rejection))),
        }
    }
}

fn rejected(rejection: &JsonRejection) -> ApiError {
    let code = match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        _ => ErrorCode::BadRequest,
    };
    ApiError::new(code, rejection.body_text())
}

/// Finds the caller by its key (401 otherwise), takes a trusted gateway's role header
/// when one is configured, and hands the caller on.
async fn authenticate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let caller = match caller(&state, request.headers()) {
        Ok(caller) => caller,
        Err(e) => return Failure(e).into_response(),
    };
    request.extensions_mut().insert(caller.clone());
    let mut response = next.run(request).await;
    // For the request's log line.
    response.extensions_mut().insert(caller);
    response
}

fn caller(state: &AppState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .filter(|k| !k.is_empty());
    let Some(presented) = presented else {
        return Err(ApiError::new(
            ErrorCode::Unauthorized,
            "send an API key: Authorization: Bearer KEY",
        ));
    };
    let caller = state.keys.caller(presented).ok_or_else(|| {
        ApiError::new(
            ErrorCode::Unauthorized,
            "the API key is not one this server knows",
        )
    })?;
    let gateway = state
        .role_header
        .as_ref()
        .and_then(|name| headers.get(name))
        .map(|v| v.to_str().unwrap_or_default().trim().to_string());
    match gateway {
        None => Ok(caller),
        Some(role) => {
            let role = state.shared.role_for(&caller, Some(&role))?;
            Ok(Caller { role, ..caller })
        }
    }
}

async fn health(State(state): State<AppState>) -> Json<Health> {
    let unavailable = state.shared.unavailable_count();
    Json(Health {
        status: match unavailable {
            0 => HealthStatus::Ok,
            _ => HealthStatus::Degraded,
        },
        unavailable_datasources: unavailable,
        version: env!("CARGO_PKG_VERSION").into(),
        engine_threads: state.shared.lanes(),
    })
}

/// Prometheus's scrape: no key needed, as nothing in it names a key, a role or a datasource.
async fn metrics(State(state): State<AppState>) -> Response {
    match state
        .shared
        .metrics()
        .encode(state.shared.unavailable_count())
    {
        Ok(text) => (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(e) => Failure(ApiError::new(
            ErrorCode::Internal,
            format!("the metrics could not be written: {e}"),
        ))
        .into_response(),
    }
}

async fn openapi(State(state): State<AppState>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        state.openapi.as_str().to_owned(),
    )
        .into_response()
}

async fn not_found() -> Failure {
    Failure(ApiError::new(
        ErrorCode::NotFound,
        "there is no such route (see /api/v1/openapi.json)",
    ))
}

async fn method_not_allowed() -> Failure {
    Failure(ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route does not take that method",
    ))
}

async fn ask(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(request): Body<Question>,
) -> Result<Json<QueryResult>, Failure> {
    Ok(Json(state.shared.ask(&caller, request).await?))
}

async fn ask_stream(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(request): Body<Question>,
) -> Result<Response, Failure> {
    let (mut admitted, events) = state.shared.ask_streaming(&caller, request)?;
    // The stream owns the run's admission: a client that goes away drops the stream, and
    // its guard cancels the run.
    let stream = UnboundedReceiverStream::new(events).map(move |item| {
        if matches!(item, Streamed::Result(_)) {
            admitted.guard.disarm();
        }
        Ok::<_, Infallible>(sse_event(&item))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// One server-sent event: named by the engine event's kind (`node_started`, …, `rows`,
/// `answer_delta`), or `result` for the run's result; the data is the typed value's JSON.
fn sse_event(item: &Streamed) -> SseEvent {
    let data = match item {
        Streamed::Event(e) => serde_json::to_string(e),
        Streamed::Result(result) => serde_json::to_string(result),
    };
    match data {
        Ok(data) => SseEvent::default().event(event_name(item)).data(data),
        Err(e) => SseEvent::default()
            .event("error")
            .data(format!("the event could not be written: {e}")),
    }
}

async fn sql(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(request): Body<SqlRequest>,
) -> Result<Json<SqlRun>, Failure> {
    Ok(Json(state.shared.sql(&caller, request).await?))
}

async fn route(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(request): Body<RouteRequest>,
) -> Result<Json<Routing>, Failure> {
    Ok(Json(state.shared.route(&caller, request).await?))
}

async fn feedback(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(request): Body<FeedbackRequest>,
) -> Result<Json<Recorded>, Failure> {
    Ok(Json(state.shared.feedback(&caller, request)?))
}

async fn proposals(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> Result<Json<Vec<Proposal>>, Failure> {
    Ok(Json(state.shared.proposals(&caller)?))
}

async fn approve(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path((datasource, id)): Path<(String, String)>,
) -> Result<Json<Option<Proposal>>, Failure> {
    let decided = state
        .shared
        .decide(&caller, (&datasource, &id), Decision::Approve)?;
    Ok(Json(decided))
}

async fn edit_proposal(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path((datasource, id)): Path<(String, String)>,
    Body(query): Body<VerifiedQuery>,
) -> Result<Json<Option<Proposal>>, Failure> {
    let decided =
        state
            .shared
            .decide(&caller, (&datasource, &id), Decision::Edit(Box::new(query)))?;
    Ok(Json(decided))
}

async fn delete_proposal(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path((datasource, id)): Path<(String, String)>,
) -> Result<StatusCode, Failure> {
    state
        .shared
        .decide(&caller, (&datasource, &id), Decision::Delete)?;
    Ok(StatusCode::NO_CONTENT)
}

async fn datasources(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> Json<Vec<DatasourceSummary>> {
    Json(state.shared.datasources(&caller.role))
}

async fn schema(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<DatasourceInfo>, Failure> {
    Ok(Json(state.shared.schema(&id, &caller.role)?))
}
