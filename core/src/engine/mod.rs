//! The pipeline: a question in, a [`QueryResult`] out, every node traced.
//!
//! ```text
//! resolver ─┬─ answerability check ───────────────┐ (a refusal drops the planning)
//!           └─ retriever ─► planner ─► validator ─► generator ─► executor ─► answer
//!                              ▲                                     │
//!                              └──── rejected: the messages, direct ─┘
//! ```
//!
//! One datasource per question for now (the top-ranked one the verdict accepts); the
//! decomposer and aggregator for cross-database questions are still to come.
//! [`Engine::ask`] never fails and never panics: every problem is an error value in the
//! result.

mod across;
mod aggregate;
mod answer;
mod control;
pub mod decompose;
mod join;
pub mod llm;
mod model;
pub mod prompts;
mod replay;
mod result;
mod sanity;
mod settings;
mod solve;
mod verified;
mod write;

pub use control::{backoff_ms, CancelToken, Event, Events, Sleep};
pub use replay::{Divergence, Replay};
pub use result::{
    AnswerSource, CombinedRows, FinalAnswer, NodeRecord, NodeStatus, QueryResult, Status, SubQuery,
    UsageTotals, Writer,
};
pub use settings::{Agent, AnswerMode, EngineSettings, Feedback};
pub use verified::{Candidate, CuratedMatch, MatchReason, MATCH_FLOOR};

use crate::curated::Curated;
use crate::datasource::Datasource;
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::http::HttpTransport;
use crate::index::{retrieve, route, Clock, Embedder, Retrieval, SchemaIndex};
use crate::plan::{plan_json_schema, Plan};
use crate::policy::{Policies, Scope};
use crate::provider::chat::PriceTable;
use crate::provider::{Message, Role};
use crate::scratch::Scratch;
use llm::{structured, Budget, Caller, LlmCall, Structured};
use model::{Live, Model};
use serde_json::json;
use solve::Task;
use std::cell::RefCell;

/// How to ask.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AskOptions {
    /// The caller's roles (none: the policy's default role).
    pub roles: Vec<String>,
    /// Use this datasource, no routing.
    pub datasource: Option<String>,
    /// Validate and render, but do not run.
    pub plan_only: bool,
    /// Cancels the run.
    pub cancel: Option<CancelToken>,
    /// Receives the live events.
    pub events: Option<Events>,
}

/// The engine: datasources, their index, the policy, and the outside world's traits.
pub struct Engine<'a> {
    datasources: Vec<&'a dyn Datasource>,
    index: &'a SchemaIndex,
    embedder: &'a dyn Embedder,
    policies: &'a Policies,
    clock: &'a dyn Clock,
    settings: EngineSettings,
    prices: PriceTable,
    replay: Option<&'a Replay>,
    /// The provider, for calls not replayed.
    live: Live<'a>,
    sleep: Option<&'a dyn Sleep>,
    scratch: Option<&'a dyn Scratch>,
    curated: Option<&'a Curated>,
    /// Warnings about the set-up (a dropped verified query) that every result carries.
    notices: &'a [RunWarning],
}

/// What an engine is built from: the datasources, their index and its embedder, the
/// policy, and the outside world (HTTP, the clock).
pub struct Parts<'a> {
    /// The open datasources, each indexed in `index`.
    pub datasources: Vec<&'a dyn Datasource>,
    /// Their index.
    pub index: &'a SchemaIndex,
    /// The embedder that built the index.
    pub embedder: &'a dyn Embedder,
    /// Who may read what.
    pub policies: &'a Policies,
    /// HTTP to the model providers.
    pub transport: &'a dyn HttpTransport,
    /// Milliseconds, for timings.
    pub clock: &'a dyn Clock,
}

/// The parts of a run that accumulate as it goes.
struct Run<'c> {
    clock: &'c dyn Clock,
    started: u64,
    /// When the run must have ended, on the clock.
    deadline: u64,
    cancel: Option<CancelToken>,
    events: Option<Events>,
    trace: RefCell<Vec<NodeRecord>>,
    /// Model calls and dollars left, shared by calls made at the same time.
    budget: Budget,
}

