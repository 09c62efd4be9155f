//! One sub-query, from its first plan to rows: validate, render, run, check; after a
//! retryable rejection, back to the planner with the reasons, at most `retries_max` times.

use super::decompose::SubQuestion;
use super::llm::{self};
use super::node::Span;
use super::node::{At, Record, Run};
use super::trace::{
    ExecutorOutputs, GeneratorOutputs, LlmCall, PlannerOutputs, RefinerOutputs, RetrieverOutputs,
    ValidatorOutputs,
};
use super::{prompts, sanity, Engine, Feedback, PlanSource, Planned, SubQuery};
use crate::conversation::diff;
use crate::datasource::{Datasource, ResultFrame};
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::index::Retrieval;
use crate::plan::Plan;
use crate::policy::Scope;
use crate::provider::{Message, Role};
use crate::run::{execute, render};
use crate::schema::SchemaSnapshot;
use crate::validate::{validate_part, DeclaredKey, Validation, ValidatorSettings};
use serde_json::json;

/// What one sub-query is asked to do.
pub(super) struct Task<'t> {
    /// Its id: `q1`, …
    pub id: String,
    /// The user's question, always in the planner's prompt.
    pub question: &'t str,
    /// The part of the question it answers, when the question was decomposed.
    pub part: Option<&'t SubQuestion>,
    /// Where it runs.
    pub datasource: &'t str,
    /// The earlier turns of the thread, as the planner reads them (empty: none).
    pub context: &'t str,
    /// What retrieval searches with (a part searches with its own words instead).
    pub search: &'t str,
    /// The previous turn's plan, which this one edits.
    pub previous: Option<&'t Plan>,
}

/// How a sub-query ended.
pub(super) struct Solved {
    /// The sub-query as the result shows it (rows on success).
    pub sub: SubQuery,
    /// The schema its planner saw.
    pub retrieval: Option<Retrieval>,
    /// Warnings for the answer.
    pub warnings: Vec<RunWarning>,
    /// Model calls it made one after another.
    pub sequential: u32,
    /// Its failure, if it failed.
    pub outcome: Result<(), PipelineError>,
}

/// One try at a sub-query: its plan and where it is checked.
struct Attempt<'t> {
    task: &'t Task<'t>,
    plan: &'t Plan,
    schema: &'t SchemaSnapshot,
    scope: &'t Scope<'t>,
    attempt: u32,
}

impl Attempt<'_> {
    /// This try, for this sub-query.
    fn at(&self) -> At<'_> {
        At::sub(self.attempt, &self.task.id)
    }
}

/// What one attempt's validator, generator and executor gave: rows (with their warnings)
/// or the rejections a retry may answer.
struct Ran {
    validation: Vec<crate::validate::ValidationCheck>,
    sql: Option<String>,
    /// The rows, when the query ran and nothing blocked them.
    frame: Option<ResultFrame>,
    warnings: Vec<RunWarning>,
    rejections: Vec<PipelineError>,
}

/// What the planner hears after a rejection, and what asking the refiner cost.
struct Advice {
    prompt: String,
    /// PLAN_FEEDBACK with the advice, or REFINER_FAILED.
    warning: Option<RunWarning>,
    /// Model calls made one after another (the refiner's).
    sequential: u32,
    /// What the prompt carries that a cleaned trace withholds: the database's words, and
    /// advice the refiner wrote from them.
    quoted: Vec<String>,
}

/// What a step found: blocking errors and warnings.
#[derive(Default)]
struct Findings {
    errors: Vec<PipelineError>,
    warnings: Vec<RunWarning>,
}

/// Sanity findings are retried once per sub-query each.
#[derive(Default)]
struct Retried {
    value: bool,
    fan_out: bool,
}

