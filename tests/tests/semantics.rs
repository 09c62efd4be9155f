//! The SQL means what the plan means: constructs whose naive rendering would change an
//! answer, run on Chinook and compared with SQL written by hand.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::datasource::ExecLimits;
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::run_plan;
use nl2sql_core::validate::ValidatorSettings;
use nl2sql_core::Metadata;
use nl2sql_core::{Datasource, Value};
use nl2sql_native::SqliteFile;
use nl2sql_tests::native::chinook;
use serde_json::json;

fn rows_of_plan(db: &SqliteFile, plan: serde_json::Value) -> Vec<Vec<Value>> {
    let plan: Plan = Plan::from_json(&plan.to_string()).expect("the plan parses");
    let schema = pollster::block_on(db.introspect()).expect("introspects");
    let policies = Policies::demo();
    let scope = policies.scope(&[]);
    let run = pollster::block_on(run_plan(
        &plan,
        db,
        &schema,
        &scope,
        &ValidatorSettings::default(),
    ));
    match run.frame {
        Some(f) if run.succeeded() => f.rows,
        _ => panic!("{:?}\n{:?}", run.errors, run.sql),
    }
}

fn rows_of_sql(db: &SqliteFile, sql: &str) -> Vec<Vec<Value>> {
    pollster::block_on(db.execute(sql, ExecLimits::rows(100_000)))
        .expect("the hand-written SQL runs")
        .rows
}

fn col(alias: &str, column: &str) -> serde_json::Value {
    json!({"kind": "column", "alias": alias, "column_name": column})
}

#[test]
fn count_of_an_outer_joined_alias_counts_its_matches() {
    let db = chinook();
    // Artists without albums count 0, not 1.
    let ours = rows_of_plan(
        &db,
        json!({
            "tables": [{"name": "Artist", "alias": "ar"}, {"name": "Album", "alias": "al"}],
            "joins": [{"left_alias": "ar", "right_alias": "al", "join_type": "left",
                       "condition": {"kind": "binary", "op": "=", "left": col("al", "ArtistId"), "right": col("ar", "ArtistId")}}],
            "select_items": [{"expr": col("ar", "ArtistId")},
                             {"expr": {"kind": "func", "func_name": "COUNT", "args": [col("al", "*")]}, "alias": "albums"}],
            "group_by": [{"expr": col("ar", "ArtistId")}],
            "order_by": [{"expr": col("ar", "ArtistId")}]
        }),
    );
    let hand = rows_of_sql(
        &db,
        "SELECT ar.ArtistId, COUNT(al.AlbumId) FROM Artist ar LEFT JOIN Album al ON al.ArtistId = ar.ArtistId \
         GROUP BY ar.ArtistId ORDER BY ar.ArtistId",
    );
    assert_eq!(ours, hand);
    assert!(
        ours.iter().any(|r| r[1] == Value::Integer(0)),
        "some artists have no album"
    );
}

#[test]
fn adding_a_month_clamps_to_the_month_s_last_day() {
    let db = chinook();
    let rows = rows_of_plan(
        &db,
        json!({
            "tables": [{"name": "Genre", "alias": "g"}],
            "select_items": [{"expr": {"kind": "func", "func_name": "DATE_ADD", "args": [
                {"kind": "literal", "value": "month"}, {"kind": "literal", "value": 1},
                {"kind": "literal", "value": "2024-01-31"}]}}],
            "limit": 1
        }),
    );
    assert_eq!(rows, vec![vec![Value::Text("2024-02-29".into())]]);
}

#[test]
fn portable_dates_answer_the_same_as_hand_written_sqlite() {
    let db = chinook();
    let part = |unit: &str| json!({"kind": "func", "func_name": "DATE_PART", "args": [{"kind": "literal", "value": unit}, col("i", "InvoiceDate")]});
    let trunc = |unit: &str| json!({"kind": "func", "func_name": "DATE_TRUNC", "args": [{"kind": "literal", "value": unit}, col("i", "InvoiceDate")]});
    let ours = rows_of_plan(
        &db,
        json!({
            "tables": [{"name": "Invoice", "alias": "i"}],
            "select_items": [{"expr": part("year")}, {"expr": part("quarter")}, {"expr": part("month")},
                             {"expr": trunc("quarter")}, {"expr": trunc("week")},
                             {"expr": {"kind": "func", "func_name": "DATE_DIFF", "args": [
                                 {"kind": "literal", "value": "month"}, col("i", "InvoiceDate"),
                                 {"kind": "literal", "value": "2013-12-31"}]}}],
            "where": {"kind": "binary", "op": "=", "left": col("i", "InvoiceId"), "right": {"kind": "literal", "value": 100}}
        }),
    );
    let hand = rows_of_sql(&db, "SELECT InvoiceDate FROM Invoice WHERE InvoiceId = 100");
    let Value::Text(date) = &hand[0][0] else {
        panic!("a text date")
    };
    // Invoice 100 is dated 2010-03-12, a Friday: its week began on Monday 2010-03-08.
    assert!(date.starts_with("2010-03-12"), "{date}");
    assert_eq!(
        ours,
        vec![vec![
            Value::Integer(2010),
            Value::Integer(1),
            Value::Integer(3),
            // InvoiceDate is a DATETIME: a truncated one stays a timestamp.
            Value::Text("2010-01-01 00:00:00".into()),
            Value::Text("2010-03-08 00:00:00".into()),
            Value::Integer(45),
        ]]
    );
}

#[test]
fn a_result_name_in_having_means_the_result() {
    let db = chinook();
    let ours = rows_of_plan(
        &db,
        json!({
            "tables": [{"name": "Invoice", "alias": "i"}],
            "select_items": [{"expr": col("i", "BillingCountry")},
                             {"expr": {"kind": "func", "func_name": "SUM", "args": [col("i", "Total")]}, "alias": "total"}],
            "group_by": [{"expr": col("i", "BillingCountry")}],
            "having": {"kind": "binary", "op": ">", "left": {"kind": "column", "column_name": "total"}, "right": {"kind": "literal", "value": 100}},
            "order_by": [{"expr": col("i", "BillingCountry")}]
        }),
    );
    let hand = rows_of_sql(
        &db,
        "SELECT BillingCountry, SUM(Total) FROM Invoice GROUP BY BillingCountry HAVING SUM(Total) > 100 ORDER BY BillingCountry",
    );
    assert_eq!(ours, hand);
}

#[test]
fn a_set_operation_is_ordered_by_position() {
    let db = chinook();
    let ours = rows_of_plan(
        &db,
        json!({
            "tables": [{"name": "Genre", "alias": "g"}],
            "select_items": [{"expr": col("g", "Name")}],
            "set_operations": [{"op": "union", "plan": {"tables": [{"name": "MediaType", "alias": "m"}],
                                                        "select_items": [{"expr": col("m", "Name")}]}}],
            "order_by": [{"expr": col("g", "Name"), "direction": "desc"}],
            "limit": 3
        }),
    );
    let hand = rows_of_sql(
        &db,
        "SELECT Name FROM Genre UNION SELECT Name FROM MediaType ORDER BY 1 DESC LIMIT 3",
    );
    assert_eq!(ours, hand);
}