impl Run<'_> {
    fn now(&self) -> u64 {
        self.clock.now_ms()
    }

    fn emit(&self, event: Event) {
        if let Some(events) = &self.events {
            (events.0)(&event);
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancelToken::is_cancelled)
    }

    /// Stops the run when it was cancelled or is out of time.
    fn check(&self, node: Node) -> Result<(), PipelineError> {
        if self.cancelled() {
            return Err(cancelled(node));
        }
        if self.now() >= self.deadline {
            return Err(timed_out(node));
        }
        Ok(())
    }

    /// A node begins: checked, then announced.
    fn enter(&self, node: Node, attempt: u32) -> Result<(), PipelineError> {
        self.check(node)?;
        self.emit(Event::NodeStarted { node, attempt });
        Ok(())
    }

    /// `agent` with its call timeout cut to the time the run has left.
    fn bounded(&self, agent: &Agent) -> Agent {
        let left = self.deadline.saturating_sub(self.now()).max(1);
        Agent {
            timeout_ms: agent.timeout_ms.min(left),
            ..agent.clone()
        }
    }

    /// What an error means once the run's own state is known: a call that failed because
    /// the run was cancelled or ran out of time says so.
    fn explain(&self, e: PipelineError) -> PipelineError {
        if self.cancelled() && e.error_code != ErrorCode::Cancelled {
            cancelled(e.node)
        } else if self.now() >= self.deadline
            && matches!(
                e.error_code,
                ErrorCode::ProviderTimeout | ErrorCode::Cancelled
            )
            && !self.cancelled()
        {
            timed_out(e.node)
        } else {
            e
        }
    }

    fn record(
        &self,
        node: Node,
        attempt: u32,
        span: (u64, u64),
        outputs: serde_json::Value,
        errors: Vec<PipelineError>,
        llm_calls: Vec<LlmCall>,
    ) {
        self.record_in(None, node, attempt, span, outputs, errors, llm_calls);
    }

    /// Records a node's execution for sub-query `sub` (or the run, with `None`).
    #[allow(clippy::too_many_arguments)]
    fn record_in(
        &self,
        sub: Option<&str>,
        node: Node,
        attempt: u32,
        (started, ended): (u64, u64),
        outputs: serde_json::Value,
        errors: Vec<PipelineError>,
        llm_calls: Vec<LlmCall>,
    ) {
        let status = if errors.iter().any(|e| e.severity.is_blocking()) {
            NodeStatus::Error
        } else {
            NodeStatus::Ok
        };
        let mut trace = self.trace.borrow_mut();
        let seq = u32::try_from(trace.len() + 1).unwrap_or(u32::MAX);
        for call in &llm_calls {
            self.emit(Event::LlmCall {
                node,
                model: call.model.clone(),
                latency_ms: call.latency_ms,
            });
        }
        self.emit(Event::NodeFinished {
            node,
            attempt,
            status,
            duration_ms: ended.saturating_sub(started),
        });
        trace.push(NodeRecord {
            seq,
            node,
            sub_query_id: sub.map(String::from),
            attempt,
            status,
            started_ms: started.saturating_sub(self.started),
            duration_ms: ended.saturating_sub(started),
            outputs,
            errors,
            llm_calls,
        });
    }
}

/// The first plan and the schema it was planned on, with when each was made.
struct Planned {
    retrieval: Retrieval,
    retrieved: (u64, u64),
    plan: Result<Plan, PipelineError>,
    planned: (u64, u64),
}

/// The verdict of the answerability check.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Verdict {
    datasources: Vec<String>,
    /// The answer needs several of them together.
    #[serde(default)]
    combine: bool,
    #[serde(default)]
    reason: String,
}

