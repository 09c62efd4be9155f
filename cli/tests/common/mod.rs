//! What the command-line tests share: running the binary as a person would, reading its one
//! JSON object, and asking a database how many albums it has against the mock provider.
// Each test file uses its own subset of these helpers.
#![allow(dead_code)]

use nl2sql_tests::mock::{Fixture, MockProvider};
use std::path::Path;
use std::process::{Command, Output};

/// `nl2sql args…` with no model key in its environment.
pub fn nl2sql(args: &[&str]) -> Output {
    command(args).output().expect("the nl2sql binary runs")
}

/// `nl2sql args…` with `input` on its standard input, and no model key in its environment.
pub fn nl2sql_with_input(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = command(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the nl2sql binary runs");
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .expect("standard input takes the text");
    }
    child.wait_with_output().expect("the nl2sql binary ends")
}

/// `nl2sql args…` run from `dir`, with no model key in its environment.
pub fn nl2sql_in(dir: &Path, args: &[&str]) -> Output {
    command(args)
        .current_dir(dir)
        .output()
        .expect("the nl2sql binary runs")
}

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nl2sql"));
    command
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("NL2SQL_API_KEY");
    command
}

/// The one JSON object a successful command printed.
pub fn json(out: &Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `nl2sql ask --db db` how many albums there are, the mock provider routing to `id` and
/// planning the count; checks the answer is Chinook's 347 and the key is nowhere in it.
pub fn ask_album_count(db: &str, id: &str) {
    let mock = MockProvider::start().expect("the mock provider starts");
    let q = "How many albums are there?";
    mock.add([
        Fixture::new(
            "answerability",
            q,
            &format!(r#"{{"datasources": ["{id}"], "reason": "albums"}}"#),
        ),
        Fixture::new(
            "plan",
            q,
            r#"{"tables": [{"name": "Album", "alias": "a"}], "select_items": [{"alias": "albums", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "a", "column_name": "AlbumId"}]}}]}"#,
        ),
    ]);
    let out = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args([
            "ask",
            "--db",
            db,
            "--base-url",
            &mock.base_url(),
            "--model",
            "m",
            "--answer",
            "template",
            "--json",
            q,
        ])
        .env("OPENAI_API_KEY", "sk-test-key-0000")
        .output()
        .expect("the nl2sql binary runs");
    let result = json(&out);
    assert_eq!(result["status"], "success", "{result}");
    assert_eq!(result["sub_queries"][0]["datasource_id"], id);
    assert_eq!(result["sub_queries"][0]["rows"], serde_json::json!([[347]]));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("sk-test-key-0000"));
}
