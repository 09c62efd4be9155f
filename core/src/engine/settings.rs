//! What a run may do: which model each node asks, retries, limits.

use crate::index::{MismatchPolicy, RetrieveSettings, RouteSettings};
use crate::provider::{Provider, StructuredMethod};
use crate::validate::ValidatorSettings;

/// One node's model: where it is, how it is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    /// Where calls go.
    pub provider: Provider,
    /// The model's name at the provider.
    pub model: String,
    /// Sent only when set.
    pub temperature: Option<f32>,
    /// The most output tokens.
    pub max_tokens: u32,
    /// Per call.
    pub timeout_ms: u64,
    /// How structured answers are asked for.
    pub method: StructuredMethod,
    /// Times an answer that does not parse is sent back with its errors (default 1).
    pub parse_retries: u32,
}

impl Agent {
    /// An agent with the defaults: no temperature, 4,000 output tokens, 60 s, tool calling,
    /// one parse retry.
    pub fn new(provider: Provider, model: &str) -> Agent {
        Agent {
            provider,
            model: model.to_string(),
            temperature: None,
            max_tokens: 4_000,
            timeout_ms: 60_000,
            method: StructuredMethod::ToolCalling,
            parse_retries: 1,
        }
    }
}

/// How the final answer is written.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerMode {
    /// A deterministic sentence from the rows: no model call.
    Template,
    /// A short answer the model writes, streamed.
    Llm(Agent),
}

/// What a rejected plan's planner hears before trying again.
#[derive(Debug, Clone, PartialEq)]
pub enum Feedback {
    /// The validator's or executor's own messages, straight back: one call per retry.
    Direct,
    /// A refiner model turns them into advice first (seed 003): two calls per retry.
    Refiner(Agent),
}

/// Everything a run needs besides the question.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineSettings {
    /// The answerability check's model.
    pub resolver: Agent,
    /// The planner's model.
    pub planner: Agent,
    /// The decomposer's model (cross-datasource questions only).
    pub decomposer: Agent,
    /// What the planner hears after a rejection.
    pub feedback: Feedback,
    /// Sub-queries one question may need; more is QUESTION_TOO_BROAD.
    pub max_sub_queries: usize,
    /// How the answer is written.
    pub answer: AnswerMode,
    /// Planner retries after a retryable rejection (validator or executor), at most.
    pub retries_max: u32,
    /// Model calls per question, parse retries included.
    pub max_llm_calls: u32,
    /// Dollars per question (priced with the engine's price table); `None`: no limit.
    pub max_cost_usd: Option<f64>,
    /// The whole run's time limit; every model call's timeout is cut to what is left.
    pub timeout_ms: u64,
    /// Plan the best-routed datasource while the answerability check runs: one model
    /// round trip less per answered question, but a refused question may have spent a
    /// planning call. Off: the planner is asked only after the check accepts.
    pub speculative_planning: bool,
    /// Check results that ran (VALUE_NOT_FOUND, ALL_NULL_COLUMN).
    pub sanity_checks: bool,
    /// What a run does when a routed datasource's structure no longer matches the snapshot
    /// it was indexed from (compared by fingerprint before planning).
    pub schema_mismatch: MismatchPolicy,
    /// Routing.
    pub routing: RouteSettings,
    /// Schema retrieval.
    pub retrieval: RetrieveSettings,
    /// The validator's settings (`lower.row_cap` caps every query's rows; `lower.today`
    /// pins the run date).
    pub validator: ValidatorSettings,
    /// Turns a thread keeps (the result's thread holds at most this many).
    pub thread_turns: usize,
    /// Reuse a plan that validated and ran for the same question (see
    /// [`crate::plan_cache`]); the front end's cache is used only when this is on.
    pub plan_cache: bool,
}

impl EngineSettings {
    /// The defaults, every node on `agent`, template answers.
    pub fn new(agent: Agent) -> EngineSettings {
        EngineSettings {
            resolver: Agent {
                max_tokens: 500,
                ..agent.clone()
            },
            decomposer: agent.clone(),
            planner: agent,
            feedback: Feedback::Direct,
            max_sub_queries: 6,
            answer: AnswerMode::Template,
            retries_max: 3,
            max_llm_calls: 60,
            max_cost_usd: None,
            timeout_ms: 60_000,
            speculative_planning: true,
            sanity_checks: true,
            schema_mismatch: MismatchPolicy::default(),
            routing: RouteSettings::default(),
            retrieval: RetrieveSettings::default(),
            validator: ValidatorSettings::default(),
            thread_turns: crate::conversation::DEFAULT_TURNS,
            plan_cache: true,
        }
    }
}