impl<'a> Engine<'a> {
    /// An engine over `parts` with `settings`.
    pub fn new(parts: Parts<'a>, settings: EngineSettings) -> Engine<'a> {
        let retries = settings.retries_max;
        Engine {
            datasources: parts.datasources,
            index: parts.index,
            embedder: parts.embedder,
            policies: parts.policies,
            clock: parts.clock,
            settings,
            prices: PriceTable::published(),
            replay: None,
            live: Live {
                transport: parts.transport,
                sleep: None,
                retries,
            },
            sleep: None,
            scratch: None,
            curated: None,
            notices: &[],
        }
    }

    /// Lets the host run its own work (a page paints the timeline) before the engine goes
    /// on: everything up to the first model call is synchronous, and a page only updates
    /// when the engine awaits. A no-op without a `Sleep`.
    pub(crate) async fn pause(&self) {
        if let Some(sleep) = self.sleep {
            sleep.sleep(0).await;
        }
    }

    /// Lets calls wait and try again (up to `retries_max` times, with backoff and jitter)
    /// when a provider is rate-limiting or unavailable.
    pub fn waiting_with(mut self, sleep: &'a dyn Sleep) -> Self {
        self.sleep = Some(sleep);
        self.live.sleep = Some(sleep);
        self
    }

    /// Combines the results of questions that span datasources in `scratch` (without one,
    /// such a question ends in an error saying so).
    pub fn combining_with(mut self, scratch: &'a dyn Scratch) -> Self {
        self.scratch = Some(scratch);
        self
    }

    /// Answers questions a verified query matches with it (see [`verified`]).
    pub fn with_verified(mut self, curated: &'a Curated) -> Self {
        self.curated = Some(curated);
        self
    }

    /// Adds `notices` (what the set-up dropped, and why) to every result's warnings.
    pub fn noting(mut self, notices: &'a [RunWarning]) -> Self {
        self.notices = notices;
        self
    }

    /// Answers every model call from `replay` instead of the provider.
    pub fn replaying(mut self, replay: &'a Replay) -> Self {
        self.replay = Some(replay);
        self
    }

    /// How a node calls the model: the recording when replaying, else the provider.
    fn caller<'c>(&'c self, now: llm::Now<'c>) -> Caller<'c> {
        let model: &dyn Model = match self.replay {
            Some(replay) => replay,
            None => &self.live,
        };
        Caller { model, now }
    }

    /// Uses `prices` for costs instead of the published table.
    pub fn with_prices(mut self, prices: PriceTable) -> Self {
        self.prices = prices;
        self
    }

    /// Answers `question`. Never fails: what went wrong is in the result.
    pub async fn ask(&self, question: &str, options: &AskOptions) -> QueryResult {
        let started = self.clock.now_ms();
        let run = Run {
            clock: self.clock,
            started,
            deadline: started.saturating_add(self.settings.timeout_ms),
            cancel: options.cancel.clone(),
            events: options.events.clone(),
            trace: RefCell::new(Vec::new()),
            budget: Budget::new(
                self.settings.max_llm_calls,
                self.settings.max_cost_usd,
                self.prices.clone(),
            ),
        };
        let mut result = QueryResult {
            status: Status::Error,
            question: question.to_string(),
            roles: options.roles.clone(),
            datasource: options.datasource.clone(),
            plan_only: options.plan_only,
            sub_queries: Vec::new(),
            final_answer: None,
            errors: Vec::new(),
            warnings: self.notices.to_vec(),
            usage: UsageTotals::default(),
            usage_by_node: Vec::new(),
            sequential_llm_calls: 0,
            routing: None,
            retrieval: None,
            decomposition: None,
            combined: None,
            curated: None,
            source: None,
            duration_ms: 0,
            trace: Vec::new(),
            replay_divergences: Vec::new(),
        };
        if let Err(e) = self.run(question, options, &run, &mut result).await {
            let e = run.explain(e);
            match e.error_code {
                ErrorCode::RunLimitReached => result.status = Status::Stopped,
                ErrorCode::PipelineTimeout => {
                    result.final_answer = Some(FinalAnswer {
                        text: format!(
                            "Sorry, I could not finish within {} seconds. Try a narrower question, or allow more time.",
                            self.settings.timeout_ms.div_ceil(1000)
                        ),
                        written_by: Writer::Template,
                    });
                }
                _ => {}
            }
            result.errors.push(e.for_client());
        }
        result.duration_ms = run.now().saturating_sub(run.started);
        result.trace = run.trace.into_inner();
        result.total_usage(&self.prices);
        if let Some(replay) = self.replay {
            result.replay_divergences = replay.divergences();
        }
        result
    }

    async fn run(
        &self,
        question: &str,
        options: &AskOptions,
        run: &Run<'_>,
        result: &mut QueryResult,
    ) -> Result<(), PipelineError> {
        let scope = self.policies.scope(&options.roles);
        run.enter(Node::DatasourceResolver, 0)?;
        self.pause().await;
        let candidates = self
            .candidates(question, options, &scope, run, result)
            .await?;
        let Some(first) = candidates.first().cloned() else {
            return Err(not_answerable("No datasource can answer this question."));
        };
        // A verified query answers before any model is asked to plan (plan-only runs want
        // a generated plan, so they skip it).
        if let (Some(curated), false) = (self.curated, options.plan_only) {
            if self
                .try_verified(curated, question, &candidates, &scope, run, result)
                .await?
            {
                return Ok(());
            }
        }

        // The check lists every datasource the caller may reach (only the chosen one when
        // the caller chose), so its prompt is byte-identical across questions for a role
        // and a provider can cache it; routing only orders what the verdict accepts.
        let listed: Vec<String> = match &options.datasource {
            Some(_) => candidates.clone(),
            None => {
                let mut all: Vec<String> = self
                    .datasources
                    .iter()
                    .map(|d| d.id().to_string())
                    .filter(|d| scope.can_reach(d))
                    .collect();
                all.sort();
                all
            }
        };
        // The answerability check and the planning of the best candidate run together (a
        // refusal returns at once and the planning is dropped), unless speculative planning
        // is off: then the planning waits for the check to accept.
        run.check(Node::DatasourceResolver)?;
        let check = self.answerability(question, &listed, &scope);
        let resolver = run.bounded(&self.settings.resolver);
        let planner = run.bounded(&self.settings.planner);
        let planning_started = || {
            run.emit(Event::NodeStarted {
                node: Node::SchemaRetriever,
                attempt: 0,
            });
            run.emit(Event::NodeStarted {
                node: Node::AstPlanner,
                attempt: 0,
            });
        };
        if self.settings.speculative_planning {
            planning_started();
        }
        let mut calls_check = Vec::new();
        let mut calls_plan = Vec::new();
        let first_task = Task {
            id: "q1".to_string(),
            question,
            part: None,
            datasource: &first,
        };
        let started = run.now();
        let (verdict, planned) = {
            let check = async {
                let started = self.clock.now_ms();
                let now = || self.clock.now_ms();
                let v = structured(
                    &self.caller(&now),
                    &resolver,
                    check,
                    &parse_verdict,
                    &mut calls_check,
                    &run.budget,
                )
                .await;
                (v, (started, self.clock.now_ms()))
            };
            let plan =
                self.retrieve_and_plan(&first_task, &scope, &planner, &mut calls_plan, &run.budget);
            // A refusal, or a failed check (a provider failure is fatal), ends the run.
            let refused = |(v, _): &(Result<Verdict, PipelineError>, (u64, u64))| {
                v.as_ref()
                    .map_or(true, |v: &Verdict| v.datasources.is_empty())
            };
            if self.settings.speculative_planning {
                join::join_unless(check, plan, refused).await
            } else {
                let verdict = check.await;
                let across = matches!(&verdict.0, Ok(v) if v.combine && v.datasources.len() > 1);
                if refused(&verdict) || across {
                    (verdict, None)
                } else {
                    planning_started();
                    (verdict, Some(plan.await))
                }
            }
        };
        let (verdict, check_span) = verdict;
        let verdict_outputs = match &verdict {
            Ok(v) => json!({"datasources": v.datasources, "reason": v.reason}),
            Err(_) => json!(null),
        };
        // What the verdict names among the listed, routing's order first.
        let accepted: Vec<String> = match &verdict {
            Ok(v) => candidates
                .iter()
                .chain(listed.iter().filter(|d| !candidates.contains(d)))
                .filter(|c| v.datasources.contains(c))
                .cloned()
                .collect(),
            Err(_) => Vec::new(),
        };
        let verdict_errors: Vec<PipelineError> = match &verdict {
            Err(e) => vec![e.clone()],
            Ok(v) if accepted.is_empty() => {
                let reason = v.reason.trim().trim_end_matches('.');
                let because = if reason.is_empty() {
                    String::new()
                } else {
                    format!(": {reason}")
                };
                vec![not_answerable(&format!(
                    "None of the datasources you may read can answer this question{because}."
                ))]
            }
            Ok(_) => vec![],
        };
        // The resolver's time runs from the start of the run (routing) to the verdict.
        run.record(
            Node::DatasourceResolver,
            0,
            (run.started, check_span.1),
            json!({"candidates": candidates, "verdict": verdict_outputs, "accepted": accepted}),
            verdict_errors.clone(),
            calls_check,
        );
        // The check, and the planning beside it; without speculative planning the first plan
        // waited for the check, one call after the other.
        let planned_after_check = !self.settings.speculative_planning && planned.is_some();
        result.sequential_llm_calls += 1 + u32::from(planned_after_check);
        if let Some(e) = verdict_errors.into_iter().next() {
            // Planning may have spent calls too; they are recorded, not used.
            if !calls_plan.is_empty() {
                run.record(
                    Node::AstPlanner,
                    0,
                    (started, run.now()),
                    json!({"dropped": "the question was refused"}),
                    vec![],
                    calls_plan,
                );
            }
            return Err(e);
        }

        let combine = matches!(&verdict, Ok(v) if v.combine) && accepted.len() > 1;
        if combine {
            if !calls_plan.is_empty() {
                run.record(
                    Node::AstPlanner,
                    0,
                    (started, run.now()),
                    json!({"dropped": "the question needs several datasources"}),
                    vec![],
                    std::mem::take(&mut calls_plan),
                );
            }
            return self
                .across(question, &accepted, &scope, options, run, result)
                .await;
        }
        run.check(Node::AstPlanner)?;
        let chosen = accepted.first().cloned().unwrap_or(first.clone());
        let task = Task {
            id: "q1".to_string(),
            question,
            part: None,
            datasource: &chosen,
        };
        let planned = match planned {
            Some(p) if chosen == first => p,
            // The verdict ruled the planned candidate out: plan on the one it chose.
            _ => {
                if !calls_plan.is_empty() {
                    run.record(
                        Node::AstPlanner,
                        0,
                        (started, run.now()),
                        json!({"dropped": format!("planned for {first}, which the verdict did not choose")}),
                        vec![],
                        std::mem::take(&mut calls_plan),
                    );
                }
                run.enter(Node::AstPlanner, 0)?;
                let planner = run.bounded(&self.settings.planner);
                let p = self
                    .retrieve_and_plan(&task, &scope, &planner, &mut calls_plan, &run.budget)
                    .await;
                result.sequential_llm_calls += 1;
                p
            }
        };
        let solved = self
            .solve(
                &task,
                &scope,
                Some((planned, calls_plan)),
                options.plan_only,
                run,
            )
            .await;
        result.retrieval = solved.retrieval;
        result.warnings.extend(solved.warnings);
        result.sequential_llm_calls += solved.sequential;
        let sub = solved.sub;
        result.sub_queries.push(sub.clone());
        solved.outcome?;
        if options.plan_only {
            result.status = Status::PlanOnly;
            return Ok(());
        }
        self.write_answer(
            question,
            &sub.columns,
            &sub.rows,
            sub.truncated,
            run,
            result,
        )
        .await
    }

    /// Candidates in order, after the explicit choice, routing and the role check.
    async fn candidates(
        &self,
        question: &str,
        options: &AskOptions,
        scope: &Scope<'_>,
        run: &Run<'_>,
        result: &mut QueryResult,
    ) -> Result<Vec<String>, PipelineError> {
        let started = run.now();
        let resolver = |code, severity, message: String| {
            PipelineError::new(Node::DatasourceResolver, code, severity, message)
        };
        let registered: Vec<&str> = self.datasources.iter().map(|d| d.id()).collect();
        let outcome = if let Some(id) = &options.datasource {
            if !registered.contains(&id.as_str()) || self.index.schema(id).is_none() {
                Err(resolver(
                    ErrorCode::InvalidState,
                    Severity::Error,
                    format!(
                        "There is no datasource {id:?}; the datasources are {}.",
                        registered.join(", ")
                    ),
                ))
            } else {
                Ok(vec![id.clone()])
            }
        } else if registered.len() == 1 {
            Ok(registered.iter().map(|s| s.to_string()).collect())
        } else {
            let reachable = registered.iter().any(|d| scope.can_reach(d));
            if !reachable {
                Ok(vec![])
            } else {
                match route(
                    self.index,
                    self.embedder,
                    question,
                    scope,
                    &self.settings.routing,
                )
                .await
                {
                    Ok(r) => {
                        let ranked = r.ranked.clone();
                        result.routing = Some(r);
                        Ok(ranked)
                    }
                    Err(e) => Err(e.into_error(Node::DatasourceResolver)),
                }
            }
        };
        let outcome = outcome.and_then(|c| {
            let allowed: Vec<String> = c.into_iter().filter(|d| scope.can_reach(d)).collect();
            if allowed.is_empty() {
                Err(resolver(
                    ErrorCode::SecurityViolation,
                    Severity::Critical,
                    crate::validate::REFUSAL_MESSAGE.to_string(),
                ))
            } else {
                Ok(allowed)
            }
        });
        let outputs = match &outcome {
            Ok(c) => json!({"candidates": c, "explicit": options.datasource}),
            Err(_) => json!(null),
        };
        if let Err(e) = &outcome {
            run.record(
                Node::DatasourceResolver,
                0,
                (started, run.now()),
                outputs,
                vec![e.clone()],
                vec![],
            );
        }
        outcome
    }

    fn answerability(
        &self,
        question: &str,
        candidates: &[String],
        scope: &Scope<'_>,
    ) -> Structured<'static> {
        let listed: Vec<(&str, &str, Vec<String>)> = candidates
            .iter()
            .filter_map(|id| {
                let schema = self.index.schema(id)?;
                let description = self.index.description(id).unwrap_or_default();
                let tables = schema
                    .tables
                    .iter()
                    .filter(|t| scope.can_read(id, &t.name))
                    .map(|t| t.name.clone())
                    .collect();
                Some((id.as_str(), description, tables))
            })
            .collect();
        Structured {
            node: Node::DatasourceResolver,
            name: "answerability",
            description: "Which datasources could answer the question.",
            schema: prompts::answerability_schema(),
            system: prompts::answerability_system(&listed),
            messages: vec![Message {
                role: Role::User,
                content: prompts::answerability_user(question),
            }],
        }
    }

