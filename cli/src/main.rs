//! `nl2sql`: the native command line.

mod ask;
mod catalogue;
mod eval;
mod query;
mod routing;

use nl2sql_core::{Datasource, SchemaSnapshot};
use nl2sql_native::SqliteFile;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: nl2sql plan   [OPTIONS] FILE|-      validate, render and run a plan (JSON)
       nl2sql sql    [OPTIONS] \"SELECT …\"  import SQL as a plan, then the same
       nl2sql schema [--datasource ID | --file PATH] [--data DIR] [--json]
       nl2sql route    [--role R] [--data DIR] [--json] \"question\"
       nl2sql retrieve --datasource ID [--role R] [--force-search] [--data DIR] [--json] \"question\"
       nl2sql index    [--data DIR] [--json]
       nl2sql ask      [--role R] [--datasource D] [--plan-only] [--provider P] [--model M]
                       [--base-url URL] [--answer llm|template] [--max-cost USD]
                       [--trace FILE] [--json]
                       [--data DIR] \"question\"
       nl2sql replay   [--json] [--data DIR] FILE
       nl2sql catalogue [--data DIR] [--out FILE]
       nl2sql eval     --suite FILE --mode plans|retrieval|full [--max-cost USD] [--role R]
                       [--provider P] [--model M] [--base-url URL] [--out DIR]
                       [--note TEXT] [--json] [--data DIR]

  plan, sql options
    --datasource ID     chinook (default), support or webanalytics
    --role R            the caller's role (default: the policy's default role, admin)
    --json              one JSON object: status, sql, plan, checks, errors, warnings,
                        columns, rows, row_count
    --data DIR          the folder holding the demo databases (default: data)
    --dialect D         render for sqlite, postgres, mysql, duckdb or sqlserver; other
                        dialects than the datasource's are rendered, not run
    --today YYYY-MM-DD  the day CURRENT_DATE means
    --joins typed|fk_only  whether joins need a declared foreign key (default typed)
    --row-cap N         the most rows a result may have (default 100000)
    --lenient-columns   unknown columns are warnings, not errors

  route      rank the demo datasources for a question (five signals and named values)
  retrieve   the schema the planner gets for a question; --force-search skips the
             small-schema shortcut (every table sent), for measuring recall
  index      what the schema index holds, its embedder and build time
  ask        the whole pipeline: route, check answerability while planning, validate, run,
             answer. --provider openai (default; key OPENAI_API_KEY), anthropic
             (ANTHROPIC_API_KEY) or compatible (any OpenAI-compatible --base-url, e.g.
             Ollama; NL2SQL_API_KEY if it needs one); NL2SQL_API_KEY overrides either.
             --answer llm (default: a short answer the model writes, streamed, checked
             against the rows) or template (no model call). --max-cost stops the run
             (RUN_LIMIT_REACHED) once its priced calls cost that much. --trace FILE writes the
             whole result with every node's record as JSON.
  replay     ask a recorded run's question again (FILE from ask --trace), every model
             answer taken from the recording, nothing sent anywhere; prints the result
             and where the prompts differed from the recording.

  eval       score a suite in the reference format (data/chinook.yaml, data/routing.yaml):
             plans (the whole pipeline over HTTP, a local provider serving each gold plan),
             retrieval (routing and retrieval recall, no model) or full (the real provider;
             refused when CI is set; --max-cost stops it, the record marked partial).
             Saves one JSON record under --out (default benchmarks/<mode>/<suite>/, never
             overwritten); --json prints it, metrics.accuracy being execution accuracy.

  catalogue  the demo databases read ahead (schema, statistics, text values, each file's
             SHA-256) as JSON, for the playground to load instead of reading them in the page
  schema   print a datasource's tables, columns, keys and statistics
    --datasource        a demo database: chinook (default), support or webanalytics
    --file              any SQLite file instead, opened read-only (its id is the file stem)

  The exit code is 0 when the command ran, even if the plan was refused; 2 for a wrong
  command line; 1 when a database cannot be opened.";

/// Why a command did not complete.
pub(crate) enum Failure {
    /// The command line is wrong: exit 2 with the usage text.
    Usage(String),
    /// The command was right but could not be carried out (e.g. an unreadable file): exit 1.
    Runtime(String),
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        Failure::Usage(message.to_string())
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("nl2sql: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(message)) => {
            eprintln!("nl2sql: {message}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &[String]) -> Result<(), Failure> {
    let (command, rest) = args.split_first().ok_or("no command given")?;
    match command.as_str() {
        "schema" => schema(rest),
        "plan" => query::run(rest, query::Input::PlanFile),
        "sql" => query::run(rest, query::Input::Sql),
        "route" => routing::run(rest, routing::Command::Route),
        "retrieve" => routing::run(rest, routing::Command::Retrieve),
        "index" => routing::run(rest, routing::Command::Index),
        "ask" => ask::run(rest),
        "replay" => ask::replay(rest),
        "eval" => eval::run(rest),
        "catalogue" => catalogue::run(rest),
        "--help" | "-h" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        "--version" | "-V" => {
            println!("nl2sql {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        other => Err(Failure::Usage(format!("unknown command {other:?}"))),
    }
}

fn schema(args: &[String]) -> Result<(), Failure> {
    let mut datasource: Option<String> = None;
    let mut file: Option<PathBuf> = None;
    let mut data = PathBuf::from("data");
    let mut json = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--datasource" => {
                datasource = Some(it.next().ok_or("--datasource needs an id")?.clone())
            }
            "--file" => file = Some(it.next().ok_or("--file needs a path")?.into()),
            "--data" => data = it.next().ok_or("--data needs a folder")?.into(),
            "--json" => json = true,
            other => return Err(Failure::Usage(format!("unknown option {other:?}"))),
        }
    }
    let (id, path) = match (file, datasource) {
        (Some(_), Some(_)) => return Err("give --datasource or --file, not both".into()),
        (Some(path), None) => {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            (stem.into_owned(), path)
        }
        (None, datasource) => demo_path(datasource.as_deref().unwrap_or("chinook"), &data)?,
    };
    let runtime = |e: nl2sql_core::DatasourceError| Failure::Runtime(e.to_string());
    let source = SqliteFile::open(id, &path).map_err(runtime)?;
    let snapshot = pollster::block_on(source.introspect()).map_err(runtime)?;
    if json {
        let text =
            serde_json::to_string_pretty(&snapshot).map_err(|e| Failure::Runtime(e.to_string()))?;
        println!("{text}");
    } else {
        print_schema(&snapshot);
    }
    Ok(())
}

/// The id and file of a demo database under `data`.
pub(crate) fn demo_path(id: &str, data: &Path) -> Result<(String, PathBuf), Failure> {
    nl2sql_native::demo_path(id, data).map_err(|e| match e {
        nl2sql_native::DemoPathError::UnknownId(why) => Failure::Usage(why),
        nl2sql_native::DemoPathError::Missing(why) => Failure::Runtime(why),
    })
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
