//! Routing and retrieval on the three demo databases (rusqlite): the reference routing
//! suite, our own routing questions, recall on the Chinook suite, scope and determinism.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::index::{route, BuiltinEmbedder, RouteSettings, SchemaIndex};
use nl2sql_core::policy::Policies;
use nl2sql_tests::gold::REFERENCE_SUITE;
use nl2sql_tests::native::open;
use nl2sql_tests::routing::{
    demo_index, questions, recall, routing_score, OWN_RETRIEVAL, OWN_ROUTING, ROUTING_SUITE,
    WORDS_ROUTING,
};

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
    // All of them (the reference
    // engine routes 75).
    assert!(
        score.passed >= 78,
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

/// Questions that name no table or column, routed with the demo databases' notes (their
/// descriptions and the words people use for their tables, columns and values). The
/// figures are in docs/benchmarks.md ("Words people use"); the floors keep routing from
/// sliding below the measurement with the notes.
#[test]
fn routing_in_the_words_people_use() {
    let (index, embedder) = index();
    let score = pollster::block_on(routing_score(&index, &embedder, WORDS_ROUTING));
    println!(
        "words people use: top-1 {}/{}, recall@3 {}/{}",
        score.top1, score.total, score.listed, score.total
    );
    for f in &score.failures {
        println!("  {f}");
    }
    assert_eq!(score.total, 40);
    assert!(score.top1 >= WITH_NOTES_TOP1, "top-1 {}/40", score.top1);
    assert!(
        score.listed >= WITH_NOTES_LISTED,
        "recall@3 {}/40",
        score.listed
    );
}

/// The figures on `routing_words.yaml` with the demo's notes; the first run, before them
/// and before any change made for these questions, was top-1 34/40 and recall@3 38/40.
const WITH_NOTES_TOP1: usize = 39;
const WITH_NOTES_LISTED: usize = 40;

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
fn retrieval_recall_on_our_held_out_questions() {
    let (index, embedder) = index();
    let r = pollster::block_on(recall(&index, &embedder, OWN_RETRIEVAL));
    println!(
        "held-out recall over {} cases: tables {:.1} %, columns {:.1} %, {:.1} columns sent",
        r.cases,
        r.tables * 100.0,
        r.columns * 100.0,
        r.columns_sent
    );
    for m in &r.misses {
        println!("  {m}");
    }
    assert_eq!(r.cases, 24);
    assert!(
        r.tables >= 0.999 && r.columns >= 0.95,
        "tables {} columns {}",
        r.tables,
        r.columns
    );
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

/// For every demo role and every question of the three suites: routing's trace, the
/// retrieval (search forced, every datasource the role reaches) and its rendering name only
/// tables the role may read.
#[test]
fn no_role_sees_routes_by_or_is_traced_a_table_it_may_not_read() {
    use nl2sql_core::index::{render, retrieve, RetrieveSettings};
    let (index, embedder) = index();
    let policies = Policies::demo();
    let mut all: Vec<String> = questions(ROUTING_SUITE);
    all.extend(questions(OWN_ROUTING));
    all.extend(questions(OWN_RETRIEVAL));
    let mut checked = 0;
    for role in ["admin", "analyst", "viewer"] {
        let scope = policies.scope(&[role.to_string()]);
        let hidden: Vec<(String, String)> = index
            .schemas()
            .iter()
            .flat_map(|s| {
                s.tables
                    .iter()
                    .map(move |t| (s.datasource_id.clone(), t.name.clone()))
            })
            .filter(|(d, t)| !scope.can_read(d, t))
            .collect();
        assert_eq!(hidden.is_empty(), role == "admin", "{role}: {hidden:?}");
        for q in &all {
            let r = pollster::block_on(route(
                &index,
                &embedder,
                q,
                &scope,
                &RouteSettings::default(),
            ))
            .unwrap_or_else(|e| panic!("{role}: {q}: {e}"));
            assert!(r.ranked.iter().all(|d| scope.can_reach(d)), "{role}: {q}");
            let trace = serde_json::to_string(&r).unwrap_or_default();
            for (_, t) in &hidden {
                assert!(
                    !trace.contains(&format!("table {t}\""))
                        && !trace.contains(&format!("column {t}.")),
                    "{role} is traced {t} for {q}: {trace}"
                );
            }
            for s in index
                .schemas()
                .iter()
                .filter(|s| scope.can_reach(&s.datasource_id))
            {
                let d = &s.datasource_id;
                let got = pollster::block_on(retrieve(
                    &index,
                    &embedder,
                    d,
                    q,
                    &scope,
                    &RetrieveSettings::default(),
                    true,
                ))
                .unwrap_or_else(|e| panic!("{role}: {q}: {e}"));
                let named = got
                    .tables
                    .iter()
                    .chain(got.values.iter().map(|v| &v.table))
                    .chain(
                        got.columns
                            .iter()
                            .filter_map(|c| c.split('.').next().map(|_| c)),
                    );
                for name in named {
                    let table = name.split('.').next().unwrap_or_default();
                    assert!(scope.can_read(d, table), "{role} gets {d}.{name} for {q}");
                }
                let text = render(s, &got);
                for (hd, t) in hidden.iter().filter(|(hd, _)| hd == d) {
                    assert!(
                        !text.lines().any(|l| l.starts_with(&format!("{t}(")))
                            && !text.contains(&format!("-> {t}.")),
                        "{role} is shown {hd}.{t} for {q}:\n{text}"
                    );
                }
                checked += 1;
            }
        }
    }
    println!("scope checks: {checked} retrievals over three roles");
    assert!(checked > 300, "{checked}");
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
