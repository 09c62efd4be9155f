//! A run as the page shows it. Live, it is built from the engine's events; once the run
//! ends (or a trace file is opened) it is rebuilt from the typed result, so a live run and
//! an opened trace render through the same code.

use nl2sql_core::error::Node;
use nl2sql_core::result::{Event, NodeStatus, QueryResult, Value};
use std::sync::Arc;

/// The nodes a single-datasource question passes through, in order: shown as pending when
/// a run starts, and as skipped when it ended without them.
pub const PIPELINE: [Node; 8] = [
    Node::CuratedMatcher,
    Node::DatasourceResolver,
    Node::SchemaRetriever,
    Node::AstPlanner,
    Node::LogicalValidator,
    Node::Generator,
    Node::Executor,
    Node::AnswerSynthesizer,
];

/// Where one node execution stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepStatus {
    Pending,
    Running,
    Ok,
    Error,
    Skipped,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Running => "running",
            StepStatus::Ok => "ok",
            StepStatus::Error => "error",
            StepStatus::Skipped => "skipped",
        }
    }
}

impl From<NodeStatus> for StepStatus {
    fn from(status: NodeStatus) -> StepStatus {
        match status {
            NodeStatus::Ok => StepStatus::Ok,
            NodeStatus::Error => StepStatus::Error,
        }
    }
}

/// One entry of the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub node: Node,
    pub sub_query: Option<String>,
    pub attempt: u32,
    pub status: StepStatus,
    pub duration_ms: Option<u64>,
    pub model_calls: u32,
    /// Its index in the result's trace, once there is one.
    pub trace_index: Option<usize>,
}

impl Step {
    fn pending(node: Node) -> Step {
        Step {
            node,
            sub_query: None,
            attempt: 0,
            status: StepStatus::Pending,
            duration_ms: None,
            model_calls: 0,
            trace_index: None,
        }
    }
}

/// Rows shown as soon as they exist, before the result is complete.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub sql: Option<String>,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    pub row_count: usize,
}

/// The run the page shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunView {
    pub question: String,
    pub running: bool,
    pub steps: Vec<Step>,
    pub answer: String,
    pub preview: Option<Preview>,
    /// The result: the run's, or an opened trace file's.
    pub result: Option<Arc<QueryResult>>,
    /// When the person asked and when the timeline first changed (page milliseconds).
    pub asked_at_ms: f64,
    pub first_update_ms: Option<f64>,
}

impl RunView {
    /// A run that just started: every usual node pending.
    pub fn start(question: &str, now_ms: f64) -> RunView {
        RunView {
            question: question.to_string(),
            running: true,
            steps: PIPELINE.into_iter().map(Step::pending).collect(),
            asked_at_ms: now_ms,
            ..RunView::default()
        }
    }

    /// Takes in one live event.
    pub fn apply(&mut self, event: &Event, now_ms: f64) {
        match event {
            Event::NodeStarted { node, attempt } => {
                let pending = self
                    .steps
                    .iter_mut()
                    .find(|s| s.node == *node && s.status == StepStatus::Pending);
                match pending {
                    Some(step) => {
                        step.status = StepStatus::Running;
                        step.attempt = *attempt;
                    }
                    None => {
                        let mut step = Step::pending(*node);
                        step.status = StepStatus::Running;
                        step.attempt = *attempt;
                        self.insert_after_last_started(step);
                    }
                }
            }
            Event::NodeFinished {
                node,
                attempt,
                status,
                duration_ms,
            } => {
                let step = self.steps.iter_mut().rev().find(|s| {
                    s.node == *node && s.attempt == *attempt && s.status == StepStatus::Running
                });
                if let Some(step) = step {
                    step.status = StepStatus::from(*status);
                    step.duration_ms = Some(*duration_ms);
                }
            }
            Event::LlmCall { node, .. } => {
                let step = self
                    .steps
                    .iter_mut()
                    .rev()
                    .find(|s| s.node == *node && s.status != StepStatus::Pending);
                if let Some(step) = step {
                    step.model_calls += 1;
                }
            }
            Event::Rows {
                sql,
                columns,
                preview,
                row_count,
                ..
            } => {
                self.preview = Some(Preview {
                    sql: sql.clone(),
                    columns: columns.clone(),
                    rows: preview.clone(),
                    row_count: *row_count,
                });
            }
            Event::AnswerDelta { text } => self.answer.push_str(text),
            // The routing tables come with the result.
            Event::Routed { .. } => {}
        }
        if self.first_update_ms.is_none() {
            self.first_update_ms = Some(now_ms);
        }
    }

    /// A retry or a sub-query's node goes after the last node that started, so the
    /// timeline reads in the order things happened.
    fn insert_after_last_started(&mut self, step: Step) {
        let at = self
            .steps
            .iter()
            .rposition(|s| s.status != StepStatus::Pending)
            .map_or(0, |i| i + 1);
        self.steps.insert(at, step);
    }

    /// The run ended (or a trace was opened): everything is rebuilt from the result.
    pub fn finish(&mut self, result: QueryResult) {
        self.running = false;
        self.steps = steps_of(&result);
        if let Some(answer) = &result.final_answer {
            self.answer = answer.text.clone();
        }
        self.question = result.question.clone();
        self.result = Some(Arc::new(result));
    }

    /// A trace file, opened for viewing.
    pub fn from_trace(result: QueryResult) -> RunView {
        let mut view = RunView::default();
        view.finish(result);
        view
    }
}

/// The timeline of a finished run: one step per trace record, then the usual nodes it
/// never reached, as skipped.
pub fn steps_of(result: &QueryResult) -> Vec<Step> {
    let mut steps: Vec<Step> = result
        .trace
        .iter()
        .enumerate()
        .map(|(i, r)| Step {
            node: r.node(),
            sub_query: r.sub_query_id.clone(),
            attempt: r.attempt,
            status: StepStatus::from(r.status),
            duration_ms: Some(r.duration_ms),
            model_calls: r.llm_calls.len() as u32,
            trace_index: Some(i),
        })
        .collect();
    for node in PIPELINE {
        if !steps.iter().any(|s| s.node == node) {
            let mut step = Step::pending(node);
            step.status = StepStatus::Skipped;
            steps.push(step);
        }
    }
    steps
}
