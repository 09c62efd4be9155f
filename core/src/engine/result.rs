//! What a run returns: the result a caller shows and the trace a person debugs with.

use super::decompose::Decomposition;
use super::trace::{NodeOutput, NodeRecord, PlannerOutputs, Writer};
use crate::conversation::{Clarification, FollowUp, Thread};
use crate::curated::ParamValue;
use crate::error::{Boundary, Clean, ErrorCode};
use crate::error::{Node, PipelineError, RunWarning};
use crate::index::{Retrieval, Routing};
use crate::plan::Plan;
use crate::provider::chat::PriceTable;
use crate::provider::Usage;
use crate::validate::{CheckName, ValidationCheck};
use crate::value::Value;
use nl2sql_derive::Clean;
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
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CombinedRows {
    /// The query run on the scratch database.
    #[clean(keep)]
    pub sql: String,
    /// Result columns.
    #[clean(keep)]
    pub columns: Vec<String>,
    /// Result rows.
    #[clean(keep)]
    pub rows: Vec<Vec<Value>>,
    /// True when the row cap cut the result.
    #[clean(keep)]
    pub truncated: bool,
}

/// The written answer.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FinalAnswer {
    /// The answer in a sentence or two.
    #[clean(keep)]
    pub text: String,
    /// Who wrote it.
    #[clean(keep)]
    pub written_by: Writer,
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, serde::Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UsageTotals {
    /// Model calls.
    #[clean(keep)]
    pub calls: u32,
    /// Input tokens, `None` when some call did not report them.
    #[clean(keep)]
    pub input_tokens: Option<u64>,
    /// Input tokens read from a prompt cache.
    #[clean(keep)]
    pub cached_input_tokens: Option<u64>,
    /// Output tokens.
    #[clean(keep)]
    pub output_tokens: Option<u64>,
    /// US dollars, `None` when a call's model has no price or did not report usage.
    #[clean(keep)]
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
    pub curated: Option<super::trace::CuratedMatch>,
    /// Where the answer came from when the planner did not write its query.
    pub source: Option<AnswerSource>,
    /// Milliseconds the whole run took.
    pub duration_ms: u64,
    /// Every node's execution, in order.
    pub trace: Vec<NodeRecord>,
    /// When replayed: where the prompts differed from the recording (empty: nowhere).
    /// Absent from traces written before replay existed.
    #[serde(default)]
    pub replay_divergences: Vec<Divergence>,
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

/// The rows a run answered with, wherever they came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerRows<'a> {
    /// Result columns.
    pub columns: &'a [String],
    /// Result rows, up to the row cap.
    pub rows: &'a [Vec<Value>],
}

impl QueryResult {
    /// The one sub-query that answered alone, when the question was not split.
    pub fn single(&self) -> Option<&SubQuery> {
        match (&self.combined, self.sub_queries.as_slice()) {
            (None, [one]) => Some(one),
            _ => None,
        }
    }

    /// The rows the run answered with: a split question's combined rows, else its one
    /// sub-query's (none when there are neither).
    pub fn answer_rows(&self) -> Option<AnswerRows<'_>> {
        match (&self.combined, self.single()) {
            (Some(c), _) => Some(AnswerRows {
                columns: &c.columns,
                rows: &c.rows,
            }),
            (None, Some(one)) => Some(AnswerRows {
                columns: &one.columns,
                rows: &one.rows,
            }),
            (None, None) => None,
        }
    }

    /// This result in `form`.
    pub fn in_form(self, form: TraceForm) -> QueryResult {
        match form {
            TraceForm::Full => self,
            TraceForm::Cleaned => self.cleaned(),
        }
    }

    /// This result as a caller across a trust boundary may see it ([`Clean`]).
    pub fn cleaned(self) -> QueryResult {
        Clean::cleaned(self, &Boundary::default())
    }
}

