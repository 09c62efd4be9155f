//! The logical validator: checks a plan against the schema and the caller's role before any
//! SQL exists.
//!
//! Three named checks, always reported in this order: `plan_present`, `structure_and_schema`
//! and `policy`. The policy check always runs, whatever the static checks found, and its
//! errors come first. The last static check lowers the plan exactly as the generator will
//! (see [`crate::lower`]), so a plan that passes here always renders. Nothing here can
//! panic: every lookup is checked and every walk is bounded by the plan's nesting cap.

mod names;
mod recursive;
mod rules;
mod similar;

use crate::lower::{lower, LowerOptions};
use crate::policy::Scope;
use crate::schema::{SchemaSnapshot, TypeCategory};
use crate::walk;
use crate::Plan;
use nl2sql_error::{ErrorCode, Node, PipelineError, RunWarning, Severity};
use serde::{Deserialize, Serialize};

pub use nl2sql_error::REFUSAL_MESSAGE;

/// Which joins pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JoinRule {
    /// Declared foreign keys, and equalities between columns of the same kind (with an
    /// UNDECLARED_JOIN warning).
    #[default]
    Typed,
    /// Declared foreign keys only.
    FkOnly,
}

/// The validator's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidatorSettings {
    /// A column that does not resolve is an error (true) or a warning (false).
    pub strict_columns: bool,
    /// Which joins pass.
    pub joins: JoinRule,
    /// Row cap and pinned date, for the buildability check.
    pub lower: LowerOptions,
    /// Each query's time limit (`None`: none). Not a validation matter: it travels with the
    /// row cap to every path that runs what it validated.
    pub query_timeout_ms: Option<u64>,
}

/// A query's default time limit: 10 s.
pub const QUERY_TIMEOUT_MS: u64 = 10_000;

impl Default for ValidatorSettings {
    fn default() -> Self {
        ValidatorSettings {
            strict_columns: true,
            joins: JoinRule::Typed,
            lower: LowerOptions::default(),
            query_timeout_ms: Some(QUERY_TIMEOUT_MS),
        }
    }
}

/// The validator's checks, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CheckName {
    /// A plan reached the validator.
    PlanPresent,
    /// The plan's shape, names and types fit the schema.
    StructureAndSchema,
    /// The caller's role may read everything the plan reads.
    Policy,
}

impl CheckName {
    /// The published name (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            CheckName::PlanPresent => "plan_present",
            CheckName::StructureAndSchema => "structure_and_schema",
            CheckName::Policy => "policy",
        }
    }

    /// The check as a person reads it.
    pub fn label(self) -> &'static str {
        match self {
            CheckName::PlanPresent => "plan present",
            CheckName::StructureAndSchema => "structure and schema",
            CheckName::Policy => "policy",
        }
    }
}

/// One named check and how it went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ValidationCheck {
    /// Which check.
    pub name: CheckName,
    /// Whether it passed.
    pub passed: bool,
    /// On failure, the first error's message; empty on success.
    pub message: String,
}

/// A failed policy check says only that the data is not the caller's to see, whatever
/// the policy's `refusal_names_tables`.
impl nl2sql_error::Clean for ValidationCheck {
    fn cleaned(self, _: &nl2sql_error::Boundary) -> ValidationCheck {
        let ValidationCheck {
            name,
            passed,
            message,
        } = self;
        let message = if name == CheckName::Policy && !passed {
            REFUSAL_MESSAGE.to_string()
        } else {
            message
        };
        ValidationCheck {
            name,
            passed,
            message,
        }
    }
}

/// What the validator found.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Validation {
    /// The named checks, in their fixed order.
    pub checks: Vec<ValidationCheck>,
    /// Policy errors first, then the static ones.
    pub errors: Vec<PipelineError>,
    /// Findings that do not block the plan.
    pub warnings: Vec<RunWarning>,
}

impl Validation {
    /// True when nothing blocks the plan.
    pub fn passed(&self) -> bool {
        !self.errors.iter().any(|e| e.severity.is_blocking())
    }
}

/// Errors and warnings as the static checks find them.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    errors: Vec<PipelineError>,
    warnings: Vec<RunWarning>,
    strict_columns: bool,
}

