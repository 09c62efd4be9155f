//! `nl2sql init`: a commented starter project file.

use crate::Failure;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// `nl2sql init`'s options.
#[derive(clap::Args)]
pub struct Args {
    /// Where to write it
    #[arg(default_value = nl2sql_native::project::DEFAULT_FILE)]
    path: PathBuf,
    /// Print what was written as one JSON object
    #[arg(long)]
    json: bool,
}

/// What `nl2sql init --json` prints.
#[derive(Serialize)]
struct Written {
    /// The file written.
    path: String,
    /// Its bytes.
    bytes: usize,
}

/// Writes the starter, never over an existing file.
pub fn run(args: &Args) -> Result<(), Failure> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&args.path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Failure::Usage(format!(
                "{} exists; init never overwrites a file",
                args.path.display()
            )),
            _ => Failure::Runtime(format!("cannot write {}: {e}", args.path.display())),
        })?;
    let starter = nl2sql_native::project::STARTER;
    file.write_all(starter.as_bytes())
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", args.path.display())))?;
    if args.json {
        let written = Written {
            path: args.path.display().to_string(),
            bytes: starter.len(),
        };
        let text =
            serde_json::to_string_pretty(&written).map_err(|e| Failure::Runtime(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    println!(
        "wrote {}: point its [[datasources]] at your database, then try `nl2sql schema`",
        args.path.display()
    );
    Ok(())
}
