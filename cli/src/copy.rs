//! `nl2sql copy SRC DST`: a SQLite file copied into a server.

use crate::Failure;
use nl2sql_native::address::Address;
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
}

/// Runs `nl2sql copy`: progress on stderr (a spinner on a terminal), a summary on stdout.
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
    println!(
        "copied {} tables, {rows} rows, into {target}",
        report.tables.len()
    );
    for note in &report.notes {
        println!("note: {note}");
    }
    Ok(())
}
