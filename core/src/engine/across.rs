//! Questions across datasources: the decomposer splits the question, the parts are planned
//! and run together (one layer, polled on one thread), the aggregator combines their rows
//! in a scratch SQLite, and the answer is written from the combined rows.

use super::aggregate::{self, Combined, Part};
use super::decompose::{self, Decomposition};
use super::join::join_all;
use super::llm::{structured, Structured};
use super::node::{At, Record, Run, ROWS_PREVIEW};
use super::solve::{Solved, Task};
use super::trace::AggregatorOutputs;
use super::write::Rows;
use super::{Asked, CombinedRows, Engine, Event, Found, Staged, Status};
use crate::error::{ErrorCode, Node, PipelineError, Severity};
use crate::index::{render, retrieve};
use crate::provider::{Message, Role};

impl Engine<'_> {
    /// Answers the question from the `accepted` datasources together: decomposed, the
    /// parts solved side by side, their rows combined, the answer written from those.
    pub(super) async fn several(
        &self,
        q: &Asked<'_>,
        accepted: &[String],
        run: &Run<'_>,
    ) -> Staged {
        let (d, sequential) = self.decompose(q, accepted, run).await;
        let found = Found {
            sequential,
            ..Found::default()
        };
        let d = match d {
            Ok(d) => d,
            Err(e) => return found.ending(Err(e)),
        };
        let tasks: Vec<Task> = d
            .sub_queries
            .iter()
            .map(|p| Task {
                id: p.id.clone(),
                question: q.question,
                part: Some(p),
                datasource: &p.datasource,
                context: "",
                search: q.question,
                previous: None,
            })
            .collect();
        let solved: Vec<Solved> = join_all(
            tasks
                .iter()
                .map(|t| self.solve(t, &q.scope, None, q.options.plan_only, run))
                .collect(),
        )
        .await;
        // The parts ran side by side: the longest chain of calls counts.
        let parts = solved.iter().map(|s| s.sequential).max().unwrap_or(0);
        let mut failure = None;
        let mut warnings = Vec::new();
        let mut sub_queries = Vec::new();
        for s in solved {
            warnings.extend(s.warnings);
            sub_queries.push(s.sub);
            if let (Err(e), None) = (s.outcome, &failure) {
                failure = Some(e);
            }
        }
        let found = found.then(Found {
            decomposition: Some(d.clone()),
            sequential: parts,
            warnings,
            sub_queries,
            ..Found::default()
        });
        if let Some(e) = failure {
            return found.ending(Err(e));
        }
        if q.options.plan_only {
            return Found {
                status: Some(Status::PlanOnly),
                ..found
            }
            .ending(Ok(()));
        }
        let combined = match self.aggregate(&d, &found.sub_queries, run).await {
            Ok(c) => c,
            Err(e) => return found.ending(Err(e)),
        };
        let frame = combined.frame;
        run.emit(Event::Rows {
            sub_query_id: "combined".to_string(),
            sql: Some(combined.sql.clone()),
            columns: frame.columns.clone(),
            preview: frame.rows.iter().take(ROWS_PREVIEW).cloned().collect(),
            row_count: frame.rows.len(),
        });
        let rows = CombinedRows {
            sql: combined.sql,
            columns: frame.columns,
            rows: frame.rows,
            truncated: frame.truncated,
        };
        let written = self
            .write_answer(
                q.question,
                Rows {
                    columns: &rows.columns,
                    rows: &rows.rows,
                    truncated: rows.truncated,
                },
                run,
            )
            .await;
        found
            .then(Found {
                warnings: combined.warnings,
                combined: Some(rows),
                ..Found::default()
            })
            .then_staged(Found::answered(written))
    }

    /// The aggregator's node: the parts' rows combined in the scratch database.
    async fn aggregate(
        &self,
        d: &Decomposition,
        parts: &[super::SubQuery],
        run: &Run<'_>,
    ) -> Result<Combined, PipelineError> {
        let step = run.begin::<AggregatorOutputs>(At::run()).await?;
        let combined = match self.scratch {
            None => Err(PipelineError::new(
                Node::Aggregator,
                ErrorCode::ConfigInvalid,
                Severity::Error,
                "This engine has no scratch database, so it cannot combine results from several datasources.",
            )),
            Some(scratch) => {
                let parts: Vec<Part> = parts
                    .iter()
                    .map(|s| Part {
                        columns: &s.columns,
                        rows: &s.rows,
                        truncated: s.truncated,
                    })
                    .collect();
                aggregate::combine(d, &parts, scratch, self.settings.validator.lower.row_cap)
                    .await
            }
        };
        step.end(Record::of(&combined, |c| AggregatorOutputs {
            sql: c.sql.clone(),
            rows: c.frame.row_count(),
            truncated: c.frame.truncated,
        }));
        let combined = combined?;
        // A cancel that came while combining wins: the caller no longer wants the rows.
        run.check(Node::Aggregator)?;
        Ok(combined)
    }

    /// Asks the decomposer how to split the question over `accepted`, showing it the
    /// schema each datasource retrieves for the question. Also says how many model calls
    /// it made one after another (none when it failed before asking).
    async fn decompose(
        &self,
        q: &Asked<'_>,
        accepted: &[String],
        run: &Run<'_>,
    ) -> (Result<Decomposition, PipelineError>, u32) {
        let step = match run.begin::<Decomposition>(At::run()).await {
            Ok(step) => step,
            Err(e) => return (Err(e), 0),
        };
        let mut calls = Vec::new();
        let mut sequential = 0;
        let proposed = self
            .propose(q, accepted, run, &mut calls, &mut sequential)
            .await;
        step.end(Record::of(&proposed, Decomposition::clone).with_calls(calls));
        (proposed, sequential)
    }

    /// The decomposer's work: the schemas retrieved, the model asked, its answer checked.
    async fn propose(
        &self,
        q: &Asked<'_>,
        accepted: &[String],
        run: &Run<'_>,
        calls: &mut Vec<super::trace::LlmCall>,
        sequential: &mut u32,
    ) -> Result<Decomposition, PipelineError> {
        let mut schemas = Vec::new();
        for id in accepted {
            let schema = self.catalog.require(id, Node::Decomposer)?.schema;
            let r = retrieve(
                self.catalog.index(),
                self.catalog.embedder(),
                id,
                q.question,
                &q.scope,
                &self.settings.retrieval,
                false,
            )
            .await
            .map_err(|e| e.at(Node::Decomposer))?;
            schemas.push((id.clone(), render(schema, &r)));
        }
        let agent = run.bounded(&self.settings.decomposer);
        let now = || self.clock.now_ms();
        *sequential += 1;
        let parse = |text: &str| decompose::parse(text, accepted);
        let d = structured(
            &self.caller(&now),
            &agent,
            Structured {
                node: Node::Decomposer,
                name: "decomposition",
                description:
                    "How the question splits over the datasources, and how the parts combine.",
                schema: decompose::decomposition_schema(),
                system: decompose::DECOMPOSER_SYSTEM.to_string(),
                messages: vec![Message {
                    role: Role::User,
                    content: decompose::decomposer_user(&schemas, q.question),
                }],
            },
            &parse,
            calls,
            &run.budget,
        )
        .await
        .map_err(|e| run.explain(e))?;
        let most = self.settings.max_sub_queries;
        if d.sub_queries.len() > most {
            return Err(PipelineError::new(
                Node::Decomposer,
                ErrorCode::QuestionTooBroad,
                Severity::Error,
                format!(
                    "The question needs {} separate queries; at most {most} are allowed. Ask about fewer things at once.",
                    d.sub_queries.len()
                ),
            ));
        }
        Ok(d)
    }
}
