//! The pipeline: a question in, a [`QueryResult`] out, every node traced.
//!
//! ```text
//! resolver ─► curated matcher ─(a verified query answers)──────────────────► answer
//!    │ (follow-up or fresh, judged by the model when a thread is given; then routing)
//!    │                │ fallback
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
mod trace;
mod verified;
mod write;

#[cfg(feature = "internals")]
pub use control::backoff_ms;
pub use control::{CancelToken, Event, Events, Sleep};
pub use join::join_all;
pub use replay::Replay;
pub use result::{
    AnswerRows, AnswerSource, CombinedRows, Divergence, FinalAnswer, PlanSource, QueryResult, Status, SubQuery,
    TraceForm, UsageTotals,
};
pub use settings::{Agent, AnswerMode, EngineSettings, Feedback};
pub use trace::{
    AggregatorOutputs, AnswerOutputs, CacheHit, Candidate, CuratedMatch, ExecutorOutputs,
    GeneratorOutputs, LlmCall, MatchReason, NodeOutput, NodeRecord, NodeStatus, PlannerOutputs,
    RefinerOutputs, ResolverOutputs, RetrieverOutputs, ThreadNote, ValidatorOutputs, VerdictNote,
    Writer, WITHHELD,
};
#[cfg(feature = "internals")]
pub use trace::QUOTE_WITHHELD;
#[cfg(feature = "internals")]
pub use verified::MATCH_FLOOR;

use crate::catalog::Catalog;
use crate::conversation::{
    self, ambiguity, read_judgement, settled, Clarification, Continuation, FollowUp, PlanDiff,
    Settled, Thread, Turn,
};
use crate::curated::Curated;
use crate::introspect::Metadata;
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::http::HttpTransport;
use crate::index::{retrieve, route_in_thread, Clock, Retrieval};
use crate::index::{MismatchPolicy, Routing};
use crate::plan::{plan_json_schema, Plan};
use crate::plan_cache::{self, CacheKey, PlanCache};
use crate::policy::Scope;
use crate::provider::chat::PriceTable;
use crate::provider::{Message, Role};
use crate::scratch::Scratch;
use crate::catalog::Unavailable;
use llm::{structured, Budget, Caller, Structured};
use model::{Live, Model};
use node::{At, Record, Run, RunParts, Span, Step};
use solve::Task;
use std::cell::RefCell;
use write::{Rows, Written};

/// A question and how to ask it: the one shape every front end asks with — the command
/// line, the page and the npm package, and the HTTP API's and MCP's `ask` body.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The question, in plain words.
    pub question: String,
    /// Ask this datasource, no routing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasource: Option<String>,
    /// The roles to ask as, one (`"analyst"`) or several (none: the policy's default).
    /// Over the API the key decides, and a role named here may only narrow the key's.
    #[serde(
        default,
        rename = "role",
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[cfg_attr(feature = "schema", schemars(with = "Option<RoleNames>"))]
    pub roles: Vec<String>,
    /// Validate and render the plan, but do not run it.
    #[serde(default)]
    pub plan_only: bool,
    /// The conversation it continues: the `thread` of the previous answer (none: it
    /// stands alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<Thread>,
    /// The result's form: full for a caller who owns the data, cleaned across a trust
    /// boundary. Never read from a request: a server cleans whatever it is sent.
    #[serde(skip)]
    pub trace: TraceForm,
}

/// One role's name or several, as a request may give them.
#[cfg(feature = "schema")]
#[derive(schemars::JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum RoleNames {
    One(String),
    Several(Vec<String>),
}

impl Question {
    /// `question`, asked alone, as the policy's default role, with routing.
    pub fn new(question: impl Into<String>) -> Self {
        Question {
            question: question.into(),
            ..Question::default()
        }
    }

    /// Asks `datasource`, no routing.
    pub fn on(mut self, datasource: impl Into<String>) -> Self {
        self.datasource = Some(datasource.into());
        self
    }

