//! What a run returns: the result a caller shows and the trace a person debugs with.

use super::decompose::Decomposition;
use super::llm::LlmCall;
use crate::conversation::{Clarification, FollowUp, Thread};
use crate::curated::ParamValue;
use crate::error::{Node, PipelineError, RunWarning};
use crate::index::{Retrieval, Routing};
use crate::plan::Plan;
use crate::provider::chat::PriceTable;
use crate::provider::Usage;
use crate::validate::{CheckName, ValidationCheck};
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Rows and an answer.
    Success,
    /// A validated plan and its SQL, not run (plan-only mode).
    PlanOnly,
    /// No answer: `errors` says why.
    Error,
    /// A run limit stopped it.
    Stopped,
    /// The question means different things in the schema: `clarification` asks which.
    NeedsClarification,
}

impl Status {
    /// The published name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Success => "success",
            Status::PlanOnly => "plan_only",
            Status::Error => "error",
            Status::Stopped => "stopped",
            Status::NeedsClarification => "needs_clarification",
        }
    }
}

/// One query the run planned: `q1` alone, or one per part of a decomposed question.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SubQuery {
    /// Stable id, `q1`.
    pub id: String,
    /// Where it ran.
    pub datasource_id: String,
    /// The last plan the planner wrote, when it wrote one that parsed.
    pub plan: Option<Plan>,
    /// The SQL the engine rendered for it.
    pub sql: Option<String>,
    /// The validator's named checks on the last plan.
    pub validation: Vec<ValidationCheck>,
    /// Result columns.
    pub columns: Vec<String>,
    /// Result rows, typed.
    pub rows: Vec<Vec<Value>>,
    /// True when the row cap cut the result.
    pub truncated: bool,
    /// Planner retries after a rejection.
    pub retry_count: u32,
    /// Who wrote its plan. Absent from traces written before the plan cache: the planner.
    #[serde(default)]
    pub plan_source: PlanSource,
}

/// Who wrote a sub-query's plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PlanSource {
    /// The planner, in this run.
    #[default]
    Planner,
    /// The plan cache: the planner wrote it for the same question before.
    Cache,
    /// A verified query, imported.
    Verified,
}

/// The combined rows of a decomposed question and the query that combined them.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CombinedRows {
    /// The query run on the scratch database.
    pub sql: String,
    /// Result columns.
    pub columns: Vec<String>,
    /// Result rows.
    pub rows: Vec<Vec<Value>>,
    /// True when the row cap cut the result.
    pub truncated: bool,
}

/// The written answer.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FinalAnswer {
    /// The answer in a sentence or two.
    pub text: String,
    /// Who wrote it.
    pub written_by: Writer,
}

/// Who wrote an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Writer {
    /// A sentence made by code from the rows, no model call.
    Template,
    /// The model, from the question and the first rows.
    Llm,
}

/// How a node's execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NodeStatus {
    /// It did its work (perhaps with warnings).
    Ok,
    /// It found a blocking error.
    Error,
}

/// Where an answer came from when the planner did not write its query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AnswerSource {
    /// A verified query answered.
    Verified {
        /// The query's id.
        id: String,
        /// Its datasource.
        datasource_id: String,
        /// The values it ran with.
        params: BTreeMap<String, ParamValue>,
    },
}

/// Token and call totals for a node or a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UsageTotals {
    /// Model calls.
    pub calls: u32,
    /// Input tokens, `None` when some call did not report them.
    pub input_tokens: Option<u64>,
    /// Input tokens read from a prompt cache.
    pub cached_input_tokens: Option<u64>,
    /// Output tokens.
    pub output_tokens: Option<u64>,
    /// US dollars, `None` when a call's model has no price or did not report usage.
    pub cost_usd: Option<f64>,
}

impl UsageTotals {
    /// Adds one call.
    pub fn add(&mut self, usage: &Usage, cost: Option<f64>) {
        let sum = |total: Option<u64>, one: Option<u64>, first: bool| match (total, one) {
            (Some(t), Some(o)) => Some(t + o),
            (None, Some(o)) if first => Some(o),
            _ => None,
        };
        let first = self.calls == 0;
        self.input_tokens = sum(self.input_tokens, usage.input, first);
        self.cached_input_tokens = sum(self.cached_input_tokens, usage.cached.or(Some(0)), first);
        self.output_tokens = sum(self.output_tokens, usage.output, first);
        self.cost_usd = match (self.cost_usd, cost) {
            (Some(t), Some(c)) => Some(t + c),
            (None, Some(c)) if first => Some(c),
            _ => None,
        };
        self.calls += 1;
    }
}

