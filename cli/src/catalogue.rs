//! `nl2sql catalogue`: the demo databases read ahead of time (schema, statistics, text
//! values), each tied to its file's SHA-256, as one JSON file the playground loads instead
//! of reading the databases itself in the page.

use crate::{demo_path, Failure};
use nl2sql_cli::SqliteFile;
use nl2sql_core::demo::DEMO_DATABASES;
use nl2sql_core::workspace::{read_source, Catalogue, CatalogueEntry, CATALOGUE_FORMAT};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

pub fn run(args: &[String]) -> Result<(), Failure> {
    let mut data = PathBuf::from("data");
    let mut out: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--data" => data = it.next().ok_or("--data needs a folder")?.into(),
            "--out" => out = Some(it.next().ok_or("--out needs a file")?.into()),
            other => return Err(Failure::Usage(format!("unknown option {other:?}"))),
        }
    }
    let mut sources = BTreeMap::new();
    for d in &DEMO_DATABASES {
        let (id, path) = demo_path(d.id, &data)?;
        let bytes = std::fs::read(&path)
            .map_err(|e| Failure::Runtime(format!("cannot read {}: {e}", path.display())))?;
        let sha256: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let db = SqliteFile::open(&id, &path).map_err(|e| Failure::Runtime(e.to_string()))?;
        let read = pollster::block_on(read_source(&id, &db))
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        sources.insert(id, CatalogueEntry { sha256, read });
    }
    let catalogue = Catalogue {
        format: CATALOGUE_FORMAT,
        sources,
    };
    let json = serde_json::to_string(&catalogue).map_err(|e| Failure::Runtime(e.to_string()))?;
    match out {
        Some(path) => std::fs::write(&path, json)
            .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display()))),
        None => {
            println!("{json}");
            Ok(())
        }
    }
}
