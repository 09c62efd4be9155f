//! Routing and retrieval in headless Chromium on sql.js: the same suites as natively, and
//! (ignored, run by `cargo xtask bench`) the index build and routing latency in the page,
//! on the demo and on the generated warehouse.
#![cfg(target_arch = "wasm32")]

use nl2sql_core::index::SemanticEmbedder;
use nl2sql_core::index::{route, BlendedEmbedder, BuiltinEmbedder, RouteSettings};
use nl2sql_core::policy::Policies;
use nl2sql_core::Metadata;
use nl2sql_tests::bench::percentiles;
use nl2sql_tests::gold::REFERENCE_SUITE;
use nl2sql_tests::routing::WORDS_ROUTING;
use nl2sql_tests::routing::{demo_index, recall, routing_score, OWN_ROUTING, ROUTING_SUITE};
use nl2sql_tests::sqljs::{opener, sqljs};
use nl2sql_tests::warehouse;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn routing_and_recall_in_the_browser_match_the_native_scores() {
    let sql = sqljs().await;
    let embedder = BuiltinEmbedder::default();
    let index = demo_index(&opener(&sql), &embedder).await;
    let reference = routing_score(&index, &embedder, ROUTING_SUITE).await;
    assert!(
        reference.passed >= 78,
        "{}/{}",
        reference.passed,
        reference.total
    );
    let own = routing_score(&index, &embedder, OWN_ROUTING).await;
    assert_eq!(own.passed, own.total, "{}", own.failures.join("\n"));
    let r = recall(&index, &embedder, REFERENCE_SUITE).await;
    assert!(
        r.tables >= 0.999 && r.columns >= 0.95,
        "{} {}",
        r.tables,
        r.columns
    );
}

/// The semantic embedder's weights, as the page fetches them (`cargo xtask embedder`).
const SEMANTIC: &[u8] = include_bytes!("../../data/semantic-wordllama-256.bin");

/// The blend in the page: its weights read, the demo indexed and routed with it, as
/// natively (tests/corpus_routing.rs: 70 of the reference suite's 78 first for admin, 30/30,
/// 40/40); the times are printed.
#[wasm_bindgen_test]
async fn the_blend_routes_in_the_browser_as_natively() {
    let sql = sqljs().await;
    let t = js_sys::Date::now();
    let semantic =
        SemanticEmbedder::from_bytes("wordllama", SEMANTIC).unwrap_or_else(|e| panic!("{e}"));
    let load_ms = js_sys::Date::now() - t;
    let embedder =
        BlendedEmbedder::new(BuiltinEmbedder::default(), semantic, BlendedEmbedder::SHARE);
    let t = js_sys::Date::now();
    let index = demo_index(&opener(&sql), &embedder).await;
    let build_ms = js_sys::Date::now() - t;
    let t = js_sys::Date::now();
    let reference = routing_score(&index, &embedder, ROUTING_SUITE).await;
    let route_ms = (js_sys::Date::now() - t) / reference.total.max(1) as f64;
    let own = routing_score(&index, &embedder, OWN_ROUTING).await;
    let words = routing_score(&index, &embedder, WORDS_ROUTING).await;
    console_log!(
        "the blend in headless Chromium: {} bytes of weights read in {load_ms:.0} ms; the demo \
         indexed in {build_ms:.0} ms (introspection and value reads on sql.js included); \
         {route_ms:.1} ms per route; reference suite top-1 {}/{}, own {}/{}, words {}/{}",
        SEMANTIC.len(),
        reference.top1,
        reference.total,
        own.passed,
        own.total,
        words.top1,
        words.total
    );
    assert_eq!(own.passed, own.total, "{}", own.failures.join("\n"));
    assert_eq!(words.top1, words.total, "{}", words.failures.join("\n"));
    assert!(
        reference.top1 >= 70,
        "{}/{}",
        reference.top1,
        reference.total
    );
}

