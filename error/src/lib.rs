//! The error contract: every failure is a value with a stable code, a severity and the
//! node that found it. Nothing in the engine panics or throws to report a problem.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The refusal every denied table gets unless a policy's `refusal_names_tables` is on. It
/// names nothing: what a role may not read is itself not for that role to learn.
pub const REFUSAL_MESSAGE: &str =
    "You do not have permission to see the data this question requires.";

/// How bad an error is. Decides, with the code, whether a retry may help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    /// For the record only.
    Info,
    /// Reported, but the run goes on.
    Warning,
    /// Blocks this attempt; a retry may fix it unless the code is fatal.
    Error,
    /// Blocks the run; never retried.
    Critical,
}

impl Severity {
    /// True for `Error` and `Critical`: the step did not succeed.
    pub fn is_blocking(self) -> bool {
        self >= Severity::Error
    }
}

/// Declares [`ErrorCode`] from one table: each code's variant, its written form, its HTTP
/// status when it ends a request, and its documentation, once.
macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $text:literal, $status:expr;)*) => {
        /// The stable codes: one vocabulary for the engine, the HTTP API and MCP, the
        /// workspace, feedback, the npm package and a page that uses a server. Every member
        /// is produced by something (`tests/tests/error_codes.rs` names each producer).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ErrorCodeName"))]
        #[cfg_attr(
            feature = "schema",
            derive(schemars::JsonSchema),
            schemars(rename = "ErrorCodeName")
        )]
        pub enum ErrorCode {
            $($(#[$doc])* #[serde(rename = $text)] $variant,)*
        }

        impl ErrorCode {
            /// Every member, in the table's order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as written on the wire, e.g. `TABLE_NOT_FOUND`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $text,)*
                }
            }

            /// The HTTP status a response carries when this code ends the request (`None`:
            /// the code only appears inside a result, which is sent with 200).
            pub fn http_status(self) -> Option<u16> {
                match self {
                    $(ErrorCode::$variant => $status,)*
                }
            }
        }
    };
}

