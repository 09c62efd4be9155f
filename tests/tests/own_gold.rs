//! Our own Chinook gold set (`tests/gold/chinook_sql.yaml`): every query imports as a plan,
//! validates, renders and returns the same rows as running its SQL directly.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_cli::SqliteFile;
use nl2sql_core::datasource::ExecLimits;
use nl2sql_core::import::import_sql;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::run_plan;
use nl2sql_core::validate::ValidatorSettings;
use nl2sql_core::Datasource;
use nl2sql_tests::compare::{compare, gold_of};
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Deserialize)]
struct Suite {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    tags: Vec<String>,
    order_matters: bool,
    sql: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_own_gold_query_imports_and_returns_the_rows_of_its_sql() {
    let text = std::fs::read_to_string(root().join("tests/gold/chinook_sql.yaml")).unwrap();
    let suite: Suite = serde_norway::from_str(&text).expect("the suite is valid YAML");
    assert!(suite.cases.len() >= 45, "{} cases", suite.cases.len());
    let db = SqliteFile::open("chinook", root().join("data/chinook.sqlite")).expect("opens");
    let schema = pollster::block_on(db.introspect()).expect("introspects");
    let policies = Policies::demo();
    let scope = policies.scope(&["admin".to_string()]);
    let settings = ValidatorSettings::default();
    let mut failures = Vec::new();
    for case in &suite.cases {
        let direct = pollster::block_on(db.execute(&case.sql, ExecLimits { max_rows: 100_000 }))
            .unwrap_or_else(|e| panic!("{}: the gold SQL fails: {e}", case.id));
        let plan = match import_sql(&case.sql, &schema, schema.dialect) {
            Ok(plan) => plan,
            Err(e) => {
                failures.push(format!(
                    "{} ({}): import: {e}",
                    case.id,
                    case.tags.join(",")
                ));
                continue;
            }
        };
        let run = pollster::block_on(run_plan(&plan, &db, &schema, &scope, &settings));
        let sql = run.sql.clone().unwrap_or_default();
        let Some(frame) = run.frame.as_ref().filter(|_| run.succeeded()) else {
            failures.push(format!("{}: {:?}\n  plan: {plan}", case.id, run.errors));
            continue;
        };
        let want: Vec<Vec<_>> = direct
            .rows
            .iter()
            .map(|r| r.iter().map(gold_of).collect())
            .collect();
        if let Err(why) = compare(&frame.rows, &want, case.order_matters) {
            failures.push(format!("{}: {why}\n  ours: {sql}", case.id));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        suite.cases.len(),
        failures.join("\n")
    );
}