/// A result as a caller across a trust boundary may see it (an HTTP or MCP client whose
/// role is not trusted with the full trace): every error and warning cleaned (no details,
/// refusals that name no table, role or rule, database rejections in fixed sentences), a
/// failed policy check worded the same way, the curated matcher's fallback detail likewise,
/// and a plan the policy refused — or planning dropped unchecked — withheld with the model
/// answers that carried it, since such a plan is where a hidden table's name could appear.
/// Every field is named here, so a new one is decided on before it compiles. The page and
/// the command line, where the caller owns the data and the configuration, keep the full
/// form.
impl Clean for QueryResult {
    fn cleaned(self, boundary: &Boundary) -> QueryResult {
        let QueryResult {
            status,
            question,
            roles,
            datasource,
            plan_only,
            sub_queries,
            final_answer,
            errors,
            warnings,
            usage,
            usage_by_node,
            sequential_llm_calls,
            routing,
            retrieval,
            decomposition,
            combined,
            curated,
            source,
            duration_ms,
            trace,
            replay_divergences,
            thread,
            follow_up,
            clarification,
        } = self;
        // Which attempts of which sub-queries the policy refused, from the validator's
        // records, before their errors are cleaned.
        let denied: Vec<(Option<String>, u32)> = trace
            .iter()
            .filter(|r| {
                r.node() == Node::LogicalValidator
                    && r.errors
                        .iter()
                        .any(|e| e.error_code == ErrorCode::SecurityViolation)
            })
            .map(|r| (r.sub_query_id.clone(), r.attempt))
            .collect();
        let withheld = Boundary { refused: true };
        let trace = trace
            .into_iter()
            .map(|record| {
                let planning = matches!(record.output, NodeOutput::AstPlanner(_));
                let dropped = matches!(
                    &record.output,
                    NodeOutput::AstPlanner(Some(PlannerOutputs {
                        dropped: Some(_),
                        ..
                    }))
                );
                let refused = denied.contains(&(record.sub_query_id.clone(), record.attempt));
                let at = if planning && (refused || dropped) {
                    &withheld
                } else {
                    boundary
                };
                record.cleaned(at)
            })
            .collect();
        let sub_queries = sub_queries
            .into_iter()
            .map(|sub| {
                let refused = sub
                    .validation
                    .iter()
                    .any(|c| c.name == CheckName::Policy && !c.passed);
                sub.cleaned(if refused { &withheld } else { boundary })
            })
            .collect();
        // A follow-up's plan diff would name what a refused plan read.
        let follow_up = follow_up.map(|f| {
            let f = f.cleaned(boundary);
            FollowUp {
                diff: if denied.is_empty() { f.diff } else { None },
                ..f
            }
        });
        QueryResult {
            status,
            question,
            roles,
            datasource,
            plan_only,
            sub_queries,
            final_answer: final_answer.cleaned(boundary),
            errors: errors.cleaned(boundary),
            warnings: warnings.cleaned(boundary),
            usage: usage.cleaned(boundary),
            usage_by_node,
            sequential_llm_calls,
            routing: routing.cleaned(boundary),
            retrieval: retrieval.cleaned(boundary),
            decomposition: decomposition.cleaned(boundary),
            combined: combined.cleaned(boundary),
            curated: curated.cleaned(boundary),
            source,
            duration_ms,
            trace,
            replay_divergences: replay_divergences.cleaned(boundary),
            thread: thread.cleaned(boundary),
            follow_up,
            clarification: clarification.cleaned(boundary),
        }
    }
}

/// A sub-query whose plan the policy refused shows neither plan nor SQL.
impl Clean for SubQuery {
    fn cleaned(self, boundary: &Boundary) -> SubQuery {
        let SubQuery {
            id,
            datasource_id,
            plan,
            sql,
            validation,
            columns,
            rows,
            truncated,
            retry_count,
            plan_source,
        } = self;
        let (plan, sql) = if boundary.refused {
            (None, None)
        } else {
            (plan, sql)
        };
        SubQuery {
            id,
            datasource_id,
            plan,
            sql,
            validation: validation.cleaned(boundary),
            columns,
            rows,
            truncated,
            retry_count,
            plan_source,
        }
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

/// Where a replayed run's prompt differed from the recorded one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Divergence {
    /// The node making the call.
    #[clean(keep)]
    pub node: Node,
    /// Which of that node's calls (from 0).
    #[clean(keep)]
    pub call: usize,
    /// What differed: `system prompt`, `message N`, `message count`, or `no recorded call`.
    #[clean(keep)]
    pub what: String,
}
