//! The `nl2sql schema` command, run as a person runs it.

use nl2sql_tests::native::data_dir;
use std::process::{Command, Output};

fn nl2sql(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args(args)
        .output()
        .expect("the nl2sql binary runs")
}

#[test]
fn schema_json_describes_a_demo_database() {
    let data = data_dir();
    let out = nl2sql(&[
        "schema",
        "--datasource",
        "support",
        "--data",
        data.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(json["datasource_id"], "support");
    let tables: Vec<&str> = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tables,
        ["agents", "customers", "ticket_messages", "tickets"]
    );
}

#[test]
fn schema_reads_any_file_by_path() {
    let file = data_dir().join("webanalytics.sqlite");
    let out = nl2sql(&["schema", "--file", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("webanalytics (sqlite, schema v"), "{text}");
    assert!(text.contains("page_views — 2455 rows"), "{text}");
    assert!(
        text.contains("FK (referrer_id) -> referrers(referrer_id)"),
        "{text}"
    );
}

#[test]
fn usage_errors_exit_2_with_a_clear_message() {
    for (args, says) in [
        (
            vec!["schema", "--datasource", "nope"],
            "no datasource \"nope\"; choose one of chinook, support, webanalytics",
        ),
        (vec!["schema", "--bogus"], "unexpected argument '--bogus'"),
        (vec!["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (
            vec!["schema", "--file", "a.sqlite", "--datasource", "chinook"],
            "cannot be used with",
        ),
    ] {
        let out = nl2sql(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(err.contains("--help"), "{args:?}: {err}");
    }
}

#[test]
fn a_file_that_cannot_be_read_exits_1_without_the_usage_text() {
    let out = nl2sql(&["schema", "--file", "/no/such/file.sqlite"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot open /no/such/file.sqlite"), "{err}");
    assert!(!err.contains("--help"), "{err}");
}
