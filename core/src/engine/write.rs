//! The answer node: a deterministic sentence (template) or a short answer the model writes,
//! streamed, checked against the rows it was given.

use super::{
    answer, llm, AnswerMode, Engine, Event, FinalAnswer, QueryResult, Run, Status, Writer,
};
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::value::Value;
use serde_json::json;

impl Engine<'_> {
    /// Writes the answer to `question` from the final rows (the sentence says so when the
    /// row cap cut them; the RESULT_TRUNCATED warning is the executor's or the aggregator's,
    /// where the cap was hit), and marks the run a success.
    pub(super) async fn write_answer(
        &self,
        question: &str,
        columns: &[String],
        rows: &[Vec<Value>],
        truncated: bool,
        run: &Run<'_>,
        result: &mut QueryResult,
    ) -> Result<(), PipelineError> {
        run.enter(Node::AnswerSynthesizer, 0)?;
        let started = run.now();
        let mut calls = Vec::new();
        let mut errors = Vec::new();
        let (text, written_by) = match &self.settings.answer {
            AnswerMode::Template => (answer::template(columns, rows, truncated), Writer::Template),
            AnswerMode::Llm(agent) => {
                let agent = run.bounded(agent);
                let user = answer::writer_user(question, columns, rows, truncated);
                let events = run.events.clone();
                let mut on_delta = |piece: &str| {
                    if let Some(e) = &events {
                        (e.0)(&Event::AnswerDelta {
                            text: piece.to_string(),
                        });
                    }
                };
                result.sequential_llm_calls += 1;
                let now = || self.clock.now_ms();
                let written = llm::text(
                    &self.caller(&now),
                    &agent,
                    Node::AnswerSynthesizer,
                    answer::WRITER_SYSTEM,
                    user,
                    &mut on_delta,
                    &mut calls,
                    &run.budget,
                )
                .await;
                match written {
                    Ok(text) => {
                        let made_up = answer::ungrounded(&text, question, columns, rows);
                        if !made_up.is_empty() {
                            result.warnings.push(RunWarning {
                                detail: Some(json!({ "not_in_result": made_up })),
                                ..RunWarning::new(
                                    Node::AnswerSynthesizer,
                                    ErrorCode::AnswerNotGrounded,
                                    format!(
                                        "The written answer mentions {} which the result does not hold; check it against the rows.",
                                        made_up.join(", ")
                                    ),
                                )
                            });
                        }
                        (text, Writer::Llm)
                    }
                    // The rows are there: a failed write-up falls back to the template,
                    // and says so (unless the run itself was cancelled or timed out).
                    Err(e) => {
                        let e = run.explain(e);
                        if matches!(
                            e.error_code,
                            ErrorCode::Cancelled | ErrorCode::PipelineTimeout
                        ) {
                            run.record(
                                Node::AnswerSynthesizer,
                                0,
                                (started, run.now()),
                                json!(null),
                                vec![e.clone()],
                                calls,
                            );
                            return Err(e);
                        }
                        result.warnings.push(RunWarning::from(PipelineError {
                            severity: Severity::Warning,
                            ..e.clone()
                        }));
                        errors.push(PipelineError {
                            severity: Severity::Warning,
                            ..e
                        });
                        (answer::template(columns, rows, truncated), Writer::Template)
                    }
                }
            }
        };
        // A cancel that came while the answer was being written still wins: the caller no
        // longer wants it.
        if let Err(e) = run.check(Node::AnswerSynthesizer) {
            run.record(
                Node::AnswerSynthesizer,
                0,
                (started, run.now()),
                json!(null),
                vec![e.clone()],
                calls,
            );
            return Err(e);
        }
        run.record(
            Node::AnswerSynthesizer,
            0,
            (started, run.now()),
            json!({"text": text, "written_by": written_by}),
            errors,
            calls,
        );
        result.final_answer = Some(FinalAnswer { text, written_by });
        result.status = Status::Success;
        Ok(())
    }
}
