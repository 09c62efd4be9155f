//! The reference Chinook suite through the whole pipeline (`Engine::ask`) over real HTTP:
//! the mock provider serves each case's gold plan as the planner's answer and a verdict as
//! the answerability check's, so what is tested is everything else — routing by explicit
//! datasource, retrieval, prompts, the wire, parsing, validation, policy, SQL, execution and
//! the answer — on any datasource (rusqlite natively, sql.js in the browser).

use crate::gold::{suite, Outcome, REFERENCE_SUITE};
use nl2sql_core::engine::{Engine, Hooks, Question};
use nl2sql_core::error::Node;

/// One canned model answer: the structured output's name, the question, the answer.
pub type Canned = (String, String, String);

/// The answers the mock needs for the reference suite: every case's verdict (Chinook, or
/// none for the unanswerable ones) and every gold plan, as JSON.
pub fn reference_fixtures() -> Vec<Canned> {
    nl2sql_suite::gold_plan_fixtures(&suite(REFERENCE_SUITE).cases)
        .unwrap_or_else(|e| panic!("the reference suite's fixtures: {e}"))
}

/// Asks every case for every role and scores the outcome as the reference does: rows that
/// match the gold rows, the refusal, or QUESTION_NOT_ANSWERABLE with no planner call.
pub async fn run_reference_pipeline(engine: &Engine<'_>) -> Outcome {
    let mut out = Outcome {
        failures: vec![],
        runs: 0,
    };
    for case in suite(REFERENCE_SUITE).cases {
        let want = case.gold_rows();
        for (role, expected) in &case.outcome {
            out.runs += 1;
            let asked = Question::new(case.question.as_str())
                .on("chinook")
                .as_roles([role.as_str()]);
            let r = engine.ask(&asked, Hooks::default()).await;
            let scored = nl2sql_suite::score(&case, expected, &want, &r);
            let sql = r
                .sub_queries
                .first()
                .and_then(|q| q.sql.clone())
                .unwrap_or_default();
            // Beyond the reference's scoring: an unanswerable question ends with no
            // planner call and no written answer.
            let planner_calls = r
                .trace
                .iter()
                .filter(|n| n.node() == Node::AstPlanner)
                .flat_map(|n| &n.llm_calls)
                .count();
            let failure = match scored.why {
                Some(why) => Some(format!("{why}\n  {sql}")),
                None if expected == "unanswerable"
                    && (planner_calls > 0 || r.final_answer.is_some()) =>
                {
                    Some(format!(
                        "{planner_calls} planner calls, answer {:?}",
                        r.final_answer
                    ))
                }
                None => None,
            };
            if let Some(f) = failure {
                out.failures.push(format!("{} {role}: {f}", case.id));
            }
        }
    }
    out
}

/// The cross-database question of the pipeline tests: support tickets and Chinook spend.
pub const CROSS_QUESTION: &str =
    "Which customers have an open support ticket, and how much have they spent?";

