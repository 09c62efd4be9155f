//! The trace's records, typed: what each node decided is a type of its own
//! ([`NodeOutput`]), written into the trace as `node` and `outputs` and read back as the same
//! type by every front end. What a caller across a trust boundary may see of each is decided
//! here, field by field ([`Clean`]): a field added later is hidden until it is marked.

use super::decompose::Decomposition;
use crate::conversation::{Clarification, PlanDiff};
use crate::curated::ParamValue;
use crate::error::{Boundary, Clean, ErrorCode, Node, PipelineError};
use crate::provider::{Message, Usage};
use nl2sql_plan::Dialect;
use nl2sql_derive::Clean;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the cleaned form says instead of a plan the policy refused, and of a model's
/// answer that was never checked.
pub const WITHHELD: &str = "Withheld: the plan reads a table the role may not read.";

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

impl Clean for NodeStatus {
    fn cleaned(self, _: &Boundary) -> NodeStatus {
        self
    }
}

/// One node's execution, as the trace records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NodeRecord {
    /// Order in the run, from 1.
    #[clean(keep)]
    pub seq: u32,
    /// The node and what it decided (`node`, `outputs`).
    #[serde(flatten)]
    #[clean(nested)]
    pub output: NodeOutput,
    /// The sub-query it worked on, when it worked on one.
    #[clean(keep)]
    pub sub_query_id: Option<String>,
    /// Which try (planner retries count up from 0).
    #[clean(keep)]
    pub attempt: u32,
    /// How it ended.
    #[clean(keep)]
    pub status: NodeStatus,
    /// Milliseconds from the run's start.
    #[clean(keep)]
    pub started_ms: u64,
    /// How long it took.
    #[clean(keep)]
    pub duration_ms: u64,
    /// Its errors.
    #[clean(nested)]
    pub errors: Vec<PipelineError>,
    /// Its model calls.
    #[clean(nested)]
    pub llm_calls: Vec<LlmCall>,
}

impl NodeRecord {
    /// The node.
    pub fn node(&self) -> Node {
        self.output.node()
    }
}

/// One model call, as the trace keeps it (and replay reads it back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LlmCall {
    /// The node that made it.
    pub node: Node,
    /// The model.
    pub model: String,
    /// The system prompt's hash (FNV-1a, hex): equal hashes, equal stable prefix.
    pub system_hash: String,
    /// The system prompt.
    pub system: String,
    /// The conversation sent.
    pub messages: Vec<Message>,
    /// The model's answer as it came, when one came.
    pub response: Option<String>,
    /// Why the answer was not used, if it was not.
    pub error: Option<String>,
    /// The provider failure's code, when the call failed that way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<ErrorCode>,
    /// What the prompts quote that a cleaned trace withholds: a database's own words (an
    /// error's message the planner is asked to fix), which a cleaned error withholds too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quoted: Vec<String>,
    /// Tokens as reported.
    pub usage: Usage,
    /// Milliseconds from sending to the whole answer.
    pub latency_ms: u64,
}

/// What a cleaned trace says where a prompt or an answer quoted a database's own words.
pub const QUOTE_WITHHELD: &str = "[the database's words, withheld]";

/// The prompts go as they were (what was sent is the caller's own question and what its
/// role may read) but for the database's words they quote; a model's answer about a
/// refused or never-checked plan is withheld.
impl Clean for LlmCall {
    fn cleaned(self, boundary: &Boundary) -> LlmCall {
        let LlmCall {
            node,
            model,
            system_hash,
            system,
            messages,
            response,
            error,
            error_code,
            quoted,
            usage,
            latency_ms,
        } = self;
        let (response, error) = if boundary.refused {
            (None, Some(WITHHELD.to_string()))
        } else {
            (response, error)
        };
        let withhold = |text: String| withhold_quoted(text, &quoted);
        LlmCall {
            node,
            model,
            system_hash,
            system: withhold(system),
            messages: (messages.into_iter())
                .map(|m| Message {
                    content: withhold(m.content),
                    ..m
                })
                .collect(),
            response: response.map(withhold),
            error: error.map(withhold),
            error_code,
            quoted: Vec::new(),
            usage,
            latency_ms,
        }
    }
}

/// `text` with each of `quoted` in it replaced by [`QUOTE_WITHHELD`], the longest first: one
/// may hold another (advice that repeats the database's message), and replacing the shorter
/// first would leave the longer unmatched.
pub(crate) fn withhold_quoted(text: String, quoted: &[String]) -> String {
    let mut longest_first: Vec<&String> = quoted.iter().filter(|q| !q.trim().is_empty()).collect();
    longest_first.sort_by_key(|q| std::cmp::Reverse(q.len()));
    (longest_first.into_iter()).fold(text, |t, q| t.replace(q.as_str(), QUOTE_WITHHELD))
}

