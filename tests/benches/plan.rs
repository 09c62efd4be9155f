//! The plan path, natively: JSON parse + validate + lower + render for each of the 43 gold
//! plans against the real Chinook schema. Prints p50/p95 over all runs first (the numbers
//! `docs/benchmarks.md` records), then criterion's own statistics.
//!
//! `cargo bench -p nl2sql-tests --bench plan` (or `cargo xtask bench`).

// The bench target is built for wasm32 too (clippy --all-targets); it measures natively only
// (the browser run is tests/browser_bench.rs).
#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{criterion_group, Criterion};
    use nl2sql_core::policy::Policies;
    use nl2sql_core::Metadata;
    use nl2sql_native::SqliteFile;
    use nl2sql_tests::bench::{gold_plan_json, percentiles, plan_to_sql};
    use std::hint::black_box;
    use std::path::PathBuf;
    use std::time::Instant;

    fn chinook_schema() -> nl2sql_core::SchemaSnapshot {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/chinook.sqlite");
        let db = SqliteFile::open("chinook", path).expect("chinook opens (run `cargo xtask data`)");
        pollster::block_on(db.introspect()).expect("chinook introspects")
    }

    /// Every plan timed one run at a time, many rounds: the distribution a caller sees.
    fn print_percentiles(plans: &[(String, String)], schema: &nl2sql_core::SchemaSnapshot) {
        let policies = Policies::demo();
        const ROUNDS: usize = 300;
        let mut samples = Vec::with_capacity(plans.len() * ROUNDS);
        let mut slowest = (String::new(), 0.0f64);
        for (id, json) in plans {
            assert!(
                plan_to_sql(json, schema, &policies) > 0,
                "{id} does not get through"
            );
            let mut mine = Vec::with_capacity(ROUNDS);
            for _ in 0..ROUNDS {
                let t = Instant::now();
                black_box(plan_to_sql(black_box(json), schema, &policies));
                mine.push(t.elapsed().as_secs_f64() * 1e6);
            }
            let (p50, p95) = percentiles(mine.clone());
            println!("  {id}: p50 {p50:.1} us, p95 {p95:.1} us");
            if p50 > slowest.1 {
                slowest = (id.clone(), p50);
            }
            samples.extend(mine);
        }
        let (p50, p95) = percentiles(samples);
        println!(
        "plan path (parse + validate + lower + render), native, {} gold plans x {ROUNDS} runs: \
         p50 {p50:.1} us, p95 {p95:.1} us; slowest plan {} at p50 {:.1} us",
        plans.len(),
        slowest.0,
        slowest.1
    );
    }

    /// Where the time goes: each stage's median over all plans.
    fn print_stages(plans: &[(String, String)], schema: &nl2sql_core::SchemaSnapshot) {
        use nl2sql_core::lower::lower;
        use nl2sql_core::plan::Plan;
        use nl2sql_core::validate::{validate, ValidatorSettings};
        let policies = Policies::demo();
        let scope = policies.scope(&[]);
        let settings = ValidatorSettings::default();
        const ROUNDS: usize = 100;
        let mut stages: [Vec<f64>; 4] = Default::default();
        let time = |f: &mut dyn FnMut()| {
            let t = Instant::now();
            for _ in 0..ROUNDS {
                f();
            }
            t.elapsed().as_secs_f64() * 1e6 / ROUNDS as f64
        };
        for (_, json) in plans {
            let plan = Plan::from_json(json).expect("gold plans parse");
            let query = lower(&plan, schema, schema.dialect, &settings.lower).expect("builds");
            stages[0].push(time(&mut || {
                black_box(Plan::from_json(black_box(json)).ok());
            }));
            stages[1].push(time(&mut || {
                black_box(validate(Some(&plan), schema, &scope, &settings));
            }));
            stages[2].push(time(&mut || {
                black_box(lower(&plan, schema, schema.dialect, &settings.lower).ok());
            }));
            stages[3].push(time(&mut || {
                black_box(query.to_string());
            }));
        }
        let [parse, validate, lower, render] = stages.map(|s| percentiles(s).0);
        println!(
            "stage medians over the gold plans: parse {parse:.1} us, validate {validate:.1} us \
         (includes one lowering), lower {lower:.1} us, render {render:.1} us"
        );
    }

    fn bench(c: &mut Criterion) {
        let schema = chinook_schema();
        let plans = gold_plan_json();
        print_percentiles(&plans, &schema);
        print_stages(&plans, &schema);
        let policies = Policies::demo();
        c.bench_function("all 43 gold plans, one pass each", |b| {
            b.iter(|| {
                for (_, json) in &plans {
                    black_box(plan_to_sql(black_box(json), &schema, &policies));
                }
            })
        });
        for id in ["chinook_001", "chinook_008", "chinook_039"] {
            if let Some((_, json)) = plans.iter().find(|(i, _)| i == id) {
                c.bench_function(id, |b| {
                    b.iter(|| black_box(plan_to_sql(black_box(json), &schema, &policies)))
                });
            }
        }
    }

    criterion_group! {
        name = benches;
        config = Criterion::default()
            .sample_size(30)
            .warm_up_time(std::time::Duration::from_millis(500))
            .measurement_time(std::time::Duration::from_secs(2));
        targets = bench
    }
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

#[cfg(target_arch = "wasm32")]
fn main() {}
