//! The files a person picked: their bytes added to the page's engine as one datasource,
//! and an id from the first one's name.

use crate::catalog::read_file;
use crate::engine::InPage;
use nl2sql_core::files;
use nl2sql_wasm::{DatabaseFile, NamedBytes};

/// Reads `picked` and adds them to `page` as datasource `id`; what was added, in words.
pub async fn add_files(
    page: &InPage,
    picked: &[web_sys::File],
    id: String,
    description: String,
) -> Result<String, String> {
    let file = DatabaseFile {
        id: id.clone(),
        description,
        examples: vec![],
        files: read_files(picked).await?,
        read_ahead: None,
        notes: Default::default(),
        query_timeout_ms: None,
    };
    page.add(file).await?;
    let listed = page.listed();
    let tables = listed
        .iter()
        .find(|s| s.id == id)
        .map_or(0, |s| s.schema.tables.len());
    Ok(format!(
        "Added {id}: {tables} tables, read and indexed; questions can be routed to it now."
    ))
}

/// The chosen files' bytes; one too large to open is refused before it is read, so a
/// 200 MB file costs the page nothing.
async fn read_files(picked: &[web_sys::File]) -> Result<Vec<NamedBytes>, String> {
    let mut named = Vec::with_capacity(picked.len());
    for f in picked {
        if let Some(e) = files::too_large(&f.name(), f.size() as u64) {
            return Err(format!("{e} (DATASOURCE_UNREADABLE)"));
        }
        named.push(NamedBytes::new(f.name(), read_file(f).await?));
    }
    Ok(named)
}

/// A datasource id from a file name: `My Shop.sqlite` → `my_shop`.
pub fn slug(file_name: &str) -> String {
    let stem = file_name.rsplit_once('.').map_or(file_name, |(s, _)| s);
    let s: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_matches('_').to_string();
    if s.is_empty() {
        "uploaded".into()
    } else {
        s.chars().take(40).collect()
    }
}
