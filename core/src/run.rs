//! A plan's whole deterministic path: validate, render, execute ([`run_plan`]), and SQL
//! mode over it ([`sql_mode`]), the one implementation every front end's SQL mode reaches
//! through the facade.

use crate::datasource::{Datasource, DatasourceErrorKind, Dialect, ExecLimits, ResultFrame};
use crate::error::{Boundary, Clean};
use crate::error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use crate::lower::{to_sql, LowerOptions};
use crate::plan::Plan;
use crate::import::import_sql;
use crate::policy::{Policies, Scope};
use crate::schema::SchemaSnapshot;
use crate::validate::{validate, Validation, ValidationCheck, ValidatorSettings};
use crate::value::Value;
use serde::{Deserialize, Serialize};

/// What happened to one plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRun {
    /// The validator's checks, errors and warnings.
    pub validation: Validation,
    /// The SQL, when the plan passed and rendered.
    pub sql: Option<String>,
    /// The rows, when the SQL ran.
    pub frame: Option<ResultFrame>,
    /// Every error: the validator's, then the generator's or executor's.
    pub errors: Vec<PipelineError>,
    /// Every warning: the validator's, then the executor's.
    pub warnings: Vec<RunWarning>,
}

impl PlanRun {
    /// True when the plan ran and returned rows (perhaps none).
    pub fn succeeded(&self) -> bool {
        self.frame.is_some() && !self.errors.iter().any(|e| e.severity.is_blocking())
    }
}

/// Maps a datasource failure to the error contract: the query's fault is the retryable
/// EXECUTION_FAILED, anything else the fatal DB_EXECUTION_ERROR.
pub fn execution_error(e: &crate::datasource::DatasourceError) -> PipelineError {
    let code = match e.kind {
        DatasourceErrorKind::InvalidQuery => ErrorCode::ExecutionFailed,
        DatasourceErrorKind::TimedOut => {
            return PipelineError::new(
                Node::Executor,
                ErrorCode::QueryTimeout,
                Severity::Error,
                format!(
                    "The query was stopped: {}. Ask a narrower question, or raise the time limit \
                     (query_timeout_ms; --timeout-ms on the command line) if the database needs longer.",
                    e.message
                ),
            )
        }
        DatasourceErrorKind::Cancelled => {
            return PipelineError::new(
                Node::Executor,
                ErrorCode::Cancelled,
                Severity::Error,
                "The run was cancelled; its query was stopped.",
            )
        }
        DatasourceErrorKind::Refused
        | DatasourceErrorKind::Unavailable
        | DatasourceErrorKind::Unreachable
        | DatasourceErrorKind::Denied => {
            ErrorCode::DbExecutionError
        }
    };
    PipelineError::new(Node::Executor, code, Severity::Error, e.message.clone())
}

/// Validates `plan`, renders it for the datasource's dialect and runs it.
pub async fn run_plan(
    plan: &Plan,
    datasource: &dyn Datasource,
    schema: &SchemaSnapshot,
    scope: &Scope<'_>,
    settings: &ValidatorSettings,
) -> PlanRun {
    let validation = validate(Some(plan), schema, scope, settings);
    let mut run = PlanRun {
        errors: validation.errors.clone(),
        warnings: validation.warnings.clone(),
        validation,
        sql: None,
        frame: None,
    };
    if !run.validation.passed() {
        return run;
    }
    let sql = match render(plan, schema, datasource.dialect(), &settings.lower) {
        Ok(sql) => sql,
        Err(e) => {
            run.errors.push(e);
            return run;
        }
    };
    let executed = execute(
        &sql,
        datasource,
        crate::datasource::ExecLimits::for_plan(settings),
    )
    .await;
    run.warnings.extend(executed.warnings);
    match executed.frame {
        Ok(frame) => run.frame = Some(frame),
        Err(e) => run.errors.push(e),
    }
    run.sql = Some(sql);
    run
}

/// The generator's step: a validated plan as SQL for `dialect`.
pub fn render(
    plan: &Plan,
    schema: &SchemaSnapshot,
    dialect: crate::datasource::Dialect,
    lower: &LowerOptions,
) -> Result<String, PipelineError> {
    // The validator lowered this very plan; failing here means the datasource's dialect
    // differs from the schema's.
    to_sql(plan, schema, dialect, lower).map_err(|e| {
        PipelineError::new(
            Node::Generator,
            ErrorCode::InvalidPlanStructure,
            Severity::Error,
            e.message,
        )
    })
}

/// What the executor's step gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Executed {
    /// The rows, or why there are none.
    pub frame: Result<ResultFrame, PipelineError>,
    /// RESULT_TRUNCATED when the row cap was reached.
    pub warnings: Vec<RunWarning>,
}

