//! Native test helpers: the demo databases opened with rusqlite from the repository's
//! `data/` (fetched by `cargo xtask data`).

use nl2sql_core::index::SemanticEmbedder;
use nl2sql_core::Metadata;
use nl2sql_core::{Datasource, SchemaSnapshot};
use nl2sql_native::{open_demo, SqliteFile};
use std::path::PathBuf;

/// The repository's `data/` folder.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// Demo database `id`, opened read-only; panics with the fix when it is missing.
pub fn open_file(id: &str) -> SqliteFile {
    open_demo(id, &data_dir()).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// Demo database `id` as a datasource.
pub fn open(id: &str) -> Box<dyn Datasource> {
    Box::new(open_file(id))
}

/// Chinook, opened read-only.
pub fn chinook() -> SqliteFile {
    open_file("chinook")
}

/// Chinook and its schema as read.
pub fn chinook_with_schema() -> (SqliteFile, SchemaSnapshot) {
    let db = chinook();
    let schema = pollster::block_on(db.introspect()).unwrap_or_else(|e| panic!("{e}"));
    (db, schema)
}

/// The offline semantic embedder from `data/semantic-wordllama-256.bin`; panics with the
/// fix when the weights are missing.
pub fn semantic_embedder() -> SemanticEmbedder {
    let path = data_dir().join("semantic-wordllama-256.bin");
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask embedder`)", path.display()));
    SemanticEmbedder::from_bytes("wordllama", &bytes).unwrap_or_else(|e| panic!("{e}"))
}
