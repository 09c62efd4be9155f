//! A run's shared state and the one way a node executes in it: [`Run::begin`] checks the
//! cancel flag and the deadline, announces the node and lets the host repaint;
//! [`Step::end`] times it, announces its model calls and its end, and appends its record
//! to the trace. Nodes never build a [`NodeRecord`] or an event themselves, and a step is of
//! the node whose output type it records ([`NodeKind`]), so the two cannot disagree.

use super::control::{CancelToken, Event, Events, Sleep};
use super::llm::Budget;
use super::result::SubQuery;
use super::settings::Agent;
use super::trace::{LlmCall, NodeKind, NodeRecord, NodeStatus};
use crate::datasource::ExecLimits;
use crate::error::{ErrorCode, Node, PipelineError, Severity};
use crate::index::Clock;
use std::cell::RefCell;
use std::marker::PhantomData;

/// How many rows a [`Event::Rows`] carries.
pub(super) const ROWS_PREVIEW: usize = 50;

/// What one run shares between its nodes, including sub-queries running side by side
/// (hence the trace in a `RefCell`).
pub(super) struct Run<'c> {
    clock: &'c dyn Clock,
    /// Lets the host run between nodes; natively there is none.
    sleep: Option<&'c dyn Sleep>,
    started: u64,
    /// When the run must have ended, on the clock.
    deadline: u64,
    cancel: Option<CancelToken>,
    events: Option<Events>,
    trace: RefCell<Vec<NodeRecord>>,
    /// Model calls and dollars left, shared by calls made at the same time.
    pub budget: Budget,
}

/// The parts a run is made of.
pub(super) struct RunParts<'c> {
    pub clock: &'c dyn Clock,
    pub sleep: Option<&'c dyn Sleep>,
    pub timeout_ms: u64,
    pub cancel: Option<CancelToken>,
    pub events: Option<Events>,
    pub budget: Budget,
}

/// Where a node runs: which try, and for which sub-query (none: the run).
#[derive(Debug, Clone, Copy)]
pub(super) struct At<'s> {
    pub attempt: u32,
    pub sub: Option<&'s str>,
}

impl At<'static> {
    /// The first try, for the run as a whole.
    pub fn run() -> At<'static> {
        At {
            attempt: 0,
            sub: None,
        }
    }
}

impl<'s> At<'s> {
    /// Try `attempt` for sub-query `sub`.
    pub fn sub(attempt: u32, sub: &'s str) -> At<'s> {
        At {
            attempt,
            sub: Some(sub),
        }
    }
}

/// A node under way, from [`Run::begin`] (or [`Run::begun_at`]) to [`Step::end`]: the
/// node whose output type is `O`.
#[must_use = "a step must end, so the trace records it"]
pub(super) struct Step<'r, 'c, O> {
    run: &'r Run<'c>,
    attempt: u32,
    sub: Option<String>,
    started: u64,
    /// Calls made before the step's record was known, recorded first when it ends.
    calls: Vec<LlmCall>,
    node: PhantomData<O>,
}

/// When a piece of work started and ended, on the run's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub started: u64,
    pub ended: u64,
}

/// What a node's record holds besides its timing: what it decided (none when it failed
/// before deciding), its errors and its model calls.
#[derive(Debug)]
pub(super) struct Record<O> {
    pub outputs: Option<O>,
    pub errors: Vec<PipelineError>,
    pub calls: Vec<LlmCall>,
}

impl<O> Record<O> {
    /// A node that decided `outputs`.
    pub fn ok(outputs: O) -> Record<O> {
        Record {
            outputs: Some(outputs),
            errors: Vec::new(),
            calls: Vec::new(),
        }
    }

    /// A node that ended without deciding anything (a cancelled or timed-out answer).
    pub fn nothing() -> Record<O> {
        Record {
            outputs: None,
            errors: Vec::new(),
            calls: Vec::new(),
        }
    }

    /// A node that failed with `e`.
    pub fn failed(e: &PipelineError) -> Record<O> {
        Record {
            errors: vec![e.clone()],
            ..Record::nothing()
        }
    }

    /// A node whose work gave `outcome`: its outputs on success, its error otherwise.
    pub fn of<T>(outcome: &Result<T, PipelineError>, outputs: impl FnOnce(&T) -> O) -> Record<O> {
        match outcome {
            Ok(v) => Record::ok(outputs(v)),
            Err(e) => Record::failed(e),
        }
    }

    /// The same record with the node's model calls.
    pub fn with_calls(mut self, calls: Vec<LlmCall>) -> Record<O> {
        self.calls = calls;
        self
    }
}

