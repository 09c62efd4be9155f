//! The demo databases read ahead of time (schema, statistics, text values), each tied to
//! its file's SHA-256, so the playground can skip reading them in the page.

use crate::demo::demo_path;
use crate::sqlite_file::SqliteFile;
use nl2sql_core::demo::DEMO_DATABASES;
use nl2sql_core::service::{read_source, Catalogue, CatalogueEntry, CATALOGUE_FORMAT};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// Every demo database in `data`, read and hashed.
pub fn demo_catalogue(data: &Path) -> Result<Catalogue, String> {
    let mut sources = BTreeMap::new();
    for d in &DEMO_DATABASES {
        let (id, path) = demo_path(d.id, data).map_err(|e| e.to_string())?;
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let sha256: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let db = SqliteFile::open(&id, &path).map_err(|e| e.to_string())?;
        let read = pollster::block_on(read_source(&id, &db)).map_err(|e| e.to_string())?;
        sources.insert(id, CatalogueEntry { sha256, read });
    }
    Ok(Catalogue {
        format: CATALOGUE_FORMAT,
        sources,
    })
}