impl Findings {
    fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        let message = message.into();
        if !self.errors.iter().any(|e| e.message == message) {
            self.errors.push(PipelineError::new(
                Node::LogicalValidator,
                code,
                Severity::Error,
                message,
            ));
        }
    }

    fn invalid(&mut self, message: impl Into<String>) {
        self.error(ErrorCode::InvalidPlanStructure, message);
    }

    fn warn(&mut self, code: ErrorCode, message: impl Into<String>) {
        let message = message.into();
        if !self.warnings.iter().any(|w| w.message == message) {
            self.warnings
                .push(RunWarning::new(Node::LogicalValidator, code, message));
        }
    }

    fn column(&mut self, message: String) {
        if self.strict_columns {
            self.error(ErrorCode::ColumnNotFound, message);
        } else {
            self.warn(ErrorCode::ColumnNotFound, message);
        }
    }
}

/// A result column declared before the plan was written: a decomposed part's join key,
/// which the aggregator matches with the other parts' keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredKey<'a> {
    /// Its name among the part's columns.
    pub name: &'a str,
    /// Its position in the result.
    pub position: usize,
    /// What it must hold.
    pub category: TypeCategory,
}

/// Validates `plan` (`None`: the planner produced none) against `schema` for the caller
/// whose `scope` is given.
pub fn validate(
    plan: Option<&Plan>,
    schema: &SchemaSnapshot,
    scope: &Scope<'_>,
    settings: &ValidatorSettings,
) -> Validation {
    validate_part(plan, schema, scope, settings, None)
}

/// [`validate`], and for a decomposed part the column its `key` declares: a plain column
/// of a kind that can never convert to the declared one (a date declared a number, a
/// number declared a date) is JOIN_KEY_TYPE_MISMATCH, caught before anything runs.
pub fn validate_part(
    plan: Option<&Plan>,
    schema: &SchemaSnapshot,
    scope: &Scope<'_>,
    settings: &ValidatorSettings,
    key: Option<DeclaredKey<'_>>,
) -> Validation {
    let check = |name: CheckName, errors: &[PipelineError]| ValidationCheck {
        name,
        passed: errors.is_empty(),
        message: errors
            .first()
            .map(|e| e.message.clone())
            .unwrap_or_default(),
    };
    let Some(plan) = plan else {
        let error = PipelineError::new(
            Node::LogicalValidator,
            ErrorCode::MissingPlan,
            Severity::Critical,
            "No plan reached the validator.",
        );
        return Validation {
            checks: vec![check(CheckName::PlanPresent, std::slice::from_ref(&error))],
            errors: vec![error],
            warnings: vec![],
        };
    };

    let mut findings = Findings {
        strict_columns: settings.strict_columns,
        ..Findings::default()
    };
    let readable = |table: &str| scope.can_read(&schema.datasource_id, table);
    static_checks(plan, schema, settings, key, &readable, &mut findings);
    let policy_errors = policy(plan, schema, scope);

    let mut checks = vec![check(CheckName::PlanPresent, &[])];
    if policy_errors.is_empty() {
        let blocking: Vec<PipelineError> = findings
            .errors
            .iter()
            .filter(|e| e.severity.is_blocking())
            .cloned()
            .collect();
        checks.push(check(CheckName::StructureAndSchema, &blocking));
    } else {
        // What the static checks found about a table the role may not read (a column's
        // existence, its type, a key) is itself data about that table: none of it is told.
        findings.errors.clear();
        findings.warnings.clear();
        checks.push(ValidationCheck {
            name: CheckName::StructureAndSchema,
            passed: false,
            message: "Not reported: the plan reads a table the role may not read.".to_string(),
        });
    }
    checks.push(check(CheckName::Policy, &policy_errors));
    let mut errors = policy_errors;
    errors.extend(findings.errors);
    Validation {
        checks,
        errors,
        warnings: findings.warnings,
    }
}

