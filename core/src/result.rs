//! What a run gives a front end, as types: the result of a question with its trace (every
//! node's typed outputs) and its live events, SQL mode's report, routing and retrieval, the
//! conversation a result continues, and the plan and values they carry. TypeScript
//! declarations are generated from these (`cargo xtask typescript`).

pub use crate::conversation::{
    ChangeKind, Clarification, ClarifyOption, FollowUp, PlanChange, PlanDiff, PlanPart, Thread,
    Turn, DEFAULT_TURNS,
};
pub use crate::engine::{
    AggregatorOutputs, AnswerOutputs, AnswerRows, AnswerSource, CacheHit, CancelToken, Candidate,
    CombinedRows, CuratedMatch, Divergence, Event, Events, ExecutorOutputs, FinalAnswer,
    GeneratorOutputs, LlmCall, MatchReason, NodeOutput, NodeRecord, NodeStatus, PlanSource,
    PlannerOutputs, QueryResult, RefinerOutputs, ResolverOutputs, RetrieverOutputs, Status,
    SubQuery, ThreadNote, TraceForm, UsageTotals, ValidatorOutputs, VerdictNote, Writer, WITHHELD,
};
pub use crate::index::{Dropped, Retrieval, Routing, SignalRecord};
pub use crate::run::{SqlRun, SqlStatus};
pub use nl2sql_plan::validate::ValidationCheck;
pub use nl2sql_plan::{Column, ForeignKey, KeySource, Plan, SchemaSnapshot, Table, Value};
