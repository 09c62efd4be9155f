//! Questions across datasources: the decomposer splits the question, the parts are planned
//! and run together (one layer, polled on one thread), the aggregator combines their rows
//! in a scratch SQLite, and the answer is written from the combined rows.

use super::aggregate::{self, Part};
use super::decompose::{self, Decomposition};
use super::join::join_all;
use super::llm::{structured, Structured};
use super::solve::{Solved, Task};
use super::{AskOptions, CombinedRows, Engine, Event, QueryResult, Run, Status};
use crate::error::{ErrorCode, Node, PipelineError, Severity};
use crate::index::{render, retrieve};
use crate::policy::Scope;
use crate::provider::{Message, Role};
use serde_json::json;

impl Engine<'_> {
    /// Answers `question` from the `accepted` datasources together.
    pub(super) async fn across(
        &self,
        question: &str,
        accepted: &[String],
        scope: &Scope<'_>,
        options: &AskOptions,
        run: &Run<'_>,
        result: &mut QueryResult,
    ) -> Result<(), PipelineError> {
        let d = self
            .decompose(question, accepted, scope, run, result)
            .await?;
        result.decomposition = Some(d.clone());
        let tasks: Vec<Task> = d
            .sub_queries
            .iter()
            .map(|p| Task {
                id: p.id.clone(),
                question,
                part: Some(p),
                datasource: &p.datasource,
            })
            .collect();
        let solved: Vec<Solved> = join_all(
            tasks
                .iter()
                .map(|t| self.solve(t, scope, None, options.plan_only, run))
                .collect(),
        )
        .await;
        result.sequential_llm_calls += solved.iter().map(|s| s.sequential).max().unwrap_or(0);
        let mut failure = None;
        for s in solved {
            result.warnings.extend(s.warnings);
            result.sub_queries.push(s.sub);
            if let (Err(e), None) = (s.outcome, &failure) {
                failure = Some(e);
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        if options.plan_only {
            result.status = Status::PlanOnly;
            return Ok(());
        }

        run.enter(Node::Aggregator, 0)?;
        let started = run.now();
        let combined = match self.scratch {
            None => Err(PipelineError::new(
                Node::Aggregator,
                ErrorCode::InvalidState,
                Severity::Error,
                "This engine has no scratch database, so it cannot combine results from several datasources.",
            )),
            Some(scratch) => {
                let parts: Vec<Part> = result
                    .sub_queries
                    .iter()
                    .map(|s| Part {
                        columns: &s.columns,
                        rows: &s.rows,
                        truncated: s.truncated,
                    })
                    .collect();
                aggregate::combine(&d, &parts, scratch, self.settings.validator.lower.row_cap)
                    .await
            }
        };
        let (outputs, errors) = match &combined {
            Ok(c) => (
                json!({"sql": c.sql, "rows": c.frame.row_count(), "truncated": c.frame.truncated}),
                vec![],
            ),
            Err(e) => (json!(null), vec![e.clone()]),
        };
        run.record(
            Node::Aggregator,
            0,
            (started, run.now()),
            outputs,
            errors,
            vec![],
        );
        let combined = combined?;
        // A cancel that came while combining wins: the caller no longer wants the rows.
        run.check(Node::Aggregator)?;
        result.warnings.extend(combined.warnings);
        let frame = combined.frame;
        run.emit(Event::Rows {
            sub_query_id: "combined".to_string(),
            sql: Some(combined.sql.clone()),
            columns: frame.columns.clone(),
            preview: frame.rows.iter().take(50).cloned().collect(),
            row_count: frame.rows.len(),
        });
        result.combined = Some(CombinedRows {
            sql: combined.sql,
            columns: frame.columns.clone(),
            rows: frame.rows.clone(),
            truncated: frame.truncated,
        });
        self.write_answer(
            question,
            &frame.columns,
            &frame.rows,
            frame.truncated,
            run,
            result,
        )
        .await
    }

    /// Asks the decomposer how to split `question` over `accepted`, showing it the schema
    /// each datasource retrieves for the question.
    async fn decompose(
        &self,
        question: &str,
        accepted: &[String],
        scope: &Scope<'_>,
        run: &Run<'_>,
        result: &mut QueryResult,
    ) -> Result<Decomposition, PipelineError> {
        run.enter(Node::Decomposer, 0)?;
        let started = run.now();
        let mut schemas = Vec::new();
        for id in accepted {
            let Some(schema) = self.index.schema(id) else {
                continue;
            };
            let r = retrieve(
                self.index,
                self.embedder,
                id,
                question,
                scope,
                &self.settings.retrieval,
                false,
            )
            .await
            .map_err(|e| e.into_error(Node::Decomposer))?;
            schemas.push((id.clone(), render(schema, &r)));
        }
        let agent = run.bounded(&self.settings.decomposer);
        let mut calls = Vec::new();
        let now = || self.clock.now_ms();
        result.sequential_llm_calls += 1;
        let parse = |text: &str| decompose::parse(text, accepted);
        let proposed = structured(
            &self.caller(&now),
            &agent,
            Structured {
                node: Node::Decomposer,
                name: "decomposition",
                description: "How the question splits over the datasources, and how the parts combine.",
                schema: decompose::decomposition_schema(),
                system: decompose::DECOMPOSER_SYSTEM.to_string(),
                messages: vec![Message {
                    role: Role::User,
                    content: decompose::decomposer_user(&schemas, question),
                }],
            },
            &parse,
            &mut calls,
            &run.budget,
        )
        .await
        .map_err(|e| run.explain(e))
        .and_then(|d| {
            let most = self.settings.max_sub_queries;
            if d.sub_queries.len() > most {
                Err(PipelineError::new(
                    Node::Decomposer,
                    ErrorCode::QuestionTooBroad,
                    Severity::Error,
                    format!(
                        "The question needs {} separate queries; at most {most} are allowed. Ask about fewer things at once.",
                        d.sub_queries.len()
                    ),
                ))
            } else {
                Ok(d)
            }
        });
        let (outputs, errors) = match &proposed {
            Ok(d) => (serde_json::to_value(d).unwrap_or_default(), vec![]),
            Err(e) => (json!(null), vec![e.clone()]),
        };
        run.record(
            Node::Decomposer,
            0,
            (started, run.now()),
            outputs,
            errors,
            calls,
        );
        proposed
    }
}
