//! `GET /api/v1/openapi.json`: the API as OpenAPI 3.1, its schemas generated from the Rust
//! types (schemars, JSON Schema 2020-12, which is OpenAPI 3.1's own schema dialect) and its
//! paths from one table of routes.

use crate::types::{
    ApiError, DatasourceSummary, FeedbackRequest, Health, Question, RouteRequest, SqlRequest,
};
use nl2sql_core::feedback::VerifiedQuery;
use nl2sql_core::feedback::{Proposal, Recorded};
use nl2sql_core::result::Routing;
use nl2sql_core::result::SqlRun;
use nl2sql_core::result::{Event, QueryResult};
use nl2sql_core::service::DatasourceInfo;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{json, Map, Value};

/// How a route answers.
enum Answer {
    /// JSON of this schema.
    Json(Value),
    /// Server-sent events, each event's data one of these.
    Events(Value),
    /// No content (204).
    Empty,
    /// Prometheus's text format.
    Metrics,
}

/// One route.
struct Route {
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    body: Option<Value>,
    answer: Answer,
    authenticated: bool,
    /// Errors it may answer with, besides 401 for authenticated routes.
    errors: &'static [u16],
}

/// The document, as JSON text.
pub fn document() -> String {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    let mut g = settings.into_generator();
    let routes = routes(&mut g);
    let error = g.subschema_for::<ApiError>().to_value();
    let mut paths = Map::new();
    for r in routes {
        let mut responses = Map::new();
        let status = if matches!(r.answer, Answer::Empty) {
            "204"
        } else {
            "200"
        };
        let ok = match r.answer {
            Answer::Empty => json!({ "description": "Done" }),
            Answer::Json(schema) => json!({
                "description": "OK",
                "content": { "application/json": { "schema": schema } }
            }),
            Answer::Metrics => json!({
                "description": "Counters and histograms in the OpenMetrics text format \
                                (`nl2sql_*`: requests, runs by outcome code, cancels, model \
                                calls, tokens and cost, query times, datasources left out)",
                "content": { "application/openmetrics-text": { "schema": { "type": "string" } } }
            }),
            Answer::Events(schema) => json!({
                "description": "Server-sent events: the engine's events in order (`node_started`, \
                                `node_finished`, `routed`, `llm_call`, `rows`, `answer_delta`), then `result` \
                                with the run's QueryResult. Each event's data is JSON.",
                "content": { "text/event-stream": { "schema": { "type": "string" },
                             "x-event-data": schema } }
            }),
        };
        responses.insert(status.into(), ok);
        let mut errors: Vec<u16> = r.errors.to_vec();
        if r.authenticated {
            errors.push(401);
        }
        for status in errors {
            responses.insert(
                status.to_string(),
                json!({
                    "description": description(status),
                    "content": { "application/json": { "schema": error } }
                }),
            );
        }
        let mut operation = json!({
            "summary": r.summary,
            "operationId": operation_id(r.method, r.path),
            "responses": responses,
        });
        if let Some(body) = r.body {
            operation["requestBody"] = json!({
                "required": true,
                "content": { "application/json": { "schema": body } }
            });
        }
        if !r.authenticated {
            operation["security"] = json!([]);
        }
        if r.path.contains("{datasource}") {
            operation["parameters"] = json!([
                {
                    "name": "datasource", "in": "path", "required": true,
                    "description": "The proposal's datasource.", "schema": { "type": "string" }
                },
                {
                    "name": "id", "in": "path", "required": true,
                    "description": "The proposal's id.", "schema": { "type": "string" }
                }
            ]);
        } else if r.path.contains("{id}") {
            operation["parameters"] = json!([{
                "name": "id", "in": "path", "required": true,
                "description": "The datasource's id.", "schema": { "type": "string" }
            }]);
        }
        let entry = paths.entry(r.path.to_string()).or_insert_with(|| json!({}));
        entry[r.method] = operation;
    }
    let schemas = Value::Object(g.take_definitions(true).into_iter().collect());
    let doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "nl2sql",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Questions in plain words answered with checked SQL. Every route under \
                            /api/v1 but this document takes `Authorization: Bearer KEY`; the key \
                            carries a role, which a request's `role` may narrow, never widen."
        },
        "servers": [{ "url": "/" }],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": { "apiKey": { "type": "http", "scheme": "bearer" } }
        },
        "security": [{ "apiKey": [] }]
    });
    serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

fn of<T: JsonSchema>(g: &mut SchemaGenerator) -> Value {
    g.subschema_for::<T>().to_value()
}

