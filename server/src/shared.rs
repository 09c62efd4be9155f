//! What the HTTP API and the MCP tools share: the engine threads, the policies, the
//! datasources as read, and the limits — each front end only translates.

use crate::auth::Caller;
use crate::lanes::{Lanes, Reply, Work};
use crate::metrics::Metrics;
use crate::traces::Traces;
use crate::types::{
    ApiError, DatasourceSummary, ErrorBody, ErrorCode, FeedbackRequest, Question, RouteRequest,
    SqlRequest,
};
use crate::{Options, StartError};
use nl2sql_core::api::Streamed;
use nl2sql_core::config::engine_settings;
use nl2sql_core::config::Policies;
use nl2sql_core::error::Error;
use nl2sql_core::feedback::VerifiedQuery;
use nl2sql_core::feedback::{Answered, FeedbackBook, Given, Proposal, Recorded};
use nl2sql_core::result::Routing;
use nl2sql_core::result::SqlRun;
use nl2sql_core::result::{QueryResult, TraceForm};
use nl2sql_core::service::{verified_sql, DatasourceInfo};
use nl2sql_native::feedback_file;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

/// What a person who approves decides about a proposal.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Approve it.
    Approve,
    /// Replace its query.
    Edit(Box<VerifiedQuery>),
    /// Delete it.
    Delete,
}

/// An engine's refusal as the API's error: the same code, the same words.
fn api_error(e: Error) -> ApiError {
    ApiError::new(e.code, e.to_string())
}

/// Request and run limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Runs one key may have in flight at once.
    pub max_runs_per_key: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 1024 * 1024,
            max_runs_per_key: 4,
        }
    }
}

/// The engine as both front ends reach it.
pub struct Shared {
    lanes: Lanes,
    policies: Policies,
    limits: Limits,
    /// Why asks cannot run (the model's configuration is not usable), if so.
    model_problem: Option<String>,
    /// Runs in flight per key id.
    in_flight: Mutex<HashMap<String, Arc<Semaphore>>>,
    /// Feedback and the verified queries it proposed, and the file they are kept in.
    feedback: Mutex<FeedbackBook>,
    feedback_file: PathBuf,
    /// What `/metrics` reports.
    metrics: Arc<Metrics>,
    /// Where runs are traced to, when a collector is configured.
    traces: Option<Arc<Traces>>,
}

/// Sets its run's cancel flag when dropped, unless the run was seen to its end: a client
/// that goes away drops the future (or the stream) holding it.
pub struct CancelOnDrop {
    flag: Arc<AtomicBool>,
    armed: bool,
}

impl CancelOnDrop {
    fn new() -> CancelOnDrop {
        CancelOnDrop {
            flag: Arc::new(AtomicBool::new(false)),
            armed: true,
        }
    }

    /// The run ended and was delivered: nothing to cancel.
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.flag.store(true, Ordering::SeqCst);
        }
    }
}

/// A run admitted under its key's limit; the permit goes with the job to the engine
/// thread, which lets it go when the job is done.
pub struct Admitted {
    permit: Option<OwnedSemaphorePermit>,
    /// Cancels the run when dropped early.
    pub guard: CancelOnDrop,
}

impl Shared {
    /// Starts the engine threads over the databases `options` name; fails when they cannot
    /// be read or the provider configuration cannot be used.
    pub fn start(options: Options) -> Result<Shared, StartError> {
        // Without a usable model (no key, say) the server still serves SQL mode, routing and
        // schemas; asks say why they cannot run.
        let model_problem = engine_settings(&options.provider, &options.run)
            .err()
            .map(|e| e.message);
        if let Some(problem) = &model_problem {
            tracing::warn!(target: "nl2sql::serve", problem = %problem, "asks will be refused");
        }
        let sources = options.sources.sources().map_err(StartError)?;
        let policies = sources.policies();
        let feedback_file = feedback_file::feedback_path(&sources);
        let book = feedback_file::load(&feedback_file).map_err(|e| StartError(e.to_string()))?;
        let metrics = Arc::new(Metrics::new());
        let traces = (options.traces.as_deref())
            .map(Traces::start)
            .transpose()
            .map_err(StartError)?
            .map(Arc::new);
        if let Some(url) = &options.traces {
            tracing::info!(target: "nl2sql::serve", collector = %url, "traces of every run go to the collector");
        }
        let lanes = Lanes::start(
            &options.sources,
            (&options.provider, &options.run),
            options.lanes,
            options.retry,
            (Arc::clone(&metrics), traces.clone()),
        )
        .map_err(StartError)?;
        lanes.approved().set(book.approved());
        Ok(Shared {
            lanes,
            policies,
            limits: options.limits,
            model_problem,
            in_flight: Mutex::default(),
            feedback: Mutex::new(book),
            feedback_file,
            metrics,
            traces,
        })
    }

