//! The command line against every engine beyond SQLite: the real servers `cargo xtask
//! test` starts (PostgreSQL, MariaDB and Spark Connect, with the demo databases loaded) and DuckDB files:
//! `nl2sql copy` into a new database, every reference gold plan through `nl2sql plan`,
//! `plan`, `sql` and `ask` with `--db postgres://…`, `--db mysql://…` and `--db x.duckdb`,
//! and a runaway query stopped at its limit (`--timeout-ms`'s; the default one on DuckDB); a
//! project file naming a datasource on each server. The server tests are ignored in a
//! plain `cargo test`; DuckDB's run there.

mod common;

use common::{ask_album_count, json, nl2sql, nl2sql_with_input};
use nl2sql_tests::gold::{suite, GoldPlan, REFERENCE_SUITE};
use nl2sql_tests::servers::Server;
use std::process::Command;
use std::time::Instant;

#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn copy_creates_the_database_and_refuses_to_overwrite_without_replace() {
    for server in SERVERS {
        copy_into(server);
    }
}

#[test]
fn copy_creates_a_duckdb_file_and_refuses_to_overwrite_without_replace() {
    copy_into(Server::DuckDb);
}

const SERVERS: [Server; 3] = [Server::Postgres, Server::MariaDb, Server::Spark];

fn copy_into(server: Server) {
    let name = format!("shop_{}", std::process::id());
    let target = match server {
        Server::DuckDb => {
            let file = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("{name}.duckdb"));
            let _ = std::fs::remove_file(&file);
            file.to_string_lossy().into_owned()
        }
        _ => server.address(&name),
    };
    let chinook = nl2sql_tests::native::data_dir().join("chinook.sqlite");
    let chinook = chinook.to_string_lossy();
    let out = nl2sql(&["copy", &chinook, &target]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(
        summary.contains("copied 11 tables, 15607 rows"),
        "{summary}"
    );
    let progress = String::from_utf8_lossy(&out.stderr);
    assert!(progress.contains("copied Track: 3503 rows"), "{progress}");
    // The copy reads as Chinook does. A generous limit: this checks the rows, not the time,
    // and on Spark another test's runaway query may still hold the cores.
    let ran = json(&nl2sql(&[
        "sql",
        "--db",
        &target,
        "--json",
        "--timeout-ms",
        "120000",
        "SELECT COUNT(*) AS albums FROM Album",
    ]));
    assert_eq!(ran["rows"], serde_json::json!([[347]]), "{ran}");
    // Again: refused, nothing changed; with --replace, done.
    let again = nl2sql(&["copy", &chinook, &target]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--replace"));
    // With --json, a script reads what was copied from one object on stdout.
    let replaced = json(&nl2sql(&["copy", "--replace", "--json", &chinook, &target]));
    assert_eq!(replaced["rows"], serde_json::json!(15607));
    let tables = replaced["tables"].as_array().map_or(0, Vec::len);
    assert_eq!(tables, 11, "{replaced}");
    assert!(replaced["target"].is_string() && replaced["notes"].is_array());
}

// One test per server: each is a minute of commands on Spark, and separate tests run side
// by side with the others.
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn every_reference_gold_plan_returns_its_gold_rows_through_nl2sql_plan_on_postgresql() {
    gold_plans(Server::Postgres);
}

#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn every_reference_gold_plan_returns_its_gold_rows_through_nl2sql_plan_on_mariadb() {
    gold_plans(Server::MariaDb);
}

#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn every_reference_gold_plan_returns_its_gold_rows_through_nl2sql_plan_on_spark() {
    gold_plans(Server::Spark);
}

#[test]
fn every_reference_gold_plan_returns_its_gold_rows_through_nl2sql_plan_on_duckdb() {
    gold_plans(Server::DuckDb);
}

