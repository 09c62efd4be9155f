//! What a front end configures, as JSON (snake_case, as every contract type): the model provider,
//! the model of each node, and the run's limits. Both the npm package and the playground
//! turn it into [`EngineSettings`] here, so they mean the same thing by every field.
//!
//! [`ProviderConfig`] holds the key, so it can be read but never written out: it has no
//! `Serialize`, and its `Debug` hides the key.

pub use crate::engine::EngineSettings;
use crate::engine::{Agent, AnswerMode, Feedback};
use crate::error::Error;
use crate::index::MismatchPolicy;
pub use crate::provider::chat::{Price, PriceTable};
pub use crate::provider::Role;
use crate::provider::{ApiKey, Provider, Wire};
pub use nl2sql_plan::lower::LowerOptions;
pub use nl2sql_plan::policy::{Pattern, Policies};
pub use nl2sql_plan::validate::QUERY_TIMEOUT_MS;
pub use nl2sql_plan::validate::{JoinRule, ValidatorSettings};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which provider's API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI's Chat Completions.
    #[default]
    OpenAi,
    /// Anthropic's Messages.
    Anthropic,
    /// Any endpoint speaking OpenAI's wire (Ollama, LM Studio, vLLM, OpenRouter, …).
    Compatible,
}

impl ProviderKind {
    /// The base URL used when none is given.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "https://api.openai.com/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com/v1",
            ProviderKind::Compatible => "http://localhost:11434/v1",
        }
    }

    /// A sensible model to start from.
    pub fn default_model(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "gpt-5.4-mini",
            ProviderKind::Anthropic => "claude-haiku-4-5",
            ProviderKind::Compatible => "llama3.1",
        }
    }

    /// True when the provider needs a key.
    pub fn needs_key(self) -> bool {
        self != ProviderKind::Compatible
    }
}

/// Where model calls go, and which model each node asks.
#[derive(Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The provider's API.
    #[serde(default)]
    pub kind: ProviderKind,
    /// The model every node uses unless `models` says otherwise.
    #[serde(default)]
    pub model: String,
    /// The key; empty for endpoints that need none.
    #[serde(default)]
    pub api_key: String,
    /// The API base, e.g. `http://localhost:11434/v1`; the provider's own when absent.
    #[serde(default)]
    pub base_url: Option<String>,
    /// A model per node, overriding `model`.
    #[serde(default)]
    pub models: NodeModels,
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("kind", &self.kind)
            .field("model", &self.model)
            .field("api_key", &if self.api_key.is_empty() { "" } else { "…" })
            .field("base_url", &self.base_url)
            .field("models", &self.models)
            .finish()
    }
}

/// Models per node; empty means the provider's `model`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeModels {
    /// The answerability check.
    #[serde(default)]
    pub resolver: String,
    /// The planner (and the verified-query pick).
    #[serde(default)]
    pub planner: String,
    /// The decomposer.
    #[serde(default)]
    pub decomposer: String,
    /// The written answer.
    #[serde(default)]
    pub answer: String,
}

/// How the final answer is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerConfig {
    /// The model writes it, streamed.
    #[default]
    Llm,
    /// A sentence from the rows, no model call.
    Template,
}

/// A run's limits and behaviour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// How the answer is written.
    pub answer: AnswerConfig,
    /// Model calls per question.
    pub max_llm_calls: u32,
    /// Dollars per question; none: no limit.
    pub max_cost_usd: Option<f64>,
    /// The whole run's time limit.
    pub timeout_ms: u64,
    /// Each query's time limit; the database stops a query that runs longer (QUERY_TIMEOUT).
    pub query_timeout_ms: u64,
    /// Planner retries after a rejection.
    pub retries_max: u32,
    /// Rows a query may return.
    pub row_cap: u64,
    /// A refiner model turns rejections into advice before the planner retries.
    pub refiner: bool,
    /// Plan while the answerability check runs (faster; a refused question may still
    /// spend one planning call).
    pub speculative_planning: bool,
    /// What a run does when a datasource's structure changed since it was indexed:
    /// `warn` (default, SCHEMA_CHANGED), `fail` (INVALID_STATE) or `ignore` (not checked).
    pub schema_mismatch: MismatchPolicy,
    /// Prices per model (USD per million tokens); none: the published table.
    pub prices: Option<PriceTable>,
    /// Turns a conversation keeps for its follow-ups (at least 1).
    pub thread_turns: usize,
    /// Reuse the plan of a question asked before (same datasource, schema, model, thread);
    /// it is validated again for every caller.
    pub plan_cache: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        let defaults = EngineSettings::new(Agent::new(
            Provider::new(Wire::OpenAi, "", ApiKey::default()),
            "",
        ));
        RunConfig {
            answer: AnswerConfig::Llm,
            max_llm_calls: defaults.max_llm_calls,
            max_cost_usd: None,
            timeout_ms: defaults.timeout_ms,
            query_timeout_ms: QUERY_TIMEOUT_MS,
            retries_max: defaults.retries_max,
            row_cap: defaults.validator.lower.row_cap,
            refiner: false,
            speculative_planning: defaults.speculative_planning,
            schema_mismatch: defaults.schema_mismatch,
            prices: None,
            thread_turns: defaults.thread_turns,
            plan_cache: defaults.plan_cache,
        }
    }
}

impl ProviderConfig {
    /// The provider: kind, base URL (trimmed) and key.
    pub fn provider(&self) -> Provider {
        let wire = match self.kind {
            ProviderKind::Anthropic => Wire::Anthropic,
            ProviderKind::OpenAi | ProviderKind::Compatible => Wire::OpenAi,
        };
        let base = self
            .base_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .unwrap_or(self.kind.default_base_url());
        Provider::new(wire, base, ApiKey::new(self.api_key.trim()))
    }

