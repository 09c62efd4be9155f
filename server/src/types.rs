//! The API's requests and errors are core's (`nl2sql_core::api`), read by the page too;
//! here they become axum responses.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
pub use nl2sql_core::api::{
    ApiError, DatasourceSummary, DescribeRequest, ErrorBody, FeedbackRequest, Health, HealthStatus,
    Question, RouteRequest, SqlRequest,
};
pub use nl2sql_core::error::ErrorCode;

/// An [`ApiError`] as an HTTP response: its status, its JSON, and `WWW-Authenticate` on 401.
#[derive(Debug)]
pub struct Failure(pub ApiError);

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure(e)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.error.code.http_status().unwrap_or(500))
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, axum::Json(&self.0)).into_response();
        if status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        response
    }
}
