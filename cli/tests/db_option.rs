//! `--db`: every command pointed at one database of the person's own (a copy of Chinook
//! under another name), its id from the file's name or `--id`, the policies naming that id
//! applied; servers without an adapter refused by name, unreachable ones named without
//! their password.

mod common;

use common::{ask_album_count, json, nl2sql};
use std::path::PathBuf;

/// A copy of Chinook named `my shop.sqlite` (id `my_shop`), made once per test.
fn shop(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join("my shop.sqlite");
    let demo = nl2sql_tests::native::data_dir().join("chinook.sqlite");
    std::fs::copy(demo, &path).expect("the copy");
    path.to_string_lossy().into_owned()
}

#[test]
fn schema_plan_sql_route_and_retrieve_read_the_named_database() {
    let db = shop("db-commands");
    let schema = json(&nl2sql(&["schema", "--db", &db, "--json"]));
    assert_eq!(schema["datasource_id"], "my_shop");
    let ran = json(&nl2sql(&[
        "sql",
        "--db",
        &db,
        "--json",
        "SELECT COUNT(*) AS albums FROM Album",
    ]));
    assert_eq!(ran["datasource"], "my_shop");
    assert_eq!(ran["rows"], serde_json::json!([[347]]));
    let plan = r#"{"tables": [{"name": "Genre", "alias": "g"}], "select_items": [{"expr": {"kind": "column", "alias": "g", "column_name": "Name"}}]}"#;
    let dir = PathBuf::from(&db).with_file_name("genres.json");
    std::fs::write(&dir, plan).expect("the plan file");
    let planned = json(&nl2sql(&[
        "plan",
        "--db",
        &db,
        "--json",
        &dir.to_string_lossy(),
    ]));
    assert_eq!(planned["datasource"], "my_shop");
    assert_eq!(planned["rows"].as_array().map(Vec::len), Some(25));
    let routed = json(&nl2sql(&[
        "route",
        "--db",
        &db,
        "--json",
        "Which genres are there?",
    ]));
    assert_eq!(routed["ranked"], serde_json::json!(["my_shop"]));
    let retrieved = json(&nl2sql(&[
        "retrieve",
        "--db",
        &db,
        "--json",
        "Which genres are there?",
    ]));
    assert!(retrieved["tables"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t == "Genre")));
    // Another id than the database's is a wrong command line.
    let out = nl2sql(&["sql", "--db", &db, "--datasource", "chinook", "SELECT 1"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_policies_naming_the_id_apply() {
    let db = shop("db-policies");
    let staff = "SELECT e.LastName FROM Employee e";
    let codes = |args: &[&str]| {
        let report = json(&nl2sql(args));
        report["errors"]
            .as_array()
            .map(|e| {
                e.iter()
                    .map(|e| e["error_code"].clone())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    // As `chinook`, the demo's analyst may not read the staff; as `my_shop`, no rule names
    // the table, and the analyst reads everything.
    let as_chinook = codes(&[
        "sql", "--db", &db, "--id", "chinook", "--role", "analyst", "--json", staff,
    ]);
    assert_eq!(as_chinook, [serde_json::json!("SECURITY_VIOLATION")]);
    let as_shop = codes(&["sql", "--db", &db, "--role", "analyst", "--json", staff]);
    assert!(as_shop.is_empty(), "{as_shop:?}");
}

#[test]
fn ask_answers_from_the_named_database() {
    ask_album_count(&shop("db-ask"), "my_shop");
}

#[test]
fn a_malformed_spark_address_is_a_usage_error_that_never_shows_the_token() {
    let out = nl2sql(&["sql", "--db", "sc://me:hunter2@127.0.0.1/db", "SELECT 1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Spark Connect") && !err.contains("hunter2"),
        "{err}"
    );
}

#[test]
fn an_unreachable_server_is_a_clear_failure_that_never_shows_the_password() {
    // Nothing listens on port 1: the connection is refused at once.
    let chinook = nl2sql_tests::native::data_dir().join("chinook.sqlite");
    let chinook = chinook.to_string_lossy();
    for (url, shown) in [
        (
            "postgres://me:hunter2@127.0.0.1:1/chinook",
            "postgres://me@127.0.0.1:1/chinook",
        ),
        (
            "mysql://me:hunter2@127.0.0.1:1/chinook",
            "mysql://me@127.0.0.1:1/chinook",
        ),
        (
            "sc://127.0.0.1:1/chinook;token=hunter2",
            "sc://127.0.0.1:1/chinook",
        ),
    ] {
        check_unreachable(url, shown, &chinook);
    }
}

fn check_unreachable(url: &str, shown: &str, chinook: &str) {
    for args in [
        vec!["sql", "--db", url, "SELECT 1"],
        vec!["schema", "--db", url],
        vec!["copy", chinook, url],
    ] {
        let out = nl2sql(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(shown) && err.contains("refused") && !err.contains("hunter2"),
            "{args:?}: {err}"
        );
    }
}
