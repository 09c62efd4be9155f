//! The reference engine's 43 Chinook gold plans (`data/chinook.yaml`) parse unchanged into
//! the typed plan, and survive the JSON round trip.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::plan::Plan;
use serde::Deserialize;
use std::path::PathBuf;

/// Just the parts of the suite format this test reads.
#[derive(Deserialize)]
struct Suite {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    plan: Option<serde_norway::Value>,
}

fn gold_cases() -> Vec<Case> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/chinook.yaml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask data`)", path.display()));
    let suite: Suite = serde_norway::from_str(&text).expect("the suite is valid YAML");
    suite.cases
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
        assert!(!plan.tables.is_empty(), "{}", case.id);
        assert!(!plan.select_items.is_empty(), "{}", case.id);
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
