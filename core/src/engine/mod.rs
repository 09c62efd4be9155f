//! The pipeline: a question in, a [`QueryResult`] out, every node traced.
//!
//! ```text
//! resolver ─► curated matcher ─(a verified query answers)──────────────────► answer
//!    │ (routing)      │ fallback
//!    ▼                ▼
//! answerability check ∥ retriever ─► planner   (a refusal drops the planning)
//!    │ one datasource                     │ several, together
//!    ▼                                    ▼
//! validator ─► generator ─► executor    decomposer ─► parts side by side ─► aggregator
//!    ▲ rejected: the reasons, direct        │                                  │
//!    └──── or through the refiner ──────────┘                                  ▼
//!                                                                            answer
//! ```
//!
//! [`Engine::ask`] never fails and never panics: every problem is an error value in the
//! result. Nodes run as steps of a `Run` (`node.rs`); steps return their values, and the result
//! is assembled from them once the run is over.

mod across;
mod aggregate;
mod answer;
mod control;
pub mod decompose;
mod join;
pub mod llm;
mod model;
mod node;
pub mod prompts;
mod replay;
mod result;
mod sanity;
mod settings;
mod solve;
mod verified;
mod write;

pub use control::{backoff_ms, CancelToken, Event, Events, Sleep};
pub use join::join_all;
pub use replay::{Divergence, Replay};
pub use result::{
    AnswerSource, CombinedRows, FinalAnswer, NodeRecord, NodeStatus, QueryResult, Status, SubQuery,
    TraceForm, UsageTotals, Writer, WITHHELD,
};
pub use settings::{Agent, AnswerMode, EngineSettings, Feedback};
pub use verified::{Candidate, CuratedMatch, MatchReason, MATCH_FLOOR};

use crate::catalog::Catalog;
use crate::curated::Curated;
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::http::HttpTransport;
use crate::index::{retrieve, route, Clock, Retrieval};
use crate::index::{MismatchPolicy, Routing};
use crate::plan::{plan_json_schema, Plan};
use crate::policy::Scope;
use crate::provider::chat::PriceTable;
use crate::provider::{Message, Role};
use crate::scratch::Scratch;
use llm::{structured, Budget, Caller, LlmCall, Structured};
use model::{Live, Model};
use node::{At, Record, Run, RunParts, Span, Step};
use serde_json::json;
use solve::Task;
use write::{Rows, Written};

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
    catalog: Box<dyn Catalog + 'a>,
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

/// What an engine is built from: its catalogue (the datasources, their index and the
/// policy) and the outside world (HTTP, the clock).
pub struct Parts<'a> {
    /// The datasources, their index and who may read what: a
    /// [`crate::workspace::Workspace`], or an [`crate::catalog::Assembled`] one.
    pub catalog: Box<dyn Catalog + 'a>,
    /// HTTP to the model providers.
    pub transport: &'a dyn HttpTransport,
    /// Milliseconds, for timings.
    pub clock: &'a dyn Clock,
}

/// The question and who asks it, as every step sees them.
struct Asked<'q> {
    question: &'q str,
    options: &'q AskOptions,
    scope: Scope<'q>,
}

/// What the steps of a run found, gathered into the [`QueryResult`] once the run is over.
struct Found {
    status: Status,
    routing: Option<Routing>,
    retrieval: Option<Retrieval>,
    decomposition: Option<decompose::Decomposition>,
    combined: Option<CombinedRows>,
    curated: Option<CuratedMatch>,
    source: Option<AnswerSource>,
    sub_queries: Vec<SubQuery>,
    final_answer: Option<FinalAnswer>,
    warnings: Vec<RunWarning>,
    sequential: u32,
}

impl Found {
    fn new(notices: &[RunWarning]) -> Found {
        Found {
            status: Status::Error,
            routing: None,
            retrieval: None,
            decomposition: None,
            combined: None,
            curated: None,
            source: None,
            sub_queries: Vec::new(),
            final_answer: None,
            warnings: notices.to_vec(),
            sequential: 0,
        }
    }

    /// The run ends with `written`: its warnings and calls are kept whether or not an
    /// answer came.
    fn answered(&mut self, written: Written) -> Result<(), PipelineError> {
        self.warnings.extend(written.warnings);
        self.sequential += written.sequential;
        self.final_answer = Some(written.answer?);
        self.status = Status::Success;
        Ok(())
    }
}

