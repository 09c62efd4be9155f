//! A run as the page shows it. Live, it is built from the engine's events; once the run
//! ends (or a trace file is opened) it is rebuilt from the result's JSON, the published
//! format, so a live run and an opened trace render through the same code.

use nl2sql_core::engine::{Event, NodeStatus};
use serde_json::Value as Json;
use std::sync::Arc;

/// The nodes a single-datasource question passes through, in order: shown as pending when
/// a run starts, and as skipped when it ended without them.
pub const PIPELINE: [&str; 8] = [
    "curated_matcher",
    "datasource_resolver",
    "schema_retriever",
    "ast_planner",
    "logical_validator",
    "generator",
    "executor",
    "answer_synthesizer",
];

/// Where one node execution stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepStatus {
    Pending,
    Running,
    Ok,
    Warning,
    Error,
    Skipped,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Running => "running",
            StepStatus::Ok => "ok",
            StepStatus::Warning => "warning",
            StepStatus::Error => "error",
            StepStatus::Skipped => "skipped",
        }
    }

    fn parse(s: &str) -> StepStatus {
        match s {
            "ok" => StepStatus::Ok,
            "warning" => StepStatus::Warning,
            "skipped" => StepStatus::Skipped,
            _ => StepStatus::Error,
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
    pub node: String,
    pub sub_query: Option<String>,
    pub attempt: u32,
    pub status: StepStatus,
    pub duration_ms: Option<u64>,
    pub model_calls: u32,
    /// Its index in the result's trace, once there is one.
    pub trace_index: Option<usize>,
}

impl Step {
    fn pending(node: &str) -> Step {
        Step {
            node: node.to_string(),
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
    pub rows: Vec<Vec<Json>>,
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
    /// The result as JSON: the run's, or an opened trace file's.
    pub result: Option<Arc<Json>>,
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
            steps: PIPELINE.iter().map(|n| Step::pending(n)).collect(),
            asked_at_ms: now_ms,
            ..RunView::default()
        }
    }

    /// Takes in one live event.
    pub fn apply(&mut self, event: &Event, now_ms: f64) {
        match event {
            Event::NodeStarted { node, attempt } => {
                let node = node.to_string();
                let pending = self
                    .steps
                    .iter_mut()
                    .find(|s| s.node == node && s.status == StepStatus::Pending);
                match pending {
                    Some(step) => {
                        step.status = StepStatus::Running;
                        step.attempt = *attempt;
                    }
                    None => {
                        let mut step = Step::pending(&node);
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
                let node = node.to_string();
                let step = self.steps.iter_mut().rev().find(|s| {
                    s.node == node && s.attempt == *attempt && s.status == StepStatus::Running
                });
                if let Some(step) = step {
                    step.status = StepStatus::from(*status);
                    step.duration_ms = Some(*duration_ms);
                }
            }
            Event::LlmCall { node, .. } => {
                let node = node.to_string();
                let step = self
                    .steps
                    .iter_mut()
                    .rev()
                    .find(|s| s.node == node && s.status != StepStatus::Pending);
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
                    rows: preview
                        .iter()
                        .map(|r| r.iter().map(cell_json).collect())
                        .collect(),
                    row_count: *row_count,
                });
            }
            Event::AnswerDelta { text } => self.answer.push_str(text),
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
    pub fn finish(&mut self, result: Json) {
        self.running = false;
        self.steps = steps_of(&result);
        if let Some(text) = result["final_answer"]["text"].as_str() {
            self.answer = text.to_string();
        }
        self.question = result["question"].as_str().unwrap_or_default().to_string();
        self.result = Some(Arc::new(result));
    }

    /// A trace file, opened for viewing.
    pub fn from_trace(result: Json) -> RunView {
        let mut view = RunView::default();
        view.finish(result);
        view
    }
}

/// The timeline of a finished run: one step per trace record, then the usual nodes it
/// never reached, as skipped.
pub fn steps_of(result: &Json) -> Vec<Step> {
    let records = result["trace"].as_array().cloned().unwrap_or_default();
    let mut steps: Vec<Step> = records
        .iter()
        .enumerate()
        .map(|(i, r)| Step {
            node: r["node"].as_str().unwrap_or("?").to_string(),
            sub_query: r["sub_query_id"].as_str().map(str::to_string),
            attempt: r["attempt"].as_u64().unwrap_or(0) as u32,
            status: StepStatus::parse(r["status"].as_str().unwrap_or("error")),
            duration_ms: r["duration_ms"].as_u64(),
            model_calls: r["llm_calls"].as_array().map_or(0, |c| c.len() as u32),
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

fn cell_json(v: &nl2sql_core::Value) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}
