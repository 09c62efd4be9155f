//! A server as the page's engine: asks (streamed), SQL mode, routing and the datasources
//! go to `nl2sql serve`'s API with the server's API key, so the page holds no model key.
//! The answers are the engine's own types, read back as types.

use crate::fetch::FetchTransport;
use nl2sql_core::adapter::{HttpFailure, HttpRequest, HttpResponse, HttpTransport};
use nl2sql_core::api::{
    ApiError, DatasourceSummary, ErrorBody, FeedbackRequest, Question, RouteRequest, SqlRequest,
    StreamParser, Streamed,
};
use nl2sql_core::error::{Error, ErrorCode};
use nl2sql_core::feedback::{Proposal, Recorded};
use nl2sql_core::result::Routing;
use nl2sql_core::result::SqlRun;
use nl2sql_core::result::{Event, QueryResult};
use nl2sql_core::service::DatasourceInfo;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A server's datasources as its key's role sees them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listed {
    /// Those it answers from, each with its schema.
    pub available: Vec<DatasourceInfo>,
    /// Those it left out for now (it tries them again), each with its code and reason.
    pub unavailable: Vec<(String, ErrorBody)>,
}

/// How long a request to the server may take; an ask's own limits are the server's.
const TIMEOUT_MS: u64 = 300_000;

/// A server and the API key the page asks with. `Debug` never shows the key.
#[derive(Clone, PartialEq, Eq)]
pub struct Remote {
    base: String,
    key: String,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("base", &self.base).finish()
    }
}

impl Remote {
    /// The server at `url` (`http://host:port`), asked with `key`.
    pub fn new(url: &str, key: &str) -> Result<Remote, Error> {
        let base = url.trim().trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(Error::config(
                "the server's address starts with http:// or https://",
            ));
        }
        if key.trim().is_empty() {
            return Err(Error::config("paste the API key the server gave you"));
        }
        Ok(Remote {
            base,
            key: key.trim().to_string(),
        })
    }

    /// The server's address.
    pub fn base(&self) -> &str {
        &self.base
    }

    fn request(&self, path: &str, body: String) -> HttpRequest {
        HttpRequest {
            url: format!("{}{path}", self.base),
            headers: vec![("authorization".into(), format!("Bearer {}", self.key))],
            body,
            timeout_ms: TIMEOUT_MS,
        }
    }

    /// Asks `ask`, `on_event` hearing the engine's events as they stream; the run's result.
    /// `transport.cancel()` closes the stream, which cancels the run on the server.
    pub async fn ask(
        &self,
        transport: &FetchTransport,
        ask: &Question,
        on_event: &dyn Fn(&Event),
    ) -> Result<QueryResult, Error> {
        let request = self.request("/api/v1/ask/stream", to_json(ask)?);
        let mut parser = StreamParser::default();
        let mut result = None;
        let mut unreadable = None;
        let mut on_chunk = |piece: &str| {
            for item in parser.push(piece) {
                match item {
                    Ok(Streamed::Event(e)) => on_event(&e),
                    Ok(Streamed::Result(r)) => result = Some(*r),
                    Err(why) => unreadable = Some(why),
                }
            }
        };
        let response = transport
            .post_streaming(&request, &mut on_chunk)
            .await
            .map_err(failure)?;
        if !(200..300).contains(&response.status) {
            return Err(refusal(&response));
        }
        match (result, unreadable) {
            (Some(result), _) => Ok(result),
            (None, Some(why)) => Err(Error::new(ErrorCode::ServerResponseUnreadable, why)),
            (None, None) => Err(Error::new(
                ErrorCode::ServerResponseUnreadable,
                "the server's stream ended before the result",
            )),
        }
    }

    /// SQL mode on the server.
    pub async fn sql(&self, transport: &FetchTransport, sql: &SqlRequest) -> Result<SqlRun, Error> {
        self.post(transport, "/api/v1/sql", sql).await
    }

    /// Routing on the server (no model call).
    pub async fn route(
        &self,
        transport: &FetchTransport,
        route: &RouteRequest,
    ) -> Result<Routing, Error> {
        self.post(transport, "/api/v1/route", route).await
    }

    /// The datasources the key's role may reach: each the server reads, with its schema as
    /// the role sees it, and apart those it left out for now (they have no schema to read).
    pub async fn datasources(&self, transport: &FetchTransport) -> Result<Listed, Error> {
        let summaries: Vec<DatasourceSummary> = self.get(transport, "/api/v1/datasources").await?;
        let mut listed = Listed::default();
        for d in summaries {
            match d.unavailable {
                Some(why) => listed.unavailable.push((d.id, why)),
                None => {
                    let path = format!("/api/v1/datasources/{}/schema", d.id);
                    listed.available.push(self.get(transport, &path).await?);
                }
            }
        }
        Ok(listed)
    }

    /// Right or Wrong on an answer; the server proposes a verified query from "Right".
    pub async fn feedback(
        &self,
        transport: &FetchTransport,
        feedback: &FeedbackRequest,
    ) -> Result<Recorded, Error> {
        self.post(transport, "/api/v1/feedback", feedback).await
    }

    /// The verified queries proposed on the server (for a key whose role approves).
    pub async fn proposals(&self, transport: &FetchTransport) -> Result<Vec<Proposal>, Error> {
        self.get(transport, "/api/v1/verified").await
    }

    /// Approves proposal `id` of `datasource` on the server.
    pub async fn approve(
        &self,
        transport: &FetchTransport,
        datasource: &str,
        id: &str,
    ) -> Result<Option<Proposal>, Error> {
        let path = format!("/api/v1/verified/{datasource}/{id}/approve");
        self.post(transport, &path, &serde_json::json!({})).await
    }

    async fn post<T: DeserializeOwned>(
        &self,
        transport: &FetchTransport,
        path: &str,
        body: &impl Serialize,
    ) -> Result<T, Error> {
        let request = self.request(path, to_json(body)?);
        let response = transport.post(&request).await.map_err(failure)?;
        read(&response)
    }

    async fn get<T: DeserializeOwned>(
        &self,
        transport: &FetchTransport,
        path: &str,
    ) -> Result<T, Error> {
        let request = self.request(path, String::new());
        let response = transport.get(&request).await.map_err(failure)?;
        read(&response)
    }
}

