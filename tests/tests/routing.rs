//! Routing and retrieval on the three demo databases (rusqlite): the reference routing
//! suite, our own routing questions, recall on the Chinook suite, scope and determinism.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_cli::SqliteFile;
use nl2sql_core::demo::demo_database;
use nl2sql_core::index::{route, BuiltinEmbedder, RouteSettings, SchemaIndex};
use nl2sql_core::policy::Policies;
use nl2sql_core::Datasource;
use nl2sql_tests::gold::REFERENCE_SUITE;
use nl2sql_tests::routing::{demo_index, recall, routing_score, OWN_ROUTING, ROUTING_SUITE};
use std::path::PathBuf;

fn open(id: &str) -> Box<dyn Datasource> {
    let demo = demo_database(id).unwrap_or_else(|| panic!("no demo database {id}"));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(demo.file);
    Box::new(SqliteFile::open(id, path).unwrap_or_else(|e| panic!("{id}: {e}")))
}

fn index() -> (SchemaIndex, BuiltinEmbedder) {
    let embedder = BuiltinEmbedder::default();
    let index = pollster::block_on(demo_index(&open, &embedder));
    (index, embedder)
}

#[test]
fn the_reference_routing_suite() {
    let (index, embedder) = index();
    let score = pollster::block_on(routing_score(&index, &embedder, ROUTING_SUITE));
    println!("reference routing suite: {}/{}", score.passed, score.total);
    for f in &score.failures {
        println!("  {f}");
    }
    assert!(score.total >= 78, "{} cases", score.total);
    // The measured score, as a floor against regressions (the goal is 78/78; the reference
    // engine routes 75).
    assert!(
        score.passed >= 77,
        "{}/{}:\n{}",
        score.passed,
        score.total,
        score.failures.join("\n")
    );
}

#[test]
fn our_own_routing_questions() {
    let (index, embedder) = index();
    let score = pollster::block_on(routing_score(&index, &embedder, OWN_ROUTING));
    println!("own routing questions: {}/{}", score.passed, score.total);
    for f in &score.failures {
        println!("  {f}");
    }
    assert_eq!(score.passed, score.total, "{}", score.failures.join("\n"));
}

#[test]
fn retrieval_recall_on_the_chinook_suite() {
    let (index, embedder) = index();
    let r = pollster::block_on(recall(&index, &embedder, REFERENCE_SUITE));
    println!(
        "recall over {} cases: tables {:.1} %, columns {:.1} %, {:.1} columns sent",
        r.cases,
        r.tables * 100.0,
        r.columns * 100.0,
        r.columns_sent
    );
    for m in &r.misses {
        println!("  {m}");
    }
    // The goals: every needed table, at least 95 % of needed columns, and fewer columns sent
    // than the reference engine's 22 per question.
    assert!(
        r.tables >= 0.999 && r.columns >= 0.95,
        "tables {} columns {}",
        r.tables,
        r.columns
    );
    assert!(r.columns_sent < 22.0, "{} columns sent", r.columns_sent);
}

#[test]
fn a_role_never_routes_by_what_it_may_not_read_and_routing_is_deterministic() {
    let (index, embedder) = index();
    let policies = Policies::demo();
    let viewer = policies.scope(&["viewer".to_string()]);
    let q = "Which support agents handled the most tickets and invoices?";
    let a = pollster::block_on(route(
        &index,
        &embedder,
        q,
        &viewer,
        &RouteSettings::default(),
    ))
    .unwrap();
    let b = pollster::block_on(route(
        &index,
        &embedder,
        q,
        &viewer,
        &RouteSettings::default(),
    ))
    .unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    // The viewer reads nothing in support and no chinook.Employee / Invoice.
    let trace = serde_json::to_string(&a).unwrap();
    assert!(!a.ranked.contains(&"support".to_string()), "{:?}", a.ranked);
    for hidden in ["Employee", "Invoice", "Customer", "tickets", "agents"] {
        assert!(
            !trace.contains(&format!("table {hidden}"))
                && !trace.contains(&format!("column {hidden}.")),
            "{hidden} in {trace}"
        );
    }
}

#[test]
#[ignore = "a probe for tuning: prints one question's routing trace"]
fn probe() {
    let (index, embedder) = index();
    let policies = Policies::demo();
    let scope = policies.scope(&["admin".to_string()]);
    let q =
        std::env::var("Q").unwrap_or_else(|_| "How many customers do we have, by country?".into());
    let r = pollster::block_on(route(
        &index,
        &embedder,
        &q,
        &scope,
        &RouteSettings::default(),
    ))
    .unwrap();
    for s in &r.signals {
        println!("{}: {:?}", s.name, s.ranking);
        for p in s.pool.iter().take(6) {
            println!("    {:.3} {} {}", p.similarity, p.datasource, p.entry);
        }
    }
    println!("fused {:?}", r.fused);
}