codes! {
    // The plan and its checks.
    /// The validator was handed no plan.
    MissingPlan = "MISSING_PLAN", None;
    /// The plan is malformed, uses an unsupported construct, or cannot be built into SQL.
    InvalidPlanStructure = "INVALID_PLAN_STRUCTURE", None;
    /// A function name that is not on the allow-list.
    UnsupportedFunction = "UNSUPPORTED_FUNCTION", None;
    /// A table the schema does not have.
    TableNotFound = "TABLE_NOT_FOUND", None;
    /// A column reference that resolves to no column, or to several.
    ColumnNotFound = "COLUMN_NOT_FOUND", None;
    /// A join names an alias the plan does not declare.
    JoinTableNotInPlan = "JOIN_TABLE_NOT_IN_PLAN", None;
    /// A join compares columns whose types cannot match (a date with a number, say).
    JoinKeyTypeMismatch = "JOIN_KEY_TYPE_MISMATCH", None;
    /// A warning: a join on columns no foreign key relates, allowed because their types agree.
    UndeclaredJoin = "UNDECLARED_JOIN", None;
    /// The caller may not read a table the plan needs, or the SQL is not one read-only query.
    SecurityViolation = "SECURITY_VIOLATION", None;
    /// SQL given to the importer does not parse, or uses something no plan can express.
    SqlImportFailed = "SQL_IMPORT_FAILED", None;

    // Running a query, and what its rows show.
    /// The database rejected the query itself; a different query can succeed.
    ExecutionFailed = "EXECUTION_FAILED", None;
    /// The database could not or would not run the query; fatal.
    DbExecutionError = "DB_EXECUTION_ERROR", None;
    /// A query ran past its time limit (`query_timeout_ms`) and the database stopped it;
    /// fatal, since a retry would wait as long again.
    QueryTimeout = "QUERY_TIMEOUT", None;
    /// A warning: the result reached the row cap, so rows may be missing.
    ResultTruncated = "RESULT_TRUNCATED", None;
    /// An empty result whose filter names a value its column does not hold: an error (the
    /// planner is asked once more, with the closest values) or, with none close, a warning.
    ValueNotFound = "VALUE_NOT_FOUND", None;
    /// A warning: a result column is NULL in every row.
    AllNullColumn = "ALL_NULL_COLUMN", None;
    /// A warning: join keys from one datasource that do not convert to the key's kind (a
    /// text key that is not a number, joined to a numeric key) and so matched nothing.
    JoinKeyUnconverted = "JOIN_KEY_UNCONVERTED", None;
    /// A join repeats the rows an aggregate reads, so COUNT, SUM or AVG over-counts: an
    /// error under COUNT (the planner is asked once more), a warning under SUM and AVG.
    JoinFanOut = "JOIN_FAN_OUT", None;

    // Schemas and the index.
    /// A datasource's live schema differs from the one the index was built from, and the
    /// mismatch policy says `fail`.
    InvalidState = "INVALID_STATE", None;
    /// A warning: a datasource's live schema differs from the indexed one (policy `warn`).
    SchemaChanged = "SCHEMA_CHANGED", None;
    /// A warning: a table's statistics or text values were not read when its datasource was
    /// opened (reading them ran past the read time limit); questions about it still run,
    /// with less for routing, retrieval and value linking to go on.
    StatisticsIncomplete = "STATISTICS_INCOMPLETE", None;
    /// A warning: routing's first two datasources matched the question about equally well
    /// (the second came first in as many signals as the first, or in at least one and one
    /// fewer), so the answer names both and how to ask the other.
    RoutingCloseCall = "ROUTING_CLOSE_CALL", None;
    /// The schema index could not be searched (an embedder failed, or the breaker is open).
    SchemaRetrievalFailed = "SCHEMA_RETRIEVAL_FAILED", Some(502);
    /// The schema index could not be built (the embedder failed while indexing).
    IndexBuildFailed = "INDEX_BUILD_FAILED", None;

    // The model provider.
    /// The model provider refused the key (HTTP 401 or 403).
    ProviderAuthFailed = "PROVIDER_AUTH_FAILED", None;
    /// The model provider is limiting the rate of requests (HTTP 429).
    ProviderRateLimited = "PROVIDER_RATE_LIMITED", None;
    /// The account's quota or credit is used up (HTTP 429, `insufficient_quota`).
    ProviderQuotaExceeded = "PROVIDER_QUOTA_EXCEEDED", None;
    /// The model provider did not answer in time (HTTP 408, or the call's timeout).
    ProviderTimeout = "PROVIDER_TIMEOUT", None;
    /// The model provider could not be reached or failed (HTTP 5xx, connection errors).
    ProviderUnavailable = "PROVIDER_UNAVAILABLE", None;
    /// The model provider does not offer the model to this key (HTTP 404, `model_not_found`).
    ProviderModelUnavailable = "PROVIDER_MODEL_UNAVAILABLE", None;
    /// A model's structured answer still did not parse after the parse retries.
    ModelOutputInvalid = "MODEL_OUTPUT_INVALID", None;

    // The run.
    /// The caller cancelled the run (or the MCP tool call: 499, never sent over HTTP, where
    /// the client has gone).
    Cancelled = "CANCELLED", Some(499);
    /// The question is empty, or only spaces: it is refused before any model is asked.
    QuestionEmpty = "QUESTION_EMPTY", Some(400);
    /// No datasource the caller may read can answer the question.
    QuestionNotAnswerable = "QUESTION_NOT_ANSWERABLE", None;
    /// The question needs more sub-queries than `max_sub_queries` allows.
    QuestionTooBroad = "QUESTION_TOO_BROAD", None;
    /// The run reached `max_llm_calls` (or its cost limit).
    RunLimitReached = "RUN_LIMIT_REACHED", None;
    /// The run took longer than its time limit (`timeout_s`).
    PipelineTimeout = "PIPELINE_TIMEOUT", None;
    /// A warning: the written answer names numbers or names the result does not hold.
    AnswerNotGrounded = "ANSWER_NOT_GROUNDED", None;
    /// The refiner's advice went to the planner before its retry (a warning for the trace).
    PlanFeedback = "PLAN_FEEDBACK", None;
    /// The refiner could not give advice (its answer could not be used); the planner
    /// retried with the rejection's own words instead.
    RefinerFailed = "REFINER_FAILED", None;

    // Configuration and datasources.
    /// A configuration (provider, run settings, policies, verified queries, a project file)
    /// cannot be used as given: an error where it stops a front end, a warning where one
    /// part of it was dropped and the rest kept.
    ConfigInvalid = "CONFIG_INVALID", Some(400);
    /// The question, the SQL or a step names a datasource the engine does not have, or one
    /// the caller may not reach.
    DatasourceNotFound = "DATASOURCE_NOT_FOUND", Some(404);
    /// A datasource id that is not a plain name (letters, digits, `_`, `-`).
    DatasourceIdInvalid = "DATASOURCE_ID_INVALID", Some(400);
    /// A datasource id already in use.
    DatasourceIdTaken = "DATASOURCE_ID_TAKEN", Some(409);
    /// A datasource that cannot be opened or read: not a database, corrupt, unreachable.
    DatasourceUnreadable = "DATASOURCE_UNREADABLE", Some(503);
    /// A database server that could not be reached: nothing listens at its address, its
    /// host is unknown, or connecting timed out.
    DatasourceUnreachable = "DATASOURCE_UNREACHABLE", Some(503);
    /// A database server that refused the login (a wrong user or password, or a user not
    /// allowed that database).
    DatasourceAuthFailed = "DATASOURCE_AUTH_FAILED", Some(503);
    /// A datasource with no tables (or none its project file admits): nothing to ask about.
    DatasourceEmpty = "DATASOURCE_EMPTY", Some(503);

    // Feedback and verified queries.
    /// No proposed verified query has this id.
    FeedbackNotFound = "FEEDBACK_NOT_FOUND", Some(404);
    /// The caller's role may not approve, edit or delete verified queries.
    ApprovalNotAllowed = "APPROVAL_NOT_ALLOWED", Some(403);
    /// The SQL or the edited query cannot become a verified query.
    VerifiedQueryInvalid = "VERIFIED_QUERY_INVALID", Some(422);
    /// A stored feedback book cannot be read.
    FeedbackUnreadable = "FEEDBACK_UNREADABLE", Some(422);

    // Requests to a server (the HTTP API and MCP).
    /// No API key, or one the server does not know.
    Unauthorized = "UNAUTHORIZED", Some(401);
    /// The request asks as a role its key may not take.
    RoleNotAllowed = "ROLE_NOT_ALLOWED", Some(403);
    /// The key has as many runs in flight as it may.
    TooManyRuns = "TOO_MANY_RUNS", Some(429);
    /// The body is not the JSON the route takes.
    BadRequest = "BAD_REQUEST", Some(400);
    /// The body is larger than the server takes.
    PayloadTooLarge = "PAYLOAD_TOO_LARGE", Some(413);
    /// The body is not JSON.
    UnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE", Some(415);
    /// No such route.
    NotFound = "NOT_FOUND", Some(404);
    /// The method is not one the route takes.
    MethodNotAllowed = "METHOD_NOT_ALLOWED", Some(405);
    /// The engine cannot serve now.
    Unavailable = "UNAVAILABLE", Some(503);
    /// Asks need a model, and the server's is not usable (no key, say); everything else
    /// still works.
    ModelUnavailable = "MODEL_UNAVAILABLE", Some(503);
    /// Something the server did not expect (a run that panicked, say).
    Internal = "INTERNAL", Some(500);

    // A page (or the npm package) using a server as its engine.
    /// The server could not be reached.
    ServerUnreachable = "SERVER_UNREACHABLE", None;
    /// The server did not answer in time.
    ServerTimeout = "SERVER_TIMEOUT", None;
    /// The server's answer could not be read.
    ServerResponseUnreadable = "SERVER_RESPONSE_UNREADABLE", None;

    // The npm package itself.
    /// An engine was used after its `free()`: a new one is needed.
    EngineFreed = "ENGINE_FREED", None;

    // Outside the engine: the command line's own work.
    /// `nl2sql copy` could not copy a database.
    CopyFailed = "COPY_FAILED", None;
}

