//! `nl2sql ask`, run as a person runs it, against the mock model provider over HTTP.

use nl2sql_tests::mock::{Fixture, MockProvider};
use std::path::PathBuf;
use std::process::{Command, Output};

const KEY: &str = "sk-proj-0123456789abcdefghijKLMNOP";

fn nl2sql(args: &[&str], key: Option<&str>) -> Output {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nl2sql"));
    cmd.args(args)
        .arg("--data")
        .arg(data)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("NL2SQL_API_KEY");
    if let Some(k) = key {
        cmd.env("OPENAI_API_KEY", k);
    }
    cmd.output().expect("the nl2sql binary runs")
}

fn mock() -> MockProvider {
    let mock = MockProvider::start().expect("the mock provider starts");
    let q = "How many albums are there?";
    mock.add([
        Fixture::new("answerability", q, r#"{"datasources": ["chinook"], "reason": "albums"}"#),
        Fixture::new(
            "plan",
            q,
            r#"{"tables": [{"name": "Album", "alias": "a"}], "select_items": [{"alias": "albums", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "a", "column_name": "AlbumId"}]}}]}"#,
        ),
        Fixture::new("text", q, "The store holds 347 albums."),
    ]);
    mock
}

#[test]
fn ask_answers_and_writes_its_trace() {
    let mock = mock();
    let trace = std::env::temp_dir().join(format!("nl2sql-ask-{}.json", std::process::id()));
    let out = nl2sql(
        &[
            "ask",
            "--base-url",
            &mock.base_url(),
            "--model",
            "gpt-5.4",
            "--trace",
            trace.to_str().unwrap_or_default(),
            "How many albums are there?",
        ],
        Some(KEY),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("The store holds 347 albums."), "{stdout}");
    let sql_at = stdout.find("SELECT").unwrap_or(usize::MAX);
    let answer_at = stdout.find("The store holds").unwrap_or(0);
    assert!(
        sql_at < answer_at,
        "the rows come before the streamed answer: {stdout}"
    );
    assert!(
        stdout.contains("SELECT COUNT(a.AlbumId) AS albums FROM Album AS a"),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&trace).unwrap_or_default();
    // The recording replays with no provider and no key.
    let replayed = nl2sql(&["replay", trace.to_str().unwrap_or_default()], None);
    let replayed_out = String::from_utf8_lossy(&replayed.stdout);
    assert_eq!(replayed.status.code(), Some(0), "{replayed_out}");
    assert!(
        replayed_out.contains("The store holds 347 albums."),
        "{replayed_out}"
    );
    assert!(
        replayed_out.contains("every prompt matched the recording"),
        "{replayed_out}"
    );
    let _ = std::fs::remove_file(&trace);
    let json: serde_json::Value = serde_json::from_str(&written).unwrap_or_default();
    assert_eq!(json["status"], "success");
    let nodes: Vec<&str> = json["trace"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["node"].as_str())
        .collect();
    assert_eq!(nodes[..2], ["curated_matcher", "datasource_resolver"]);
    assert!(
        json["usage"]["cost_usd"].as_f64().is_some_and(|c| c > 0.0),
        "gpt-5.4 is priced"
    );
    assert!(!written.contains("0123456789") && !stdout.contains("0123456789"));
}

#[test]
fn provider_failures_print_their_code_and_never_the_key() {
    let mock = mock();
    let out = nl2sql(
        &[
            "ask",
            "--base-url",
            &mock.base_url(),
            "--model",
            "fault-401",
            "How many albums are there?",
        ],
        Some(KEY),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("PROVIDER_AUTH_FAILED"), "{stdout}");
    assert!(stdout.contains("[redacted key]"), "{stdout}");
    assert!(
        !stdout.contains("0123456789") && !stdout.contains("KLMNOP"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 model calls"),
        "a failed check stops the run: {stdout}"
    );
    // No key: a usage error, exit 2, before any request.
    let out = nl2sql(&["ask", "How many albums are there?"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPENAI_API_KEY"));
}
