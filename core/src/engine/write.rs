//! The answer node: a deterministic sentence (template) or a short answer the model writes,
//! streamed, checked against the rows it was given.

use super::node::{At, Record, Run, Step};
use super::trace::AnswerOutputs;
use super::{answer, llm, AnswerMode, Engine, Event, FinalAnswer, Writer};
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::value::Value;
use serde_json::json;

/// The rows an answer is written from.
pub(super) struct Rows<'r> {
    pub columns: &'r [String],
    pub rows: &'r [Vec<Value>],
    /// The row cap cut them (the sentence says so; the RESULT_TRUNCATED warning is the
    /// executor's or the aggregator's, where the cap was hit).
    pub truncated: bool,
}

/// The answer (or why the run ends without one) and what writing it found, which the
/// result keeps either way.
pub(super) struct Written {
    pub answer: Result<FinalAnswer, PipelineError>,
    pub warnings: Vec<RunWarning>,
    /// Model calls made one after another (the writer's, if it was asked).
    pub sequential: u32,
}

impl Engine<'_> {
    /// Writes the answer to `question` from the final rows.
    pub(super) async fn write_answer(
        &self,
        question: &str,
        rows: Rows<'_>,
        run: &Run<'_>,
    ) -> Written {
        match run.begin::<AnswerOutputs>(At::run()).await {
            Ok(step) => self.write(question, &rows, run, step).await,
            Err(e) => Written {
                answer: Err(e),
                warnings: Vec::new(),
                sequential: 0,
            },
        }
    }

    /// The answer node's work, recorded by `step`.
    async fn write(
        &self,
        question: &str,
        rows: &Rows<'_>,
        run: &Run<'_>,
        step: Step<'_, '_, AnswerOutputs>,
    ) -> Written {
        let mut warnings = Vec::new();
        let mut sequential = 0;
        let template = || answer::template(rows.columns, rows.rows, rows.truncated);
        let mut answer = FinalAnswer {
            text: String::new(),
            written_by: Writer::Template,
        };
        let mut record = Record::nothing();
        match &self.settings.answer {
            AnswerMode::Template => answer.text = template(),
            AnswerMode::Llm(agent) => {
                let agent = run.bounded(agent);
                let user = answer::writer_user(question, rows.columns, rows.rows, rows.truncated);
                let mut on_delta = |piece: &str| {
                    run.emit(Event::AnswerDelta {
                        text: piece.to_string(),
                    });
                };
                sequential = 1;
                let now = || self.clock.now_ms();
                let text = llm::text(
                    &self.caller(&now),
                    &agent,
                    llm::TextAsk {
                        node: Node::AnswerSynthesizer,
                        system: answer::WRITER_SYSTEM,
                        user,
                    },
                    &mut on_delta,
                    &mut record.calls,
                    &run.budget,
                )
                .await;
                match text.map_err(|e| run.explain(e)) {
                    Ok(text) => {
                        let made_up = answer::ungrounded(&text, question, rows.columns, rows.rows);
                        if !made_up.is_empty() {
                            warnings.push(RunWarning {
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
                        answer = FinalAnswer {
                            text,
                            written_by: Writer::Llm,
                        };
                    }
                    // A cancelled or timed-out run ends here; the caller no longer waits.
                    Err(e)
                        if matches!(
                            e.error_code,
                            ErrorCode::Cancelled | ErrorCode::PipelineTimeout
                        ) =>
                    {
                        record.errors.push(e.clone());
                        step.end(record);
                        return Written {
                            answer: Err(e),
                            warnings,
                            sequential,
                        };
                    }
                    // The rows are there: a failed write-up falls back to the template,
                    // and says so.
                    Err(e) => {
                        let warning = PipelineError {
                            severity: Severity::Warning,
                            ..e
                        };
                        warnings.push(RunWarning::from(warning.clone()));
                        record.errors.push(warning);
                        answer.text = template();
                    }
                }
            }
        }
        // A cancel that came while the answer was being written still wins: the caller no
        // longer wants it.
        if let Err(e) = run.check(Node::AnswerSynthesizer) {
            record.errors.push(e.clone());
            step.end(record);
            return Written {
                answer: Err(e),
                warnings,
                sequential,
            };
        }
        record.outputs = Some(AnswerOutputs {
            text: answer.text.clone(),
            written_by: answer.written_by,
        });
        step.end(record);
        Written {
            answer: Ok(answer),
            warnings,
            sequential,
        }
    }
}