fn static_checks(
    plan: &Plan,
    schema: &SchemaSnapshot,
    settings: &ValidatorSettings,
    key: Option<DeclaredKey<'_>>,
    readable: &dyn Fn(&str) -> bool,
    out: &mut Findings,
) {
    // Measured before anything else recurses through the plan (plans from code or imported
    // SQL are not capped by the JSON parser).
    if walk::nesting(plan, crate::json::MAX_DEPTH) > crate::json::MAX_DEPTH {
        out.invalid(format!(
            "The plan nests more than {} levels deep; write it flatter (an IN list instead \
             of a chain of ORs, a CTE for a sub-result).",
            crate::json::MAX_DEPTH
        ));
        return;
    }
    rules::shape(plan, out);
    recursive::check(plan, out);
    rules::functions(plan, out);
    if rules::operators(plan, out) {
        return;
    }
    rules::calls(plan, out);
    let outputs = names::resolve(plan, schema, settings.joins, readable, out);
    if let Some(key) = key {
        names::declared_key(plan, &outputs, key, out);
    }
    rules::placement(plan, out);
    if out.errors.iter().any(|e| e.severity.is_blocking()) {
        // Buildability runs last and only on an otherwise clean plan, so every earlier
        // problem keeps its own code and wording.
        return;
    }
    if let Err(e) = lower(plan, schema, schema.dialect, &settings.lower) {
        out.invalid(format!(
            "{}\n{}",
            e.message,
            describe_tables(plan, schema, readable)
        ));
    }
}

/// The plan's tables and the foreign keys declared between them (readable ones only), in
/// the plan's aliases: what a planner needs to repair a join it got wrong.
pub fn describe_tables(
    plan: &Plan,
    schema: &SchemaSnapshot,
    readable: &dyn Fn(&str) -> bool,
) -> String {
    let tables: Vec<String> = plan
        .tables
        .iter()
        .map(|t| format!("{} = {}", t.alias, t.name))
        .collect();
    let mut fks = Vec::new();
    for a in &plan.tables {
        let Some(from) = schema.table(&a.name).filter(|t| readable(&t.name)) else {
            continue;
        };
        for b in &plan.tables {
            if a.alias == b.alias {
                continue;
            }
            let Some(to) = schema.table(&b.name).filter(|t| readable(&t.name)) else {
                continue;
            };
            for fk in &from.foreign_keys {
                if fk.referenced_table.eq_ignore_ascii_case(&to.name) {
                    for (c, r) in fk.columns.iter().zip(&fk.referenced_columns) {
                        fks.push(format!(
                            "{} ({}).{c} = {} ({}).{r}",
                            a.alias, from.name, b.alias, to.name
                        ));
                    }
                }
            }
        }
    }
    let fks = if fks.is_empty() {
        "none".to_string()
    } else {
        fks.join("; ")
    };
    format!(
        "Plan tables: {}.\nForeign keys between them: {fks}.",
        tables.join(", ")
    )
}

/// One CRITICAL SECURITY_VIOLATION per table the caller may not read. Reads only the plan's
/// table names and the policy, never the model's reasoning.
fn policy(plan: &Plan, schema: &SchemaSnapshot, scope: &Scope<'_>) -> Vec<PipelineError> {
    let datasource = schema.datasource_id.as_str();
    let mut tables: Vec<&str> = Vec::new();
    walk::each_plan(plan, &mut |p| {
        tables.extend(p.tables.iter().map(|t| t.name.as_str()));
    });
    let mut denied: Vec<String> = Vec::new();
    for name in tables {
        // Every name that is a table is asked about, even one a CTE shadows. A name that is
        // no table is TABLE_NOT_FOUND's (or a CTE): the generator never writes an unknown
        // name into SQL, so there is nothing to read.
        let Some(name) = schema.table(name).map(|t| t.name.as_str()) else {
            continue;
        };
        if scope.can_read(datasource, name) || denied.iter().any(|d| d.eq_ignore_ascii_case(name)) {
            continue;
        }
        denied.push(name.to_string());
    }
    denied
        .into_iter()
        .map(|table| {
            let roles = scope.roles().join(", ");
            let message = if scope.refusal_names_tables() {
                let who = if roles.is_empty() {
                    "A caller with no role".to_string()
                } else {
                    format!("Role {roles}")
                };
                format!("{who} may not read {datasource}.{table}.")
            } else {
                REFUSAL_MESSAGE.to_string()
            };
            PipelineError::new(
                Node::LogicalValidator,
                ErrorCode::SecurityViolation,
                Severity::Critical,
                message,
            )
            .with_details(serde_json::json!({
                "datasource_id": datasource,
                "table": table,
                "roles": scope.roles(),
                "rule": scope.rule_for(datasource, &table),
            }))
        })
        .collect()
}

#[cfg(test)]
mod tests;
