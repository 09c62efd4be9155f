//! The typed contract as TypeScript: the declarations the npm package ships for every
//! result, event and error it hands to JavaScript, generated from the Rust types (ts-rs),
//! so they cannot drift. `cargo xtask typescript` writes them to `wasm/src/results.d.ts`;
//! a test fails when that file is stale.
//!
//! Counts, milliseconds and tokens (`u64`) are declared `number`: they stay far below
//! 2^53. Data can hold any integer, so the npm package hands every integer beyond ±2^53
//! over as a `bigint`, exactly (never a rounded `number`), and the types that carry data —
//! `Cell`, `ParamValue`, `JsonValue` — say `number | bigint`.

use crate::engine::{
    AggregatorOutputs, AnswerOutputs, AnswerSource, CacheHit, Candidate, CombinedRows,
    CuratedMatch, Divergence, Event, ExecutorOutputs, FinalAnswer, GeneratorOutputs, LlmCall,
    MatchReason, NodeOutput, NodeRecord, NodeStatus, PlanSource, PlannerOutputs, QueryResult,
    RefinerOutputs, ResolverOutputs, RetrieverOutputs, Status, SubQuery, ThreadNote, UsageTotals,
    ValidatorOutputs, VerdictNote, Writer,
};
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::index::{
    CloseCall, Dropped, MatchKind, PoolEntry, Retrieval, Routing, SignalRecord, ValueHint,
};
use crate::provider::{Message, Role, Usage};
use crate::run::{SqlRun, SqlStatus};
use crate::service::DatasourceInfo;
use ts_rs::{Config, TS};

/// Every declaration, in a fixed order, as one TypeScript module's text.
pub fn declarations() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(
        "// Generated from the Rust types by `cargo xtask typescript`; do not edit by hand.\n",
    );
    macro_rules! declare {
        ($($t:ty),* $(,)?) => { $( declare::<$t>(&mut out, &cfg); )* };
    }
    declare!(
        QueryResult,
        Status,
        SubQuery,
        CombinedRows,
        FinalAnswer,
        Writer,
        AnswerSource,
        UsageTotals,
        NodeRecord,
        NodeOutput,
        ResolverOutputs,
        ThreadNote,
        CacheHit,
        VerdictNote,
        RetrieverOutputs,
        PlannerOutputs,
        RefinerOutputs,
        ValidatorOutputs,
        GeneratorOutputs,
        ExecutorOutputs,
        AggregatorOutputs,
        AnswerOutputs,
        NodeStatus,
        LlmCall,
        Message,
        Role,
        Usage,
        PipelineError,
        RunWarning,
        Severity,
        ErrorCode,
        Node,
        crate::validate::ValidationCheck,
        crate::validate::CheckName,
        Routing,
        CloseCall,
        Dropped,
        SignalRecord,
        PoolEntry,
        Retrieval,
        ValueHint,
        MatchKind,
        crate::engine::decompose::Decomposition,
        crate::engine::decompose::SubQuestion,
        crate::engine::decompose::CombineKind,
        crate::engine::decompose::KeyKind,
        crate::engine::decompose::PostOrder,
        CuratedMatch,
        Candidate,
        MatchReason,
        crate::curated::ParamValue,
        Divergence,
        Event,
        nl2sql_plan::Value,
        crate::plan::Plan,
        SqlRun,
        SqlStatus,
        DatasourceInfo,
        crate::schema::SchemaSnapshot,
        crate::schema::Table,
        crate::schema::Column,
        crate::schema::ColumnStats,
        crate::schema::ForeignKey,
        crate::schema::KeySource,
        crate::index::Notes,
        crate::index::TableNotes,
        crate::index::ColumnNotes,
        crate::index::Term,
        crate::index::Relationship,
        crate::schema::TypeCategory,
        crate::datasource::Dialect,
        crate::provider::probe::Probe,
        PlanSource,
        crate::conversation::Thread,
        crate::conversation::Turn,
        crate::conversation::FollowUp,
        crate::conversation::PlanDiff,
        crate::conversation::PlanChange,
        crate::conversation::PlanPart,
        crate::conversation::ChangeKind,
        crate::conversation::Clarification,
        crate::conversation::ClarifyOption,
        crate::feedback::FeedbackBook,
        crate::feedback::FeedbackEntry,
        crate::feedback::Verdict,
        crate::feedback::Proposal,
        crate::feedback::ProposalStatus,
        crate::feedback::Example,
        crate::feedback::Recorded,
        crate::curated::VerifiedQuery,
        crate::curated::ParamSpec,
        crate::curated::ParamType,
    );
    out.push_str("export type JsonValue = number | bigint | string | boolean | JsonValue[] | { [key: string]: JsonValue } | null;\n");
    out
}

fn declare<T: TS>(out: &mut String, cfg: &Config) {
    out.push('\n');
    if let Some(docs) = T::docs() {
        out.push_str(&docs);
    }
    out.push_str("export ");
    out.push_str(&T::decl(cfg));
    out.push('\n');
}