/// Declares [`NodeOutput`] from one table of node → output type, and which node each output
/// type belongs to ([`NodeKind`]).
macro_rules! node_outputs {
    ($($(#[$doc:meta])* $variant:ident($output:ty) as $accessor:ident,)*) => {
        /// What a node decided: the trace's `node` and its `outputs` (null when the node
        /// failed before deciding anything).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Clean)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(tag = "node", content = "outputs", rename_all = "snake_case")]
        pub enum NodeOutput {
            $($(#[$doc])* $variant(#[clean(nested)] Option<$output>),)*
        }

        impl NodeOutput {
            /// The node it is of.
            pub fn node(&self) -> Node {
                match self {
                    $(NodeOutput::$variant(_) => Node::$variant,)*
                }
            }

            $(
                #[doc = concat!("What the ", stringify!($accessor), " decided, when this is its record and it decided.")]
                pub fn $accessor(&self) -> Option<&$output> {
                    match self {
                        NodeOutput::$variant(Some(o)) => Some(o),
                        _ => None,
                    }
                }
            )*
        }

        $(
            impl NodeKind for $output {
                const NODE: Node = Node::$variant;

                fn wrap(outputs: Option<Self>) -> NodeOutput {
                    NodeOutput::$variant(outputs)
                }
            }
        )*
    };
}

/// An output type and the node whose it is: a step of that node can only record it.
pub(crate) trait NodeKind: Sized {
    /// The node.
    const NODE: Node;
    /// The trace's form of `outputs`.
    fn wrap(outputs: Option<Self>) -> NodeOutput;
}

node_outputs! {
    /// Which datasources, and why.
    DatasourceResolver(ResolverOutputs) as resolver,
    /// Whether a verified query answered.
    CuratedMatcher(CuratedMatch) as matcher,
    /// What the planner was shown.
    SchemaRetriever(RetrieverOutputs) as retriever,
    /// The plan.
    AstPlanner(PlannerOutputs) as planner,
    /// The refiner's advice.
    Refiner(RefinerOutputs) as refiner,
    /// The validator's checks.
    LogicalValidator(ValidatorOutputs) as validator,
    /// The SQL.
    Generator(GeneratorOutputs) as generator,
    /// What the query returned.
    Executor(ExecutorOutputs) as executor,
    /// How a question across datasources was split.
    Decomposer(Decomposition) as decomposer,
    /// The parts combined.
    Aggregator(AggregatorOutputs) as aggregator,
    /// The answer.
    AnswerSynthesizer(AnswerOutputs) as answer,
}

/// The resolver's record. Routing saw only what the caller's role may read, and the
/// answerability check's model only those datasources, so all of it may be shown.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResolverOutputs {
    /// The datasources routing ranked (or the caller chose), best first.
    #[clean(keep)]
    pub candidates: Vec<String>,
    /// Why routing did not run, when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[clean(keep)]
    pub routing_skipped: Option<String>,
    /// How the question relates to the thread it was asked in (none: no thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[clean(keep)]
    pub thread: Option<ThreadNote>,
    /// What was asked back, when the question means two things.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[clean(keep)]
    pub clarification: Option<Clarification>,
    /// A plan reused from the cache, and what that skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[clean(keep)]
    pub plan_cache: Option<CacheHit>,
    /// The answerability check's verdict (none when it failed or did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[clean(keep)]
    pub verdict: Option<VerdictNote>,
    /// The datasources the verdict accepted among the candidates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[clean(keep)]
    pub accepted: Option<Vec<String>>,
}

/// Whether a question continued its thread.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThreadNote {
    /// It continues the thread.
    pub continued: bool,
    /// Why it was judged so.
    pub reason: String,
    /// The datasource of the turn it follows.
    pub previous_datasource: Option<String>,
}

/// A plan reused from the plan cache.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CacheHit {
    /// Always true: the record exists only for a hit.
    pub hit: bool,
    /// What the hit skipped.
    pub skipped: String,
}

/// The answerability check's verdict.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VerdictNote {
    /// The datasources it named.
    pub datasources: Vec<String>,
    /// Its reason, in the model's words.
    pub reason: String,
}

/// What the planner was shown (or, for planning begun beside the check and then not used,
/// why it was dropped). Retrieval searched only what the caller's role may read.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RetrieverOutputs {
    /// The datasource searched.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[clean(keep)]
    pub datasource: String,
    /// The tables shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[clean(keep)]
    pub tables: Vec<String>,
    /// The columns shown, `Table.Column`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[clean(keep)]
    pub columns: Vec<String>,
    /// The values the question names, `Table.Column = 'value'`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[clean(keep)]
    pub values: Vec<String>,
    /// The whole schema was shown (it fitted).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[clean(keep)]
    pub full_snapshot: bool,
    /// Why this retrieval was not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[clean(keep)]
    pub dropped: Option<String>,
}

/// The planner's plan, in its one-line form.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlannerOutputs {
    /// The plan (empty when the planning was dropped).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub plan: String,
    /// A follow-up's plan as an edit of the previous one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_of_previous: Option<PlanDiff>,
    /// When the plan came from the cache: the planner was not asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_cache: Option<String>,
    /// Why this planning was not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
}