/// The executor's step: `sql` run on `datasource` under the row cap and the time limit.
pub async fn execute(sql: &str, datasource: &dyn Datasource, limits: ExecLimits) -> Executed {
    let cap = limits.max_rows;
    let mut warnings = Vec::new();
    let frame = match datasource.execute(sql, limits).await {
        Ok(mut frame) => {
            // A result as long as the cap may have been cut (the SQL's LIMIT is the cap), so
            // it is marked cut: the flag and the warning always agree.
            if frame.truncated || frame.row_count() >= cap {
                frame.truncated = true;
                warnings.push(RunWarning::new(
                    Node::Executor,
                    ErrorCode::ResultTruncated,
                    format!(
                        "The result reached the row cap of {cap} rows; there may be more rows."
                    ),
                ));
            }
            Ok(frame)
        }
        Err(e) => Err(execution_error(&e)),
    };
    Executed { frame, warnings }
}

/// What SQL mode is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Statement {
    /// SQL, imported as a plan (only what the plan language holds is accepted).
    Sql(String),
    /// A plan in its JSON form.
    Plan(String),
}

impl Statement {
    /// The statement as given.
    pub fn text(&self) -> &str {
        match self {
            Statement::Sql(text) | Statement::Plan(text) => text,
        }
    }
}

/// SQL mode's request: a statement, where and as whom to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlQuery {
    /// The SQL or plan.
    pub statement: Statement,
    /// The datasource (none: the first the roles may reach).
    pub datasource: Option<String>,
    /// The roles to check it for (none: the policy's default).
    pub roles: Vec<String>,
    /// Render for this dialect instead of running, when it is not the datasource's (the
    /// plan is still checked against the datasource's schema).
    pub dialect: Option<Dialect>,
}

impl SqlQuery {
    /// `sql`, to run on the first datasource the policy's default role reaches.
    pub fn sql(sql: impl Into<String>) -> SqlQuery {
        SqlQuery {
            statement: Statement::Sql(sql.into()),
            datasource: None,
            roles: Vec::new(),
            dialect: None,
        }
    }
}

/// SQL mode on one datasource: the statement as a plan (imported or read), checked for the
/// roles exactly as a planned query is, then run — or, for another dialect, rendered.
pub async fn sql_mode(
    datasource: &dyn Datasource,
    schema: &SchemaSnapshot,
    policies: &Policies,
    query: &SqlQuery,
    settings: &ValidatorSettings,
) -> SqlRun {
    let (id, input) = (datasource.id(), query.statement.text());
    let plan = match &query.statement {
        Statement::Sql(sql) => import_sql(sql, schema, schema.dialect),
        Statement::Plan(json) => Plan::from_json(json).map_err(|e| {
            PipelineError::new(
                Node::LogicalValidator,
                ErrorCode::InvalidPlanStructure,
                Severity::Error,
                format!("The plan is not valid plan JSON: {e}"),
            )
        }),
    };
    let plan = match plan {
        Ok(plan) => plan,
        Err(e) => return SqlRun::failed(id, input, e),
    };
    let scope = policies.scope(&query.roles);
    match query.dialect.filter(|d| *d != schema.dialect) {
        Some(dialect) => {
            let validation = validate(Some(&plan), schema, &scope, settings);
            // Valid for the datasource, but perhaps not expressible in that dialect.
            let rendered = validation.passed().then(|| {
                to_sql(&plan, schema, dialect, &settings.lower).map_err(|e| {
                    PipelineError::new(
                        Node::Generator,
                        ErrorCode::InvalidPlanStructure,
                        Severity::Error,
                        format!("Cannot render for {dialect}: {e}"),
                    )
                })
            });
            SqlRun::rendered(id, input, plan, validation, rendered)
        }
        None => {
            let run = run_plan(&plan, datasource, schema, &scope, settings).await;
            SqlRun::ran(id, input, plan, run)
        }
    }
}

/// `sql` as a verified query may hold it: the plan it imports as, checked for `roles`, and
/// the SQL the engine renders from that plan (VERIFIED_QUERY_INVALID otherwise; the words
/// name nothing the roles may not see).
pub fn verified_sql(
    sql: &str,
    schema: &SchemaSnapshot,
    policies: &Policies,
    roles: &[String],
) -> Result<(Plan, String), crate::error::Error> {
    let invalid = |why: String| crate::error::Error::new(ErrorCode::VerifiedQueryInvalid, why);
    let plan = import_sql(sql, schema, schema.dialect).map_err(|e| {
        invalid(format!(
            "the SQL cannot become a verified query: {}",
            e.cleaned(&Boundary::default()).message
        ))
    })?;
    let settings = ValidatorSettings::default();
    let validation = validate(Some(&plan), schema, &policies.scope(roles), &settings);
    if !validation.passed() {
        return Err(invalid(
            "the SQL does not pass the engine's checks for your role, so it cannot become a \
             verified query"
                .into(),
        ));
    }
    let rendered = render(&plan, schema, schema.dialect, &settings.lower)
        .map_err(|e| invalid(e.cleaned(&Boundary::default()).message))?;
    Ok((plan, rendered))
}

