//! The reference engine's 43 Chinook gold plans (`data/chinook.yaml`): they parse unchanged,
//! survive the JSON round trip, and run for every role: each `allowed` case returns the gold
//! rows, each `refused` case is a SECURITY_VIOLATION with the generic refusal and no rows.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_cli::SqliteFile;
use nl2sql_core::error::ErrorCode;
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::run_plan;
use nl2sql_core::validate::{ValidatorSettings, REFUSAL_MESSAGE};
use nl2sql_core::Datasource;
use nl2sql_tests::compare::{compare, Gold};
use serde::Deserialize;
use serde_norway::Value as Yaml;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Just the parts of the suite format this test reads.
#[derive(Deserialize)]
struct Suite {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    plan: Option<Yaml>,
    #[serde(default)]
    outcome: BTreeMap<String, String>,
    #[serde(default)]
    order_matters: bool,
    #[serde(default)]
    rows: Option<Vec<Yaml>>,
}

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

fn gold_cases() -> Vec<Case> {
    let path = data_dir().join("chinook.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask data`)", path.display()));
    let suite: Suite = serde_norway::from_str(&text).expect("the suite is valid YAML");
    suite.cases
}

fn gold_cell(v: &Yaml) -> Gold {
    match v {
        Yaml::Null => Gold::Null,
        Yaml::Bool(b) => Gold::Bool(*b),
        Yaml::Number(n) => Gold::Number(n.as_f64().unwrap_or(f64::NAN)),
        Yaml::String(s) => Gold::Text(s.clone()),
        other => Gold::Text(format!("{other:?}")),
    }
}

fn gold_rows(rows: &[Yaml]) -> Vec<Vec<Gold>> {
    rows.iter()
        .map(|r| match r {
            Yaml::Mapping(m) => m.values().map(gold_cell).collect(),
            other => panic!("a gold row is a mapping, not {other:?}"),
        })
        .collect()
}

#[test]
fn every_gold_plan_parses_and_round_trips() {
    let cases = gold_cases();
    assert_eq!(cases.len(), 47);
    let mut parsed = 0;
    for case in cases {
        let Some(raw) = case.plan else { continue };
        let plan: Plan = serde_norway::from_value(raw)
            .unwrap_or_else(|e| panic!("{}: the gold plan does not parse: {e}", case.id));
        let json = serde_json::to_string(&plan).unwrap();
        let back: Plan = serde_json::from_str(&json).unwrap();
        assert_eq!(
            back, plan,
            "{}: the JSON round trip changed the plan",
            case.id
        );
        parsed += 1;
    }
    assert_eq!(parsed, 43, "the suite has 43 gold plans");
}

#[test]
fn a_gold_plan_reads_as_expected() {
    let case = gold_cases()
        .into_iter()
        .find(|c| c.id == "chinook_001")
        .expect("chinook_001 exists");
    let plan: Plan = serde_norway::from_value(case.plan.expect("it has a plan")).unwrap();
    assert_eq!(
        plan.to_string(),
        "SELECT t1.Country AS country, COUNT(t1.CustomerId) AS customer_count \
         FROM Customer t1 GROUP BY t1.Country ORDER BY COUNT(t1.CustomerId) DESC, t1.Country"
    );
}

#[test]
fn every_gold_plan_gives_the_gold_outcome_for_every_role() {
    let db = SqliteFile::open("chinook", data_dir().join("chinook.sqlite")).expect("chinook opens");
    let schema = pollster::block_on(db.introspect()).expect("chinook introspects");
    // As the reference's evals: refusals never name what they refused.
    let policies = Policies {
        refusal_names_tables: false,
        ..Policies::demo()
    };
    let settings = ValidatorSettings::default();
    let mut failures = Vec::new();
    let (mut allowed, mut refused) = (0, 0);
    for case in gold_cases() {
        let Some(raw) = case.plan else { continue };
        let plan: Plan = serde_norway::from_value(raw).expect("parses");
        let want = gold_rows(case.rows.as_deref().unwrap_or_default());
        for (role, outcome) in &case.outcome {
            let scope = policies.scope(std::slice::from_ref(role));
            let run = pollster::block_on(run_plan(&plan, &db, &schema, &scope, &settings));
            let sql = run.sql.clone().unwrap_or_default();
            match outcome.as_str() {
                "allowed" => {
                    allowed += 1;
                    match &run.frame {
                        Some(frame) if run.succeeded() => {
                            if let Err(why) = compare(&frame.rows, &want, case.order_matters) {
                                failures.push(format!("{} {role}: {why}\n  {sql}", case.id));
                            }
                        }
                        _ => {
                            failures.push(format!("{} {role}: {:?}\n  {sql}", case.id, run.errors))
                        }
                    }
                }
                "refused" => {
                    refused += 1;
                    let violations: Vec<_> = run
                        .errors
                        .iter()
                        .filter(|e| e.error_code == ErrorCode::SecurityViolation)
                        .collect();
                    let ok = run.frame.is_none()
                        && !violations.is_empty()
                        && violations.iter().all(|e| e.message == REFUSAL_MESSAGE);
                    if !ok {
                        failures.push(format!("{} {role}: not refused: {:?}", case.id, run.errors));
                    }
                }
                other => failures.push(format!("{} {role}: unknown outcome {other}", case.id)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(allowed + refused, 129, "43 plans × 3 roles");
    assert!(refused > 0 && allowed > 0);
}
