//! The schema cache: what reading a project's databases gave (each schema with its
//! statistics, and its text values), saved beside the project file so that a command does
//! not read a large database again for every question.
//!
//! `nl2sql index` writes it. Every later command opens each database, reads its structural
//! fingerprint (the catalogue alone, no statistics) and takes the cached read when the
//! fingerprint and the datasource's configuration are unchanged; otherwise it reads the
//! database again and, the cache being in use, refreshes that entry. Statistics and values
//! are as of the last read: rows added since do not change a fingerprint.
//!
//! The file holds sample and distinct values of the tables the project shows (never of
//! hidden ones), so it is written readable by its owner only.

use nl2sql_core::service::ReadSource;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cache's format; a cache of another format is ignored (and rewritten by `nl2sql
/// index`).
pub const CACHE_FORMAT: u32 = 2;

/// Where a project's cache lives: `.nl2sql/schema-cache.json` beside its file.
pub fn cache_path(project_file: &Path) -> PathBuf {
    project_file
        .parent()
        .unwrap_or_else(|| Path::new(""))
        .join(".nl2sql")
        .join("schema-cache.json")
}

/// The reads of a project's datasources, by id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SchemaCache {
    /// [`CACHE_FORMAT`] when written.
    pub format: u32,
    /// Per datasource id.
    pub sources: BTreeMap<String, CachedRead>,
}

/// One datasource's read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedRead {
    /// What the read depends on besides the database itself: the engine, the address
    /// without its password, the table patterns and the row limit.
    pub key: String,
    /// When it was read, in seconds since 1970 (UTC).
    pub read_at: u64,
    /// What reading gave.
    pub read: ReadSource,
}

/// Why a cache could not be used; the databases are read instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheProblem(pub String);

impl SchemaCache {
    /// The cache at `path`: none when there is no file; a problem when it cannot be read or
    /// is not a cache of this format (the commands then read the databases).
    pub fn load(path: &Path) -> Result<Option<SchemaCache>, CacheProblem> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CacheProblem(format!("{}: {e}", path.display()))),
        };
        let cache: SchemaCache = serde_json::from_str(&text)
            .map_err(|e| CacheProblem(format!("{} is not a schema cache: {e}", path.display())))?;
        if cache.format != CACHE_FORMAT {
            return Err(CacheProblem(format!(
                "{} has format {}, this nl2sql reads {CACHE_FORMAT}",
                path.display(),
                cache.format
            )));
        }
        Ok(Some(cache))
    }

    /// The read of `id` when it was made under `key` of a database whose structure still
    /// has `fingerprint`.
    pub fn lookup(&self, id: &str, key: &str, fingerprint: &str) -> Option<&ReadSource> {
        self.sources
            .get(id)
            .filter(|c| c.key == key && c.read.schema.fingerprint == fingerprint)
            .map(|c| &c.read)
    }

    /// Records `read` of `id` under `key`, read now.
    pub fn put(&mut self, id: &str, key: String, read: ReadSource) {
        let read_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.sources
            .insert(id.to_string(), CachedRead { key, read_at, read });
    }

    /// Writes the cache to `path` whole or not at all (a temporary file renamed over it),
    /// readable by its owner only.
    pub fn save(&self, path: &Path) -> Result<(), CacheProblem> {
        let fail = |e: &dyn std::fmt::Display| CacheProblem(format!("{}: {e}", path.display()));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
        }
        let text = serde_json::to_string(self).map_err(|e| fail(&e))?;
        let temporary = path.with_extension(format!("json.{}", std::process::id()));
        write_private(&temporary, text.as_bytes()).map_err(|e| fail(&e))?;
        std::fs::rename(&temporary, path).map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            fail(&e)
        })
    }
}

#[cfg(unix)]
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}

#[cfg(not(unix))]
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nl2sql_core::adapter::{Dialect, SchemaSnapshot};

    fn read(fingerprint_of: &str) -> ReadSource {
        let mut schema = SchemaSnapshot::new(fingerprint_of, Dialect::Sqlite, vec![]);
        schema.fingerprint = fingerprint_of.into();
        ReadSource {
            schema,
            values: vec![],
        }
    }

    #[test]
    fn a_read_is_reused_only_for_the_same_configuration_and_structure() {
        let dir = std::env::temp_dir().join(format!("nl2sql-cache-{}", std::process::id()));
        let path = cache_path(&dir.join("nl2sql.toml"));
        let mut cache = SchemaCache {
            format: CACHE_FORMAT,
            ..SchemaCache::default()
        };
        cache.put("shop", "k1".into(), read("f1"));
        cache.save(&path).unwrap();
        let again = SchemaCache::load(&path).unwrap().unwrap();
        assert!(again.lookup("shop", "k1", "f1").is_some());
        assert!(
            again.lookup("shop", "k2", "f1").is_none(),
            "another configuration"
        );
        assert!(
            again.lookup("shop", "k1", "f2").is_none(),
            "another structure"
        );
        assert!(again.lookup("web", "k1", "f1").is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::write(&path, "{ not json").unwrap();
        let e = SchemaCache::load(&path).unwrap_err();
        assert!(e.0.contains("is not a schema cache"), "{}", e.0);
        assert_eq!(SchemaCache::load(&dir.join("none.json")), Ok(None));
        let _ = std::fs::remove_dir_all(dir);
    }
}