/// The answers the mock needs for [`CROSS_QUESTION`]: a verdict that needs both
/// datasources together, the decomposition (a join on the customer's email, ordered by the
/// spend), and each part's plan.
pub fn cross_fixtures() -> Vec<Canned> {
    let col = |alias: &str, name: &str| serde_json::json!({"kind": "column", "alias": alias, "column_name": name});
    let eq = |l: serde_json::Value, r: serde_json::Value| serde_json::json!({"kind": "binary", "op": "=", "left": l, "right": r});
    let open = serde_json::json!({
        "distinct": true,
        "tables": [{"name": "tickets", "alias": "t"}, {"name": "customers", "alias": "c"}],
        "joins": [{"left_alias": "t", "right_alias": "c", "condition": eq(col("t", "customer_id"), col("c", "customer_id"))}],
        "select_items": [
            {"expr": col("c", "customer_email"), "alias": "email"},
            {"expr": col("c", "first_name"), "alias": "first_name"},
            {"expr": col("c", "last_name"), "alias": "last_name"}
        ],
        "where": eq(col("t", "status"), serde_json::json!({"kind": "literal", "value": "open"}))
    });
    let spend = serde_json::json!({
        "tables": [{"name": "Customer", "alias": "c"}, {"name": "Invoice", "alias": "i"}],
        "joins": [{"left_alias": "c", "right_alias": "i", "condition": eq(col("c", "CustomerId"), col("i", "CustomerId"))}],
        "select_items": [
            {"expr": col("c", "Email"), "alias": "email"},
            {"expr": {"kind": "func", "func_name": "ROUND", "args": [
                {"kind": "func", "func_name": "SUM", "is_aggregate": true, "args": [col("i", "Total")]},
                {"kind": "literal", "value": 2}]}, "alias": "total_spent"}
        ],
        "group_by": [{"expr": col("c", "Email")}]
    });
    let decomposition = serde_json::json!({
        "sub_queries": [
            {"id": "q1", "datasource": "support", "question": "Which customers (email, first and last name) have a ticket whose status is open?",
             "columns": ["email", "first_name", "last_name"], "key": "email"},
            {"id": "q2", "datasource": "chinook", "question": "What is the total amount each customer (by email) has spent on invoices?",
             "columns": ["email", "total_spent"], "key": "email"}
        ],
        "combine": "join",
        "order_by": [{"column": "total_spent", "descending": true}],
        "limit": null
    });
    let part = |i: usize| {
        decomposition["sub_queries"][i]["question"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    vec![
        (
            "answerability".into(),
            CROSS_QUESTION.into(),
            r#"{"datasources": ["chinook", "support"], "combine": true, "reason": "Tickets are in support, spend in chinook."}"#.into(),
        ),
        ("decomposition".into(), CROSS_QUESTION.into(), decomposition.to_string()),
        ("plan".into(), part(0), open.to_string()),
        ("plan".into(), part(1), spend.to_string()),
    ]
}

/// A plan's column reference, as JSON.
pub fn col(alias: &str, name: &str) -> serde_json::Value {
    serde_json::json!({"kind": "column", "alias": alias, "column_name": name})
}

/// `COUNT(*)`, as JSON.
pub fn count_all() -> serde_json::Value {
    serde_json::json!({"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "column_name": "*"}]})
}

/// The answers that route `question` to Chinook and plan it as `plan`, matched as the
/// current question ("Question: …"), so that a follow-up's earlier turns in the prompt never
/// answer for it.
#[cfg(not(target_arch = "wasm32"))]
pub fn on_chinook(question: &str, plan: &serde_json::Value) -> [crate::mock::Fixture; 2] {
    let asked = format!("Question: {question}");
    [
        crate::mock::Fixture::new(
            "answerability",
            &asked,
            r#"{"datasources": ["chinook"], "combine": false, "reason": "It is in the music store."}"#,
        ),
        crate::mock::Fixture::new("plan", &asked, &plan.to_string()),
    ]
}

/// The model's judgement that `question` continues its thread (`continues`) or starts fresh,
/// with `reason`; matched as the new question of the continuation check.
#[cfg(not(target_arch = "wasm32"))]
pub fn judged(question: &str, continues: bool, reason: &str) -> crate::mock::Fixture {
    crate::mock::Fixture::new(
        "continuation",
        &format!("New question: {question}"),
        &serde_json::json!({"continues": continues, "reason": reason}).to_string(),
    )
}

/// Invoices per billing country, and the same for 2012 alone (a follow-up's edit).
pub fn invoices_by_country() -> (serde_json::Value, serde_json::Value) {
    let by_country = serde_json::json!({
        "tables": [{"name": "Invoice", "alias": "i"}],
        "select_items": [{"expr": col("i", "BillingCountry"), "alias": "country"}, {"expr": count_all(), "alias": "invoices"}],
        "group_by": [{"expr": col("i", "BillingCountry")}]
    });
    let mut in_2012 = by_country.clone();
    in_2012["where"] = serde_json::json!({"kind": "binary", "op": "=",
        "left": {"kind": "func", "func_name": "YEAR", "args": [col("i", "InvoiceDate")]},
        "right": {"kind": "literal", "value": 2012}});
    (by_country, in_2012)
}