fn to_json(body: &impl Serialize) -> Result<String, Error> {
    serde_json::to_string(body).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
}

/// A successful answer as its type, or the server's error.
fn read<T: DeserializeOwned>(response: &HttpResponse) -> Result<T, Error> {
    if !(200..300).contains(&response.status) {
        return Err(refusal(response));
    }
    serde_json::from_str(&response.body).map_err(|e| {
        Error::new(
            ErrorCode::ServerResponseUnreadable,
            format!("the server's answer could not be read: {e}"),
        )
    })
}

/// The server's error, as it sent it (or the status alone when the body is not one).
fn refusal(response: &HttpResponse) -> Error {
    match serde_json::from_str::<ApiError>(&response.body) {
        Ok(e) => Error::new(e.error.code, e.error.message),
        Err(_) => Error::new(
            if Some(response.status) == ErrorCode::Unauthorized.http_status() {
                ErrorCode::Unauthorized
            } else {
                ErrorCode::ServerResponseUnreadable
            },
            format!("the server answered with status {}", response.status),
        ),
    }
}

fn failure(f: HttpFailure) -> Error {
    let (code, message) = match f {
        HttpFailure::Timeout => (
            ErrorCode::ServerTimeout,
            "the server did not answer in time".to_string(),
        ),
        HttpFailure::Cancelled => (ErrorCode::Cancelled, "cancelled".to_string()),
        HttpFailure::Unreachable(why) => (
            ErrorCode::ServerUnreachable,
            format!("the server could not be reached ({why}); is it running, and does it allow this page's origin?"),
        ),
    };
    Error::new(code, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that does not answer within the limit (five minutes: no test waits for it)
    /// is said by its own code; the browser test reaches the others through `fetch`.
    #[test]
    fn a_server_that_does_not_answer_in_time_is_server_timeout() {
        assert_eq!(failure(HttpFailure::Timeout).code, ErrorCode::ServerTimeout);
        assert_eq!(failure(HttpFailure::Cancelled).code, ErrorCode::Cancelled);
    }
}