    /// Checks what can be checked without calling anyone.
    pub fn check(&self) -> Result<(), Error> {
        if self.model.trim().is_empty() {
            return Err(Error::config("Choose a model."));
        }
        if self.kind.needs_key() && self.api_key.trim().is_empty() {
            return Err(Error::config(format!(
                "Paste your {} key, or choose an OpenAI-compatible endpoint such as a local Ollama.",
                self.provider().label()
            )));
        }
        let base = self.provider().base_url;
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(Error::config(format!(
                "The base URL {base:?} must start with http:// or https://."
            )));
        }
        Ok(())
    }

    fn agent(&self, model: &str) -> Agent {
        let model = if model.trim().is_empty() {
            self.model.trim()
        } else {
            model.trim()
        };
        Agent::new(self.provider(), model)
    }
}

/// The engine's settings for `provider` and `run`.
pub fn engine_settings(
    provider: &ProviderConfig,
    run: &RunConfig,
) -> Result<EngineSettings, Error> {
    provider.check()?;
    if run.max_cost_usd.is_some_and(|c| !c.is_finite() || c < 0.0) {
        return Err(Error::config(
            "The cost limit must be a number of dollars, 0 or more.",
        ));
    }
    if run.timeout_ms == 0
        || run.query_timeout_ms == 0
        || run.max_llm_calls == 0
        || run.row_cap == 0
    {
        return Err(Error::config(
            "The time limits, the model-call limit and the row cap must be above 0.",
        ));
    }
    let m = &provider.models;
    let mut s = EngineSettings::new(provider.agent(&m.planner));
    s.resolver = Agent {
        max_tokens: 500,
        ..provider.agent(&m.resolver)
    };
    s.decomposer = provider.agent(&m.decomposer);
    s.answer = match run.answer {
        AnswerConfig::Template => AnswerMode::Template,
        AnswerConfig::Llm => AnswerMode::Llm(Agent {
            max_tokens: 400,
            ..provider.agent(&m.answer)
        }),
    };
    if run.refiner {
        s.feedback = Feedback::Refiner(Agent {
            max_tokens: 600,
            ..provider.agent(&m.planner)
        });
    }
    s.max_llm_calls = run.max_llm_calls;
    s.max_cost_usd = run.max_cost_usd;
    s.timeout_ms = run.timeout_ms;
    s.retries_max = run.retries_max;
    s.speculative_planning = run.speculative_planning;
    s.thread_turns = run.thread_turns.max(1);
    s.plan_cache = run.plan_cache;
    s.schema_mismatch = run.schema_mismatch;
    s.validator.lower.row_cap = run.row_cap;
    s.validator.query_timeout_ms = Some(run.query_timeout_ms);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(json: &str) -> ProviderConfig {
        match serde_json::from_str(json) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn per_node_models_override_the_default_one() {
        let p = provider(
            r#"{"kind": "anthropic", "model": "claude-haiku-4-5", "api_key": "sk-ant-x",
                "models": {"planner": "claude-opus-5"}}"#,
        );
        let s = engine_settings(&p, &RunConfig::default()).map_err(|e| e.message);
        let s = s.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.planner.model, "claude-opus-5");
        assert_eq!(s.resolver.model, "claude-haiku-4-5");
        assert_eq!(s.planner.provider.wire, Wire::Anthropic);
        assert_eq!(s.planner.provider.base_url, "https://api.anthropic.com/v1");
        assert!(matches!(s.answer, AnswerMode::Llm(ref a) if a.model == "claude-haiku-4-5"));
    }

    #[test]
    fn a_missing_key_or_model_or_a_bad_url_is_refused_in_plain_words() {
        let no_key = provider(r#"{"kind": "openai", "model": "gpt-5.4"}"#);
        let e = engine_settings(&no_key, &RunConfig::default()).err();
        assert!(e.is_some_and(|e| e.message.contains("Paste your OpenAI key")));
        let local = provider(r#"{"kind": "compatible", "model": "llama3.1"}"#);
        assert!(engine_settings(&local, &RunConfig::default()).is_ok());
        let no_model = provider(r#"{"kind": "compatible"}"#);
        assert!(engine_settings(&no_model, &RunConfig::default()).is_err());
        let bad_url =
            provider(r#"{"kind": "compatible", "model": "m", "base_url": "localhost:11434"}"#);
        let e = engine_settings(&bad_url, &RunConfig::default()).err();
        assert!(e.is_some_and(|e| e.message.contains("http://")));
    }

    #[test]
    fn the_key_never_shows_in_debug_output() {
        let p = provider(r#"{"kind": "openai", "model": "gpt-5.4", "api_key": "sk-secret-123"}"#);
        assert!(!format!("{p:?}").contains("sk-secret"));
    }

    #[test]
    fn run_limits_reach_the_engine_settings() {
        let p = provider(r#"{"kind": "compatible", "model": "m"}"#);
        let run: RunConfig = serde_json::from_str(
            r#"{"answer": "template", "max_cost_usd": 0.05, "row_cap": 200, "refiner": true}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let s = engine_settings(&p, &run).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.answer, AnswerMode::Template);
        assert_eq!(s.max_cost_usd, Some(0.05));
        assert_eq!(s.validator.lower.row_cap, 200);
        assert!(matches!(s.feedback, Feedback::Refiner(_)));
        let negative: RunConfig =
            serde_json::from_str(r#"{"max_cost_usd": -1}"#).unwrap_or_else(|e| panic!("{e}"));
        assert!(engine_settings(&p, &negative).is_err());
    }
}
