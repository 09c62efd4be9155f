//! The warehouse-scale benchmark: the generated warehouse of `nl2sql_tests::warehouse`
//! (four DuckDB datasources, 2,000 tables in 100 schemas, no declared keys, wide reporting
//! tables) written to files, read as any datasource is, indexed with the engine's embedder
//! (the built-in one blended with the offline semantic one) and the built-in one alone, and
//! searched. It prints the read and index times, the index's memory, routing and retrieval
//! times, retrieval's recall of the tables questions need and the planner's prompt size,
//! and holds recall and the prompt budget (`cargo xtask bench`, release).
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::conversation::Thread;
use nl2sql_core::index::{
    route, BlendedEmbedder, BuiltinEmbedder, DatasourceProfile, Embedder, RouteSettings,
    SchemaIndex, ValueIndex,
};
use nl2sql_core::policy::Policies;
use nl2sql_core::workspace::{read_source, ReadSource};
use nl2sql_native::DuckDbFile;
use nl2sql_tests::bench::percentiles;
use nl2sql_tests::large::Cell;
use nl2sql_tests::native::semantic_embedder;
use nl2sql_tests::routing::{planner_input, recall_of};
use nl2sql_tests::warehouse::{self, gold_cases, Source};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The goals: retrieval finds at least this share of the tables the questions need, the
/// planner's median prompt stays within this many tokens.
const TABLE_RECALL_GOAL: f64 = 0.99;
const PROMPT_GOAL: usize = 4_000;

/// Writes `source` into a new DuckDB file at `path`: a schema per area, a table per
/// generated one, no key declared, every row.
fn write(source: &Source, path: &Path) -> duckdb::Result<()> {
    let _ = std::fs::remove_file(path);
    let conn = duckdb::Connection::open(path)?;
    let mut schemas: Vec<&str> = source.tables.iter().map(|t| t.schema.as_str()).collect();
    schemas.sort_unstable();
    schemas.dedup();
    for s in schemas {
        conn.execute_batch(&format!("CREATE SCHEMA {s}"))?;
    }
    for t in &source.tables {
        let defs: Vec<String> = (t.columns.iter())
            .map(|c| format!("\"{}\" {}", c.name, c.declared()))
            .collect();
        let rows: Vec<String> = (0..t.rows)
            .map(|row| {
                let cells: Vec<String> = (0..t.columns.len())
                    .map(|i| literal(&t.cell(i, row)))
                    .collect();
                format!("({})", cells.join(", "))
            })
            .collect();
        conn.execute_batch(&format!(
            "CREATE TABLE {} ({}); INSERT INTO {} VALUES {};",
            t.qualified(),
            defs.join(", "),
            t.qualified(),
            rows.join(", ")
        ))?;
    }
    Ok(())
}

fn literal(cell: &Cell) -> String {
    match cell {
        Cell::Int(n) => n.to_string(),
        Cell::Real(x) => x.to_string(),
        Cell::Text(t) => format!("'{}'", t.replace('\'', "''")),
    }
}

/// The process's resident memory, from `/proc/self/status` (0 where there is none).
fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kb| kb * 1024)
}

fn index_with(
    sources: &[Source],
    reads: &[ReadSource],
    embedder: &dyn Embedder,
) -> (SchemaIndex, Duration, u64) {
    let before = resident_bytes();
    let started = Instant::now();
    let mut values = ValueIndex::default();
    let mut schemas = Vec::new();
    for (source, read) in sources.iter().zip(reads) {
        values.add(source.id, read.values.clone());
        let profile = DatasourceProfile {
            id: source.id.into(),
            description: source.description.into(),
            ..DatasourceProfile::default()
        };
        schemas.push((profile, read.schema.clone()));
    }
    let index = pollster::block_on(SchemaIndex::build(&schemas, values, embedder))
        .unwrap_or_else(|e| panic!("{e}"));
    let took = started.elapsed();
    (index, took, resident_bytes().saturating_sub(before))
}

