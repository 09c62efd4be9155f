//! `nl2sql`: the native command line.

use nl2sql_cli::SqliteFile;
use nl2sql_core::demo::{demo_database, DEMO_DATABASES};
use nl2sql_core::{Datasource, SchemaSnapshot};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: nl2sql schema [--datasource ID | --file PATH] [--data DIR] [--json]

  schema   print a datasource's tables, columns, keys and statistics
           --datasource  a demo database: chinook (default), support or webanalytics
           --file        any SQLite file instead, opened read-only (its id is the file stem)
           --data        the folder holding the demo databases (default: data)
           --json        one JSON object instead of text";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("nl2sql: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let (command, rest) = args.split_first().ok_or("no command given")?;
    match command.as_str() {
        "schema" => schema(rest),
        "--help" | "-h" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        "--version" | "-V" => {
            println!("nl2sql {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        other => Err(format!("unknown command {other:?}")),
    }
}

fn schema(args: &[String]) -> Result<(), String> {
    let mut datasource = "chinook".to_string();
    let mut file: Option<PathBuf> = None;
    let mut data = PathBuf::from("data");
    let mut json = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--datasource" => datasource = it.next().ok_or("--datasource needs an id")?.clone(),
            "--file" => file = Some(it.next().ok_or("--file needs a path")?.into()),
            "--data" => data = it.next().ok_or("--data needs a folder")?.into(),
            "--json" => json = true,
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    let (id, path) = match file {
        Some(path) => {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            (stem.into_owned(), path)
        }
        None => demo_path(&datasource, &data)?,
    };
    let source = SqliteFile::open(id, &path).map_err(|e| e.to_string())?;
    let snapshot = pollster::block_on(source.introspect()).map_err(|e| e.to_string())?;
    if json {
        let text = serde_json::to_string_pretty(&snapshot).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print_schema(&snapshot);
    }
    Ok(())
}

/// The id and file of a demo database under `data`.
fn demo_path(id: &str, data: &Path) -> Result<(String, PathBuf), String> {
    let demo = demo_database(id).ok_or_else(|| {
        let ids: Vec<&str> = DEMO_DATABASES.iter().map(|d| d.id).collect();
        format!("no datasource {id:?}; choose one of {}", ids.join(", "))
    })?;
    let path = data.join(demo.file);
    if !path.is_file() {
        return Err(format!(
            "{} is missing; run `cargo xtask data` to fetch the demo databases",
            path.display()
        ));
    }
    Ok((demo.id.to_string(), path))
}

fn print_schema(s: &SchemaSnapshot) {
    println!("{} ({}, schema {})", s.datasource_id, s.dialect, s.version);
    for t in &s.tables {
        println!("\n{} — {} rows", t.name, t.row_count);
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
            println!(
                "  FK ({}) -> {}({})",
                fk.columns.join(", "),
                fk.referenced_table,
                fk.referenced_columns.join(", ")
            );
        }
    }
}
