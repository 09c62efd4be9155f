//! The gold suites, read the same way by the native tests, the browser tests and the
//! benchmarks: the reference engine's `data/chinook.yaml` (plans and rows per role) and our
//! own `tests/gold/chinook_sql.yaml` (questions with SQL).

use crate::compare::Gold;
use nl2sql_core::Metadata;

/// The reference suite's text, compiled in so the browser needs no file access.
pub const REFERENCE_SUITE: &str = include_str!("../../data/chinook.yaml");
/// Our own suite's text.
pub const OWN_SUITE: &str = include_str!("../gold/chinook_sql.yaml");

pub use nl2sql_suite::{Case, Suite};

/// Parses a suite; the suites are ours or pinned by checksum, so a failure is a bug.
pub fn suite(text: &str) -> Suite {
    Suite::parse(text).unwrap_or_else(|e| panic!("a gold suite: {e}"))
}

/// A case's gold plan for the tests: a plan that does not parse is a bug in the suite.
pub trait GoldPlan {
    /// The gold plan, parsed, when the case has one.
    fn parsed_plan(&self) -> Option<nl2sql_core::plan::Plan>;
}

impl GoldPlan for Case {
    fn parsed_plan(&self) -> Option<nl2sql_core::plan::Plan> {
        self.gold_plan().unwrap_or_else(|e| panic!("{e}"))
    }
}

/// What running a suite found: failures (empty when all passed) and how many runs there were.
pub struct Outcome {
    /// One line per failed case and role.
    pub failures: Vec<String>,
    /// Runs that were allowed and returned the gold rows, or were to be refused and were.
    pub runs: usize,
}

impl Outcome {
    /// Panics with every failure, one per line, unless all passed.
    pub fn assert_passed(&self) {
        assert!(
            self.failures.is_empty(),
            "{} of {} runs failed:\n{}",
            self.failures.len(),
            self.runs,
            self.failures.join("\n")
        );
    }
}

/// Runs every reference gold plan for every role in its `outcome` on `db` (Chinook): an
/// `allowed` case must return the gold rows, a `refused` one must be a SECURITY_VIOLATION
/// with the generic refusal and no rows. Refusals name nothing, as in the reference's evals.
pub async fn run_reference_suite(db: &dyn nl2sql_core::Datasource) -> Outcome {
    use nl2sql_core::error::ErrorCode;
    use nl2sql_core::policy::Policies;
    use nl2sql_core::run::run_plan;
    use nl2sql_core::validate::{ValidatorSettings, REFUSAL_MESSAGE};

    let schema = match db.introspect().await {
        Ok(s) => s,
        Err(e) => panic!("Chinook introspects: {e}"),
    };
    let policies = Policies {
        refusal_names_tables: false,
        ..Policies::demo()
    };
    let settings = ValidatorSettings::default();
    let mut out = Outcome {
        failures: vec![],
        runs: 0,
    };
    for case in suite(REFERENCE_SUITE).cases {
        let Some(plan) = case.parsed_plan() else {
            continue;
        };
        let want = case.gold_rows();
        for (role, outcome) in &case.outcome {
            out.runs += 1;
            let scope = policies.scope(std::slice::from_ref(role));
            let run = run_plan(&plan, db, &schema, &scope, &settings).await;
            let sql = run.sql.clone().unwrap_or_default();
            let failure = match outcome.as_str() {
                "allowed" => match &run.frame {
                    Some(frame) if run.succeeded() => {
                        crate::compare::compare(&frame.rows, &want, case.order_matters)
                            .err()
                            .map(|why| format!("{why}\n  {sql}"))
                    }
                    _ => Some(format!("{:?}\n  {sql}", run.errors)),
                },
                "refused" => {
                    let violations: Vec<_> = run
                        .errors
                        .iter()
                        .filter(|e| e.error_code == ErrorCode::SecurityViolation)
                        .collect();
                    let refused = run.frame.is_none()
                        && !violations.is_empty()
                        && violations.iter().all(|e| e.message == REFUSAL_MESSAGE);
                    (!refused).then(|| format!("not refused: {:?}", run.errors))
                }
                other => Some(format!("unknown outcome {other}")),
            };
            if let Some(f) = failure {
                out.failures.push(format!("{} {role}: {f}", case.id));
            }
        }
    }
    out
}

/// Runs every query of our own suite on `db` (Chinook) twice: directly, and imported as a
/// plan through the validator and the generator. Both must return the same rows.
pub async fn run_own_suite(db: &dyn nl2sql_core::Datasource) -> Outcome {
    run_own_suite_against(db, db).await
}

/// Runs every query of our own suite (SQLite SQL) on `reference` (SQLite's Chinook) as
/// written, and imported as a plan, checked against `db`'s schema and rendered for `db`'s
/// engine, on `db` (Chinook on any engine): both must return the same rows.
pub async fn run_own_suite_against(
    db: &dyn nl2sql_core::Datasource,
    reference: &dyn nl2sql_core::Datasource,
) -> Outcome {
    use nl2sql_core::datasource::ExecLimits;
    use nl2sql_core::import::import_sql;
    use nl2sql_core::policy::Policies;
    use nl2sql_core::run::run_plan;
    use nl2sql_core::validate::ValidatorSettings;

    let schema = match db.introspect().await {
        Ok(s) => s,
        Err(e) => panic!("Chinook introspects: {e}"),
    };
    let policies = Policies::demo();
    let scope = policies.scope(&["admin".to_string()]);
    let settings = ValidatorSettings::default();
    let mut out = Outcome {
        failures: vec![],
        runs: 0,
    };
    for case in suite(OWN_SUITE).cases {
        let Some(sql) = case.sql.as_deref() else {
            out.failures.push(format!("{}: no sql", case.id));
            continue;
        };
        out.runs += 1;
        let direct = match reference.execute(sql, ExecLimits::rows(100_000)).await {
            Ok(frame) => frame,
            Err(e) => {
                out.failures
                    .push(format!("{}: the gold SQL fails: {e}", case.id));
                continue;
            }
        };
        let plan = match import_sql(sql, &schema, reference.dialect()) {
            Ok(plan) => plan,
            Err(e) => {
                out.failures.push(format!(
                    "{} ({}): import: {e}",
                    case.id,
                    case.tags.join(",")
                ));
                continue;
            }
        };
        let run = run_plan(&plan, db, &schema, &scope, &settings).await;
        let ours = run.sql.clone().unwrap_or_default();
        let Some(frame) = run.frame.as_ref().filter(|_| run.succeeded()) else {
            out.failures
                .push(format!("{}: {:?}\n  plan: {plan}", case.id, run.errors));
            continue;
        };
        let want: Vec<Vec<Gold>> = direct
            .rows
            .iter()
            .map(|r| r.iter().map(crate::compare::gold_of).collect())
            .collect();
        if let Err(why) = crate::compare::compare(&frame.rows, &want, case.order_matters) {
            out.failures
                .push(format!("{}: {why}\n  ours: {ours}", case.id));
        }
    }
    out
}