fn routes(g: &mut SchemaGenerator) -> Vec<Route> {
    let list = json!({ "type": "array", "items": of::<DatasourceSummary>(g) });
    let streamed = json!({ "oneOf": [of::<Event>(g), of::<QueryResult>(g)] });
    vec![
        Route {
            method: "get",
            path: "/healthz",
            summary: "Whether the server is up",
            body: None,
            answer: Answer::Json(of::<Health>(g)),
            authenticated: false,
            errors: &[],
        },
        Route {
            method: "get",
            path: "/metrics",
            summary: "What the server counts, for Prometheus (no key: it names no key, role or datasource)",
            body: None,
            answer: Answer::Metrics,
            authenticated: false,
            errors: &[],
        },
        Route {
            method: "get",
            path: "/api/v1/openapi.json",
            summary: "This document",
            body: None,
            answer: Answer::Json(json!({ "type": "object" })),
            authenticated: false,
            errors: &[],
        },
        Route {
            method: "post",
            path: "/api/v1/ask",
            summary: "Ask a question: the whole pipeline, its result with a cleaned trace",
            body: Some(of::<Question>(g)),
            answer: Answer::Json(of::<QueryResult>(g)),
            authenticated: true,
            errors: &[400, 403, 413, 415, 429, 503],
        },
        Route {
            method: "post",
            path: "/api/v1/ask/stream",
            summary: "Ask a question, the engine's events streamed, then the result",
            body: Some(of::<Question>(g)),
            answer: Answer::Events(streamed),
            authenticated: true,
            errors: &[400, 403, 413, 415, 429, 503],
        },
        Route {
            method: "post",
            path: "/api/v1/sql",
            summary: "SQL mode: one read-only query, checked like a plan, then run",
            body: Some(of::<SqlRequest>(g)),
            answer: Answer::Json(of::<SqlRun>(g)),
            authenticated: true,
            errors: &[400, 403, 404, 413, 415, 429, 503],
        },
        Route {
            method: "post",
            path: "/api/v1/route",
            summary: "Rank the datasources the role may reach for a question (no model call)",
            body: Some(of::<RouteRequest>(g)),
            answer: Answer::Json(of::<Routing>(g)),
            authenticated: true,
            errors: &[400, 403, 413, 415, 429, 502, 503],
        },
        Route {
            method: "get",
            path: "/api/v1/datasources",
            summary: "The datasources the key's role may reach, with the tables it may read",
            body: None,
            answer: Answer::Json(list),
            authenticated: true,
            errors: &[],
        },
        Route {
            method: "get",
            path: "/api/v1/datasources/{id}/schema",
            summary:
                "A datasource's tables, columns, keys and statistics, as the role may see them",
            body: None,
            answer: Answer::Json(of::<DatasourceInfo>(g)),
            authenticated: true,
            errors: &[404],
        },
        Route {
            method: "post",
            path: "/api/v1/feedback",
            summary: "Right or wrong on an answer; right proposes a verified query from its SQL",
            body: Some(of::<FeedbackRequest>(g)),
            answer: Answer::Json(of::<Recorded>(g)),
            authenticated: true,
            errors: &[400, 403, 404, 413, 415, 422],
        },
        Route {
            method: "get",
            path: "/api/v1/verified",
            summary: "The verified queries proposed from feedback (for a role that approves)",
            body: None,
            answer: Answer::Json(json!({ "type": "array", "items": of::<Proposal>(g) })),
            authenticated: true,
            errors: &[403],
        },
        Route {
            method: "post",
            path: "/api/v1/verified/{datasource}/{id}/approve",
            summary: "Approve a proposed verified query: it answers its questions from now on",
            body: None,
            answer: Answer::Json(of::<Proposal>(g)),
            authenticated: true,
            errors: &[403, 404],
        },
        Route {
            method: "put",
            path: "/api/v1/verified/{datasource}/{id}",
            summary: "Replace a proposal's query (checked against the datasource's schema)",
            body: Some(of::<VerifiedQuery>(g)),
            answer: Answer::Json(of::<Proposal>(g)),
            authenticated: true,
            errors: &[400, 403, 404, 413, 415, 422],
        },
        Route {
            method: "delete",
            path: "/api/v1/verified/{datasource}/{id}",
            summary: "Delete a proposal, approved or not",
            body: None,
            answer: Answer::Empty,
            authenticated: true,
            errors: &[403, 404],
        },
    ]
}

fn operation_id(method: &str, path: &str) -> String {
    let words: Vec<&str> = path
        .split(['/', '.', '{', '}'])
        .filter(|w| !w.is_empty() && *w != "api" && *w != "v1")
        .collect();
    format!("{method}_{}", words.join("_"))
}

fn description(status: u16) -> &'static str {
    match status {
        400 => "The body is not the JSON this route takes",
        401 => "No API key, or an unknown one",
        403 => "The request asks as a role its key may not take, or the role may not approve",
        404 => "No such datasource (or none the role may reach), or no such proposal",
        422 => "The SQL or the query cannot become a verified query",
        413 => "The body is too large",
        415 => "The body is not JSON",
        429 => "The key has as many runs in flight as it may",
        502 => "The schema index could not be searched",
        503 => "The engine cannot serve now",
        _ => "An error",
    }
}
