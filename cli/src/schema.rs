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
    if let Some(schemas) = schemas_line(s) {
        println!("{schemas}");
    }
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

/// Where the tables come from, when from more than one schema: each schema with its count
/// of tables, the connection's own (whose tables have bare names) first.
fn schemas_line(s: &SchemaSnapshot) -> Option<String> {
    let mut counts: Vec<(Option<&str>, usize)> = Vec::new();
    for t in &s.tables {
        let schema = t.schema.as_deref();
        match counts.iter_mut().find(|(name, _)| *name == schema) {
            Some((_, n)) => *n += 1,
            None => counts.push((schema, 1)),
        }
    }
    if counts.len() < 2 {
        return None;
    }
    counts.sort();
    let said: Vec<String> = (counts.into_iter())
        .map(|(schema, n)| {
            let tables = if n == 1 {
                "1 table".into()
            } else {
                format!("{n} tables")
            };
            match schema {
                Some(name) => format!("{name} ({tables})"),
                None => format!(
                    "{} ({tables}, bare names)",
                    s.schema.as_deref().unwrap_or("the connection's own")
                ),
            }
        })
        .collect();
    Some(format!("schemas: {}", said.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nl2sql_core::adapter::Dialect;
    use nl2sql_core::result::Table;

    fn table(name: &str, schema: Option<&str>) -> Table {
        Table {
            name: name.into(),
            schema: schema.map(str::to_string),
            columns: Vec::new(),
            foreign_keys: Vec::new(),
            row_count: 0,
            view: false,
            unread: None,
        }
    }

    #[test]
    fn the_schemas_are_said_when_there_are_several() {
        let one = SchemaSnapshot::new("shop", Dialect::Postgres, vec![table("a", None)]);
        assert_eq!(schemas_line(&one), None);
        let tables = vec![
            table("sales.deals", Some("sales")),
            table("a", None),
            table("b", None),
            table("Audit.log", Some("Audit")),
        ];
        let several =
            SchemaSnapshot::new("shop", Dialect::Postgres, tables).in_schema(Some("public".into()));
        assert_eq!(
            schemas_line(&several).as_deref(),
            Some("schemas: public (2 tables, bare names), Audit (1 table), sales (1 table)")
        );
    }
}
