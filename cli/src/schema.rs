//! `nl2sql schema`: a datasource's tables, columns, keys and statistics, as text or JSON.

use crate::{source_failure, Failure};
use nl2sql_core::result::{KeySource, SchemaSnapshot};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A demo database: chinook (default), support or webanalytics
    #[arg(long, value_name = "ID", conflicts_with = "file")]
    datasource: Option<String>,
    /// Any SQLite file instead, opened read-only (its id is the file stem); the same as --db
    #[arg(long, value_name = "PATH", conflicts_with = "db")]
    file: Option<PathBuf>,
    #[command(flatten)]
    dbs: crate::DbArgs,
    /// Print the schema snapshot as JSON
    #[arg(long)]
    json: bool,
}

/// Runs `nl2sql schema`.
pub fn run(args: &Args) -> Result<(), Failure> {
    let sources = match &args.file {
        Some(path) => nl2sql_native::Sources::new(
            Some(&path.to_string_lossy()),
            None,
            None,
            std::path::Path::new("data"),
        )
        .map_err(source_failure)?,
        None => args.dbs.sources()?,
    };
    let (_, snapshot, cache) = sources
        .schema(args.datasource.as_deref())
        .map_err(source_failure)?;
    crate::say_cache_problems(&cache);
    if args.json {
        let text =
            serde_json::to_string_pretty(&snapshot).map_err(|e| Failure::Runtime(e.to_string()))?;
        println!("{text}");
    } else {
        print_schema(&snapshot);
    }
    Ok(())
}

fn print_schema(s: &SchemaSnapshot) {
    println!("{} ({}, schema {})", s.datasource_id, s.dialect, s.version);
    for t in &s.tables {
        let kind = if t.view { " (view)" } else { "" };
        match &t.unread {
            Some(why) => println!("\n{}{kind} — {why}", t.name),
            None => println!("\n{}{kind} — {} rows", t.name, t.row_count),
        }
        for c in &t.columns {
            let key = c
                .primary_key_position
                .map(|p| format!(" PK{p}"))
                .unwrap_or_default();
            let null = if c.nullable { "" } else { " NOT NULL" };
            let samples = if c.stats.sample_values.is_empty() {
                String::new()
            } else {
                format!("  e.g. {}", c.stats.sample_values.join(", "))
            };
            println!(
                "  {} {}{key}{null}  [{:?}, {} distinct]{samples}",
                c.name, c.declared_type, c.category, c.stats.distinct_count
            );
        }
        for fk in &t.foreign_keys {
            let source = match &fk.source {
                KeySource::Database => String::new(),
                KeySource::Configured => "  (declared in the project file)".into(),
                KeySource::Inferred { evidence } => format!("  (inferred: {evidence})"),
            };
            println!(
                "  FK ({}) -> {}({}){source}",
                fk.columns.join(", "),
                fk.referenced_table,
                fk.referenced_columns.join(", ")
            );
        }
    }
}