    /// Sends the traces still waiting (the server is stopping).
    pub fn flush_traces(&self) {
        if let Some(traces) = &self.traces {
            traces.flush();
        }
    }

    /// Right or Wrong as `caller` (or the narrower role named) on an answer from a
    /// datasource the role reaches. "Right" proposes a verified query from the answer's
    /// SQL, imported, checked for the role and rendered again here: SQL the role could not
    /// run is refused (VERIFIED_QUERY_INVALID), never stored.
    pub fn feedback(
        &self,
        caller: &Caller,
        request: FeedbackRequest,
    ) -> Result<Recorded, ApiError> {
        let role = self.role_for(caller, request.role.as_deref())?;
        self.schema(&request.datasource, &role)?;
        let full = self
            .full_schema(&request.datasource)
            .ok_or_else(|| ApiError::new(ErrorCode::DatasourceNotFound, "no such datasource"))?;
        let roles = [role.clone()];
        let checked = match &request.sql {
            Some(sql) => Some(
                verified_sql(sql, &full, &self.policies, &roles)
                    .map_err(|e| ApiError::new(e.code, e.message))?,
            ),
            None => None,
        };
        let answered = Answered {
            question: &request.question,
            datasource: Some(&request.datasource),
            plan: checked.as_ref().map(|(plan, _)| plan),
            sql: checked.as_ref().map(|(_, sql)| sql.as_str()),
            role: Some(&role),
            plannable: checked.is_some(),
        };
        let at = nl2sql_native::now_rfc3339();
        let by = format!("{} ({role})", caller.key_id);
        let mut held = self.feedback.lock().unwrap_or_else(PoisonError::into_inner);
        let mut book = held.clone();
        let recorded = book.record(
            Given {
                answered,
                verdict: request.verdict,
                comment: request.comment.as_deref(),
                by: &by,
                at: &at,
            },
            Some(&full),
        );
        self.keep(&book)?;
        *held = book;
        Ok(recorded)
    }

    /// The proposals, for a caller whose role approves.
    pub fn proposals(&self, caller: &Caller) -> Result<Vec<Proposal>, ApiError> {
        self.approver(caller)?;
        let book = self.feedback.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(book.proposals.clone())
    }