impl ErrorCode {
    /// Codes no retry can fix, whatever their severity. Every provider failure is fatal: a
    /// retry would make the same call to the same provider with the same key (a rate limit
    /// is waited out by the call itself, not by a new plan).
    pub fn is_fatal(self) -> bool {
        matches!(
            self,
            ErrorCode::SecurityViolation
                | ErrorCode::DbExecutionError
                | ErrorCode::InvalidState
                | ErrorCode::ProviderAuthFailed
                | ErrorCode::ProviderRateLimited
                | ErrorCode::ProviderQuotaExceeded
                | ErrorCode::ProviderTimeout
                | ErrorCode::ProviderUnavailable
                | ErrorCode::ProviderModelUnavailable
                | ErrorCode::RunLimitReached
                | ErrorCode::QuestionTooBroad
                | ErrorCode::ConfigInvalid
                | ErrorCode::DatasourceNotFound
                | ErrorCode::QueryTimeout
                | ErrorCode::DatasourceUnreachable
                | ErrorCode::DatasourceAuthFailed
        )
    }

    /// The message callers see instead of the internal one, for codes whose details (a
    /// database's words, file paths) must not leave the engine.
    pub fn safe_message(self) -> Option<&'static str> {
        match self {
            ErrorCode::DbExecutionError => Some(
                "The database could not run the query. Try again later or ask an administrator.",
            ),
            _ => None,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The pipeline step that raised an error or a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "NodeName"))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "NodeName")
)]
#[serde(rename_all = "snake_case")]
pub enum Node {
    /// Turns SQL into a plan.
    SqlImport,
    /// Checks a plan against the schema and the caller's role.
    LogicalValidator,
    /// Renders a validated plan as SQL.
    Generator,
    /// Runs the SQL.
    Executor,
    /// Answers a question with a verified query when one matches.
    CuratedMatcher,
    /// Picks the datasources a question goes to.
    DatasourceResolver,
    /// Picks the tables, columns and values the planner sees.
    SchemaRetriever,
    /// Asks the model for a plan.
    AstPlanner,
    /// Splits a question that needs several datasources into sub-queries.
    Decomposer,
    /// Combines the sub-queries' results.
    Aggregator,
    /// Turns a rejection into advice for the planner (`feedback = refiner`).
    Refiner,
    /// Writes the answer.
    AnswerSynthesizer,
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Node::SqlImport => "sql_import",
            Node::LogicalValidator => "logical_validator",
            Node::Generator => "generator",
            Node::Executor => "executor",
            Node::CuratedMatcher => "curated_matcher",
            Node::DatasourceResolver => "datasource_resolver",
            Node::SchemaRetriever => "schema_retriever",
            Node::AstPlanner => "ast_planner",
            Node::Decomposer => "decomposer",
            Node::Aggregator => "aggregator",
            Node::Refiner => "refiner",
            Node::AnswerSynthesizer => "answer_synthesizer",
        })
    }
}