impl Engine<'_> {
    /// Solves `task`: from `first` (the plan already asked for) or by retrieving and
    /// planning now, until rows, a fatal rejection, or no retries left. In plan-only mode
    /// it stops at the first plan that validates.
    pub(super) async fn solve(
        &self,
        task: &Task<'_>,
        scope: &Scope<'_>,
        first: Option<(Planned, Vec<LlmCall>)>,
        plan_only: bool,
        run: &Run<'_>,
    ) -> Solved {
        let mut solved = self.attempts(task, scope, first, plan_only, run).await;
        // Every warning says which sub-query it concerns.
        for w in &mut solved.warnings {
            w.sub_query_id.get_or_insert_with(|| task.id.clone());
        }
        solved
    }

    /// The tries themselves: the sub-query as it stands after each, returned whole however
    /// it ended.
    async fn attempts(
        &self,
        task: &Task<'_>,
        scope: &Scope<'_>,
        first: Option<(Planned, Vec<LlmCall>)>,
        plan_only: bool,
        run: &Run<'_>,
    ) -> Solved {
        let mut solved = Solved {
            sub: SubQuery {
                id: task.id.clone(),
                datasource_id: task.datasource.to_string(),
                plan: None,
                sql: None,
                validation: vec![],
                columns: vec![],
                rows: vec![],
                truncated: false,
                retry_count: 0,
                plan_source: PlanSource::Planner,
            },
            retrieval: None,
            warnings: vec![],
            sequential: 0,
            outcome: Ok(()),
        };
        // What the sub-query found so far is returned with the error that ended it.
        macro_rules! or_end {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(e) => {
                        solved.outcome = Err(e);
                        return solved;
                    }
                }
            };
        }
        let id = task.id.as_str();
        let (first, mut calls) = match first {
            Some(f) => f,
            None => {
                or_end!(run.check(Node::SchemaRetriever));
                run.announce::<RetrieverOutputs>(At::sub(0, id));
                run.announce::<PlannerOutputs>(At::sub(0, id));
                let mut calls = Vec::new();
                let agent = run.bounded(&self.settings.planner);
                solved.sequential += 1;
                let p = self
                    .retrieve_and_plan(task, scope, &agent, &mut calls, &run.budget)
                    .await;
                (p, calls)
            }
        };
        let retrieval = first.retrieval.clone();
        solved.sub.plan_source = first.source;
        run.record_span(
            At::sub(0, id),
            first.retrieved,
            Record::ok(RetrieverOutputs {
                datasource: task.datasource.to_string(),
                tables: retrieval.tables.clone(),
                columns: retrieval.columns.clone(),
                values: retrieval.values.iter().map(|v| v.render()).collect(),
                full_snapshot: retrieval.full_snapshot,
                dropped: None,
            }),
        );
        solved.retrieval = Some(retrieval.clone());
        // Looked up after the first plan is recorded, so a missing datasource loses no call.
        let opened = self.open(task.datasource);
        let mut planned = first.plan;
        let mut plan_span = first.planned;
        let mut history: Vec<Message> = Vec::new();
        let mut attempt = 0;
        let mut retried = Retried::default();
        // The blocking errors of attempts a retry went past; warnings once one succeeds.
        let mut recovered: Vec<PipelineError> = Vec::new();
        // What the planner has been shown in its retries' history that a cleaned trace
        // withholds (see `Advice::quoted`).
        let mut quoted: Vec<String> = Vec::new();
        loop {
            let planner = At::sub(attempt, id);
            let record = Record::of(&planned, |p| PlannerOutputs {
                plan: p.to_string(),
                edit_of_previous: task.previous.map(|before| diff(before, p)),
                plan_cache: (solved.sub.plan_source == PlanSource::Cache && attempt == 0)
                    .then(|| "hit: the planner was not asked".to_string()),
                dropped: None,
            });
            run.record_span(
                planner,
                plan_span,
                record.with_calls(quoting(std::mem::take(&mut calls), &quoted)),
            );
            match planned {
                Ok(plan) => {
                    let (db, schema) = or_end!(opened.clone());
                    solved.sub.plan = Some(plan.clone());
                    let try_ = Attempt {
                        task,
                        plan: &plan,
                        schema,
                        scope,
                        attempt,
                    };
                    let rejections = if plan_only {
                        let v = or_end!(self.checked(&try_, run).await);
                        solved.sub.validation = v.checks.clone();
                        solved.warnings.extend(v.warnings.iter().cloned());
                        if v.passed() {
                            solved.sub.sql = render(
                                &plan,
                                schema,
                                schema.dialect,
                                &self.settings.validator.lower,
                            )
                            .ok();
                            solved
                                .warnings
                                .extend(recovered.into_iter().map(RunWarning::recovered));
                            return solved;
                        }
                        v.errors
                    } else {
                        let ran =
                            or_end!(self.check_render_run(&try_, db, run, &mut retried).await);
                        solved.sub.validation = ran.validation;
                        if let Some(sql) = ran.sql {
                            solved.sub.sql = Some(sql);
                        }
                        if let Some(frame) = ran.frame {
                            // A part's columns take the names the combination declared
                            // for them.
                            solved.sub.columns = match task.part {
                                Some(p) => p.columns.clone(),
                                None => frame.columns,
                            };
                            solved.sub.rows = frame.rows;
                            solved.sub.truncated = frame.truncated;
                            solved.warnings.extend(ran.warnings);
                            run.rows(&solved.sub);
                            solved
                                .warnings
                                .extend(recovered.into_iter().map(RunWarning::recovered));
                            return solved;
                        }
                        ran.rejections
                    };
                    let blocking: Vec<&PipelineError> = rejections
                        .iter()
                        .filter(|e| e.severity.is_blocking())
                        .collect();
                    let retryable =
                        !blocking.is_empty() && blocking.iter().all(|e| e.is_retryable());
                    if !retryable || attempt >= self.settings.retries_max {
                        solved.outcome = Err(rejections
                            .into_iter()
                            .find(|e| e.severity.is_blocking())
                            .unwrap_or_else(|| {
                                PipelineError::new(
                                    Node::LogicalValidator,
                                    ErrorCode::InvalidPlanStructure,
                                    Severity::Error,
                                    "The plan was rejected.",
                                )
                            }));
                        return solved;
                    }
                    attempt += 1;
                    solved.sub.retry_count = attempt;
                    let blocking: Vec<PipelineError> = blocking.into_iter().cloned().collect();
                    recovered.extend(blocking.iter().cloned());
                    let failed = Attempt { attempt, ..try_ };
                    let advice = or_end!(self.feedback(&failed, &retrieval, &blocking, run).await);
                    solved.sequential += advice.sequential;
                    solved.warnings.extend(advice.warning);
                    quoted.extend(advice.quoted);
                    history.push(Message {
                        role: Role::Assistant,
                        content: serde_json::to_string(&plan).unwrap_or_default(),
                    });
                    history.push(Message {
                        role: Role::User,
                        content: advice.prompt,
                    });
                }
                // The planner's answer never parsed, its own parse retries spent: like any
                // retryable rejection, the planner is asked again while retries are left.
                Err(e) if e.is_retryable() && attempt < self.settings.retries_max => {
                    attempt += 1;
                    solved.sub.retry_count = attempt;
                    recovered.push(e);
                }
                Err(e) => {
                    solved.outcome = Err(e);
                    return solved;
                }
            }
            solved.sequential += 1;
            or_end!(run.check(Node::AstPlanner));
            run.announce::<PlannerOutputs>(At::sub(attempt, id));
            let asked = run.now();
            let agent = run.bounded(&self.settings.planner);
            planned = self
                .ask_planner(
                    task,
                    &retrieval,
                    &agent,
                    history.clone(),
                    &mut calls,
                    &run.budget,
                )
                .await;
            plan_span = Span {
                started: asked,
                ended: run.now(),
            };
        }
    }

    /// What the planner hears after a rejection (`at` is the retry's attempt): the reasons
    /// themselves (direct, no call and no sleep, since the rejection was deterministic), or
    /// the refiner's advice, noted as PLAN_FEEDBACK. A refiner whose answer cannot be used
    /// falls back to the reasons (REFINER_FAILED); a provider failure or a run limit ends
    /// the sub-query.
    async fn feedback(
        &self,
        at: &Attempt<'_>,
        retrieval: &Retrieval,
        blocking: &[PipelineError],
        run: &Run<'_>,
    ) -> Result<Advice, PipelineError> {
        let reasons: Vec<String> = blocking.iter().map(|e| e.message.clone()).collect();
        let quoted = database_words(blocking);
        let Feedback::Refiner(agent) = &self.settings.feedback else {
            return Ok(Advice {
                prompt: prompts::planner_feedback(&reasons),
                warning: None,
                sequential: 0,
                quoted,
            });
        };
        let step = run.begin::<RefinerOutputs>(at.at()).await?;
        let agent = run.bounded(agent);
        let mut calls = Vec::new();
        let now = || self.clock.now_ms();
        let system = prompts::refiner_system(at.schema, retrieval);
        let today = self.settings.validator.lower.today.as_deref();
        let advice = llm::text(
            &self.caller(&now),
            &agent,
            llm::TextAsk {
                node: Node::Refiner,
                system: &system,
                user: prompts::refiner_user(at.task.question, today, at.plan, blocking),
            },
            &mut |_| {},
            &mut calls,
            &run.budget,
        )
        .await
        .map_err(|e| run.explain(e));
        match advice {
            Ok(advice) => {
                // Advice written from the database's words may repeat them in its own: it is
                // withheld with them.
                let mut quoted = quoted;
                if !quoted.is_empty() {
                    quoted.push(advice.clone());
                }
                let noted = RunWarning {
                    detail: Some(json!({ "advice": advice })),
                    ..RunWarning::new(
                        Node::Refiner,
                        ErrorCode::PlanFeedback,
                        "The refiner's advice went to the planner before its retry.",
                    )
                };
                step.end(
                    Record::ok(RefinerOutputs {
                        advice: advice.clone(),
                        quoted: quoted.clone(),
                    })
                    .with_calls(quoting(calls, &quoted)),
                );
                Ok(Advice {
                    prompt: prompts::refined_feedback(&reasons, &advice),
                    warning: Some(noted),
                    sequential: 1,
                    quoted,
                })
            }
            Err(e) if !e.is_retryable() => {
                step.end(Record::failed(&e).with_calls(quoting(calls, &quoted)));
                Err(e)
            }
            Err(e) => {
                let failed = PipelineError::new(
                    Node::Refiner,
                    ErrorCode::RefinerFailed,
                    Severity::Warning,
                    "The refiner's advice could not be used; the planner retried with the rejection's own words.",
                )
                .with_details(json!({ "why": e.message }));
                step.end(Record {
                    outputs: None,
                    errors: vec![failed.clone()],
                    calls: quoting(calls, &quoted),
                });
                Ok(Advice {
                    prompt: prompts::planner_feedback(&reasons),
                    warning: Some(RunWarning::from(failed)),
                    sequential: 1,
                    quoted,
                })
            }
        }
    }

    /// The validator's settings with the query time limit cut to what `run` has left: what
    /// every query of the run (probes and verified queries included) runs under.
    pub(super) fn bounded_validator(&self, run: &Run<'_>) -> ValidatorSettings {
        let settings = &self.settings.validator;
        ValidatorSettings {
            query_timeout_ms: run
                .bounded_limits(crate::datasource::ExecLimits::for_plan(settings))
                .timeout_ms,
            ..settings.clone()
        }
    }

    /// The open datasource `id` and its indexed schema.
    pub(super) fn open(
        &self,
        id: &str,
    ) -> Result<(&dyn Datasource, &SchemaSnapshot), PipelineError> {
        let entry = self.catalog.require(id, Node::Executor)?;
        Ok((entry.datasource, entry.schema))
    }

    /// The validator's node: the plan checked for the caller, the checks kept on the
    /// sub-query, the record written.
    async fn checked(&self, at: &Attempt<'_>, run: &Run<'_>) -> Result<Validation, PipelineError> {
        let step = run.begin::<ValidatorOutputs>(at.at()).await?;
        let key = at.task.part.and_then(|p| {
            let name = p.key.as_deref()?;
            Some(DeclaredKey {
                name,
                position: p.columns.iter().position(|c| c == name)?,
                category: p.key_type?.category(),
            })
        });
        let v = validate_part(
            Some(at.plan),
            at.schema,
            at.scope,
            &self.settings.validator,
            key,
        );
        step.end(Record {
            outputs: Some(ValidatorOutputs {
                checks: v.checks.clone(),
            }),
            errors: v.errors.clone(),
            calls: vec![],
        });
        Ok(v)
    }

    /// One attempt's deterministic steps, each its own node in the trace: the validator's
    /// checks, the generator's SQL, the executor's rows and sanity checks.
    async fn check_render_run(
        &self,
        at: &Attempt<'_>,
        db: &dyn Datasource,
        run: &Run<'_>,
        retried: &mut Retried,
    ) -> Result<Ran, PipelineError> {
        let v = self.checked(at, run).await?;
        let mut ran = Ran {
            validation: v.checks.clone(),
            sql: None,
            frame: None,
            warnings: Vec::new(),
            rejections: Vec::new(),
        };
        if !v.passed() {
            ran.rejections = v.errors;
            return Ok(ran);
        }
        let step = run.begin::<GeneratorOutputs>(at.at()).await?;
        let rendered = render(
            at.plan,
            at.schema,
            db.dialect(),
            &self.settings.validator.lower,
        );
        step.end(Record {
            outputs: Some(GeneratorOutputs {
                sql: rendered.as_ref().ok().cloned(),
                dialect: db.dialect(),
            }),
            errors: rendered.as_ref().err().cloned().into_iter().collect(),
            calls: vec![],
        });
        let sql = match rendered {
            Ok(sql) => sql,
            Err(e) => {
                ran.rejections = vec![e];
                return Ok(ran);
            }
        };
        ran.sql = Some(sql.clone());
        let step = run.begin::<ExecutorOutputs>(at.at()).await?;
        let limits = run.bounded_limits(crate::datasource::ExecLimits::for_plan(
            &self.settings.validator,
        ));
        let mut executed = execute(&sql, db, limits).await;
        // A query stopped at the run's own deadline ends the run as the run's timeout:
        // raising the query's limit would not have helped.
        if matches!(&executed.frame, Err(e) if e.error_code == ErrorCode::QueryTimeout) {
            if let Err(run_over) = run.check(Node::Executor) {
                executed.frame = Err(run_over);
            }
        }
        let mut found = Findings {
            errors: Vec::new(),
            warnings: v.warnings.clone(),
        };
        found.warnings.extend(executed.warnings);
        match &executed.frame {
            Ok(frame) => {
                if let Some(e) = at.task.part.and_then(|p| width_mismatch(p, frame)) {
                    found.errors.push(e);
                } else if self.settings.sanity_checks {
                    let more = self.sanity(at, db, frame, retried, run).await;
                    found.errors.extend(more.errors);
                    found.warnings.extend(more.warnings);
                }
            }
            Err(e) => found.errors.push(e.clone()),
        }
        step.end(Record {
            outputs: Some(ExecutorOutputs {
                sql: sql.clone(),
                rows: executed.frame.as_ref().ok().map(ResultFrame::row_count),
            }),
            errors: found.errors.clone(),
            calls: vec![],
        });
        let blocked = found.errors.iter().any(|e| e.severity.is_blocking());
        match executed.frame {
            Ok(frame) if !blocked => {
                ran.frame = Some(frame);
                ran.warnings = found.warnings;
            }
            _ => ran.rejections = found.errors,
        }
        Ok(ran)
    }

    /// The sanity checks on a result that ran: an empty result whose filter names a value
    /// its column lacks becomes an error (once, when close values exist, so the planner
    /// retries with them) or a warning; an aggregate a join repeats, an error under COUNT
    /// (once) or a warning; an all-NULL result column, a warning. With no retry left,
    /// every finding is a warning and the rows are kept.
    async fn sanity(
        &self,
        at: &Attempt<'_>,
        db: &dyn Datasource,
        frame: &ResultFrame,
        retried: &mut Retried,
        run: &Run<'_>,
    ) -> Findings {
        let (plan, schema) = (at.plan, at.schema);
        let bounded = self.bounded_validator(run);
        let mut found = Findings::default();
        // With no retry left a finding can only be reported: the rows are kept.
        let can_retry = at.attempt < self.settings.retries_max;
        if frame.rows.is_empty() {
            let missing =
                sanity::missing_values(plan, schema, db, self.catalog.index().values(), &bounded)
                    .await;
            let retry =
                can_retry && !retried.value && missing.iter().any(|m| !m.closest.is_empty());
            for m in &missing {
                let detail = json!({"table": m.table, "column": m.column, "value": m.value, "closest": m.closest});
                if retry {
                    found.errors.push(
                        PipelineError::new(
                            Node::Executor,
                            ErrorCode::ValueNotFound,
                            Severity::Error,
                            m.sentence(),
                        )
                        .with_details(detail),
                    );
                } else {
                    found.warnings.push(RunWarning {
                        detail: Some(detail),
                        ..RunWarning::new(Node::Executor, ErrorCode::ValueNotFound, m.sentence())
                    });
                }
            }
            retried.value |= retry;
            return found;
        }
        for fan in sanity::fan_outs(plan, schema, db, &bounded).await {
            let retry = can_retry && fan.counts && !retried.fan_out && !retried.value;
            let detail = json!({"table": fan.table, "aggregate": fan.aggregate, "repeated_by": fan.repeated_by});
            if retry {
                retried.fan_out = true;
                found.errors.push(
                    PipelineError::new(
                        Node::Executor,
                        ErrorCode::JoinFanOut,
                        Severity::Error,
                        fan.sentence(true),
                    )
                    .with_details(detail),
                );
            } else {
                found.warnings.push(RunWarning {
                    detail: Some(detail),
                    ..RunWarning::new(Node::Executor, ErrorCode::JoinFanOut, fan.sentence(false))
                });
            }
        }
        for column in sanity::all_null_columns(&frame.columns, &frame.rows) {
            found.warnings.push(RunWarning::new(
                Node::Executor,
                ErrorCode::AllNullColumn,
                format!("The result column {column} is empty (NULL) in every row."),
            ));
        }
        found
    }
}

/// A part whose result is not as wide as the combination declared: retryable, with the
/// names it must return.
fn width_mismatch(part: &SubQuestion, frame: &ResultFrame) -> Option<PipelineError> {
    (frame.columns.len() != part.columns.len()).then(|| {
        PipelineError::new(
            Node::Executor,
            ErrorCode::InvalidPlanStructure,
            Severity::Error,
            format!(
                "The result has {} columns ({}), but this part must return exactly {}: {}, in that order.",
                frame.columns.len(),
                frame.columns.join(", "),
                part.columns.len(),
                part.columns.join(", ")
            ),
        )
    })
}

/// The messages of `errors` that a cleaned result withholds (a database's own words), which
/// a retry's prompt quotes.
fn database_words(errors: &[PipelineError]) -> Vec<String> {
    (errors.iter())
        .filter_map(PipelineError::withheld_message)
        .map(str::to_string)
        .collect()
}

/// `calls`, each marked as quoting `quoted`: a cleaned trace withholds those words in them.
fn quoting(mut calls: Vec<LlmCall>, quoted: &[String]) -> Vec<LlmCall> {
    for call in &mut calls {
        call.quoted.extend(quoted.iter().cloned());
    }
    calls
}