    /// Approves, edits (with `edit`) or deletes (`delete`) proposal `id` of `datasource` as
    /// `caller`, whose role must approve; the change is in force on every engine thread
    /// from its next job, and kept in the feedback file.
    pub fn decide(
        &self,
        caller: &Caller,
        (datasource, id): (&str, &str),
        decision: Decision,
    ) -> Result<Option<Proposal>, ApiError> {
        let role = self.approver(caller)?;
        let roles = [role.clone()];
        let scope = self.policies.scope(&roles);
        let mut held = self.feedback.lock().unwrap_or_else(PoisonError::into_inner);
        // Decided on a copy: nothing is in force, or held, that was not kept in the file.
        let mut book = held.clone();
        let decided = match decision {
            Decision::Approve => {
                let at = nl2sql_native::now_rfc3339();
                let by = format!("{} ({role})", caller.key_id);
                book.approve(datasource, id, &scope, &by, &at).map(Some)
            }
            Decision::Edit(query) => {
                let schema = self.full_schema(datasource).ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::FeedbackNotFound,
                        format!("no proposal {datasource}.{id}"),
                    )
                })?;
                book.edit(datasource, id, *query, &scope, &schema).map(Some)
            }
            Decision::Delete => book.delete(datasource, id, &scope).map(|()| None),
        }
        .map_err(api_error)?;
        self.keep(&book)?;
        self.lanes.approved().set(book.approved());
        *held = book;
        Ok(decided)
    }

    /// Datasource `id`'s whole schema as read (no role's view: for checking SQL a caller
    /// sent, never for showing).
    fn full_schema(&self, id: &str) -> Option<nl2sql_core::result::SchemaSnapshot> {
        let known = self.lanes.known();
        let found = known.datasources.iter().find(|d| d.id == id);
        found.map(|d| d.schema.clone())
    }

    /// The caller's role, when it approves (APPROVAL_NOT_ALLOWED otherwise).
    fn approver(&self, caller: &Caller) -> Result<String, ApiError> {
        let roles = [caller.role.clone()];
        if self.policies.scope(&roles).may_approve() {
            Ok(caller.role.clone())
        } else {
            Err(ApiError::new(ErrorCode::ApprovalNotAllowed, "Your role may not approve, edit or delete verified queries (the policies give that to roles with approves = true)."))
        }
    }

    /// Writes the book to its file.
    fn keep(&self, book: &FeedbackBook) -> Result<(), ApiError> {
        feedback_file::save(&self.feedback_file, book).map_err(|e| {
            tracing::error!(target: "nl2sql::serve", error = %e, "the feedback file was not written");
            ApiError::new(ErrorCode::Internal, "the feedback could not be kept")
        })
    }

    /// Who may read what.
    pub fn policies(&self) -> &Policies {
        &self.policies
    }

    /// What `/metrics` reports.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The request and run limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// How many engine threads serve runs.
    pub fn lanes(&self) -> usize {
        self.lanes.count()
    }

    /// The roles' names.
    pub fn role_names(&self) -> Vec<String> {
        self.policies.roles.keys().cloned().collect()
    }

    /// The policies' default role, if they name one.
    pub fn default_role(&self) -> Option<String> {
        self.policies.default_role.clone()
    }

    /// The role a request runs as: the caller's, or the one the request names when that
    /// role reads nothing the caller's cannot (ROLE_NOT_ALLOWED otherwise).
    pub fn role_for(&self, caller: &Caller, asked: Option<&str>) -> Result<String, ApiError> {
        let Some(asked) = asked.filter(|r| *r != caller.role) else {
            return Ok(caller.role.clone());
        };
        if !self.policies.roles.contains_key(asked) {
            return Err(ApiError::new(
                ErrorCode::RoleNotAllowed,
                format!("there is no role {asked:?}"),
            ));
        }
        let known = self.lanes.known();
        if crate::auth::narrows(
            &self.policies,
            (&known.datasources, &known.unavailable),
            &caller.role,
            asked,
        ) {
            Ok(asked.to_string())
        } else {
            Err(ApiError::new(
                ErrorCode::RoleNotAllowed,
                format!(
                    "this key may not ask as {asked:?}: a request may narrow its key's role, \
                     never widen it"
                ),
            ))
        }
    }

    /// Admits one more run for `caller` (TOO_MANY_RUNS past the key's limit).
    pub fn admit(&self, caller: &Caller) -> Result<Admitted, ApiError> {
        let semaphore = Arc::clone(
            self.in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(caller.key_id.clone())
                .or_insert_with(|| Arc::new(Semaphore::new(self.limits.max_runs_per_key))),
        );
        let permit = semaphore.try_acquire_owned().map_err(|_| {
            ApiError::new(
                ErrorCode::TooManyRuns,
                format!(
                    "this key has {} runs in flight already; wait for one to end",
                    self.limits.max_runs_per_key
                ),
            )
        })?;
        Ok(Admitted {
            permit: Some(permit),
            guard: CancelOnDrop::new(),
        })
    }

    /// Asks as `caller` (or the narrower role the request names), under the key's limit;
    /// the run is cancelled if this future is dropped before it ends (the client went away).
    pub async fn ask(&self, caller: &Caller, request: Question) -> Result<QueryResult, ApiError> {
        let (mut admitted, question) = self.admit_ask(caller, request)?;
        let work = Work::Ask {
            question,
            events: None,
        };
        let reply = self.submit(caller, &mut admitted, work).await?;
        admitted.guard.disarm();
        match reply {
            Reply::Ask(result) => Ok(*result),
            Reply::Refused(e) => Err(model_unavailable(&e.to_string())),
            other => Err(unexpected(&other)),
        }
    }

    /// [`Shared::ask`], the engine's events and then the result arriving on the receiver;
    /// the run is cancelled when the returned `Admitted` is dropped before the result was
    /// read (hold it with the stream).
    pub fn ask_streaming(
        &self,
        caller: &Caller,
        request: Question,
    ) -> Result<(Admitted, mpsc::UnboundedReceiver<Streamed>), ApiError> {
        let (mut admitted, question) = self.admit_ask(caller, request)?;
        let (tx, rx) = mpsc::unbounded_channel();
        let work = Work::Ask {
            question,
            events: Some(tx),
        };
        let (flag, permit) = (Arc::clone(&admitted.guard.flag), admitted.permit.take());
        self.lanes
            .submit(work, flag, permit, &caller.key_id)
            .map_err(|why| ApiError::new(ErrorCode::Unavailable, why))?;
        Ok((admitted, rx))
    }

    /// The roles, the admission and the question of an ask: each role named must narrow
    /// the key's (none named: the key's own), and the result is cleaned, a server's caller
    /// being across a trust boundary.
    fn admit_ask(
        &self,
        caller: &Caller,
        mut asked: Question,
    ) -> Result<(Admitted, Question), ApiError> {
        if let Some(problem) = &self.model_problem {
            return Err(model_unavailable(problem));
        }
        // Refused before it takes one of the key's runs (the engine refuses it too).
        if asked.question.trim().is_empty() {
            return Err(ApiError::new(
                ErrorCode::QuestionEmpty,
                "the question is empty: write what you want to know",
            ));
        }
        asked.roles = if asked.roles.is_empty() {
            vec![caller.role.clone()]
        } else {
            asked
                .roles
                .iter()
                .map(|role| self.role_for(caller, Some(role)))
                .collect::<Result<_, _>>()?
        };
        // As in SQL mode: a datasource none of the roles can reach is not confirmed to exist.
        if let Some(id) = &asked.datasource {
            if !asked.roles.iter().any(|role| self.schema(id, role).is_ok()) {
                self.schema(id, &caller.role)?;
            }
        }
        asked.trace = TraceForm::Cleaned;
        Ok((self.admit(caller)?, asked))
    }

    /// SQL mode as `caller` (or the narrower role named): on the datasource named, which
    /// the role must reach (DATASOURCE_NOT_FOUND otherwise, as for one that does not
    /// exist), else the first it may reach.
    pub async fn sql(&self, caller: &Caller, request: SqlRequest) -> Result<SqlRun, ApiError> {
        let role = self.role_for(caller, request.role.as_deref())?;
        let datasource = match request.datasource {
            Some(id) => Some(self.schema(&id, &role)?.id),
            None => self.ids(&role).into_iter().next(),
        };
        let mut admitted = self.admit(caller)?;
        let work = Work::Sql {
            sql: request.sql,
            datasource,
            role,
        };
        let reply = self.submit(caller, &mut admitted, work).await?;
        admitted.guard.disarm();
        match reply {
            Reply::Sql(run) => Ok(*run),
            other => Err(unexpected(&other)),
        }
    }

    /// Routing as `caller` (or the narrower role named), no model call.
    pub async fn route(&self, caller: &Caller, request: RouteRequest) -> Result<Routing, ApiError> {
        let role = self.role_for(caller, request.role.as_deref())?;
        let mut admitted = self.admit(caller)?;
        let work = Work::Route {
            question: request.question,
            role,
        };
        let reply = self.submit(caller, &mut admitted, work).await?;
        admitted.guard.disarm();
        match reply {
            Reply::Route(Ok(routing)) => Ok(routing),
            Reply::Route(Err(e)) => Err(ApiError::new(
                ErrorCode::SchemaRetrievalFailed,
                e.to_string(),
            )),
            other => Err(unexpected(&other)),
        }
    }

    async fn submit(
        &self,
        caller: &Caller,
        admitted: &mut Admitted,
        work: Work,
    ) -> Result<Reply, ApiError> {
        let (flag, permit) = (Arc::clone(&admitted.guard.flag), admitted.permit.take());
        let answer = self
            .lanes
            .submit(work, flag, permit, &caller.key_id)
            .map_err(|why| ApiError::new(ErrorCode::Unavailable, why))?;
        answer.await.map_err(|_| {
            ApiError::new(
                ErrorCode::Unavailable,
                "the engine thread serving this request stopped",
            )
        })
    }

    /// The datasources `role` may reach, each with the tables it may read; then those left
    /// out, each with its code and a sentence that names nothing of the server.
    pub fn datasources(&self, role: &str) -> Vec<DatasourceSummary> {
        let known = self.lanes.known();
        let read = known
            .datasources
            .iter()
            .filter_map(|d| self.visible(d, role));
        let read = read.map(|d| DatasourceSummary {
            tables: d.schema.tables.iter().map(|t| t.name.clone()).collect(),
            id: d.id,
            description: d.description,
            unavailable: None,
        });
        let scope = self.policies.scope(&[role.to_string()]);
        let left_out = known.unavailable.iter().filter(|u| scope.can_reach(&u.id));
        let left_out = left_out.map(|u| DatasourceSummary {
            id: u.id.clone(),
            description: String::new(),
            tables: Vec::new(),
            unavailable: Some(ErrorBody {
                code: u.code,
                message: format!("{}; the server tries it again every so often.", u.summary()),
            }),
        });
        read.chain(left_out).collect()
    }

    /// How many datasources are left out now.
    pub fn unavailable_count(&self) -> usize {
        self.lanes.known().unavailable.len()
    }

    /// Datasource `id` as `role` may see it: only the tables it may read, and no key that
    /// points at another (DATASOURCE_NOT_FOUND when it may reach none, as when there is no
    /// such datasource: a hidden datasource is not confirmed to exist).
    pub fn schema(&self, id: &str, role: &str) -> Result<DatasourceInfo, ApiError> {
        let known = self.lanes.known();
        let scope = self.policies.scope(&[role.to_string()]);
        let left_out = known.unavailable.iter().find(|u| u.id == id);
        if let Some(u) = left_out.filter(|u| scope.can_reach(&u.id)) {
            return Err(ApiError::new(
                u.code,
                format!("{}; the server tries it again every so often.", u.summary()),
            ));
        }
        known
            .datasources
            .iter()
            .find(|d| d.id == id)
            .and_then(|d| self.visible(d, role))
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::DatasourceNotFound,
                    format!(
                        "no datasource {id:?} (datasources: {})",
                        self.ids(role).join(", ")
                    ),
                )
            })
    }

    /// The ids of the datasources `role` may reach.
    pub fn ids(&self, role: &str) -> Vec<String> {
        self.datasources(role).into_iter().map(|d| d.id).collect()
    }

    fn visible(&self, d: &DatasourceInfo, role: &str) -> Option<DatasourceInfo> {
        d.seen_by(&self.policies, &[role.to_string()])
    }
}

fn model_unavailable(why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::ModelUnavailable,
        format!("this server cannot ask its model: {why}"),
    )
}

/// A reply that is not the one the request waits for: the engine failed on it.
fn unexpected(reply: &Reply) -> ApiError {
    ApiError::new(
        ErrorCode::Internal,
        match reply {
            Reply::Failed => "the engine failed on this request; the server logged it",
            _ => "the engine answered another kind of request",
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What no request can cause — every engine thread stopped, a run that panicked — is
    /// still said by code and status.
    #[test]
    fn an_engine_that_failed_is_internal_and_one_that_stopped_unavailable() {
        let failed = unexpected(&Reply::Failed);
        assert_eq!(failed.error.code, ErrorCode::Internal);
        assert_eq!(failed.error.code.http_status(), Some(500));
        assert!(failed.error.message.contains("logged"), "{failed}");
        let stopped = ApiError::new(ErrorCode::Unavailable, "the engine threads have stopped");
        assert_eq!(stopped.error.code.http_status(), Some(503));
    }
}
