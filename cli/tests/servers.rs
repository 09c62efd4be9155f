//! The command line against real servers (the PostgreSQL and MariaDB `cargo xtask test`
//! starts, with the demo databases loaded): `nl2sql copy` into a new database, `plan`,
//! `sql` and `ask` with `--db postgres://…` and `--db mysql://…`, and a runaway query
//! stopped at its limit, the default one and `--timeout-ms`'s; a project file naming a
//! datasource on each server. Ignored in a plain `cargo test`.

mod common;

use common::{ask_album_count, json, nl2sql};
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

const SERVERS: [Server; 2] = [Server::Postgres, Server::MariaDb];

fn copy_into(server: Server) {
    let target = server.address(&format!("shop_{}", std::process::id()));
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
    // The copy reads as Chinook does.
    let ran = json(&nl2sql(&[
        "sql",
        "--db",
        &target,
        "--json",
        "SELECT COUNT(*) AS albums FROM Album",
    ]));
    assert_eq!(ran["rows"], serde_json::json!([[347]]));
    // Again: refused, nothing changed; with --replace, done.
    let again = nl2sql(&["copy", &chinook, &target]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--replace"));
    let replaced = nl2sql(&["copy", "--replace", &chinook, &target]);
    assert_eq!(replaced.status.code(), Some(0));
}

#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn plan_and_sql_answer_from_each_server_with_the_role_policies_of_the_id() {
    for server in SERVERS {
        plan_and_sql(server);
    }
}

fn plan_and_sql(server: Server) {
    let db = server.address("chinook");
    let plan = r#"{"tables": [{"name": "Genre", "alias": "g"}], "select_items": [{"expr": {"kind": "column", "alias": "g", "column_name": "Name"}}], "order_by": [{"expr": {"kind": "column", "alias": "g", "column_name": "Name"}}], "limit": 3}"#;
    let file = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pg-genres.json");
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
    assert!(planned["sql"].as_str().is_some_and(|s| s.contains("Genre")));
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

fn ask(server: Server) {
    ask_album_count(&server.address("chinook"), "chinook");
}

/// Billions of rows: a self-join on a key with five values, twice.
const RUNAWAY: &str = "SELECT COUNT(*) AS n FROM Track a JOIN Track b ON a.MediaTypeId = \
                       b.MediaTypeId JOIN Track c ON b.MediaTypeId = c.MediaTypeId";

#[test]
#[ignore = "needs the servers cargo xtask test starts"]
fn a_runaway_query_stops_at_its_limit_with_a_clear_error() {
    for server in SERVERS {
        runaway(server);
    }
}

fn runaway(server: Server) {
    let db = server.address("chinook");
    for (limit, bound_ms) in [(Some("300"), 5_000), (None, 20_000)] {
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
        assert!(took < bound_ms, "stopped after {took} ms");
        eprintln!("{server:?}, limit {named}: the command ended after {took} ms");
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