    /// Retrieves the schema for `datasource` and asks for the first plan.
    async fn retrieve_and_plan(
        &self,
        task: &Task<'_>,
        scope: &Scope<'_>,
        agent: &Agent,
        calls: &mut Vec<LlmCall>,
        budget: &Budget,
    ) -> Planned {
        let started = self.clock.now_ms();
        let datasource = task.datasource;
        // A part is found by its own words; the planner still reads the whole question.
        let query = task.part.map_or(task.question, |p| p.question.as_str());
        let retrieved = retrieve(
            self.index,
            self.embedder,
            datasource,
            query,
            scope,
            &self.settings.retrieval,
            false,
        )
        .await;
        let retrieved_at = (started, self.clock.now_ms());
        let retrieval = match retrieved {
            Ok(r) => r,
            Err(e) => {
                return Planned {
                    retrieval: Retrieval {
                        datasource: datasource.to_string(),
                        tables: vec![],
                        columns: vec![],
                        values: vec![],
                        full_snapshot: false,
                    },
                    retrieved: retrieved_at,
                    plan: Err(e.into_error(Node::SchemaRetriever)),
                    planned: (retrieved_at.1, retrieved_at.1),
                };
            }
        };
        let plan = self
            .ask_planner(task, &retrieval, agent, Vec::new(), calls, budget)
            .await;
        Planned {
            retrieval,
            retrieved: retrieved_at,
            plan,
            planned: (retrieved_at.1, self.clock.now_ms()),
        }
    }

