//! The reference engine's 43 Chinook gold plans (`data/chinook.yaml`): they parse unchanged,
//! survive the JSON round trip, and run for every role on rusqlite (the browser runs them on
//! sql.js in `browser_gold.rs`).
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::plan::Plan;
use nl2sql_tests::gold::{run_own_suite, run_reference_suite, suite, GoldPlan, REFERENCE_SUITE};
use nl2sql_tests::native::chinook;

#[test]
fn every_gold_plan_parses_and_round_trips() {
    let cases = suite(REFERENCE_SUITE).cases;
    assert_eq!(cases.len(), 47);
    let mut parsed = 0;
    for case in cases {
        let Some(plan) = case.parsed_plan() else {
            continue;
        };
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
    let case = suite(REFERENCE_SUITE)
        .cases
        .into_iter()
        .find(|c| c.id == "chinook_001")
        .expect("chinook_001 exists");
    assert_eq!(
        case.parsed_plan().expect("it has a plan").to_string(),
        "SELECT t1.Country AS country, COUNT(t1.CustomerId) AS customer_count \
         FROM Customer t1 GROUP BY t1.Country ORDER BY COUNT(t1.CustomerId) DESC, t1.Country"
    );
}

#[test]
fn every_gold_plan_gives_the_gold_outcome_for_every_role() {
    let outcome = pollster::block_on(run_reference_suite(&chinook()));
    outcome.assert_passed();
    assert_eq!(outcome.runs, 129, "43 plans × 3 roles");
}

#[test]
fn every_own_gold_query_imports_and_returns_the_rows_of_its_sql() {
    let outcome = pollster::block_on(run_own_suite(&chinook()));
    outcome.assert_passed();
    assert!(outcome.runs >= 45, "{} cases", outcome.runs);
}

/// The model's schema admits every gold plan and every plan the importer makes of our own
/// gold SQL, each in its full form (the keys the compact form leaves out put back).
#[test]
fn the_models_schema_admits_every_gold_plan_and_every_imported_plan() {
    use nl2sql_core::adapter::Metadata;
    use nl2sql_core::import::import_sql;
    use nl2sql_tests::gold::OWN_SUITE;
    use nl2sql_tests::schema_check::{admits, completed};

    let schema = nl2sql_plan::plan_json_schema();
    let mut plans: Vec<(String, Plan)> = suite(REFERENCE_SUITE)
        .cases
        .iter()
        .filter_map(|c| c.parsed_plan().map(|p| (c.id.clone(), p)))
        .collect();
    let db = chinook();
    let snapshot = pollster::block_on(db.introspect()).expect("Chinook introspects");
    for case in suite(OWN_SUITE).cases {
        let sql = case.sql.as_deref().expect("every own case has SQL");
        let plan = import_sql(sql, &snapshot, snapshot.dialect)
            .unwrap_or_else(|e| panic!("{}: {e:?}", case.id));
        plans.push((case.id.clone(), plan));
    }
    assert!(plans.len() >= 43 + 45, "{} plans", plans.len());
    // The check can fail: a key the schema does not have is refused.
    let mut stray = completed(
        &schema,
        &serde_json::to_value(&plans[0].1).expect("serializes"),
    );
    stray["stray"] = serde_json::json!(1);
    assert!(admits(&schema, &schema, &stray).is_err());
    for (id, plan) in plans {
        let json = serde_json::to_value(&plan).expect("a plan serializes");
        let full = completed(&schema, &json);
        if let Err(why) = admits(&schema, &schema, &full) {
            panic!("{id}: the schema refuses the plan: {why}\n{full}");
        }
        // And the full form reads back as the same plan.
        let back = Plan::from_json(&full.to_string()).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(back, plan, "{id}");
    }
}