/// One node's execution, as the trace records it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NodeRecord {
    /// Order in the run, from 1.
    pub seq: u32,
    /// The node.
    pub node: Node,
    /// The sub-query it worked on, when it worked on one.
    pub sub_query_id: Option<String>,
    /// Which try (planner retries count up from 0).
    pub attempt: u32,
    /// How it ended.
    pub status: NodeStatus,
    /// Milliseconds from the run's start.
    pub started_ms: u64,
    /// How long it took.
    pub duration_ms: u64,
    /// What it decided, as JSON.
    pub outputs: serde_json::Value,
    /// Its errors.
    pub errors: Vec<PipelineError>,
    /// Its model calls.
    pub llm_calls: Vec<LlmCall>,
}

/// Everything a run produced.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QueryResult {
    /// How it ended.
    pub status: Status,
    /// The question as asked.
    pub question: String,
    /// The roles it was asked with.
    pub roles: Vec<String>,
    /// The datasource it was asked of, when the caller chose one.
    pub datasource: Option<String>,
    /// True in plan-only mode.
    pub plan_only: bool,
    /// The queries.
    pub sub_queries: Vec<SubQuery>,
    /// The answer, on success.
    pub final_answer: Option<FinalAnswer>,
    /// What went wrong, as callers may see it (safe messages, no details).
    pub errors: Vec<PipelineError>,
    /// What the answer should mention.
    pub warnings: Vec<RunWarning>,
    /// Totals for the run.
    pub usage: UsageTotals,
    /// Totals per node.
    pub usage_by_node: Vec<(Node, UsageTotals)>,
    /// Model calls on the longest chain of calls that waited for each other.
    pub sequential_llm_calls: u32,
    /// The routing decision, when routing ran.
    pub routing: Option<Routing>,
    /// The schema the planner saw (single-datasource questions).
    pub retrieval: Option<Retrieval>,
    /// How a question across datasources was split, when it was.
    pub decomposition: Option<Decomposition>,
    /// The sub-results combined, when there were several.
    pub combined: Option<CombinedRows>,
    /// What the curated matcher decided, when verified queries are configured.
    pub curated: Option<super::verified::CuratedMatch>,
    /// Where the answer came from when the planner did not write its query.
    pub source: Option<AnswerSource>,
    /// Milliseconds the whole run took.
    pub duration_ms: u64,
    /// Every node's execution, in order.
    pub trace: Vec<NodeRecord>,
    /// When replayed: where the prompts differed from the recording (empty: nowhere).
    /// Absent from traces written before replay existed.
    #[serde(default)]
    pub replay_divergences: Vec<super::replay::Divergence>,
    /// The conversation to continue with the next question: the thread given (or a fresh
    /// one) with this turn, when it answered or asked back.
    #[serde(default)]
    pub thread: Thread,
    /// How the question related to the thread it was asked in (none: no thread given).
    #[serde(default)]
    pub follow_up: Option<FollowUp>,
    /// What the engine asks back, when the status is `needs_clarification`.
    #[serde(default)]
    pub clarification: Option<Clarification>,
}

impl QueryResult {
    /// Usage totals, per node and for the run, priced with `prices`.
    pub(crate) fn total_usage(&mut self, prices: &PriceTable) {
        let mut total = UsageTotals::default();
        let mut by_node: Vec<(Node, UsageTotals)> = Vec::new();
        for call in self.trace.iter().flat_map(|n| &n.llm_calls) {
            let cost = prices.cost(&call.model, &call.usage);
            total.add(&call.usage, cost);
            match by_node.iter_mut().find(|(n, _)| *n == call.node) {
                Some((_, t)) => t.add(&call.usage, cost),
                None => {
                    let mut t = UsageTotals::default();
                    t.add(&call.usage, cost);
                    by_node.push((call.node, t));
                }
            }
        }
        self.usage = total;
        self.usage_by_node = by_node;
    }
}

/// Which form of a result leaves the engine: the front end chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TraceForm {
    /// Everything, for a caller who owns the data and the configuration (the page, the
    /// command line).
    #[default]
    Full,
    /// [`QueryResult::cleaned`], for a caller across a trust boundary.
    Cleaned,
}

