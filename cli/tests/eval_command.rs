//! `nl2sql eval`, as a person runs it: the reference suites scored, records saved.

use std::path::{Path, PathBuf};
use std::process::Command;

fn eval(suite: &str, mode: &str, out: &Path) -> serde_json::Value {
    eval_demo(suite, mode, out, &[])
}

/// `nl2sql eval` over the demo databases, with `extra` options.
fn eval_demo(suite: &str, mode: &str, out: &Path, extra: &[&str]) -> serde_json::Value {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut options = vec!["--data".to_string(), data.to_string_lossy().into_owned()];
    options.extend(extra.iter().map(|o| o.to_string()));
    eval_on(suite, mode, out, &options)
}

/// `nl2sql eval` over the databases `databases` (options) name.
fn eval_on(suite: &str, mode: &str, out: &Path, databases: &[String]) -> serde_json::Value {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let output = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args(["eval", "--mode", mode, "--json", "--suite"])
        .arg(data.join(suite))
        .args(databases)
        .arg("--out")
        .arg(out)
        .env_remove("CI")
        .output()
        .expect("the nl2sql binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn records(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

#[test]
#[cfg_attr(not(feature = "gold-plans"), ignore = "needs --features gold-plans")]
fn plans_mode_scores_the_reference_suite_on_chinook_in_a_duckdb_file() {
    let out = std::env::temp_dir().join(format!("nl2sql-eval-duckdb-{}", std::process::id()));
    let db = nl2sql_tests::servers::duckdb_copy("chinook");
    let args = [
        "--db".to_string(),
        db.to_string_lossy().into_owned(),
        "--id".into(),
        "chinook".into(),
    ];
    let record = eval_on("chinook.yaml", "plans", &out, &args);
    assert_eq!(record["metrics"]["cases"], 141);
    assert_eq!(record["metrics"]["accuracy"], 1.0, "{}", record["metrics"]);
    let _ = std::fs::remove_dir_all(out);
}

#[test]
#[cfg_attr(not(feature = "gold-plans"), ignore = "needs --features gold-plans")]
fn plans_mode_scores_every_role_run_of_the_reference_suite_and_keeps_each_record() {
    let out = std::env::temp_dir().join(format!("nl2sql-eval-plans-{}", std::process::id()));
    let record = eval("chinook.yaml", "plans", &out);
    assert_eq!(record["kind"], "plans");
    assert_eq!(record["metrics"]["cases"], 141);
    assert_eq!(record["metrics"]["accuracy"], 1.0);
    assert_eq!(record["metrics"]["answerability_recall"], 1.0);
    let board = record["scoreboard"].as_array().expect("a scoreboard");
    assert!(board
        .iter()
        .any(|b| b["expected"] == "refused" && b["pass"] == true));
    let dir = out.join("plans").join("chinook");
    assert_eq!(records(&dir), 1);
    let saved: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::fs::read_dir(&dir)
                .expect("the record folder")
                .next()
                .expect("a record")
                .expect("readable")
                .path(),
        )
        .expect("reads"),
    )
    .expect("JSON");
    assert_eq!(saved, record);
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn retrieval_mode_measures_routing_and_recall_without_a_model() {
    let out = std::env::temp_dir().join(format!("nl2sql-eval-retrieval-{}", std::process::id()));
    let routing = eval("routing.yaml", "retrieval", &out);
    // What `ask` runs: the blend, as the test command provides the semantic weights. It
    // puts support first for seven customer questions the suite files under chinook
    // (docs/benchmarks.md).
    assert_eq!(
        routing["config"]["embedder"], "builtin-v1-512+wordllama-256@0.70",
        "{}",
        routing["config"]
    );
    assert_eq!(routing["metrics"]["routing_cases"], 68);
    let top1 = routing["metrics"]["routing_top1"].as_f64().unwrap_or(0.0);
    assert!(top1 >= 61.0 / 68.0 - 1e-9, "{top1}");
    let recall = eval("chinook.yaml", "retrieval", &out);
    assert_eq!(recall["metrics"]["table_recall"], 1.0);
    assert!(recall["metrics"]["column_recall"].as_f64() > Some(0.95));
    // The lexical embedder alone, asked for: every routing case first.
    let lexical = eval_demo(
        "routing.yaml",
        "retrieval",
        &out,
        &["--embedder", "lexical"],
    );
    assert_eq!(lexical["config"]["embedder"], "builtin-v1-512");
    assert_eq!(lexical["metrics"]["routing_top1"], 1.0);
    // Two runs with one embedder, two records: none overwritten.
    let again = eval("routing.yaml", "retrieval", &out);
    assert_eq!(again["metrics"], routing["metrics"]);
    let saved = std::fs::read_dir(out.join("retrieval").join("routing"))
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    assert_eq!(saved.len(), 3, "{saved:?}");
    let named = |part: &str| {
        (saved.iter())
            .filter(|f| f.to_string_lossy().contains(part))
            .count()
    };
    assert_eq!(named("wordllama"), 2, "{saved:?}");
    let _ = std::fs::remove_dir_all(out);
}

/// On a terminal (`script` gives the command one) an evaluation draws its progress bar on
/// standard error; piped, as everywhere else in these tests, it draws nothing.
#[cfg(unix)]
#[test]
fn an_evaluation_shows_its_progress_on_a_terminal_only() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let out = std::env::temp_dir().join(format!("nl2sql-eval-progress-{}", std::process::id()));
    let args = format!(
        "'{}' eval --mode retrieval --embedder lexical --suite '{}' --data '{}' --out '{}'",
        env!("CARGO_BIN_EXE_nl2sql"),
        data.join("routing.yaml").display(),
        data.display(),
        out.display()
    );
    // A terminal that draws (the caller's may be `dumb`, where nothing is drawn).
    let on_terminal = Command::new("script")
        .args(["-qfec", &args, "/dev/null"])
        .env_remove("CI")
        .env("TERM", "xterm-256color")
        .output()
        .expect("script runs");
    assert!(on_terminal.status.success(), "{on_terminal:?}");
    let drawn = String::from_utf8_lossy(&on_terminal.stdout);
    assert!(drawn.contains("/78 cases ("), "{drawn}");
    let piped = Command::new("sh")
        .args(["-c", &args])
        .env_remove("CI")
        .output()
        .expect("the nl2sql binary runs");
    assert!(piped.status.success());
    let said = String::from_utf8_lossy(&piped.stderr);
    assert!(!said.contains("cases ("), "{said}");
    let _ = std::fs::remove_dir_all(out);
}
