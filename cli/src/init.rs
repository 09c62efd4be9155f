//! `nl2sql init`: a commented starter project file.

use crate::Failure;
use std::io::Write;
use std::path::PathBuf;

/// `nl2sql init`'s options.
#[derive(clap::Args)]
pub struct Args {
    /// Where to write it
    #[arg(default_value = nl2sql_native::project::DEFAULT_FILE)]
    path: PathBuf,
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
    file.write_all(nl2sql_native::project::STARTER.as_bytes())
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", args.path.display())))?;
    println!(
        "wrote {}: point its [[datasources]] at your database, then try `nl2sql schema`",
        args.path.display()
    );
    Ok(())
}
