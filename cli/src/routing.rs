//! `nl2sql route`, `nl2sql retrieve` and `nl2sql index`: the schema index over the demo
//! databases, built in memory on every run (it takes milliseconds).

use crate::{demo_path, Failure};
use nl2sql_cli::SqliteFile;
use nl2sql_core::demo::{demo_profile, DEMO_DATABASES};
use nl2sql_core::index::{
    render, retrieve, route, BuiltinEmbedder, EntryKind, RetrieveSettings, RouteSettings,
    SchemaIndex,
};
use nl2sql_core::policy::Policies;
use nl2sql_core::Datasource;
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// Most distinct values read per text column.
const VALUE_CAP: usize = 5_000;

/// Which command runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Rank the datasources for a question.
    Route,
    /// The schema the planner would get for a question.
    Retrieve,
    /// What the index holds.
    Index,
}

struct Options {
    role: Option<String>,
    json: bool,
    data: PathBuf,
    datasource: Option<String>,
    force_search: bool,
    question: Option<String>,
}

fn parse(args: &[String], command: Command) -> Result<Options, Failure> {
    let mut o = Options {
        role: None,
        json: false,
        data: PathBuf::from("data"),
        datasource: None,
        force_search: false,
        question: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |what: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Failure::Usage(format!("{arg} needs {what}")))
        };
        match arg.as_str() {
            "--role" => o.role = Some(value("a role")?),
            "--json" => o.json = true,
            "--data" => o.data = value("a folder")?.into(),
            "--datasource" if command == Command::Retrieve => o.datasource = Some(value("an id")?),
            "--force-search" if command == Command::Retrieve => o.force_search = true,
            other if other.starts_with("--") => {
                return Err(Failure::Usage(format!("unknown option {other:?}")))
            }
            question if o.question.is_none() && command != Command::Index => {
                o.question = Some(question.to_string())
            }
            _ => return Err(Failure::Usage("give one question, in quotes".to_string())),
        }
    }
    if command != Command::Index && o.question.is_none() {
        return Err(Failure::Usage("give a question, in quotes".to_string()));
    }
    if command == Command::Retrieve && o.datasource.is_none() {
        return Err(Failure::Usage("retrieve needs --datasource".to_string()));
    }
    Ok(o)
}

fn build(data: &std::path::Path, embedder: &BuiltinEmbedder) -> Result<SchemaIndex, Failure> {
    let mut opened = Vec::with_capacity(DEMO_DATABASES.len());
    for d in &DEMO_DATABASES {
        let (id, path) = demo_path(d.id, data)?;
        opened.push(SqliteFile::open(id, &path).map_err(|e| Failure::Runtime(e.to_string()))?);
    }
    let sources: Vec<(_, &dyn Datasource)> = DEMO_DATABASES
        .iter()
        .zip(&opened)
        .map(|(d, db)| (demo_profile(d), db as &dyn Datasource))
        .collect();
    pollster::block_on(SchemaIndex::read_and_build(&sources, VALUE_CAP, embedder))
        .map_err(Failure::Runtime)
}

/// Runs one of the commands.
pub fn run(args: &[String], command: Command) -> Result<(), Failure> {
    let o = parse(args, command)?;
    let embedder = BuiltinEmbedder::default();
    let started = Instant::now();
    let index = build(&o.data, &embedder)?;
    let build_ms = started.elapsed().as_secs_f64() * 1e3;
    let policies = Policies::demo();
    let roles: Vec<String> = o.role.iter().cloned().collect();
    let scope = policies.scope(&roles);
    let question = o.question.as_deref().unwrap_or_default();
    let failed = |e: nl2sql_core::index::EmbedError| Failure::Runtime(e.to_string());
    match command {
        Command::Route => {
            let r = pollster::block_on(route(
                &index,
                &embedder,
                question,
                &scope,
                &RouteSettings::default(),
            ))
            .map_err(failed)?;
            if o.json {
                #[derive(Serialize)]
                struct Signal<'a> {
                    name: &'a str,
                    ranking: &'a [String],
                }
                let signals: Vec<Signal> = r
                    .signals
                    .iter()
                    .map(|s| Signal {
                        name: &s.name,
                        ranking: &s.ranking,
                    })
                    .collect();
                print_json(&json!({"ranked": r.ranked, "dropped": r.dropped, "signals": signals}))?;
            } else {
                println!("ranked: {}", r.ranked.join(", "));
                for d in &r.dropped {
                    println!("dropped: {} ({})", d.id, d.reason);
                }
                for s in &r.signals {
                    println!("signal {}: {}", s.name, s.ranking.join(", "));
                }
            }
        }
        Command::Retrieve => {
            let id = o.datasource.as_deref().unwrap_or_default();
            let (id, _) = demo_path(id, &o.data)?;
            let r = pollster::block_on(retrieve(
                &index,
                &embedder,
                &id,
                question,
                &scope,
                &RetrieveSettings::default(),
                o.force_search,
            ))
            .map_err(failed)?;
            if o.json {
                let values: Vec<String> = r.values.iter().map(|v| v.render()).collect();
                print_json(&json!({"tables": r.tables, "columns": r.columns, "values": values}))?;
            } else if let Some(schema) = index.schema(&id) {
                print!("{}", render(schema, &r));
            }
        }
        Command::Index => {
            let count = |k: EntryKind| index.entries().iter().filter(|e| e.kind == k).count();
            let entries = json!({
                "datasource": count(EntryKind::Datasource),
                "example": count(EntryKind::Example),
                "verified": count(EntryKind::Verified),
                "table": count(EntryKind::Table),
                "column": count(EntryKind::Column),
                "value": index.values().len(),
            });
            if o.json {
                print_json(&json!({
                    "entries": entries,
                    "build_ms": (build_ms * 10.0).round() / 10.0,
                    "embedder": index.embedder(),
                }))?;
            } else {
                println!("embedder: {}", index.embedder());
                println!("built in {build_ms:.1} ms (reading values from the databases included)");
                println!("entries: {entries}");
            }
        }
    }
    Ok(())
}

fn print_json(value: &serde_json::Value) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Failure::Runtime(e.to_string()))?;
    println!("{text}");
    Ok(())
}
