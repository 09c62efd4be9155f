//! `nl2sql catalogue`: the demo databases read ahead of time (schema, statistics, text
//! values), each tied to its file's SHA-256, as one JSON file the playground loads instead
//! of reading the databases itself in the page.

use crate::Failure;
use nl2sql_native::catalogue::demo_catalogue;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The folder holding the demo databases
    #[arg(long, value_name = "DIR", default_value = "data")]
    data: PathBuf,
    /// Write the JSON to this file [default: standard output]
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Runs `nl2sql catalogue`.
pub fn run(args: &Args) -> Result<(), Failure> {
    let catalogue = demo_catalogue(&args.data).map_err(Failure::Runtime)?;
    let json = serde_json::to_string(&catalogue).map_err(|e| Failure::Runtime(e.to_string()))?;
    match &args.out {
        Some(path) => std::fs::write(path, json)
            .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display()))),
        None => {
            println!("{json}");
            Ok(())
        }
    }
}