/// How SQL mode ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SqlStatus {
    /// It ran (or, for another dialect, rendered) with no blocking error.
    Ok,
    /// It was refused or failed: `errors` says why.
    Error,
}

/// What SQL mode (`nl2sql sql`, `nl2sql plan`, the npm package's `engine.sql`, the page's
/// SQL tab) did with one statement or plan: the one report every front end shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SqlRun {
    /// How it ended.
    pub status: SqlStatus,
    /// Where it ran.
    pub datasource: String,
    /// The SQL (or plan) as given.
    pub input: String,
    /// The plan it imported as.
    pub plan: Option<Plan>,
    /// The SQL the engine rendered from that plan (and ran, in the datasource's dialect).
    pub sql: Option<String>,
    /// The validator's checks.
    pub checks: Vec<ValidationCheck>,
    /// Why it was refused or failed, as callers may see it.
    pub errors: Vec<PipelineError>,
    /// What is worth knowing about the result.
    pub warnings: Vec<RunWarning>,
    /// Result columns.
    pub columns: Vec<String>,
    /// Result rows, up to the row cap.
    pub rows: Vec<Vec<Value>>,
    /// True when the row cap cut the result.
    pub truncated: bool,
}

impl SqlRun {
    /// This report as a caller across a trust boundary may see it ([`Clean`]).
    pub fn cleaned(self) -> SqlRun {
        Clean::cleaned(self, &Boundary::default())
    }

    /// Nothing could be planned: `e` says why.
    pub fn failed(datasource: &str, input: &str, e: PipelineError) -> SqlRun {
        SqlRun {
            status: SqlStatus::Error,
            datasource: datasource.to_string(),
            input: input.to_string(),
            plan: None,
            sql: None,
            checks: Vec::new(),
            errors: vec![e.for_client()],
            warnings: Vec::new(),
            columns: Vec::new(),
            rows: Vec::new(),
            truncated: false,
        }
    }

    /// `plan` went through [`run_plan`].
    pub fn ran(datasource: &str, input: &str, plan: Plan, run: PlanRun) -> SqlRun {
        let mut out = SqlRun::checked(datasource, input, plan, run.validation, run.errors);
        out.sql = run.sql;
        out.warnings = run.warnings;
        if let Some(frame) = run.frame {
            out.truncated = frame.truncated;
            out.columns = frame.columns;
            out.rows = frame.rows;
        }
        out
    }

    /// `plan` was validated (`validation`) and then `rendered` for another dialect than the
    /// datasource's, not run.
    pub fn rendered(
        datasource: &str,
        input: &str,
        plan: Plan,
        validation: Validation,
        rendered: Option<Result<String, PipelineError>>,
    ) -> SqlRun {
        let mut errors = validation.errors.clone();
        let warnings = validation.warnings.clone();
        let sql = match rendered {
            Some(Ok(sql)) => Some(sql),
            Some(Err(e)) => {
                errors.push(e);
                None
            }
            None => None,
        };
        let mut out = SqlRun::checked(datasource, input, plan, validation, errors);
        out.sql = sql;
        out.warnings = warnings;
        out
    }

    fn checked(
        datasource: &str,
        input: &str,
        plan: Plan,
        validation: Validation,
        errors: Vec<PipelineError>,
    ) -> SqlRun {
        let blocked = errors.iter().any(|e| e.severity.is_blocking());
        SqlRun {
            status: if blocked {
                SqlStatus::Error
            } else {
                SqlStatus::Ok
            },
            datasource: datasource.to_string(),
            input: input.to_string(),
            plan: Some(plan),
            sql: None,
            checks: validation.checks,
            errors: errors.iter().map(PipelineError::for_client).collect(),
            warnings: Vec::new(),
            columns: Vec::new(),
            rows: Vec::new(),
            truncated: false,
        }
    }
}

/// The rule of a cleaned [`crate::engine::QueryResult`]: errors and warnings cleaned, and
/// a failed policy check worded as the refusal, naming no table, role or rule. The SQL and
/// the plan are the caller's own and stay.
impl Clean for SqlRun {
    fn cleaned(self, boundary: &Boundary) -> SqlRun {
        let SqlRun {
            status,
            datasource,
            input,
            plan,
            sql,
            checks,
            errors,
            warnings,
            columns,
            rows,
            truncated,
        } = self;
        SqlRun {
            status,
            datasource,
            input,
            plan,
            sql,
            checks: checks.cleaned(boundary),
            errors: errors.cleaned(boundary),
            warnings: warnings.cleaned(boundary),
            columns,
            rows,
            truncated,
        }
    }
}