/// Writes each source into a DuckDB file and reads it back as any datasource is read,
/// printing the times.
fn write_and_read(sources: &[Source]) -> Vec<ReadSource> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("warehouse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let started = Instant::now();
    for s in sources {
        write(s, &dir.join(format!("{}.duckdb", s.id))).unwrap_or_else(|e| panic!("{e}"));
    }
    println!(
        "  write the DuckDB files: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut reads = Vec::new();
    for s in sources {
        let db = DuckDbFile::open(s.id, dir.join(format!("{}.duckdb", s.id)))
            .unwrap_or_else(|e| panic!("{e}"));
        let started = Instant::now();
        let read = pollster::block_on(read_source(s.id, &db)).unwrap_or_else(|e| panic!("{e}"));
        println!(
            "  read {} (introspection, inference, text values): {:.1} s",
            s.id,
            started.elapsed().as_secs_f64()
        );
        // The database as read is the generated one: the page's benchmark builds it alone.
        let generated = warehouse::read(s);
        let names = |r: &ReadSource| -> Vec<(String, usize)> {
            let mut n: Vec<(String, usize)> = (r.schema.tables.iter())
                .map(|t| (t.name.clone(), t.columns.len()))
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(&read), names(&generated), "{}", s.id);
        reads.push(read);
    }
    let _ = std::fs::remove_dir_all(&dir);
    reads
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

#[test]
#[ignore = "a benchmark: run it with `cargo xtask bench` (release)"]
fn warehouse_scale_benchmark() {
    let sources = warehouse::sources();

    // `NL2SQL_WAREHOUSE_GENERATED=1` skips the databases and takes what reading them finds
    // from the generator (no relationships inferred): for iterating on the index alone.
    let reads = if std::env::var_os("NL2SQL_WAREHOUSE_GENERATED").is_some() {
        println!("  (the schemas as generated: no database written or read)");
        sources.iter().map(warehouse::read).collect()
    } else {
        write_and_read(&sources)
    };
    let tables: usize = reads.iter().map(|r| r.schema.tables.len()).sum();
    let columns: usize = (reads.iter())
        .flat_map(|r| &r.schema.tables)
        .map(|t| t.columns.len())
        .sum();
    let wide = (reads.iter())
        .flat_map(|r| &r.schema.tables)
        .filter(|t| t.columns.len() >= 100)
        .count();
    let widest = (reads.iter())
        .flat_map(|r| &r.schema.tables)
        .map(|t| t.columns.len())
        .max()
        .unwrap_or(0);
    let mut schemas: Vec<&str> = (reads.iter())
        .flat_map(|r| &r.schema.tables)
        .filter_map(|t| t.schema.as_deref())
        .collect();
    schemas.sort_unstable();
    schemas.dedup();
    let inferred: usize = (reads.iter())
        .flat_map(|r| &r.schema.tables)
        .map(|t| t.foreign_keys.len())
        .sum();
    assert!(tables >= 2_000 && schemas.len() >= 40 && wide > 0);

    let blend = BlendedEmbedder::new(
        BuiltinEmbedder::default(),
        semantic_embedder(),
        BlendedEmbedder::SHARE,
    );
    let lexical = BuiltinEmbedder::default();
    let cases = gold_cases(&sources);
    let questions: Vec<String> = cases.iter().map(|c| c.question.clone()).collect();

    println!(
        "warehouse: {tables} tables in {} schemas over {} datasources, {columns} columns, \
         {wide} tables of 100 columns or more (widest {widest}), no declared keys \
         ({inferred} relationships inferred)",
        schemas.len(),
        sources.len()
    );
    let embedders: [(&str, &dyn Embedder, bool); 2] = [
        (
            "built-in and semantic, blended (the engine's)",
            &blend,
            true,
        ),
        ("built-in alone", &lexical, false),
    ];
    for (name, embedder, engine) in embedders {
        let (index, built, grown) = index_with(&sources, &reads, embedder);
        let policies = Policies::demo();
        let scope = policies.scope(&["admin".to_string()]);
        let mut routing = Vec::new();
        let mut first = 0;
        for _ in 0..3 {
            first = 0;
            for case in &cases {
                let t = Instant::now();
                let r = pollster::block_on(route(
                    &index,
                    embedder,
                    &case.question,
                    &scope,
                    &RouteSettings::default(),
                ))
                .unwrap_or_else(|e| panic!("{e}"));
                routing.push(t.elapsed().as_secs_f64() * 1e3);
                first += usize::from(r.ranked.first() == case.datasources.first());
            }
        }
        let started = Instant::now();
        let recall = pollster::block_on(recall_of(&index, embedder, cases.clone()));
        let retrieving = started.elapsed().as_secs_f64() * 1e3 / cases.len() as f64;
        let bpe = tiktoken_rs::o200k_base().unwrap_or_else(|e| panic!("o200k_base: {e}"));
        let mut tokens: Vec<usize> = (cases.iter())
            .map(|c| {
                let input = pollster::block_on(planner_input(
                    &index,
                    embedder,
                    &c.datasources[0],
                    &c.question,
                    &Thread::default(),
                ));
                input.iter().map(|t| bpe.encode_ordinary(t).len()).sum()
            })
            .collect();
        tokens.sort_unstable();
        let (p50, p95) = percentiles(routing);
        println!("  {name}:");
        println!(
            "    index build: {:.1} s, {} entries, about {:.0} MB (resident memory grew {:.0} MB)",
            built.as_secs_f64(),
            index.entries().len(),
            mb(index.approx_bytes() as u64),
            mb(grown)
        );
        println!(
            "    route one question: p50 {p50:.1} ms, p95 {p95:.1} ms ({} questions x 3); the \
             question's own layer first for {first} of {} (the layers hold the same \
             business, so this is not a routing score)",
            questions.len(),
            questions.len()
        );
        println!(
            "    retrieval: {:.1} ms a question; recall of the tables needed {:.3} over {} \
             questions, {:.1} columns sent",
            retrieving, recall.tables, recall.cases, recall.columns_sent
        );
        println!(
            "    planner input tokens (o200k_base, instructions and plan schema included): \
             median {}, max {}",
            tokens[tokens.len() / 2],
            tokens[tokens.len() - 1]
        );
        for miss in &recall.misses {
            println!("      missed {miss}");
        }
        // The goals are the engine's: the built-in embedder alone is printed to compare.
        if engine {
            assert!(
                recall.tables >= TABLE_RECALL_GOAL,
                "{name}: tables {}",
                recall.tables
            );
            assert!(
                tokens[tokens.len() / 2] <= PROMPT_GOAL,
                "{name}: {tokens:?}"
            );
        }
    }
}