impl<'c> Run<'c> {
    pub fn new(parts: RunParts<'c>) -> Run<'c> {
        let started = parts.clock.now_ms();
        Run {
            clock: parts.clock,
            sleep: parts.sleep,
            started,
            deadline: started.saturating_add(parts.timeout_ms),
            cancel: parts.cancel,
            events: parts.events,
            trace: RefCell::new(Vec::new()),
            budget: parts.budget,
        }
    }

    pub fn now(&self) -> u64 {
        self.clock.now_ms()
    }

    /// Milliseconds since the run began.
    pub fn elapsed(&self) -> u64 {
        self.now().saturating_sub(self.started)
    }

    /// The trace so far, taken when the run is over.
    pub fn into_trace(self) -> Vec<NodeRecord> {
        self.trace.into_inner()
    }

    pub fn emit(&self, event: Event) {
        if let Some(events) = &self.events {
            (events.0)(&event);
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancelToken::is_cancelled)
    }

    /// Stops the run when it was cancelled or is out of time.
    pub fn check(&self, node: Node) -> Result<(), PipelineError> {
        if self.cancelled() {
            return Err(cancelled(node));
        }
        if self.now() >= self.deadline {
            return Err(timed_out(node));
        }
        Ok(())
    }

    /// Node `O` begins: the run is checked, the node announced, and the host (a page) gets
    /// to paint before the node's work, which may be synchronous, starts.
    pub async fn begin<'r, O: NodeKind>(
        &'r self,
        at: At<'_>,
    ) -> Result<Step<'r, 'c, O>, PipelineError> {
        self.check(O::NODE)?;
        self.announce::<O>(at);
        if let Some(sleep) = self.sleep {
            sleep.sleep(0).await;
        }
        Ok(self.begun_at(at, self.now()))
    }

    /// Announces node `O`, whose work starts now but whose record comes later through
    /// [`Run::begun_at`] (planning started beside the answerability check).
    pub fn announce<O: NodeKind>(&self, at: At<'_>) {
        self.emit(Event::NodeStarted {
            node: O::NODE,
            attempt: at.attempt,
        });
    }

    /// Node `O`, announced (or never needing to be) and started at `started`.
    pub fn begun_at<'r, O: NodeKind>(&'r self, at: At<'_>, started: u64) -> Step<'r, 'c, O> {
        Step {
            run: self,
            attempt: at.attempt,
            sub: at.sub.map(str::to_string),
            started,
            calls: Vec::new(),
            node: PhantomData,
        }
    }

    /// Records node `O`, whose work was timed elsewhere (planning done beside another
    /// node).
    pub fn record_span<O: NodeKind>(&self, at: At<'_>, span: Span, record: Record<O>) {
        self.begun_at::<O>(at, span.started)
            .end_at(span.ended, record);
    }

    /// Announces a sub-query's rows, before any answer is written from them.
    pub fn rows(&self, sub: &SubQuery) {
        self.emit(Event::Rows {
            sub_query_id: sub.id.clone(),
            sql: sub.sql.clone(),
            columns: sub.columns.clone(),
            preview: sub.rows.iter().take(ROWS_PREVIEW).cloned().collect(),
            row_count: sub.rows.len(),
        });
    }

    /// `limits` with the query's time limit cut to the time the run has left, so a query
    /// never outlives its run.
    pub fn bounded_limits(&self, limits: ExecLimits) -> ExecLimits {
        let left = self.deadline.saturating_sub(self.now()).max(1);
        ExecLimits {
            timeout_ms: Some(limits.timeout_ms.map_or(left, |t| t.min(left))),
            ..limits
        }
    }

    /// `agent` with its call timeout cut to the time the run has left.
    pub fn bounded(&self, agent: &Agent) -> Agent {
        let left = self.deadline.saturating_sub(self.now()).max(1);
        Agent {
            timeout_ms: agent.timeout_ms.min(left),
            ..agent.clone()
        }
    }

    /// What an error means once the run's own state is known: a call that failed because
    /// the run was cancelled or ran out of time says so.
    pub fn explain(&self, e: PipelineError) -> PipelineError {
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
}

impl<O: NodeKind> Step<'_, '_, O> {
    /// Keeps `calls`, made by this node before it knew how it would end, for its record
    /// (every way it ends records them first).
    pub fn called(&mut self, calls: Vec<LlmCall>) {
        self.calls.extend(calls);
    }

    /// The node ends now with `record`.
    pub fn end(self, record: Record<O>) {
        let ended = self.run.now();
        self.end_at(ended, record);
    }

    /// The node ended at `ended` (its work was timed elsewhere) with `record`.
    pub fn end_at(self, ended: u64, mut record: Record<O>) {
        let run = self.run;
        let mut calls = self.calls;
        calls.append(&mut record.calls);
        record.calls = calls;
        let status = if record.errors.iter().any(|e| e.severity.is_blocking()) {
            NodeStatus::Error
        } else {
            NodeStatus::Ok
        };
        for call in &record.calls {
            run.emit(Event::LlmCall {
                node: O::NODE,
                model: call.model.clone(),
                latency_ms: call.latency_ms,
            });
        }
        let duration_ms = ended.saturating_sub(self.started);
        run.emit(Event::NodeFinished {
            node: O::NODE,
            attempt: self.attempt,
            status,
            duration_ms,
        });
        let mut trace = run.trace.borrow_mut();
        let seq = u32::try_from(trace.len() + 1).unwrap_or(u32::MAX);
        trace.push(NodeRecord {
            seq,
            output: O::wrap(record.outputs),
            sub_query_id: self.sub,
            attempt: self.attempt,
            status,
            started_ms: self.started.saturating_sub(run.started),
            duration_ms,
            errors: record.errors,
            llm_calls: record.calls,
        });
    }
}

pub(super) fn cancelled(node: Node) -> PipelineError {
    PipelineError::new(
        node,
        ErrorCode::Cancelled,
        Severity::Error,
        "The run was cancelled.",
    )
}

pub(super) fn timed_out(node: Node) -> PipelineError {
    PipelineError::new(
        node,
        ErrorCode::PipelineTimeout,
        Severity::Error,
        "The run took longer than its time limit.",
    )
}