/// `nl2sql plan --db … --role admin --json -` for each of the reference's 43 gold plans,
/// the plan on standard input, the rows compared with the gold ones as the reference
/// scores them. On Spark, as a warehouse is meant to be used: a project file, `nl2sql
/// index` once, and every command after it on the cached read (reading Chinook's
/// statistics is a Spark job per table and per text column, seconds each time).
fn gold_plans(server: Server) {
    let db = server.address("chinook");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spark-project");
    let config = dir.join("nl2sql.toml");
    let config_text = config.to_string_lossy().into_owned();
    let target: Vec<&str> = if server == Server::Spark {
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let _ = std::fs::remove_dir_all(dir.join(".nl2sql"));
        let file = format!("[[datasources]]\nid = \"chinook\"\nconnection = \"{db}\"\n");
        std::fs::write(&config, file).expect("the config");
        let indexed = nl2sql(&["index", "--config", &config_text]);
        assert_eq!(
            indexed.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&indexed.stderr)
        );
        assert!(dir.join(".nl2sql").join("schema-cache.json").is_file());
        vec!["--config", &config_text]
    } else {
        vec!["--db", &db]
    };
    let mut failures = Vec::new();
    let mut planned = 0;
    for case in suite(REFERENCE_SUITE).cases {
        let Some(plan) = case.parsed_plan() else {
            continue;
        };
        let plan = serde_json::to_string(&plan).expect("a plan serializes");
        let mut args = vec!["plan"];
        args.extend(&target);
        args.extend(["--role", "admin", "--json", "-"]);
        let out = nl2sql_with_input(&args, &plan);
        let report = json(&out);
        let rows: Vec<Vec<nl2sql_core::result::Value>> =
            serde_json::from_value(report["rows"].clone()).unwrap_or_default();
        if let Err(why) =
            nl2sql_tests::compare::compare(&rows, &case.gold_rows(), case.order_matters)
        {
            failures.push(format!("{}: {why} ({})", case.id, report["errors"]));
        }
        planned += 1;
    }
    assert_eq!(planned, 43);
    assert!(failures.is_empty(), "{server:?}:\n{}", failures.join("\n"));
}

#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn plan_and_sql_answer_from_each_server_with_the_role_policies_of_the_id() {
    for server in SERVERS {
        plan_and_sql(server);
    }
}

#[test]
fn plan_and_sql_answer_from_a_duckdb_file_with_the_role_policies_of_the_id() {
    plan_and_sql(Server::DuckDb);
}

fn plan_and_sql(server: Server) {
    let db = server.address("chinook");
    let plan = r#"{"tables": [{"name": "Genre", "alias": "g"}], "select_items": [{"expr": {"kind": "column", "alias": "g", "column_name": "Name"}}], "order_by": [{"expr": {"kind": "column", "alias": "g", "column_name": "Name"}}], "limit": 3}"#;
    let file = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{server:?}-genres.json"));
    std::fs::write(&file, plan).expect("the plan file");
    let planned = json(&nl2sql(&[
        "plan",
        "--db",
        &db,
        "--role",
        "admin",
        "--json",
        &file.to_string_lossy(),
    ]));
    assert_eq!(planned["datasource"], "chinook");
    assert_eq!(
        planned["rows"],
        serde_json::json!([["Alternative"], ["Alternative & Punk"], ["Blues"]])
    );
    // Spark's catalogue keeps table names in lower case, and the SQL uses its spelling.
    assert!(planned["sql"]
        .as_str()
        .is_some_and(|s| s.contains("Genre") || (server == Server::Spark && s.contains("genre"))));
    // The demo policies name `chinook`: the analyst may not read the staff.
    let refused = json(&nl2sql(&[
        "sql",
        "--db",
        &db,
        "--role",
        "analyst",
        "--json",
        "SELECT e.LastName FROM Employee e",
    ]));
    assert_eq!(refused["errors"][0]["error_code"], "SECURITY_VIOLATION");
}

#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn ask_answers_from_each_server() {
    for server in SERVERS {
        ask(server);
    }
}

#[test]
fn ask_answers_from_a_duckdb_file() {
    ask(Server::DuckDb);
}

fn ask(server: Server) {
    ask_album_count(&server.address("chinook"), "chinook");
}