/// One failure, as every caller (trace, UI, command line) receives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PipelineError {
    /// Where it happened.
    pub node: Node,
    /// One plain sentence (or a few) saying what is wrong and, where possible, how to fix it.
    pub message: String,
    /// How bad it is.
    pub severity: Severity,
    /// The stable code.
    pub error_code: ErrorCode,
    /// The model provider as a person names it, on provider failures only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The provider's own words, keys redacted, on provider failures only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_response: Option<String>,
    /// Structured facts for the trace (never shown as the message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
}

impl PipelineError {
    /// An error with no provider and no details.
    pub fn new(
        node: Node,
        error_code: ErrorCode,
        severity: Severity,
        message: impl Into<String>,
    ) -> Self {
        PipelineError {
            node,
            message: message.into(),
            severity,
            error_code,
            provider: None,
            provider_response: None,
            details: None,
        }
    }

    /// The same error carrying details for the trace.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }

    /// May a retry (a new plan, a new query) fix this?
    pub fn is_retryable(&self) -> bool {
        self.severity != Severity::Critical && !self.error_code.is_fatal()
    }

    /// The message, when a caller across a trust boundary reads another in its place (a
    /// database's own words): a prompt that quotes it withholds it too in a cleaned trace.
    pub fn withheld_message(&self) -> Option<&str> {
        (boundary_message(self.error_code, &self.message) != self.message)
            .then_some(self.message.as_str())
    }

    /// What a caller outside the engine may see: the safe message for codes that have one,
    /// and no details.
    pub fn for_client(&self) -> PipelineError {
        PipelineError {
            message: self
                .error_code
                .safe_message()
                .map_or_else(|| self.message.clone(), str::to_string),
            details: None,
            ..self.clone()
        }
    }
}

/// What a caller across a trust boundary reads instead of `message`: a refusal that names
/// nothing, a fixed sentence where the message carries the database's own words, the safe
/// message where a code has one, else the message itself.
fn boundary_message(code: ErrorCode, message: &str) -> String {
    match code {
        ErrorCode::SecurityViolation => REFUSAL_MESSAGE.to_string(),
        ErrorCode::ExecutionFailed => "The database rejected the query.".to_string(),
        _ => code
            .safe_message()
            .map_or_else(|| message.to_string(), str::to_string),
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.error_code, self.node, self.message)
    }
}

