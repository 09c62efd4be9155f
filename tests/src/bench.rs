//! The plan-path benchmark shared by the native bench (`benches/plan.rs`) and the browser
//! one (`tests/browser_bench.rs`): JSON parse, validate, lower and render each gold plan.

use crate::gold::{suite, GoldPlan, REFERENCE_SUITE};
use nl2sql_core::lower::to_sql;
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::validate::{validate, ValidatorSettings};
use nl2sql_core::SchemaSnapshot;

/// Each gold plan as the JSON a model would send: `(case id, plan JSON)`.
pub fn gold_plan_json() -> Vec<(String, String)> {
    suite(REFERENCE_SUITE)
        .cases
        .into_iter()
        .filter_map(|case| {
            let plan = case.parsed_plan()?;
            let json = serde_json::to_string(&plan).ok()?;
            Some((case.id, json))
        })
        .collect()
}

/// One full pass for one plan: what the engine does between a model's answer and the
/// database. Returns the SQL's length, 0 when the plan did not get through, so the work
/// cannot be optimised away and a broken plan is visible.
pub fn plan_to_sql(json: &str, schema: &SchemaSnapshot, policies: &Policies) -> usize {
    let Ok(plan) = Plan::from_json(json) else {
        return 0;
    };
    let scope = policies.scope(&[]);
    let settings = ValidatorSettings::default();
    if !validate(Some(&plan), schema, &scope, &settings).passed() {
        return 0;
    }
    to_sql(&plan, schema, schema.dialect, &settings.lower).map_or(0, |sql| sql.len())
}

/// p50 and p95 (nearest rank) of a set of durations.
pub fn percentiles(mut values: Vec<f64>) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let i = ((values.len() as f64 - 1.0) * q).round() as usize;
        values[i.min(values.len() - 1)]
    };
    (at(0.50), at(0.95))
}