/// Billions of rows: a self-join on a key with five values, twice.
const RUNAWAY: &str = "SELECT COUNT(*) AS n FROM Track a JOIN Track b ON a.MediaTypeId = \
                       b.MediaTypeId JOIN Track c ON b.MediaTypeId = c.MediaTypeId";

/// Each server stops at `--timeout-ms`. The default limit is the command line's, the same
/// for every engine: DuckDB's test waits for it (ten seconds a server saved).
#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn a_runaway_query_stops_at_its_limit_with_a_clear_error() {
    for server in SERVERS {
        runaway(server, &[(Some("300"), 300)]);
    }
}

#[test]
fn a_runaway_query_on_duckdb_stops_at_its_limit_with_a_clear_error() {
    runaway(Server::DuckDb, &[(Some("300"), 300), (None, 10_000)]);
}

/// The runaway query under each `(--timeout-ms, the limit in ms)`; `None`: the default.
fn runaway(server: Server, limits: &[(Option<&str>, u128)]) {
    let db = server.address("chinook");
    for &(limit, limit_ms) in limits {
        // What a command costs before its query runs (connecting, reading the schema: on
        // Spark a job per table and per text column), measured just before, so the bound
        // measures the stop alone: Spark kills a stopped job's tasks only when they next
        // look, so the last case's job may still hold its cores.
        let started = Instant::now();
        let quick = json(&nl2sql(&[
            "sql",
            "--db",
            &db,
            "--json",
            "SELECT AlbumId FROM Album LIMIT 1",
        ]));
        assert_eq!(quick["status"], "ok", "{quick}");
        let overhead = started.elapsed().as_millis();
        let bound_ms = overhead + limit_ms + 5_000;
        let mut args = vec!["sql", "--db", &db, "--json"];
        if let Some(ms) = limit {
            args.extend(["--timeout-ms", ms]);
        }
        args.push(RUNAWAY);
        let started = Instant::now();
        let report = json(&nl2sql(&args));
        let took = started.elapsed().as_millis();
        let error = &report["errors"][0];
        assert_eq!(error["error_code"], "QUERY_TIMEOUT", "{report}");
        let named = format!("{} ms", limit.unwrap_or("10000"));
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains(&named)),
            "{error}"
        );
        assert!(
            took < bound_ms,
            "stopped after {took} ms (a quick command takes {overhead} ms)"
        );
        eprintln!(
            "{server:?}, limit {named}: the command ended after {took} ms (a quick one: \
             {overhead} ms)"
        );
    }
}

#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn a_project_file_names_datasources_on_both_servers() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("servers-project");
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let config = format!(
        "[[datasources]]\nid = \"music\"\nconnection = \"{}\"\npassword_env = \"MUSIC_PW\"\n\
         exclude = [\"Employee\"]\n\n\
         [[datasources]]\nid = \"helpdesk\"\nconnection = \"{}\"\n\
         description = \"Support tickets, agents and their messages.\"\n",
        Server::Postgres.address("chinook"),
        Server::MariaDb.address("support")
    );
    let file = dir.join("nl2sql.toml");
    std::fs::write(&file, config).expect("the config");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_nl2sql"))
            .args(args)
            .current_dir(&dir)
            // The test servers trust loopback: any password is accepted, none is shown.
            .env("MUSIC_PW", "hunter2")
            .output()
            .expect("the nl2sql binary runs")
    };
    let ran = json(&run(&[
        "sql",
        "--datasource",
        "music",
        "--json",
        "SELECT COUNT(*) FROM Album",
    ]));
    assert_eq!(ran["rows"], serde_json::json!([[347]]));
    let hidden = json(&run(&[
        "sql",
        "--datasource",
        "music",
        "--json",
        "SELECT e.LastName FROM Employee e",
    ]));
    assert_eq!(hidden["errors"][0]["error_code"], "TABLE_NOT_FOUND");
    let routed = run(&["route", "--json", "Which agent closed the most tickets?"]);
    let routed = json(&routed);
    assert_eq!(routed["ranked"][0], "helpdesk", "{routed}");
}
