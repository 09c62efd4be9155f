//! `nl2sql route`, `nl2sql retrieve` and `nl2sql index`, run as a person runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

fn nl2sql(args: &[&str]) -> Output {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args(args)
        .arg("--data")
        .arg(data)
        .output()
        .expect("the nl2sql binary runs")
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
fn route_ranks_the_datasources_and_names_its_signals() {
    let r = json(&nl2sql(&[
        "route",
        "--json",
        "How many urgent tickets are still open?",
    ]));
    assert_eq!(r["ranked"][0], "support", "{r}");
    let signals: Vec<&str> = r["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        signals.contains(&"description") && signals.contains(&"values"),
        "{signals:?}"
    );
    // A viewer reaches nothing in support: it is neither ranked nor dropped.
    let r = json(&nl2sql(&[
        "route",
        "--json",
        "--role",
        "viewer",
        "How many urgent tickets are still open?",
    ]));
    assert!(!r.to_string().contains("support"), "{r}");
}

#[test]
fn retrieve_gives_tables_columns_and_value_hints() {
    let r = json(&nl2sql(&[
        "retrieve",
        "--datasource",
        "chinook",
        "--force-search",
        "--json",
        "Which albums did Iron Maiden release?",
    ]));
    let tables: Vec<&str> = r["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        tables.contains(&"Album") && tables.contains(&"Artist"),
        "{tables:?}"
    );
    assert!(
        r["values"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "Artist.Name = 'Iron Maiden'"),
        "{r}"
    );
    // Without --force-search Chinook's 11 tables are all sent; the analyst never sees Employee.
    let r = json(&nl2sql(&[
        "retrieve",
        "--datasource",
        "chinook",
        "--role",
        "analyst",
        "--json",
        "Who sells most?",
    ]));
    let tables = r["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 10, "{r}");
    assert!(!r.to_string().contains("Employee"), "{r}");
}

#[test]
fn index_reports_its_entries_and_embedder() {
    // `cargo xtask setup` puts the semantic weights in the demo data folder: the index
    // blends them with the lexical embedder.
    let r = json(&nl2sql(&["index", "--json"]));
    assert_eq!(r["embedder"], "builtin-v1-512+wordllama-256@0.70");
    assert_eq!(r["entries"]["datasource"], 3);
    assert!(r["entries"]["value"].as_u64().unwrap() > 1_000, "{r}");
    assert!(r["build_ms"].as_f64().is_some());
}

#[test]
fn semantic_weights_named_but_unusable_are_refused_not_skipped() {
    let dir = std::env::temp_dir().join(format!("nl2sql-weights-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corrupt = dir.join("corrupt.bin");
    std::fs::write(&corrupt, b"N2SEMB01 but nothing after it").unwrap();
    for (path, says) in [
        (dir.join("missing.bin"), "cannot be read"),
        (corrupt, "weights cannot be read"),
        (dir.clone(), "cannot be read"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
            .args(["index", "--json", "--data"])
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data"))
            .env("NL2SQL_SEMANTIC_WEIGHTS", &path)
            .output()
            .expect("the nl2sql binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains("CONFIG_INVALID") && stderr.contains(says),
            "{stderr}"
        );
    }
    // A project that asks for the lexical embedder alone gets it.
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    std::fs::write(
        dir.join("nl2sql.toml"),
        format!(
            "[[datasources]]\nid = \"chinook\"\nconnection = \"{}\"\n\n[index]\nsemantic_weights = \"\"\n",
            data.join("chinook.sqlite").display()
        ),
    )
    .unwrap();
    // Named as a person in that folder would, by a relative path.
    let r = json(
        &Command::new(env!("CARGO_BIN_EXE_nl2sql"))
            .args(["index", "--json", "--config", "nl2sql.toml"])
            .current_dir(&dir)
            .output()
            .expect("the nl2sql binary runs"),
    );
    assert_eq!(r["embedder"], "builtin-v1-512", "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrong_command_line_exits_2() {
    for args in [
        vec!["route"],
        vec!["retrieve", "a question"],
        vec!["route", "--bogus", "q"],
    ] {
        assert_eq!(nl2sql(&args).status.code(), Some(2), "{args:?}");
    }
}