#[wasm_bindgen_test]
#[ignore = "a benchmark: run it with `cargo xtask bench`"]
async fn index_build_and_routing_in_the_browser() {
    let sql = sqljs().await;
    let embedder = BuiltinEmbedder::default();
    let t = js_sys::Date::now();
    let index = demo_index(&opener(&sql), &embedder).await;
    let build_ms = js_sys::Date::now() - t;
    // The in-memory part alone: embedding every entry and building the value lookups, from
    // schemas and values already read.
    let mut inputs = Vec::new();
    let open = opener(&sql);
    for d in &nl2sql_core::demo::DEMO_DATABASES {
        let ds = open(d.id);
        let mut schema = ds.introspect().await.unwrap_or_else(|e| panic!("{e}"));
        let values = nl2sql_core::index::ValueIndex::read(
            ds.as_ref(),
            &mut schema,
            nl2sql_tests::routing::VALUE_CAP,
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
        inputs.push((nl2sql_core::demo::demo_profile(d), schema, values));
    }
    let t = js_sys::Date::now();
    let rounds = 5;
    for _ in 0..rounds {
        let mut values = nl2sql_core::index::ValueIndex::default();
        let mut profiles = Vec::new();
        for (p, s, v) in &inputs {
            values.add(&p.id, v.clone());
            profiles.push((p.clone(), s.clone()));
        }
        std::hint::black_box(
            nl2sql_core::index::SchemaIndex::build(&profiles, values, &embedder)
                .await
                .ok(),
        );
    }
    let in_memory_ms = (js_sys::Date::now() - t) / f64::from(rounds);
    let policies = Policies::demo();
    let scope = policies.scope(&[]);
    let questions: Vec<String> = ROUTING_SUITE
        .lines()
        .filter_map(|l| l.trim().strip_prefix("question: "))
        .map(String::from)
        .collect();
    // Batches of 20 routes per question: the page's clock ticks in milliseconds.
    let mut per_question = Vec::new();
    for q in &questions {
        let t = js_sys::Date::now();
        for _ in 0..20 {
            std::hint::black_box(
                route(&index, &embedder, q, &scope, &RouteSettings::default())
                    .await
                    .ok(),
            );
        }
        per_question.push((js_sys::Date::now() - t) * 1000.0 / 20.0);
    }
    let (p50, p95) = percentiles(per_question);
    console_log!(
        "index in headless Chromium: built in {in_memory_ms:.0} ms in memory ({build_ms:.0} ms with \
         introspection and value reads on sql.js); route per question over {} questions: p50 \
         {p50:.0} us, p95 {p95:.0} us",
        questions.len()
    );
}

/// The wasm instance's linear memory, in bytes: it only grows, so the growth over a step is
/// what the step kept or used at its peak.
fn wasm_memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map_or(0.0, |m| {
            m.buffer()
                .dyn_into::<js_sys::ArrayBuffer>()
                .map_or(0.0, |b| f64::from(b.byte_length()))
        })
}

/// The warehouse-scale benchmark's index (tests/warehouse.rs) built in the page: the four
/// generated datasources' schemas and values as reading them finds them, indexed with the
/// blend, and routed and retrieved with it.
#[wasm_bindgen_test]
#[ignore = "a benchmark: run it with `cargo xtask bench`"]
async fn warehouse_index_in_the_browser() {
    let semantic =
        SemanticEmbedder::from_bytes("wordllama", SEMANTIC).unwrap_or_else(|e| panic!("{e}"));
    let embedder =
        BlendedEmbedder::new(BuiltinEmbedder::default(), semantic, BlendedEmbedder::SHARE);
    let sources = warehouse::sources();
    let t = js_sys::Date::now();
    let reads: Vec<_> = sources.iter().map(warehouse::read).collect();
    let generated_ms = js_sys::Date::now() - t;
    let before = wasm_memory_bytes();
    let t = js_sys::Date::now();
    let mut values = nl2sql_core::index::ValueIndex::default();
    let mut profiles = Vec::new();
    for (s, r) in sources.iter().zip(&reads) {
        values.add(s.id, r.values.clone());
        let profile = nl2sql_core::index::DatasourceProfile {
            id: s.id.into(),
            description: s.description.into(),
            ..Default::default()
        };
        profiles.push((profile, r.schema.clone()));
    }
    let index = nl2sql_core::index::SchemaIndex::build(&profiles, values, &embedder)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let build_ms = js_sys::Date::now() - t;
    let grown = wasm_memory_bytes() - before;
    let cases = warehouse::gold_cases(&sources);
    let policies = Policies::demo();
    let scope = policies.scope(&["admin".to_string()]);
    let mut per_question = Vec::new();
    for c in &cases {
        let t = js_sys::Date::now();
        for _ in 0..5 {
            std::hint::black_box(
                route(
                    &index,
                    &embedder,
                    &c.question,
                    &scope,
                    &RouteSettings::default(),
                )
                .await
                .ok(),
            );
        }
        per_question.push((js_sys::Date::now() - t) / 5.0);
    }
    let (p50, p95) = percentiles(per_question);
    let t = js_sys::Date::now();
    let r = nl2sql_tests::routing::recall_of(&index, &embedder, cases.clone()).await;
    let retrieve_ms = (js_sys::Date::now() - t) / cases.len() as f64;
    console_log!(
        "the warehouse in headless Chromium: {} tables; schemas generated in {generated_ms:.0} \
         ms; index built with the blend in {build_ms:.0} ms, {} entries, about {:.0} MB \
         (the wasm memory grew {:.0} MB); route p50 {p50:.1} ms, p95 {p95:.1} ms; retrieval \
         {retrieve_ms:.1} ms a question, recall of the tables needed {:.3} over {} questions",
        reads.iter().map(|r| r.schema.tables.len()).sum::<usize>(),
        index.entries().len(),
        index.approx_bytes() as f64 / 1e6,
        grown / 1e6,
        r.tables,
        r.cases
    );
    assert!(r.tables >= 0.99, "{}", r.misses.join("\n"));
}