    /// Asks as `roles`.
    pub fn as_roles<S: Into<String>>(mut self, roles: impl IntoIterator<Item = S>) -> Self {
        self.roles = roles.into_iter().map(Into::into).collect();
        self
    }
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Names {
        One(String),
        Several(Vec<String>),
    }
    Ok(
        match <Option<Names> as serde::Deserialize>::deserialize(d)? {
            None => Vec::new(),
            Some(Names::One(name)) => vec![name],
            Some(Names::Several(names)) => names,
        },
    )
}

/// What a caller hooks into a run: a token that cancels it, and a listener for its events.
#[derive(Clone, Default)]
pub struct Hooks {
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
    /// Plans that validated and ran, reused for the same question (when settings allow).
    plans: Option<&'a RefCell<PlanCache>>,
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
    options: &'q Question,
    scope: Scope<'q>,
    /// The thread handed in, read no further back than the settings keep.
    given: Option<Thread>,
    /// How the question relates to it: fresh until the resolver has judged.
    talk: Talk,
}

/// How the question relates to its thread.
struct Talk {
    /// Whether it continues the thread, and why (none: no thread was given).
    continuation: Option<Continuation>,
    /// The turn it follows, when it follows one.
    previous: Option<Turn>,
    /// The earlier turns as the planner reads them (empty when it starts fresh).
    context: String,
    /// What routing and retrieval search with: a follow-up's words alone name too little,
    /// so the conversation's earlier questions come first.
    search: String,
    /// The earlier questions, for the answerability check (empty when it starts fresh).
    earlier: Vec<String>,
    /// The thread it continues, as read (empty when it starts fresh).
    thread: Thread,
}

impl Talk {
    /// `thread`, as `continuation` judged the question's relation to it (none: no thread).
    fn of(question: &str, thread: Option<Thread>, continuation: Option<Continuation>) -> Talk {
        let follows = continuation.as_ref().is_some_and(|c| c.follows);
        let thread = thread.filter(|_| follows);
        let previous = thread.as_ref().and_then(|t| t.last().cloned());
        let context = thread.as_ref().map(Thread::context).unwrap_or_default();
        let earlier = thread.as_ref().map(Thread::questions).unwrap_or_default();
        // The conversation's questions name its subject; a follow-up's own words may not.
        let mut search: Vec<&str> = earlier.iter().map(String::as_str).collect();
        search.push(question);
        let search = search.join(" ");
        Talk {
            continuation,
            previous,
            context,
            search,
            earlier,
            thread: thread.unwrap_or_default(),
        }
    }

    fn follows(&self) -> bool {
        self.previous.is_some()
    }

    /// The datasource of the turn followed.
    fn datasource(&self) -> Option<&str> {
        self.previous.as_ref()?.datasource.as_deref()
    }
}

/// What a stage of a run found. Each stage returns its own as a value ([`Staged`]); a
/// stage that runs others folds theirs into its own ([`Found::then`]), and the
/// [`QueryResult`] is built from the whole once the run is over.
#[derive(Default)]
struct Found {
    /// How the run ended, once a stage says (none: an error).
    status: Option<Status>,
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
    clarification: Option<Clarification>,
    /// The datasource a question asked back was about (the answer's thread signal).
    clarified_on: Option<String>,
    diff: Option<PlanDiff>,
}

/// A stage's findings and how it ended: what a failing stage found (its warnings, its
/// calls, its sub-queries) is kept beside its error.
struct Staged {
    found: Found,
    outcome: Result<(), PipelineError>,
}

impl Found {
    /// These findings, then a later stage's: its parts added, its answers in force.
    fn then(self, later: Found) -> Found {
        let mut sub_queries = self.sub_queries;
        sub_queries.extend(later.sub_queries);
        let mut warnings = self.warnings;
        warnings.extend(later.warnings);
        Found {
            status: later.status.or(self.status),
            routing: later.routing.or(self.routing),
            retrieval: later.retrieval.or(self.retrieval),
            decomposition: later.decomposition.or(self.decomposition),
            combined: later.combined.or(self.combined),
            curated: later.curated.or(self.curated),
            source: later.source.or(self.source),
            sub_queries,
            final_answer: later.final_answer.or(self.final_answer),
            warnings,
            sequential: self.sequential + later.sequential,
            clarification: later.clarification.or(self.clarification),
            clarified_on: later.clarified_on.or(self.clarified_on),
            diff: later.diff.or(self.diff),
        }
    }

