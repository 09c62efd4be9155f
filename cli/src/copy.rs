//! `nl2sql copy SRC DST`: a SQLite file copied into a server.

use crate::Failure;
use nl2sql_native::address::Address;
use serde::Serialize;
use std::path::PathBuf;

/// `nl2sql copy`'s options.
#[derive(clap::Args)]
pub struct Args {
    /// The SQLite file to copy
    source: PathBuf,
    /// Where to: postgres://user@host:port/database, mysql://user@host:port/database (the
    /// password from PGPASSWORD or MYSQL_PWD), a DuckDB file, or sc://host:port/database
    /// (Parquet tables in the Spark server's warehouse; a token from SPARK_CONNECT_TOKEN)
    target: String,
    /// Drop tables of the same names first (otherwise one that exists stops the copy)
    #[arg(long)]
    replace: bool,
    /// Print the summary as one JSON object (what was copied, and the notes)
    #[arg(long)]
    json: bool,
}

/// What `nl2sql copy --json` prints.
#[derive(Serialize)]
struct Copied<'a> {
    /// The target as shown everywhere: never with its password or token.
    target: String,
    tables: Vec<CopiedTable<'a>>,
    /// Rows copied in all.
    rows: u64,
    /// Foreign keys the target could not hold and views left behind, each with why.
    notes: &'a [String],
}

#[derive(Serialize)]
struct CopiedTable<'a> {
    name: &'a str,
    rows: u64,
}

/// Runs `nl2sql copy`: progress on stderr (a spinner on a terminal), a summary on stdout
/// (one JSON object with --json).
pub fn run(args: &Args) -> Result<(), Failure> {
    if !args.source.is_file() {
        return Err(Failure::Runtime(format!(
            "cannot open {}: there is no such file",
            args.source.display()
        )));
    }
    let target = Address::parse(&args.target).map_err(crate::source_failure)?;
    let progress = crate::progress::Progress::spinner(&format!("copying into {target}"));
    let report = nl2sql_native::copy::copy(&args.source, &target, args.replace, &mut |line| {
        progress.line(line);
    })
    .map_err(crate::source_failure)?;
    drop(progress);
    let rows: u64 = report.tables.iter().map(|(_, n)| n).sum();
    if args.json {
        let copied = Copied {
            target: target.to_string(),
            tables: (report.tables.iter())
                .map(|(name, rows)| CopiedTable { name, rows: *rows })
                .collect(),
            rows,
            notes: &report.notes,
        };
        let text =
            serde_json::to_string_pretty(&copied).map_err(|e| Failure::Runtime(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    println!(
        "copied {} tables, {rows} rows, into {target}",
        report.tables.len()
    );
    for note in &report.notes {
        println!("note: {note}");
    }
    Ok(())
}
