//! Relationships inferred where none are declared, measured against databases that do
//! declare their keys: each demo database is read, its declared foreign keys (and, in a
//! second pass, its primary keys too) are dropped, the engine infers again, and what it
//! finds is compared with what was declared. Prints precision and recall (run with
//! `--nocapture`) and holds them to floors.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::introspect::infer::infer;
use nl2sql_core::schema::{KeySource, SchemaSnapshot};
use nl2sql_core::Metadata;
use nl2sql_native::SqliteFile;
use nl2sql_tests::native::data_dir;
use std::collections::BTreeSet;

/// `table.column -> table.column`, lower-cased.
type Edge = (String, String);

fn edges<'a>(
    keys: impl Iterator<Item = (&'a str, &'a nl2sql_core::schema::ForeignKey)>,
) -> BTreeSet<Edge> {
    let mut out = BTreeSet::new();
    for (table, k) in keys {
        for (from, to) in k.columns.iter().zip(&k.referenced_columns) {
            out.insert((
                format!("{table}.{from}").to_lowercase(),
                format!("{}.{to}", k.referenced_table).to_lowercase(),
            ));
        }
    }
    out
}

/// What was declared, and what inference finds once it is dropped (with the primary keys
/// too when `keyless`).
fn measure(db: &SqliteFile, keyless: bool) -> (BTreeSet<Edge>, BTreeSet<Edge>) {
    let read = pollster::block_on(db.introspect()).unwrap_or_else(|e| panic!("{e}"));
    let declared = edges(read.tables.iter().flat_map(|t| {
        (t.foreign_keys.iter())
            .filter(|k| k.source == KeySource::Database)
            .map(move |k| (t.name.as_str(), k))
    }));
    let mut stripped: SchemaSnapshot = read.clone();
    for t in &mut stripped.tables {
        t.foreign_keys.clear();
        if keyless {
            for c in &mut t.columns {
                c.primary_key_position = None;
            }
        }
    }
    let found = pollster::block_on(infer(db, &stripped));
    let inferred = edges(found.iter().map(|(t, k)| (t.as_str(), k)));
    (declared, inferred)
}

/// The demo databases, and every SQLite file in the folder `NL2SQL_KEYED_DBS` names when it
/// is set (the analysts' corpus's, `python3 corpus/generate.py DIR`): those that declare no
/// key only count what is inferred wrongly.
fn databases() -> Vec<(String, std::path::PathBuf)> {
    let mut out: Vec<(String, std::path::PathBuf)> = ["chinook", "support", "webanalytics"]
        .iter()
        .map(|id| (id.to_string(), data_dir().join(format!("{id}.sqlite"))))
        .collect();
    if let Some(dir) = std::env::var_os("NL2SQL_KEYED_DBS") {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "sqlite"))
            .collect();
        files.sort();
        for path in files {
            let id = path
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            out.push((id, path));
        }
    }
    out
}

#[test]
fn inferred_relationships_match_the_declared_ones() {
    for keyless in [false, true] {
        let (mut tp, mut fp, mut fn_) = (0usize, 0usize, 0usize);
        for (id, path) in databases() {
            let id = id.as_str();
            let db = SqliteFile::open(id, &path).unwrap_or_else(|e| panic!("{id}: {e}"));
            let (declared, inferred) = measure(&db, keyless);
            if declared.is_empty() {
                // Nothing to find: only what is inferred counts, and it cannot be checked
                // here (the schema leaves its joins to naming), so it is shown.
                eprintln!("{id}: declares no key; inferred {inferred:?}");
                continue;
            }
            let hit = declared.intersection(&inferred).count();
            let wrong: Vec<&Edge> = inferred.difference(&declared).collect();
            let missed: Vec<&Edge> = declared.difference(&inferred).collect();
            eprintln!(
                "{id} ({}): {hit} of {} declared found, {} wrong {wrong:?}, missed {missed:?}",
                if keyless {
                    "no keys at all"
                } else {
                    "primary keys kept"
                },
                declared.len(),
                wrong.len()
            );
            tp += hit;
            fp += wrong.len();
            fn_ += missed.len();
        }
        let precision = tp as f64 / (tp + fp).max(1) as f64;
        let recall = tp as f64 / (tp + fn_).max(1) as f64;
        eprintln!(
            "{}: precision {:.1} % ({tp} of {}), recall {:.1} % ({tp} of {})",
            if keyless {
                "no keys at all"
            } else {
                "primary keys kept"
            },
            precision * 100.0,
            tp + fp,
            recall * 100.0,
            tp + fn_
        );
        assert!(precision >= 0.9, "precision {precision}");
        assert!(recall >= 0.7, "recall {recall}");
    }
}