/// Where the answerability check sent the question.
enum Resolution {
    /// One datasource, with its first plan when planning ran beside the check.
    One {
        datasource: String,
        planned: Option<Box<(Planned, Vec<LlmCall>)>>,
    },
    /// Several datasources together.
    Several(Vec<String>),
}

/// The check's outcome and the model calls it made one after another.
struct Resolved {
    sequential: u32,
    outcome: Result<Resolution, PipelineError>,
}

/// The candidates routing ranked (or the caller chose), and routing's record.
struct Routed {
    /// What routing kept, best first (the chosen one, when the caller chose).
    candidates: Vec<String>,
    /// What the answerability check sees: routing's top `candidates` by fused score, those
    /// its floor dropped included (a vague question may still name one of them), so the
    /// prompt stays bounded however many datasources there are.
    listed: Vec<String>,
    routing: Option<Routing>,
    /// Why routing did not run, when it did not (the resolver's record says so).
    skipped: Option<String>,
}

/// The first plan and the schema it was planned on, with when each was made.
struct Planned {
    retrieval: Retrieval,
    retrieved: Span,
    plan: Result<Plan, PipelineError>,
    planned: Span,
}

/// The answerability check's verdict and its planning, each with its calls.
struct Checked {
    verdict: Result<Verdict, PipelineError>,
    check_span: Span,
    /// The first plan and the datasource it was planned for.
    planned: Option<(Planned, String)>,
    calls_check: Vec<LlmCall>,
    calls_plan: Vec<LlmCall>,
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
            catalog: parts.catalog,
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
        let run = Run::new(RunParts {
            clock: self.clock,
            sleep: self.sleep,
            timeout_ms: self.settings.timeout_ms,
            cancel: options.cancel.clone(),
            events: options.events.clone(),
            budget: Budget::new(
                self.settings.max_llm_calls,
                self.settings.max_cost_usd,
                self.prices.clone(),
            ),
        });
        let asked = Asked {
            question,
            options,
            scope: self.catalog.policies().scope(&options.roles),
        };
        let mut found = Found::new(self.notices);
        let mut errors = Vec::new();
        if let Err(e) = self.steps(&asked, &run, &mut found).await {
            let e = run.explain(e);
            match e.error_code {
                ErrorCode::RunLimitReached => found.status = Status::Stopped,
                ErrorCode::PipelineTimeout => {
                    found.final_answer = Some(FinalAnswer {
                        text: format!(
                            "Sorry, I could not finish within {} seconds. Try a narrower question, or allow more time.",
                            self.settings.timeout_ms.div_ceil(1000)
                        ),
                        written_by: Writer::Template,
                    });
                }
                _ => {}
            }
            errors.push(e.for_client());
        }
        let duration_ms = run.elapsed();
        let mut result = QueryResult {
            status: found.status,
            question: question.to_string(),
            roles: options.roles.clone(),
            datasource: options.datasource.clone(),
            plan_only: options.plan_only,
            sub_queries: found.sub_queries,
            final_answer: found.final_answer,
            errors,
            warnings: found.warnings,
            usage: UsageTotals::default(),
            usage_by_node: Vec::new(),
            sequential_llm_calls: found.sequential,
            routing: found.routing,
            retrieval: found.retrieval,
            decomposition: found.decomposition,
            combined: found.combined,
            curated: found.curated,
            source: found.source,
            duration_ms,
            trace: run.into_trace(),
            replay_divergences: self.replay.map(Replay::divergences).unwrap_or_default(),
        };
        result.total_usage(&self.prices);
        result
    }

    /// The run: route, let a verified query answer, then check answerability (planning
    /// beside it) and answer from one datasource or from several together.
    async fn steps(
        &self,
        q: &Asked<'_>,
        run: &Run<'_>,
        found: &mut Found,
    ) -> Result<(), PipelineError> {
        let resolver = run.begin(At::run(Node::DatasourceResolver)).await?;
        let (candidates, listed, skipped) = match self.candidates(q).await {
            Ok(routed) => {
                run.emit(Event::Routed {
                    candidates: routed.candidates.clone(),
                    routing: routed.routing.clone(),
                });
                found.routing = routed.routing;
                (routed.candidates, routed.listed, routed.skipped)
            }
            Err(e) => {
                resolver.end(Record::failed(&e));
                return Err(e);
            }
        };
        if let Err(e) = self.schemas_current(&candidates, found).await {
            resolver.end(Record::failed(&e));
            return Err(e);
        }
        // A verified query answers before any model is asked to plan (plan-only runs want
        // a generated plan, so they skip it).
        if let (Some(curated), false) = (self.curated, q.options.plan_only) {
            let matched = self.try_verified(curated, q, &candidates, run).await;
            found.curated = matched.record;
            found.sequential += matched.sequential;
            match matched.outcome {
                Ok(None) => {}
                Ok(Some(v)) => {
                    resolver.end(Record::ok(resolver_outputs(&candidates, &skipped)));
                    found.source = Some(v.source);
                    found.warnings.extend(v.warnings);
                    return self.answer_from(q, v.sub, run, found).await;
                }
                Err(e) => {
                    resolver.end(Record::ok(resolver_outputs(&candidates, &skipped)));
                    return Err(e);
                }
            }
        }
        let resolved = self
            .resolve(q, (candidates, listed), &skipped, resolver, run)
            .await;
        found.sequential += resolved.sequential;
        match resolved.outcome? {
            Resolution::One {
                datasource,
                planned,
            } => {
                self.one(q, &datasource, planned.map(|p| *p), run, found)
                    .await
            }
            Resolution::Several(accepted) => self.several(q, &accepted, run, found).await,
        }
    }

    /// One datasource: its sub-query solved, then the answer written from its rows.
    async fn one(
        &self,
        q: &Asked<'_>,
        datasource: &str,
        planned: Option<(Planned, Vec<LlmCall>)>,
        run: &Run<'_>,
        found: &mut Found,
    ) -> Result<(), PipelineError> {
        let task = Task {
            id: "q1".to_string(),
            question: q.question,
            part: None,
            datasource,
        };
        let solved = self
            .solve(&task, &q.scope, planned, q.options.plan_only, run)
            .await;
        found.retrieval = solved.retrieval;
        found.warnings.extend(solved.warnings);
        found.sequential += solved.sequential;
        if let Err(e) = solved.outcome {
            found.sub_queries.push(solved.sub);
            return Err(e);
        }
        if q.options.plan_only {
            found.sub_queries.push(solved.sub);
            found.status = Status::PlanOnly;
            return Ok(());
        }
        self.answer_from(q, solved.sub, run, found).await
    }

    /// The resolver's schema check: each candidate's structure now against the snapshot it
    /// was indexed from, as the mismatch policy says (INVALID_STATE under `fail`, a
    /// SCHEMA_CHANGED warning under `warn`, nothing read under `ignore`). A fingerprint
    /// that cannot be read is warned about, and the run goes on to meet the database itself.
    async fn schemas_current(
        &self,
        candidates: &[String],
        found: &mut Found,
    ) -> Result<(), PipelineError> {
        let policy = self.settings.schema_mismatch;
        if policy == MismatchPolicy::Ignore {
            return Ok(());
        }
        for id in candidates {
            let Some(entry) = self.catalog.entry(id) else {
                continue;
            };
            match entry.datasource.fingerprint().await {
                Ok(live) => {
                    let checked = self.catalog.index().check_fingerprint(id, &live, policy)?;
                    found.warnings.extend(checked);
                }
                Err(e) => found.warnings.push(RunWarning::new(
                    Node::DatasourceResolver,
                    ErrorCode::DbExecutionError,
                    format!(
                        "Could not check whether datasource {id} changed since it was indexed: {e}"
                    ),
                )),
            }
        }
        Ok(())
    }

    /// Writes the answer from one sub-query's rows (already announced).
    async fn answer_from(
        &self,
        q: &Asked<'_>,
        sub: SubQuery,
        run: &Run<'_>,
        found: &mut Found,
    ) -> Result<(), PipelineError> {
        let rows = Rows {
            columns: &sub.columns,
            rows: &sub.rows,
            truncated: sub.truncated,
        };
        let written = self.write_answer(q.question, rows, run).await;
        found.sub_queries.push(sub);
        found.answered(written)
    }

    /// The answerability check over routing's candidates (the chosen datasource, when the
    /// caller chose one), with the first plan for the best candidate asked beside it (unless
    /// speculative planning is off); ends the resolver's step with the verdict.
    async fn resolve(
        &self,
        q: &Asked<'_>,
        (candidates, listed): (Vec<String>, Vec<String>),
        skipped: &Option<String>,
        resolver: Step<'_, '_>,
        run: &Run<'_>,
    ) -> Resolved {
        let refused = |e: PipelineError| Resolved {
            sequential: 0,
            outcome: Err(e),
        };
        let Some(first) = candidates.first().cloned() else {
            let e = not_answerable("No datasource can answer this question.");
            resolver.end(Record::failed(&e));
            return refused(e);
        };
        if let Err(e) = run.check(Node::DatasourceResolver) {
            resolver.end(Record::failed(&e));
            return refused(e);
        }
        let speculative = self.settings.speculative_planning;
        let started = run.now();
        let checked = self
            .check_beside_planning(q, (&candidates, &listed), &first, run)
            .await;
        let (accepted, verdict_error) = self.judge(&checked.verdict, &candidates, &listed);
        let verdict_error = verdict_error.map(|e| self.naming_reachable(e, &q.scope));
        let Checked {
            verdict,
            check_span,
            planned,
            calls_check,
            calls_plan,
        } = checked;
        let verdict_outputs = match &verdict {
            Ok(v) => json!({"datasources": v.datasources, "reason": v.reason}),
            Err(_) => json!(null),
        };
        // The resolver's time runs from the start of the run (routing) to the verdict.
        resolver.end_at(
            check_span.ended,
            Record {
                outputs: {
                    let mut outputs = resolver_outputs(&candidates, skipped);
                    outputs["verdict"] = verdict_outputs;
                    outputs["accepted"] = json!(accepted);
                    outputs
                },
                errors: verdict_error.iter().cloned().collect(),
                calls: calls_check,
            },
        );
        // The check, and the planning beside it; without speculative planning the first
        // plan waited for the check, one call after the other.
        let sequential = 1 + u32::from(!speculative && planned.is_some());
        // Planning that was announced (or ran) but is not used still ends on the record,
        // its calls with it, so no node is left running and no call goes uncounted.
        let announced = speculative || planned.is_some();
        let drop_planning = |why: String, calls: Vec<LlmCall>| {
            if !announced {
                return;
            }
            let span = Span {
                started,
                ended: run.now(),
            };
            let outputs = json!({ "dropped": why });
            run.record_span(
                At::run(Node::SchemaRetriever),
                span,
                Record::ok(outputs.clone()),
            );
            let record = Record::ok(outputs).with_calls(calls);
            run.record_span(At::run(Node::AstPlanner), span, record);
        };
        let outcome = if let Some(e) = verdict_error {
            drop_planning("the question was refused".into(), calls_plan);
            Err(e)
        } else if matches!(&verdict, Ok(v) if v.combine) && accepted.len() > 1 {
            drop_planning("the question needs several datasources".into(), calls_plan);
            Ok(Resolution::Several(accepted))
        } else {
            let chosen = accepted.first().cloned().unwrap_or_else(|| first.clone());
            let planned = match planned {
                Some((p, planned_for)) if chosen == planned_for => Some(Box::new((p, calls_plan))),
                // The verdict ruled the planned candidate out: the solver plans on the one
                // it chose.
                Some((_, planned_for)) => {
                    drop_planning(
                        format!("planned for {planned_for}, which the verdict did not choose"),
                        calls_plan,
                    );
                    None
                }
                None => None,
            };
            Ok(Resolution::One {
                datasource: chosen,
                planned,
            })
        };
        Resolved {
            sequential,
            outcome,
        }
    }

    /// The answerability check over `listed`, and the first plan for `first` beside it
    /// (after it, when speculative planning is off; not at all when the check refuses or
    /// needs several datasources).
    async fn check_beside_planning(
        &self,
        q: &Asked<'_>,
        (candidates, listed): (&[String], &[String]),
        first: &str,
        run: &Run<'_>,
    ) -> Checked {
        let speculative = self.settings.speculative_planning;
        let planning_started = || {
            run.announce(At::run(Node::SchemaRetriever));
            run.announce(At::run(Node::AstPlanner));
        };
        let check = self.answerability(q.question, listed, &q.scope);
        let resolver_agent = run.bounded(&self.settings.resolver);
        let planner_agent = run.bounded(&self.settings.planner);
        let mut calls_check = Vec::new();
        let mut calls_plan = Vec::new();
        let task = |datasource| Task {
            id: "q1".to_string(),
            question: q.question,
            part: None,
            datasource,
        };
        let check = async {
            let started = self.clock.now_ms();
            let now = || self.clock.now_ms();
            let v = structured(
                &self.caller(&now),
                &resolver_agent,
                check,
                &parse_verdict,
                &mut calls_check,
                &run.budget,
            )
            .await;
            let span = Span {
                started,
                ended: self.clock.now_ms(),
            };
            (v, span)
        };
        // A refusal, or a failed check (a provider failure is fatal), ends the run.
        let refusal = |(v, _): &(Result<Verdict, PipelineError>, Span)| {
            v.as_ref()
                .map_or(true, |v: &Verdict| v.datasources.is_empty())
        };
        let ((verdict, check_span), planned) = if speculative {
            // Routing's first candidate is the best guess while the check runs.
            planning_started();
            let first_task = task(first);
            let plan = self.retrieve_and_plan(
                &first_task,
                &q.scope,
                &planner_agent,
                &mut calls_plan,
                &run.budget,
            );
            let (checked, planned) = join::join_unless(check, plan, refusal).await;
            (checked, planned.map(|p| (p, first.to_string())))
        } else {
            let verdict = check.await;
            // Plan only for what the resolution will use: one accepted datasource (as
            // `resolve` decides it), not a refused verdict or a question across several.
            let (accepted, error) = self.judge(&verdict.0, candidates, listed);
            let across = matches!(&verdict.0, Ok(v) if v.combine) && accepted.len() > 1;
            if refusal(&verdict) || error.is_some() || across {
                (verdict, None)
            } else {
                let target = accepted.first().map_or(first, String::as_str).to_string();
                planning_started();
                let chosen_task = task(&target);
                let planned = self
                    .retrieve_and_plan(
                        &chosen_task,
                        &q.scope,
                        &planner_agent,
                        &mut calls_plan,
                        &run.budget,
                    )
                    .await;
                (verdict, Some((planned, target)))
            }
        };
        Checked {
            verdict,
            check_span,
            planned,
            calls_check,
            calls_plan,
        }
    }

    /// What the verdict accepts among the listed datasources (routing's kept ones first,
    /// then the others listed), at most `max_datasources` of them, and the refusal when it
    /// accepts none.
    fn judge(
        &self,
        verdict: &Result<Verdict, PipelineError>,
        candidates: &[String],
        listed: &[String],
    ) -> (Vec<String>, Option<PipelineError>) {
        let accepted: Vec<String> = match verdict {
            Ok(v) => candidates
                .iter()
                .chain(listed.iter().filter(|d| !candidates.contains(d)))
                .filter(|c| v.datasources.contains(c))
                .take(self.settings.routing.max_datasources.max(1))
                .cloned()
                .collect(),
            Err(_) => Vec::new(),
        };
        let error: Option<PipelineError> = match verdict {
            Err(e) => Some(e.clone()),
            Ok(v) if accepted.is_empty() => {
                let reason = v.reason.trim().trim_end_matches('.');
                let because = if reason.is_empty() {
                    String::new()
                } else {
                    format!(": {reason}")
                };
                Some(not_answerable(&format!(
                    "None of the datasources you may read can answer this question{because}."
                )))
            }
            Ok(_) => None,
        };
        (accepted, error)
    }

    /// A not-answerable refusal that also says what the caller may ask about.
    fn naming_reachable(&self, e: PipelineError, scope: &Scope<'_>) -> PipelineError {
        if e.error_code != ErrorCode::QuestionNotAnswerable {
            return e;
        }
        let reachable: Vec<&str> = self
            .catalog
            .ids()
            .into_iter()
            .filter(|d| scope.can_reach(d))
            .collect();
        PipelineError {
            message: format!("{} You may ask about: {}.", e.message, reachable.join(", ")),
            ..e
        }
    }

    /// Candidates in order, after the explicit choice, routing and the role check.
    async fn candidates(&self, q: &Asked<'_>) -> Result<Routed, PipelineError> {
        let resolver = |code, severity, message: String| {
            PipelineError::new(Node::DatasourceResolver, code, severity, message)
        };
        let registered = self.catalog.ids();
        let mut routing = None;
        // Nothing to route among is an index problem, not a refusal.
        let not_indexed = |why: &str| {
            resolver(
                ErrorCode::SchemaRetrievalFailed,
                Severity::Error,
                format!("{why} Add a datasource, or re-index the ones there are, and ask again."),
            )
        };
        if registered.is_empty() {
            return Err(not_indexed("No datasource is indexed."));
        }
        let reachable = || -> Vec<&str> {
            registered
                .iter()
                .copied()
                .filter(|d| q.scope.can_reach(d))
                .collect()
        };
        let mut skipped = None;
        let candidates = if let Some(id) = &q.options.datasource {
            // An unknown id is answered with the ids this caller may ask about, never others.
            if self.catalog.entry(id).is_none() {
                return Err(resolver(
                    ErrorCode::DatasourceNotFound,
                    Severity::Error,
                    format!(
                        "There is no datasource {id:?}; you may ask about {}.",
                        reachable().join(", ")
                    ),
                ));
            }
            skipped = Some(format!("the caller chose {id}"));
            vec![id.clone()]
        } else if registered.len() == 1 {
            skipped = Some("there is one datasource".to_string());
            registered.iter().map(|s| s.to_string()).collect()
        } else if !registered.iter().any(|d| q.scope.can_reach(d)) {
            Vec::new()
        } else {
            let routed = route(
                self.catalog.index(),
                self.catalog.embedder(),
                q.question,
                &q.scope,
                &self.settings.routing,
            )
            .await
            .map_err(|e| e.into_error(Node::DatasourceResolver))?;
            if routed.ranked.is_empty() {
                return Err(not_indexed(
                    "Routing found no indexed schema among the datasources you may ask about.",
                ));
            }
            let ranked = routed.ranked.clone();
            routing = Some(routed);
            ranked
        };
        let allowed: Vec<String> = candidates
            .into_iter()
            .filter(|d| q.scope.can_reach(d))
            .collect();
        if allowed.is_empty() {
            return Err(resolver(
                ErrorCode::SecurityViolation,
                Severity::Critical,
                crate::validate::REFUSAL_MESSAGE.to_string(),
            ));
        }
        // Routing's top candidates by fused score (those its floor dropped too); without
        // routing, what was chosen.
        let mut listed: Vec<String> = routing.as_ref().map_or_else(Vec::new, |r| {
            r.fused
                .iter()
                .map(|(d, _)| d.clone())
                .filter(|d| q.scope.can_reach(d))
                .take(self.settings.routing.candidates)
                .collect()
        });
        for d in &allowed {
            if !listed.contains(d) {
                listed.push(d.clone());
            }
        }
        Ok(Routed {
            candidates: allowed,
            listed,
            routing,
            skipped,
        })
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
                let entry = self.catalog.entry(id)?;
                let (schema, description) = (entry.schema, entry.description);
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
            system: prompts::ANSWERABILITY_SYSTEM.to_string(),
            messages: vec![Message {
                role: Role::User,
                content: prompts::answerability_user(question, &listed),
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
            self.catalog.index(),
            self.catalog.embedder(),
            datasource,
            query,
            scope,
            &self.settings.retrieval,
            false,
        )
        .await;
        let retrieved_at = Span {
            started,
            ended: self.clock.now_ms(),
        };
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
                        notes: vec![],
                    },
                    retrieved: retrieved_at,
                    plan: Err(e.into_error(Node::SchemaRetriever)),
                    planned: Span {
                        started: retrieved_at.ended,
                        ended: retrieved_at.ended,
                    },
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
            planned: Span {
                started: retrieved_at.ended,
                ended: self.clock.now_ms(),
            },
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
        let schema = self
            .catalog
            .require(&retrieval.datasource, Node::AstPlanner)?
            .schema;
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

/// The resolver's record: the candidates, and why routing was skipped when it was.
fn resolver_outputs(candidates: &[String], skipped: &Option<String>) -> serde_json::Value {
    let mut outputs = json!({ "candidates": candidates });
    if let Some(why) = skipped {
        outputs["routing_skipped"] = json!(why);
    }
    outputs
}

fn not_answerable(message: &str) -> PipelineError {
    PipelineError::new(
        Node::DatasourceResolver,
        ErrorCode::QuestionNotAnswerable,
        Severity::Error,
        message,
    )
}