    /// These findings, then a later stage's, ending as it ended.
    fn then_staged(self, later: Staged) -> Staged {
        Staged {
            found: self.then(later.found),
            outcome: later.outcome,
        }
    }

    /// The stage ends here, as `outcome` says.
    fn ending(self, outcome: Result<(), PipelineError>) -> Staged {
        Staged {
            found: self,
            outcome,
        }
    }

    /// The findings of an answer written: its warnings and calls, kept whether or not an
    /// answer came.
    fn answered(written: Written) -> Staged {
        let found = Found {
            warnings: written.warnings,
            sequential: written.sequential,
            ..Found::default()
        };
        match written.answer {
            Ok(answer) => Found {
                final_answer: Some(answer),
                status: Some(Status::Success),
                ..found
            }
            .ending(Ok(())),
            Err(e) => found.ending(Err(e)),
        }
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

/// Says that routing's first two datasources matched about equally well, what put each
/// first, and how to ask the other: the answer never rests on a silent guess between them.
fn close_call_warning(c: &crate::index::CloseCall) -> RunWarning {
    let led = |signals: &[String]| match signals {
        [] => "no signal".to_string(),
        _ => signals.join(", "),
    };
    RunWarning {
        detail: serde_json::to_value(c).ok(),
        ..RunWarning::new(
            Node::DatasourceResolver,
            ErrorCode::RoutingCloseCall,
            format!(
                "{} and {} match this question about equally well ({} came first on {}, {} on \
                 {}); routing ranked {} first. If the answer comes from the wrong one, choose \
                 the other as the datasource.",
                c.chosen,
                c.runner_up,
                c.chosen,
                led(&c.chosen_led),
                c.runner_up,
                led(&c.runner_up_led),
                c.chosen
            ),
        )
    }
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
    /// Who wrote it.
    source: PlanSource,
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
            plans: None,
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

    /// Reuses plans from `cache` and keeps new ones there, while the settings' `plan_cache`
    /// is on.
    pub fn caching_plans(mut self, cache: &'a RefCell<PlanCache>) -> Self {
        self.plans = Some(cache);
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

    /// Answers `asked`. Never fails: what went wrong is in the result, in the form the
    /// question asks for.
    pub async fn ask(&self, asked: &Question, hooks: Hooks) -> QueryResult {
        let (question, options) = (asked.question.as_str(), asked);
        let run = Run::new(RunParts {
            clock: self.clock,
            sleep: self.sleep,
            timeout_ms: self.settings.timeout_ms,
            cancel: hooks.cancel,
            events: hooks.events,
            budget: Budget::new(
                self.settings.max_llm_calls,
                self.settings.max_cost_usd,
                self.prices.clone(),
            ),
        });
        // A thread handed in is read no further back than the settings keep.
        let thread = options
            .thread
            .as_ref()
            .map(|t| t.last_turns(self.settings.thread_turns));
        let mut asked = Asked {
            question,
            options,
            scope: self.catalog.policies().scope(&options.roles),
            given: thread,
            talk: Talk::of(question, None, None),
        };
        let Staged { found, outcome } = self.steps(&mut asked, &run).await;
        // What the set-up dropped or left incomplete is said, in every result, to those who
        // may read what it names; a datasource left out, to those who may reach it.
        let notices = self.catalog.notices().iter();
        let notices = notices.filter(|n| n.told_to(&asked.scope));
        let left_out = self.catalog.unavailable().iter();
        let left_out = left_out.filter(|u| asked.scope.can_reach(&u.id));
        let mut found = Found {
            warnings: (notices.map(|n| n.warning.clone()))
                .chain(left_out.map(Unavailable::warning))
                .collect(),
            ..Found::default()
        }
        .then(found);
        let mut errors = Vec::new();
        if let Err(e) = outcome {
            let e = run.explain(e);
            match e.error_code {
                ErrorCode::RunLimitReached => found.status = Some(Status::Stopped),
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
        let follow_up = asked.talk.continuation.as_ref().map(|c| FollowUp {
            continued: c.follows,
            reason: c.reason.clone(),
            previous_datasource: asked.talk.datasource().map(str::to_string),
            diff: found.diff.clone(),
        });
        let thread = self.next_thread(&asked, &found);
        let mut result = QueryResult {
            status: found.status.unwrap_or(Status::Error),
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
            thread,
            follow_up,
            clarification: found.clarification,
        };
        result.total_usage(&self.prices);
        result.in_form(options.trace)
    }

    /// The run: judge whether the question continues its thread, route, let a verified
    /// query answer, then check answerability (planning beside it) and answer from one
    /// datasource or from several together.
    async fn steps(&self, q: &mut Asked<'_>, run: &Run<'_>) -> Staged {
        let mut resolver = match run.begin::<ResolverOutputs>(At::run()).await {
            Ok(step) => step,
            Err(e) => return Found::default().ending(Err(e)),
        };
        // Whether the question continues its thread decides where it is routed and what
        // the planner reads, so it is judged first.
        let mut calls = Vec::new();
        let judged = self.continuation(q, run, &mut calls).await;
        let judged_by_model = !calls.is_empty();
        resolver.called(calls);
        match judged {
            Ok(continuation) => q.talk = Talk::of(q.question, q.given.clone(), continuation),
            Err(e) => {
                resolver.end(Record::failed(&e));
                return Found {
                    sequential: u32::from(judged_by_model),
                    ..Found::default()
                }
                .ending(Err(e));
            }
        }
        let q = &*q;
        let found = Found {
            sequential: u32::from(judged_by_model),
            ..Found::default()
        };
        found.then_staged(self.routed_steps(q, resolver, run).await)
    }

    /// Whether the question continues the thread it came with (none: no thread): settled by
    /// code when the last turn asked back, else judged by the resolver's model.
    async fn continuation(
        &self,
        q: &Asked<'_>,
        run: &Run<'_>,
        calls: &mut Vec<LlmCall>,
    ) -> Result<Option<Continuation>, PipelineError> {
        let Some(thread) = q.given.as_ref() else {
            return Ok(None);
        };
        match settled(thread) {
            Settled::NoThread => Ok(None),
            Settled::Decided(c) => Ok(Some(c)),
            Settled::AskTheModel => {
                let agent = run.bounded(&self.settings.resolver);
                let now = || self.clock.now_ms();
                let ask = Structured {
                    node: Node::DatasourceResolver,
                    name: "continuation",
                    description: "Whether the question continues the conversation.",
                    schema: prompts::continuation_schema(),
                    system: prompts::CONTINUATION_SYSTEM.to_string(),
                    messages: vec![Message {
                        role: Role::User,
                        content: prompts::continuation_user(q.question, thread),
                    }],
                };
                structured(&self.caller(&now), &agent, ask, &read_judgement, calls, &run.budget)
                    .await
                    .map(Some)
            }
        }
    }

    /// The run once the question's thread is judged: route, let a verified query answer,
    /// then check answerability and answer.
    async fn routed_steps(
        &self,
        q: &Asked<'_>,
        resolver: Step<'_, '_, ResolverOutputs>,
        run: &Run<'_>,
    ) -> Staged {
        let (candidates, listed, skipped, routing) = match self.candidates(q).await {
            Ok(routed) => {
                run.emit(Event::Routed {
                    candidates: routed.candidates.clone(),
                    routing: routed.routing.clone(),
                });
                (
                    routed.candidates,
                    routed.listed,
                    routed.skipped,
                    routed.routing,
                )
            }
            Err(e) => {
                resolver.end(Record::failed(&e));
                return Found::default().ending(Err(e));
            }
        };
        let found = Found {
            routing,
            ..Found::default()
        };
        let close = (found.routing.as_ref()).and_then(|r| r.close_call.as_ref().map(|c| close_call_warning(c)));
        let found = match self.schemas_current(&candidates).await {
            Ok(warnings) => Found {
                warnings: close.into_iter().chain(warnings).collect(),
                ..found
            },
            Err(e) => {
                resolver.end(Record::failed(&e));
                return found.ending(Err(e));
            }
        };
        // A verified query answers before any model is asked to plan (plan-only runs want
        // a generated plan, so they skip it; a follow-up is an edit of the previous plan,
        // which no verified query knows).
        let mut found = found;
        if let (Some(curated), false, false) = (self.curated, q.options.plan_only, q.talk.follows())
        {
            let matched = self.try_verified(curated, q, &candidates, run).await;
            found = found.then(Found {
                curated: matched.record,
                sequential: matched.sequential,
                ..Found::default()
            });
            match matched.outcome {
                Ok(None) => {}
                Ok(Some(v)) => {
                    resolver.end(Record::ok(resolver_outputs(&candidates, &skipped, q)));
                    let found = found.then(Found {
                        source: Some(v.source),
                        warnings: v.warnings,
                        ..Found::default()
                    });
                    return found.then_staged(self.answer_from(q, v.sub, run).await);
                }
                Err(e) => {
                    resolver.end(Record::ok(resolver_outputs(&candidates, &skipped, q)));
                    return found.ending(Err(e));
                }
            }
        }
        // Asked back when the schema shows the question means two different things (never
        // of a follow-up: its thread says what it is about).
        let first = candidates.first().cloned();
        if let (Some(first), false) = (&first, q.talk.follows()) {
            let values = self.catalog.index().values();
            if let Some(asked) = ambiguity(q.question, first, values, &q.scope) {
                resolver.end(Record::ok(ResolverOutputs {
                    clarification: Some(asked.clone()),
                    ..resolver_outputs(&candidates, &skipped, q)
                }));
                return found
                    .then(Found {
                        status: Some(Status::NeedsClarification),
                        clarification: Some(asked),
                        clarified_on: Some(first.clone()),
                        ..Found::default()
                    })
                    .ending(Ok(()));
            }
        }
        // A plan that ran for this very question before skips the check and the planner;
        // the solver validates it again for this caller's role.
        if let Some((datasource, plan)) = first.and_then(|d| self.cached(q, &d).map(|p| (d, p))) {
            resolver.end(Record::ok(ResolverOutputs {
                plan_cache: Some(CacheHit {
                    hit: true,
                    skipped: "the answerability check and the planner: the same question was planned on this datasource, schema and model before, and its plan ran".into(),
                }),
                ..resolver_outputs(&candidates, &skipped, q)
            }));
            run.announce::<RetrieverOutputs>(At::run());
            run.announce::<PlannerOutputs>(At::run());
            let task = self.task(q, &datasource);
            let planned = self.cached_planned(&task, &q.scope, plan).await;
            return found.then_staged(
                self.one(q, &datasource, Some((planned, Vec::new())), run)
                    .await,
            );
        }
        let resolved = self
            .resolve(q, (candidates, listed), &skipped, resolver, run)
            .await;
        let found = found.then(Found {
            sequential: resolved.sequential,
            ..Found::default()
        });
        match resolved.outcome {
            Err(e) => found.ending(Err(e)),
            Ok(Resolution::One {
                datasource,
                planned,
            }) => found.then_staged(self.one(q, &datasource, planned.map(|p| *p), run).await),
            Ok(Resolution::Several(accepted)) => {
                found.then_staged(self.several(q, &accepted, run).await)
            }
        }
    }

    /// One datasource: its sub-query solved, then the answer written from its rows.
    async fn one(
        &self,
        q: &Asked<'_>,
        datasource: &str,
        planned: Option<(Planned, Vec<LlmCall>)>,
        run: &Run<'_>,
    ) -> Staged {
        let task = self.task(q, datasource);
        let solved = self
            .solve(&task, &q.scope, planned, q.options.plan_only, run)
            .await;
        // Only a plan that passed is shown as the edit: a refused one may read what the
        // caller may not see.
        let diff = match (task.previous, solved.sub.plan.as_ref(), &solved.outcome) {
            (Some(before), Some(after), Ok(())) => Some(conversation::diff(before, after)),
            _ => None,
        };
        let fresh = (solved.sub.plan_source == PlanSource::Planner)
            .then(|| solved.sub.plan.clone())
            .flatten();
        let found = Found {
            diff,
            retrieval: solved.retrieval,
            warnings: solved.warnings,
            sequential: solved.sequential,
            ..Found::default()
        };
        if let Err(e) = solved.outcome {
            return Found {
                sub_queries: vec![solved.sub],
                ..found
            }
            .ending(Err(e));
        }
        if q.options.plan_only {
            return Found {
                sub_queries: vec![solved.sub],
                status: Some(Status::PlanOnly),
                ..found
            }
            .ending(Ok(()));
        }
        let answered = found.then_staged(self.answer_from(q, solved.sub, run).await);
        // Kept only once it validated and ran.
        if let (Some(plan), Ok(())) = (fresh, &answered.outcome) {
            self.remember(q, datasource, plan);
        }
        answered
    }

    /// Sub-query `q1` of the question on `datasource`: the previous turn's plan is the one
    /// it edits when the question follows a turn on the same datasource.
    fn task<'t>(&self, q: &'t Asked<'_>, datasource: &'t str) -> Task<'t> {
        let previous = q
            .talk
            .previous
            .as_ref()
            .filter(|p| p.datasource.as_deref() == Some(datasource))
            .and_then(|p| p.plan.as_ref());
        Task {
            id: "q1".to_string(),
            question: q.question,
            part: None,
            datasource,
            context: &q.talk.context,
            search: &q.talk.search,
            previous,
        }
    }

    /// What the plan cache keeps this question's plan on `datasource` under (none: the
    /// cache is off, or the datasource is gone).
    fn cache_key(&self, q: &Asked<'_>, datasource: &str) -> Option<CacheKey> {
        self.plans?;
        if !self.settings.plan_cache || self.replay.is_some() {
            return None;
        }
        let entry = self.catalog.entry(datasource)?;
        let planner = &self.settings.planner;
        Some(CacheKey {
            question: plan_cache::normalise(q.question),
            // What the planner read of the thread, and what retrieval searched with.
            context: format!(
                "{}\n{}",
                q.talk.context,
                plan_cache::normalise(&q.talk.search)
            ),
            datasource: datasource.to_string(),
            fingerprint: entry.schema.fingerprint.clone(),
            model: format!("{} {}", planner.provider.base_url, planner.model),
            today: self.settings.validator.lower.today.clone(),
        })
    }

    fn cached(&self, q: &Asked<'_>, datasource: &str) -> Option<Plan> {
        let key = self.cache_key(q, datasource)?;
        self.plans?.try_borrow_mut().ok()?.get(&key)
    }

    fn remember(&self, q: &Asked<'_>, datasource: &str, plan: Plan) {
        let (Some(key), Some(cache)) = (self.cache_key(q, datasource), self.plans) else {
            return;
        };
        if let Ok(mut cache) = cache.try_borrow_mut() {
            cache.put(key, plan);
        }
    }

    /// The first plan from the cache, on the schema retrieval finds for it now.
    async fn cached_planned(&self, task: &Task<'_>, scope: &Scope<'_>, plan: Plan) -> Planned {
        let (retrieval, retrieved) = self.retrieve_for(task, scope).await;
        let at = retrieved.ended;
        Planned {
            plan: retrieval.as_ref().map_err(Clone::clone).map(|_| plan),
            retrieval: retrieval.unwrap_or_else(|_| Retrieval::empty(task.datasource)),
            retrieved,
            planned: Span {
                started: at,
                ended: at,
            },
            source: PlanSource::Cache,
        }
    }

    /// The thread to hand back: a continued thread (or a fresh one) with this turn, kept
    /// to the last `thread_turns`; a run that found no answer and asked nothing back
    /// leaves the thread as it was.
    fn next_thread(&self, q: &Asked<'_>, found: &Found) -> Thread {
        let given = q
            .options
            .thread
            .as_ref()
            .map(|t| t.last_turns(self.settings.thread_turns))
            .unwrap_or_default();
        let turn = match found.status.unwrap_or(Status::Error) {
            Status::NeedsClarification => Turn {
                question: q.question.to_string(),
                datasource: found.clarified_on.clone(),
                clarification: found.clarification.clone(),
                ..Turn::default()
            },
            Status::Success | Status::PlanOnly => {
                let single = match (&found.combined, found.sub_queries.as_slice()) {
                    (None, [one]) => Some(one),
                    _ => None,
                };
                let columns = match (&found.combined, single) {
                    (Some(c), _) => c.columns.clone(),
                    (None, Some(s)) => s.columns.clone(),
                    (None, None) => Vec::new(),
                };
                Turn {
                    question: q.question.to_string(),
                    datasource: single.map(|s| s.datasource_id.clone()),
                    plan: single.and_then(|s| s.plan.clone()),
                    columns,
                    clarification: None,
                }
            }
            Status::Error | Status::Stopped => return given,
        };
        q.talk.thread.with(turn, self.settings.thread_turns)
    }

    /// The resolver's schema check: each candidate's structure now against the snapshot it
    /// was indexed from, as the mismatch policy says (INVALID_STATE under `fail`, a
    /// SCHEMA_CHANGED warning under `warn`, nothing read under `ignore`). A fingerprint
    /// that cannot be read is warned about, and the run goes on to meet the database itself.
    async fn schemas_current(
        &self,
        candidates: &[String],
    ) -> Result<Vec<RunWarning>, PipelineError> {
        let policy = self.settings.schema_mismatch;
        let mut warnings = Vec::new();
        if policy == MismatchPolicy::Ignore {
            return Ok(warnings);
        }
        for id in candidates {
            let Some(entry) = self.catalog.entry(id) else {
                continue;
            };
            match entry.datasource.fingerprint().await {
                Ok(live) => {
                    warnings.extend(self.catalog.index().check_fingerprint(id, &live, policy)?);
                }
                Err(e) => warnings.push(RunWarning::new(
                    Node::DatasourceResolver,
                    ErrorCode::DbExecutionError,
                    format!(
                        "Could not check whether datasource {id} changed since it was indexed: {e}"
                    ),
                )),
            }
        }
        Ok(warnings)
    }

    /// Writes the answer from one sub-query's rows (already announced).
    async fn answer_from(&self, q: &Asked<'_>, sub: SubQuery, run: &Run<'_>) -> Staged {
        let rows = Rows {
            columns: &sub.columns,
            rows: &sub.rows,
            truncated: sub.truncated,
        };
        let written = self.write_answer(q.question, rows, run).await;
        Found {
            sub_queries: vec![sub],
            ..Found::default()
        }
        .then_staged(Found::answered(written))
    }

    /// The answerability check over routing's candidates (the chosen datasource, when the
    /// caller chose one), with the first plan for the best candidate asked beside it (unless
    /// speculative planning is off); ends the resolver's step with the verdict.
    async fn resolve(
        &self,
        q: &Asked<'_>,
        (candidates, listed): (Vec<String>, Vec<String>),
        skipped: &Option<String>,
        resolver: Step<'_, '_, ResolverOutputs>,
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
        let verdict_note = verdict.as_ref().ok().map(|v| VerdictNote {
            datasources: v.datasources.clone(),
            reason: v.reason.clone(),
        });
        // The resolver's time runs from the start of the run (routing) to the verdict.
        resolver.end_at(
            check_span.ended,
            Record {
                outputs: Some(ResolverOutputs {
                    verdict: verdict_note,
                    accepted: Some(accepted.clone()),
                    ..resolver_outputs(&candidates, skipped, q)
                }),
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
            run.record_span(
                At::run(),
                span,
                Record::ok(RetrieverOutputs {
                    dropped: Some(why.clone()),
                    ..RetrieverOutputs::default()
                }),
            );
            let record = Record::ok(PlannerOutputs {
                dropped: Some(why),
                ..PlannerOutputs::default()
            })
            .with_calls(calls);
            run.record_span(At::run(), span, record);
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
            run.announce::<RetrieverOutputs>(At::run());
            run.announce::<PlannerOutputs>(At::run());
        };
        let check = self.answerability(q, listed);
        let resolver_agent = run.bounded(&self.settings.resolver);
        let planner_agent = run.bounded(&self.settings.planner);
        let mut calls_check = Vec::new();
        let mut calls_plan = Vec::new();
        let task = |datasource| self.task(q, datasource);
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
        // An empty question would cost a model call and answer nothing.
        if q.question.trim().is_empty() {
            return Err(resolver(
                ErrorCode::QuestionEmpty,
                Severity::Error,
                "The question is empty: write what you want to know.".to_string(),
            ));
        }
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
            // One left out says why to a caller who may reach it; an unknown id is answered
            // with the ids this caller may ask about, never others.
            let left_out = self.catalog.unavailable().iter().find(|u| u.id == *id);
            if let Some(u) = left_out.filter(|u| q.scope.can_reach(&u.id)) {
                return Err(u.error(Node::DatasourceResolver));
            }
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
            let routed = route_in_thread(
                self.catalog.index(),
                self.catalog.embedder(),
                &q.talk.search,
                q.talk.datasource(),
                &q.scope,
                &self.settings.routing,
            )
            .await
            .map_err(|e| e.at(Node::DatasourceResolver))?;
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

    fn answerability(&self, q: &Asked<'_>, candidates: &[String]) -> Structured<'static> {
        let scope = &q.scope;
        let earlier: Vec<&str> = q.talk.earlier.iter().map(String::as_str).collect();
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
                content: prompts::answerability_user(q.question, &earlier, &listed),
            }],
        }
    }

    /// The schema retrieval finds for `task` now, and when.
    async fn retrieve_for(
        &self,
        task: &Task<'_>,
        scope: &Scope<'_>,
    ) -> (Result<Retrieval, PipelineError>, Span) {
        let started = self.clock.now_ms();
        // A part is found by its own words; a follow-up with the question it follows.
        let query = task.part.map_or(task.search, |p| p.question.as_str());
        // The earlier turns take their share of the prompt from the schema's.
        let settings = self.settings.retrieval.sharing(task.context.len());
        let retrieved = retrieve(
            self.catalog.index(),
            self.catalog.embedder(),
            task.datasource,
            query,
            scope,
            &settings,
            false,
        )
        .await
        .map_err(|e| e.at(Node::SchemaRetriever));
        let span = Span {
            started,
            ended: self.clock.now_ms(),
        };
        (retrieved, span)
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
        let (retrieved, retrieved_at) = self.retrieve_for(task, scope).await;
        let unplanned = Span {
            started: retrieved_at.ended,
            ended: retrieved_at.ended,
        };
        let retrieval = match retrieved {
            Ok(r) => r,
            Err(e) => {
                return Planned {
                    retrieval: Retrieval::empty(task.datasource),
                    retrieved: retrieved_at,
                    plan: Err(e),
                    planned: unplanned,
                    source: PlanSource::Planner,
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
            source: PlanSource::Planner,
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
            content: prompts::planner_user(
                today,
                schema,
                retrieval,
                task.question,
                task.part,
                task.context,
            ),
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
            &|text| Plan::from_json(text).map_err(|e| e.to_string()),
            calls,
            budget,
        )
        .await
    }
}

fn parse_verdict(text: &str) -> Result<Verdict, String> {
    serde_json::from_str::<Verdict>(text).map_err(|e| e.to_string())
}

/// The resolver's record: the candidates, why routing was skipped when it was, and how the
/// question relates to its thread.
fn resolver_outputs(
    candidates: &[String],
    skipped: &Option<String>,
    q: &Asked<'_>,
) -> ResolverOutputs {
    ResolverOutputs {
        candidates: candidates.to_vec(),
        routing_skipped: skipped.clone(),
        thread: q.talk.continuation.as_ref().map(|c| ThreadNote {
            continued: c.follows,
            reason: c.reason.clone(),
            previous_datasource: q.talk.datasource().map(str::to_string),
        }),
        ..ResolverOutputs::default()
    }
}

fn not_answerable(message: &str) -> PipelineError {
    PipelineError::new(
        Node::DatasourceResolver,
        ErrorCode::QuestionNotAnswerable,
        Severity::Error,
        message,
    )
}
