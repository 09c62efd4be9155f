//! The demo databases as files in a data folder.

use crate::sqlite_file::SqliteFile;
use nl2sql_core::demo::{demo_database, DEMO_DATABASES};
use nl2sql_core::error::{Error, ErrorCode};
use std::path::{Path, PathBuf};

/// The id and path of demo database `id` in `data`, which must exist.
pub fn demo_path(id: &str, data: &Path) -> Result<(String, PathBuf), Error> {
    let demo = demo_database(id).ok_or_else(|| {
        let ids: Vec<&str> = DEMO_DATABASES.iter().map(|d| d.id).collect();
        Error::new(
            ErrorCode::DatasourceNotFound,
            format!("no datasource {id:?}; choose one of {}", ids.join(", ")),
        )
    })?;
    let path = data.join(demo.file);
    if !path.is_file() {
        return Err(crate::errors::unreadable(format!(
            "{} is missing; run `cargo xtask data` to fetch the demo databases",
            path.display()
        )));
    }
    Ok((demo.id.to_string(), path))
}

/// Demo database `id` from `data`, opened read-only.
pub fn open_demo(id: &str, data: &Path) -> Result<SqliteFile, Error> {
    let (id, path) = demo_path(id, data)?;
    SqliteFile::open(&id, &path).map_err(|e| crate::errors::unreadable(e.to_string()))
}