/// A refused plan is withheld whole (its edit would show it too).
impl Clean for PlannerOutputs {
    fn cleaned(self, boundary: &Boundary) -> PlannerOutputs {
        let PlannerOutputs {
            plan,
            edit_of_previous,
            plan_cache,
            dropped,
        } = self;
        if boundary.refused && dropped.is_none() {
            return PlannerOutputs {
                plan: WITHHELD.to_string(),
                ..PlannerOutputs::default()
            };
        }
        PlannerOutputs {
            plan,
            edit_of_previous,
            plan_cache,
            dropped,
        }
    }
}

/// The refiner's advice to the planner.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefinerOutputs {
    /// The advice, in the model's words.
    pub advice: String,
    /// The database's words the refiner was shown (see [`LlmCall::quoted`]) and, with them,
    /// the advice itself (written from them, it may repeat them in other words): a cleaned
    /// trace withholds the advice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quoted: Vec<String>,
}

impl Clean for RefinerOutputs {
    fn cleaned(self, _: &Boundary) -> RefinerOutputs {
        RefinerOutputs {
            advice: withhold_quoted(self.advice, &self.quoted),
            quoted: Vec::new(),
        }
    }
}

/// The validator's checks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ValidatorOutputs {
    /// The three named checks, in order.
    #[clean(nested)]
    pub checks: Vec<crate::validate::ValidationCheck>,
}

/// The SQL the generator wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GeneratorOutputs {
    /// The SQL (none when the plan could not be rendered).
    #[clean(keep)]
    pub sql: Option<String>,
    /// The dialect it is written in.
    #[clean(keep)]
    pub dialect: Dialect,
}

/// What the executor ran and how many rows came back.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExecutorOutputs {
    /// The SQL run.
    #[clean(keep)]
    pub sql: String,
    /// Rows returned (none when it failed).
    #[clean(keep)]
    pub rows: Option<usize>,
}

/// The combination of several datasources' rows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AggregatorOutputs {
    /// The combining SQL, run on the scratch database.
    #[clean(keep)]
    pub sql: String,
    /// Rows in the combination.
    #[clean(keep)]
    pub rows: usize,
    /// Whether the row cap cut it.
    #[clean(keep)]
    pub truncated: bool,
}

/// The written answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnswerOutputs {
    /// The answer.
    #[clean(keep)]
    pub text: String,
    /// Who wrote it.
    #[clean(keep)]
    pub written_by: Writer,
}

/// A verified query the matcher considered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Candidate {
    /// Its datasource.
    #[clean(keep)]
    pub datasource_id: String,
    /// Its id.
    #[clean(keep)]
    pub query_id: String,
    /// The best similarity of its phrasings to the question.
    #[clean(keep)]
    pub similarity: f32,
}

/// What the matcher decided, as the result records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CuratedMatch {
    /// True when a verified query answered.
    pub matched: bool,
    /// How it matched, or why it fell back.
    pub reason: MatchReason,
    /// The candidates by similarity (empty when code decided).
    pub candidates: Vec<Candidate>,
    /// The chosen query, `datasource.query`.
    pub choice: Option<String>,
    /// Its parameters, typed.
    pub params: BTreeMap<String, ParamValue>,
    /// More on a fallback.
    pub detail: Option<String>,
}

/// A fallback's detail carries the refusal's or the database's own words, so those two
/// say only what happened.
impl Clean for CuratedMatch {
    fn cleaned(self, boundary: &Boundary) -> CuratedMatch {
        let CuratedMatch {
            matched,
            reason,
            candidates,
            choice,
            params,
            detail,
        } = self;
        let detail = match reason {
            MatchReason::PolicyDenied => Some(crate::error::REFUSAL_MESSAGE.to_string()),
            MatchReason::ExecutionFailed => Some("The verified query could not be run.".into()),
            _ => detail,
        };
        CuratedMatch {
            matched,
            reason,
            candidates: candidates.cleaned(boundary),
            choice,
            params,
            detail,
        }
    }
}

/// How the matcher decided: a match (`code`, `model`) or the reason it fell back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MatchReason {
    /// Exactly one phrasing matched the whole question; no model call.
    Code,
    /// The model picked it among the similar ones.
    Model,
    /// No verified query was similar to the question (or it could not be embedded).
    NoCandidates,
    /// The most similar was below [`super::MATCH_FLOOR`].
    BelowFloor,
    /// The model said none of the offered queries answers the question.
    NoneOfThese,
    /// The model's call failed (not fatally for the run).
    ModelFailed,
    /// The model named a query that was not offered.
    UnknownQuery,
    /// A value did not fit its parameter's type, bounds or choices.
    ParamInvalid,
    /// A required value was missing.
    ParamMissing,
    /// The caller's policy refused the query's tables.
    PolicyDenied,
    /// The query did not bind, validate or run.
    ExecutionFailed,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_are_withheld_whole_even_inside_each_other() {
        let words = "no such column: t.Title".to_string();
        let advice = "SQLite said no such column: t.Title; use Name.".to_string();
        let text = format!("Errors: {words}\nAdvice: {advice}");
        let withheld = withhold_quoted(text, &[words, advice, " ".into()]);
        assert_eq!(
            withheld,
            format!("Errors: {QUOTE_WITHHELD}\nAdvice: {QUOTE_WITHHELD}")
        );
    }
}
