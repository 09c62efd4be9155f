//! The schema index, natively: build time for the three demo databases (reading their values
//! from SQLite, and the in-memory part alone), routing and retrieval latency per question,
//! memory. `cargo bench -p nl2sql-tests --bench index` (or `cargo xtask bench`).

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{criterion_group, Criterion};
    use nl2sql_core::demo::{demo_database, demo_profile, DEMO_DATABASES};
    use nl2sql_core::index::{
        retrieve, route, BuiltinEmbedder, RetrieveSettings, RouteSettings, SchemaIndex, ValueIndex,
    };
    use nl2sql_core::policy::Policies;
    use nl2sql_core::{Datasource, Metadata};
    use nl2sql_native::SqliteFile;
    use nl2sql_tests::bench::percentiles;
    use nl2sql_tests::routing::{demo_index, VALUE_CAP};
    use std::hint::black_box;
    use std::path::PathBuf;
    use std::time::Instant;

    fn open(id: &str) -> Box<dyn Datasource> {
        let demo = demo_database(id).expect("a demo database");
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../data")
            .join(demo.file);
        Box::new(SqliteFile::open(id, path).expect("opens"))
    }

    fn questions() -> Vec<String> {
        let text = include_str!("../../data/routing.yaml");
        let suite: serde_norway::Value = serde_norway::from_str(text).expect("parses");
        suite["cases"]
            .as_sequence()
            .map(|cases| {
                cases
                    .iter()
                    .filter_map(|c| c["question"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn bench(c: &mut Criterion) {
        let embedder = BuiltinEmbedder::default();
        // Reading schemas and values from the databases, then building.
        let t = Instant::now();
        let index = pollster::block_on(demo_index(&open, &embedder));
        let with_reads = t.elapsed().as_secs_f64() * 1e3;
        // The in-memory part alone: embedding every entry, the value lookups.
        let mut inputs = Vec::new();
        for d in &DEMO_DATABASES {
            let ds = open(d.id);
            let mut schema = pollster::block_on(ds.introspect()).expect("introspects");
            let values = pollster::block_on(ValueIndex::read(ds.as_ref(), &mut schema, VALUE_CAP))
                .expect("values");
            inputs.push((demo_profile(d), schema, values));
        }
        let build = || {
            let mut values = ValueIndex::default();
            let mut profiles = Vec::new();
            for (p, s, v) in &inputs {
                values.add(&p.id, v.clone());
                profiles.push((p.clone(), s.clone()));
            }
            pollster::block_on(SchemaIndex::build(&profiles, values, &embedder)).expect("builds")
        };
        let mut builds = Vec::new();
        for _ in 0..10 {
            let t = Instant::now();
            black_box(build());
            builds.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let (build_p50, _) = percentiles(builds);
        println!(
            "index of the 3 demo databases: {} entries, {} values, about {:.1} MB; build {build_p50:.1} ms \
             in memory (p50 of 10), {with_reads:.0} ms with introspection and value reads (debug of \
             neither: release bench)",
            index.entries().len(),
            index.values().len(),
            index.approx_bytes() as f64 / 1e6
        );
        let policies = Policies::demo();
        let scope = policies.scope(&[]);
        let questions = questions();
        let mut routes = Vec::new();
        let mut retrievals = Vec::new();
        for q in &questions {
            let t = Instant::now();
            black_box(
                pollster::block_on(route(
                    &index,
                    &embedder,
                    q,
                    &scope,
                    &RouteSettings::default(),
                ))
                .ok(),
            );
            routes.push(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            black_box(
                pollster::block_on(retrieve(
                    &index,
                    &embedder,
                    "chinook",
                    q,
                    &scope,
                    &RetrieveSettings::default(),
                    true,
                ))
                .ok(),
            );
            retrievals.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let (r50, r95) = percentiles(routes);
        let (s50, s95) = percentiles(retrievals);
        println!(
            "per question over the {} routing-suite questions: route p50 {r50:.0} us, p95 {r95:.0} us; \
             retrieve (forced search) p50 {s50:.0} us, p95 {s95:.0} us",
            questions.len()
        );
        compare_hnsw(&index, &embedder, &questions);
        c.bench_function("route one question", |b| {
            b.iter(|| {
                pollster::block_on(route(
                    &index,
                    &embedder,
                    black_box(&questions[0]),
                    &scope,
                    &RouteSettings::default(),
                ))
            })
        });
        c.bench_function("build the index in memory", |b| b.iter(build));
    }

    /// One vector as an `instant-distance` point: cosine distance of unit vectors.
    #[derive(Clone)]
    struct Unit(Vec<f32>);

    impl instant_distance::Point for Unit {
        fn distance(&self, other: &Self) -> f32 {
            1.0 - nl2sql_core::index::similarity(&self.0, &other.0)
        }
    }

    /// The nearest 20 entries by exact scan and by an HNSW graph, at the demo's size and at
    /// larger ones (the demo's vectors repeated with a little noise): where a graph starts
    /// to pay.
    fn compare_hnsw(index: &SchemaIndex, embedder: &BuiltinEmbedder, questions: &[String]) {
        let queries: Vec<Vec<f32>> = questions.iter().map(|q| embedder.vector(q)).collect();
        for copies in [1usize, 10] {
            let mut points = Vec::new();
            for c in 0..copies {
                for i in 0..index.entries().len() {
                    let mut v = index.vector(i);
                    // A deterministic nudge, so copies are distinct points.
                    if c > 0 {
                        let at = (i * 7 + c) % v.len();
                        v[at] += 0.01;
                    }
                    points.push(Unit(v));
                }
            }
            let n = points.len();
            let t = Instant::now();
            let map = instant_distance::Builder::default()
                .build(points.clone(), (0..n).collect::<Vec<_>>());
            let build_ms = t.elapsed().as_secs_f64() * 1e3;
            let mut search = instant_distance::Search::default();
            let t = Instant::now();
            for q in &queries {
                black_box(map.search(&Unit(q.clone()), &mut search).take(20).count());
            }
            let hnsw_us = t.elapsed().as_secs_f64() * 1e6 / queries.len() as f64;
            let t = Instant::now();
            for q in &queries {
                let mut sims: Vec<f32> = points
                    .iter()
                    .map(|p| nl2sql_core::index::similarity(q, &p.0))
                    .collect();
                sims.sort_by(|a, b| b.total_cmp(a));
                sims.truncate(20);
                black_box(sims);
            }
            let exact_us = t.elapsed().as_secs_f64() * 1e6 / queries.len() as f64;
            println!(
                "nearest 20 of {n} entries: exact scan {exact_us:.0} us, HNSW {hnsw_us:.0} us \
                 (graph built in {build_ms:.0} ms)"
            );
        }
    }

    criterion_group! {
        name = benches;
        config = Criterion::default()
            .sample_size(10)
            .warm_up_time(std::time::Duration::from_millis(300))
            .measurement_time(std::time::Duration::from_secs(2));
        targets = bench
    }
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

#[cfg(target_arch = "wasm32")]
fn main() {}
