//! `nl2sql plan` and `nl2sql sql`, run as a person runs them: the JSON report's shape, the
//! exit codes (0 whenever the command ran, refused or not; 2 for a wrong command line), plans
//! from a file or standard input, other dialects rendered but not run.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn data_dir() -> String {
    nl2sql_tests::native::data_dir()
        .to_string_lossy()
        .into_owned()
}

fn nl2sql(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the nl2sql binary runs");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(text.as_bytes())
            .expect("writes stdin");
    }
    child.wait_with_output().expect("the binary finishes")
}

fn json(out: &Output) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn sql_runs_and_reports_every_field_in_order() {
    let data = data_dir();
    let out = nl2sql(
        &[
            "sql",
            "--data",
            &data,
            "--json",
            "SELECT c.Country, COUNT(*) AS n FROM Customer c GROUP BY c.Country ORDER BY n DESC LIMIT 3",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let report = json(&out);
    let keys: Vec<&str> = [
        "status",
        "datasource",
        "input",
        "plan",
        "sql",
        "checks",
        "errors",
        "warnings",
        "columns",
        "rows",
        "truncated",
    ]
    .into_iter()
    .collect();
    let mut last = 0;
    for key in &keys {
        let at = text
            .find(&format!("\"{key}\""))
            .unwrap_or_else(|| panic!("{key} is missing"));
        assert!(at >= last, "{key} is out of order");
        last = at;
    }
    assert_eq!(report["status"], "ok");
    assert_eq!(report["columns"], serde_json::json!(["Country", "n"]));
    assert_eq!(report["rows"][0], serde_json::json!(["USA", 13]));
    assert_eq!(report["rows"].as_array().map(Vec::len), Some(3));
    assert_eq!(report["truncated"], false);
    assert_eq!(report["datasource"], "chinook");
    let checks: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["plan_present", "structure_and_schema", "policy"]);
    assert!(report["sql"].as_str().unwrap().ends_with("LIMIT 3"));
}

#[test]
fn a_refusal_is_a_report_not_a_failure() {
    let data = data_dir();
    let out = nl2sql(
        &[
            "sql",
            "--data",
            &data,
            "--role",
            "viewer",
            "--json",
            "SELECT e.LastName FROM Employee e",
        ],
        None,
    );
    let report = json(&out);
    assert_eq!(report["status"], "error");
    assert_eq!(report["errors"][0]["error_code"], "SECURITY_VIOLATION");
    assert_eq!(report["errors"][0]["severity"], "CRITICAL");
    assert_eq!(report["errors"][0]["node"], "logical_validator");
    assert_eq!(report["rows"], serde_json::json!([]));
    assert!(report["sql"].is_null());
}

/// Every track paired with every other of its media type, three times over: a query the
/// validator rightly accepts that would run for hours.
const RUNAWAY: &str = "SELECT COUNT(a.TrackId) AS triples FROM Track a \
    JOIN Track b ON a.MediaTypeId = b.MediaTypeId JOIN Track c ON b.MediaTypeId = c.MediaTypeId";

#[test]
fn a_query_that_would_run_for_hours_stops_at_its_time_limit() {
    let data = data_dir();
    let started = std::time::Instant::now();
    let out = nl2sql(
        &[
            "sql",
            "--data",
            &data,
            "--json",
            "--timeout-ms",
            "300",
            RUNAWAY,
        ],
        None,
    );
    let waited = started.elapsed();
    let report = json(&out);
    assert_eq!(report["status"], "error");
    assert_eq!(report["errors"][0]["error_code"], "QUERY_TIMEOUT");
    assert_eq!(report["errors"][0]["node"], "executor");
    let message = report["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("time limit of 300 ms"), "{message}");
    // The SQL it stopped is reported with it.
    assert!(report["sql"].as_str().is_some_and(|s| s.contains("JOIN")));
    eprintln!("runaway query: stopped and reported {waited:?} after start (limit 300 ms)");
    // 0 is not a limit but a wrong command line.
    let zero = nl2sql(
        &["sql", "--data", &data, "--timeout-ms", "0", RUNAWAY],
        None,
    );
    assert_eq!(zero.status.code(), Some(2));
}

#[test]
fn a_plan_comes_from_standard_input_and_a_bad_one_is_reported() {
    let data = data_dir();
    let plan = r#"{"tables": [{"name": "Genre", "alias": "g"}],
                   "select_items": [{"expr": {"kind": "column", "alias": "g", "column_name": "Nmae"}}]}"#;
    let report = json(&nl2sql(
        &["plan", "--data", &data, "--json", "-"],
        Some(plan),
    ));
    assert_eq!(report["errors"][0]["error_code"], "COLUMN_NOT_FOUND");
    assert!(report["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("Did you mean g.Name?"));
    let report = json(&nl2sql(
        &["plan", "--data", &data, "--json", "-"],
        Some("{\"tables\": 3}"),
    ));
    assert_eq!(report["errors"][0]["error_code"], "INVALID_PLAN_STRUCTURE");
}

#[test]
fn another_dialect_is_rendered_not_run() {
    let data = data_dir();
    let report = json(&nl2sql(
        &[
            "sql",
            "--data",
            &data,
            "--dialect",
            "sqlserver",
            "--json",
            "SELECT t.Name FROM Track t ORDER BY t.Name LIMIT 5",
        ],
        None,
    ));
    assert_eq!(report["status"], "ok");
    assert_eq!(
        report["sql"],
        "SELECT t.Name FROM Track AS t ORDER BY t.Name ASC OFFSET 0 ROWS FETCH FIRST 5 ROWS ONLY"
    );
    assert_eq!(report["rows"], serde_json::json!([]));
}

#[test]
fn text_output_shows_the_checks_and_the_rows() {
    let data = data_dir();
    let out = nl2sql(
        &[
            "sql",
            "--data",
            &data,
            "SELECT g.Name FROM Genre g WHERE g.GenreId = 1",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("check ok   policy"), "{text}");
    assert!(text.contains("Rock"), "{text}");
    assert!(text.contains("(1 row)"), "{text}");
}

#[test]
fn a_wrong_command_line_exits_2() {
    for args in [
        vec!["sql"],
        vec!["sql", "--role"],
        vec!["sql", "--dialect", "oracle", "SELECT 1"],
        vec!["sql", "--today", "30/11/2026", "SELECT 1"],
        vec!["plan", "/no/such/plan.json"],
        vec!["sql", "--datasource", "nope", "SELECT 1"],
    ] {
        let out = nl2sql(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        // clap's errors and the command's own both point to the help.
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--help"),
            "{args:?}"
        );
    }
}
