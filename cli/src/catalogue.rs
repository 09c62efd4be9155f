//! `nl2sql catalogue`: the demo databases read ahead of time (schema, statistics, text
//! values), each tied to its file's SHA-256, as one JSON file the playground loads instead
//! of reading the databases itself in the page.

use crate::Failure;
use nl2sql_native::catalogue::demo_catalogue;
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
    let catalogue = demo_catalogue(&data).map_err(Failure::Runtime)?;
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
