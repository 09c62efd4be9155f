//! The demo databases as files in a data folder.

use crate::sqlite_file::SqliteFile;
use nl2sql_core::demo::{demo_database, DEMO_DATABASES};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a demo database cannot be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoPathError {
    /// There is no demo database with this id (the message lists the ids).
    UnknownId(String),
    /// The file is not in the data folder, or could not be opened.
    Missing(String),
}

impl fmt::Display for DemoPathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DemoPathError::UnknownId(why) | DemoPathError::Missing(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for DemoPathError {}

/// The id and path of demo database `id` in `data`, which must exist.
pub fn demo_path(id: &str, data: &Path) -> Result<(String, PathBuf), DemoPathError> {
    let demo = demo_database(id).ok_or_else(|| {
        let ids: Vec<&str> = DEMO_DATABASES.iter().map(|d| d.id).collect();
        DemoPathError::UnknownId(format!(
            "no datasource {id:?}; choose one of {}",
            ids.join(", ")
        ))
    })?;
    let path = data.join(demo.file);
    if !path.is_file() {
        return Err(DemoPathError::Missing(format!(
            "{} is missing; run `cargo xtask data` to fetch the demo databases",
            path.display()
        )));
    }
    Ok((demo.id.to_string(), path))
}

/// Demo database `id` from `data`, opened read-only.
pub fn open_demo(id: &str, data: &Path) -> Result<SqliteFile, DemoPathError> {
    let (id, path) = demo_path(id, data)?;
    SqliteFile::open(&id, &path).map_err(|e| DemoPathError::Missing(e.to_string()))
}