impl std::error::Error for PipelineError {}

/// What of a value a caller across a trust boundary may see (a server's or MCP's client,
/// where the engine's owner is not the one asking): the value itself, with whatever that
/// caller may not learn taken out. Derived with `nl2sql_derive::Clean`, a field is hidden
/// unless its type marks it `keep` (or `nested`), so a field added later is hidden until
/// someone decides; written by hand, an impl names every field.
pub trait Clean {
    /// The value as the caller across `boundary` may see it.
    fn cleaned(self, boundary: &Boundary) -> Self;
}

/// Where a value being cleaned sits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Boundary {
    /// The value belongs to a plan the policy refused, or to planning whose plan was never
    /// checked (dropped): what the model wrote there may name what the caller may not read,
    /// so it is withheld.
    pub refused: bool,
}

impl<T: Clean> Clean for Vec<T> {
    fn cleaned(self, boundary: &Boundary) -> Self {
        self.into_iter().map(|v| v.cleaned(boundary)).collect()
    }
}

impl<T: Clean> Clean for Option<T> {
    fn cleaned(self, boundary: &Boundary) -> Self {
        self.map(|v| v.cleaned(boundary))
    }
}

impl<T: Clean> Clean for Box<T> {
    fn cleaned(self, boundary: &Boundary) -> Self {
        Box::new((*self).cleaned(boundary))
    }
}

/// [`PipelineError::for_client`], and a refusal that names no table, role or rule whatever
/// the policy's `refusal_names_tables`.
impl Clean for PipelineError {
    fn cleaned(self, _: &Boundary) -> PipelineError {
        let PipelineError {
            node,
            message,
            severity,
            error_code,
            provider,
            provider_response,
            details: _,
        } = self;
        // The read-only guard's refusal of a caller's own SQL names the statement's kind
        // (a DELETE, two statements), never a table or a rule: it stays, so the caller
        // learns why.
        let guard = node == Node::SqlImport && error_code == ErrorCode::SecurityViolation;
        PipelineError {
            message: if guard {
                message
            } else {
                boundary_message(error_code, &message)
            },
            node,
            severity,
            error_code,
            provider,
            provider_response,
            details: None,
        }
    }
}

/// The safe message for codes that have one, and no detail.
impl Clean for RunWarning {
    fn cleaned(self, _: &Boundary) -> RunWarning {
        let RunWarning {
            code,
            node,
            message,
            sub_query_id,
            detail: _,
            recovered,
        } = self;
        RunWarning {
            message: boundary_message(code, &message),
            code,
            node,
            sub_query_id,
            detail: None,
            recovered,
        }
    }
}

/// Something the answer should mention although the run went on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunWarning {
    /// The stable code.
    pub code: ErrorCode,
    /// Where it was found.
    pub node: Node,
    /// One plain sentence.
    pub message: String,
    /// The sub-query it concerns, in multi-part runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_query_id: Option<String>,
    /// Structured facts for the trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<serde_json::Value>,
    /// An earlier attempt's error that a retry got past: the answer stands, the trace
    /// says what it took.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recovered: bool,
}

impl RunWarning {
    /// A warning with no sub-query and no detail.
    pub fn new(node: Node, code: ErrorCode, message: impl Into<String>) -> Self {
        RunWarning {
            code,
            node,
            message: message.into(),
            sub_query_id: None,
            detail: None,
            recovered: false,
        }
    }

    /// `error`, which a later attempt got past.
    pub fn recovered(error: PipelineError) -> Self {
        RunWarning {
            recovered: true,
            ..RunWarning::from(error)
        }
    }
}

impl From<PipelineError> for RunWarning {
    fn from(e: PipelineError) -> Self {
        RunWarning {
            code: e.error_code,
            node: e.node,
            message: e.message,
            sub_query_id: None,
            detail: e.details,
            recovered: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_is_written_as_serde_writes_it_and_read_back() {
        for &code in ErrorCode::ALL {
            let written = serde_json::to_string(&code).unwrap_or_default();
            assert_eq!(written, format!("\"{}\"", code.as_str()));
            let read: ErrorCode = serde_json::from_str(&written).unwrap_or(ErrorCode::Internal);
            assert_eq!(read, code);
            if let Some(status) = code.http_status() {
                assert!((400..600).contains(&status), "{code}: {status}");
            }
        }
        let mut names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names.len(),
            ErrorCode::ALL.len(),
            "every code is written once"
        );
    }
}