    /// Asks for a plan for `question` on the schema `retrieval` chose (and its
    /// datasource), after the conversation so far (`history`: rejected plans and why).
    async fn ask_planner(
        &self,
        task: &Task<'_>,
        retrieval: &Retrieval,
        agent: &Agent,
        history: Vec<Message>,
        calls: &mut Vec<LlmCall>,
        budget: &Budget,
    ) -> Result<Plan, PipelineError> {
        let datasource = retrieval.datasource.as_str();
        let Some(schema) = self.index.schema(datasource) else {
            return Err(PipelineError::new(
                Node::AstPlanner,
                ErrorCode::InvalidState,
                Severity::Error,
                format!("The datasource {datasource} is not in the index."),
            ));
        };
        let today = self.settings.validator.lower.today.as_deref();
        let mut messages = vec![Message {
            role: Role::User,
            content: prompts::planner_user(today, schema, retrieval, task.question, task.part),
        }];
        messages.extend(history);
        let now = || self.clock.now_ms();
        structured(
            &self.caller(&now),
            agent,
            Structured {
                node: Node::AstPlanner,
                name: "plan",
                description: "The query plan that answers the question.",
                schema: plan_json_schema(),
                system: prompts::PLANNER_SYSTEM.to_string(),
                messages,
            },
            &|text| serde_json::from_str::<Plan>(text).map_err(|e| e.to_string()),
            calls,
            budget,
        )
        .await
    }
}

fn parse_verdict(text: &str) -> Result<Verdict, String> {
    serde_json::from_str::<Verdict>(text).map_err(|e| e.to_string())
}

fn not_answerable(message: &str) -> PipelineError {
    PipelineError::new(
        Node::DatasourceResolver,
        ErrorCode::QuestionNotAnswerable,
        Severity::Error,
        message,
    )
}

fn cancelled(node: Node) -> PipelineError {
    PipelineError::new(
        node,
        ErrorCode::Cancelled,
        Severity::Error,
        "The run was cancelled.",
    )
}

fn timed_out(node: Node) -> PipelineError {
    PipelineError::new(
        node,
        ErrorCode::PipelineTimeout,
        Severity::Error,
        "The run took longer than its time limit.",
    )
}
