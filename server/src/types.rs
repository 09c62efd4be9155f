//! The API's own requests and errors; results are the engine's types (`QueryResult`,
//! `SqlRun`, `Routing`, `DatasourceInfo`, `EngineEvent`), unchanged.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `POST /api/v1/ask` and `/api/v1/ask/stream`; the MCP tool `ask`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    /// The question, in plain words.
    pub question: String,
    /// Ask this datasource, no routing.
    #[serde(default)]
    pub datasource: Option<String>,
    /// Ask as this role: the key's own, or one that reads nothing the key's role cannot.
    #[serde(default)]
    pub role: Option<String>,
    /// Validate and render the plan, but do not run it.
    #[serde(default)]
    pub plan_only: bool,
}

/// `POST /api/v1/sql`; the MCP tool `run_sql`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SqlRequest {
    /// One read-only query; it is checked exactly like the engine's own plans.
    pub sql: String,
    /// Where to run it (none: the first datasource the role may reach).
    #[serde(default)]
    pub datasource: Option<String>,
    /// Run as this role (narrowing only, as for asks).
    #[serde(default)]
    pub role: Option<String>,
}

/// `POST /api/v1/route`; the MCP tool `route`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteRequest {
    /// The question to rank the datasources for.
    pub question: String,
    /// Route as this role (narrowing only).
    #[serde(default)]
    pub role: Option<String>,
}

/// The MCP tool `describe_datasource`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DescribeRequest {
    /// The datasource's id (see `list_datasources`).
    pub datasource: String,
}

/// A datasource as `GET /api/v1/datasources` lists it: the tables the role may read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DatasourceSummary {
    /// Its id.
    pub id: String,
    /// What it holds.
    pub description: String,
    /// The tables the caller's role may read.
    pub tables: Vec<String>,
}

/// `GET /healthz`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    /// Always `ok` when the server answers.
    pub status: String,
    /// The server's version.
    pub version: String,
    /// Engine threads: runs served at once.
    pub engine_threads: usize,
}

/// Why a request was not served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ApiErrorCode {
    /// No API key, or one the server does not know (401).
    Unauthorized,
    /// The request asks as a role its key may not take (403).
    RoleNotAllowed,
    /// The key has as many runs in flight as it may (429).
    TooManyRuns,
    /// The body is not the JSON the route takes (400).
    BadRequest,
    /// The body is larger than the server takes (413).
    PayloadTooLarge,
    /// The body is not JSON (415).
    UnsupportedMediaType,
    /// No such datasource, or none the role may reach (404).
    DatasourceNotFound,
    /// No such route (404).
    NotFound,
    /// The method is not one the route takes (405).
    MethodNotAllowed,
    /// The schema index could not be searched (502).
    RetrievalFailed,
    /// The engine cannot serve now (503).
    Unavailable,
    /// Asks need a model, and the server's is not usable (no key, say) (503).
    ModelUnavailable,
    /// Something the server did not expect (500).
    Internal,
}

impl ApiErrorCode {
    /// The HTTP status it is sent with.
    pub fn status(self) -> StatusCode {
        match self {
            ApiErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiErrorCode::RoleNotAllowed => StatusCode::FORBIDDEN,
            ApiErrorCode::TooManyRuns => StatusCode::TOO_MANY_REQUESTS,
            ApiErrorCode::BadRequest => StatusCode::BAD_REQUEST,
            ApiErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiErrorCode::DatasourceNotFound | ApiErrorCode::NotFound => StatusCode::NOT_FOUND,
            ApiErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiErrorCode::RetrievalFailed => StatusCode::BAD_GATEWAY,
            ApiErrorCode::Unavailable | ApiErrorCode::ModelUnavailable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// Every error the API sends: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApiError {
    /// What went wrong.
    pub error: ErrorBody,
}

/// The error itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// The stable code.
    pub code: ApiErrorCode,
    /// One plain sentence.
    pub message: String,
}

impl ApiError {
    /// An error with `code` and `message`.
    pub fn new(code: ApiErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            error: ErrorBody {
                code,
                message: message.into(),
            },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.error.code.status();
        let mut response = (status, axum::Json(&self)).into_response();
        if status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        response
    }
}