/// What the cleaned form says instead of a plan the policy refused.
pub const WITHHELD: &str = "Withheld: the plan reads a table the role may not read.";

impl QueryResult {
    /// This result in `form`.
    pub fn in_form(self, form: TraceForm) -> QueryResult {
        match form {
            TraceForm::Full => self,
            TraceForm::Cleaned => self.cleaned(),
        }
    }

    /// This result as a caller across a trust boundary may see it (an HTTP or MCP client
    /// whose role is not trusted with the full trace), by one rule: every error, in
    /// `errors` and in the trace, cleaned ([`PipelineError::cleaned`]: no details, refusals
    /// that name no table, role or rule, database rejections in fixed sentences); a failed
    /// policy check worded the same way; every warning cleaned alike, with no detail; the
    /// curated matcher's fallback detail likewise; and a plan the policy refused withheld,
    /// with the model answer that carried it, since the model was never shown a hidden
    /// table and such a plan is where its name could otherwise appear. The
    /// page and the command line, where the caller owns the data and the configuration,
    /// keep the full form.
    pub fn cleaned(mut self) -> QueryResult {
        let refusal = || crate::validate::REFUSAL_MESSAGE.to_string();
        let refused = |checks: &[ValidationCheck]| {
            checks
                .iter()
                .any(|c| c.name == CheckName::Policy && !c.passed)
        };
        let clean_checks = |checks: &mut Vec<ValidationCheck>| {
            for c in checks.iter_mut() {
                if c.name == CheckName::Policy && !c.passed {
                    c.message = refusal();
                }
            }
        };
        // Which attempts of which sub-queries the policy refused, from the validator's
        // records, before their errors are cleaned.
        let denied: Vec<(Option<String>, u32)> = self
            .trace
            .iter()
            .filter(|r| {
                r.node == Node::LogicalValidator
                    && r.errors
                        .iter()
                        .any(|e| e.error_code == crate::error::ErrorCode::SecurityViolation)
            })
            .map(|r| (r.sub_query_id.clone(), r.attempt))
            .collect();
        // A follow-up's plan diff would name what a refused plan read.
        if !denied.is_empty() {
            if let Some(f) = &mut self.follow_up {
                f.diff = None;
            }
        }
        self.errors = self.errors.iter().map(PipelineError::cleaned).collect();
        self.warnings = self.warnings.iter().map(RunWarning::cleaned).collect();
        self.curated = self.curated.map(super::verified::CuratedMatch::cleaned);
        for sub in &mut self.sub_queries {
            if refused(&sub.validation) {
                sub.plan = None;
                sub.sql = None;
            }
            clean_checks(&mut sub.validation);
        }
        for record in &mut self.trace {
            record.errors = record.errors.iter().map(PipelineError::cleaned).collect();
            // The validator's record holds its checks as they were reported. (Typed again
            // from text, not from the value: each type keeps one deserializer.)
            if let Some(checks) = record.outputs.get_mut("checks") {
                if let Ok(mut typed) =
                    serde_json::from_str::<Vec<ValidationCheck>>(&checks.to_string())
                {
                    clean_checks(&mut typed);
                    if let Ok(value) = serde_json::to_value(typed) {
                        *checks = value;
                    }
                }
            }
            // The matcher's record is its `CuratedMatch`.
            if record.node == Node::CuratedMatcher {
                if let Ok(found) = serde_json::from_str::<super::verified::CuratedMatch>(
                    &record.outputs.to_string(),
                ) {
                    record.outputs = serde_json::to_value(found.cleaned()).unwrap_or_default();
                }
            }
            let at = (record.sub_query_id.clone(), record.attempt);
            if record.node == Node::AstPlanner && denied.contains(&at) {
                record.outputs = serde_json::json!({ "plan": WITHHELD });
                for call in &mut record.llm_calls {
                    call.response = None;
                    call.error = Some(WITHHELD.to_string());
                }
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::Status;

    #[test]
    fn a_status_name_is_its_published_name() {
        for status in [
            Status::Success,
            Status::PlanOnly,
            Status::Error,
            Status::Stopped,
            Status::NeedsClarification,
        ] {
            let json = serde_json::to_string(&status).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
    }
}
