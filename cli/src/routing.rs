//! `nl2sql route`, `nl2sql retrieve` and `nl2sql index`: the schema index over the demo
//! databases, built in memory on every run (it takes milliseconds).

use crate::{demo_path, Failure};
use nl2sql_core::demo::{demo_profile, DEMO_DATABASES};
use nl2sql_core::error::Node;
use nl2sql_core::index::{
    render, retrieve, route, BuiltinEmbedder, EmbedError, Embedder, EntryKind, RetrieveSettings,
    RouteSettings, SchemaIndex,
};
use nl2sql_core::policy::Policies;
use nl2sql_core::provider::{ApiKey, Provider, ProviderEmbedder, Wire};
use nl2sql_core::Datasource;
use nl2sql_native::{BlockingTransport, SqliteFile};
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
    embeddings: Embeddings,
}

/// Where the index's vectors come from.
#[derive(Default)]
struct Embeddings {
    /// `builtin` (the default), `openai`, `ollama` or `compatible`.
    source: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
}

/// The key for provider embeddings, from the environment (never from the command line,
/// where it would land in the shell's history).
fn key_from_env() -> ApiKey {
    ["NL2SQL_API_KEY", "OPENAI_API_KEY"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|k| !k.trim().is_empty()))
        .map(ApiKey::new)
        .unwrap_or_default()
}

impl Embeddings {
    /// The provider and model asked for, or `None` for the built-in embedder.
    fn provider(&self) -> Result<Option<(Provider, String)>, Failure> {
        let model = |default: &str| self.model.clone().unwrap_or_else(|| default.to_string());
        let provider = match self.source.as_deref() {
            None | Some("builtin") => return Ok(None),
            Some("openai") => (
                Provider::new(
                    Wire::OpenAi,
                    self.base_url
                        .as_deref()
                        .unwrap_or("https://api.openai.com/v1"),
                    key_from_env(),
                ),
                model("text-embedding-3-small"),
            ),
            Some("ollama") => (
                Provider::new(
                    Wire::OpenAi,
                    self.base_url
                        .as_deref()
                        .unwrap_or("http://localhost:11434/v1"),
                    key_from_env(),
                ),
                model("nomic-embed-text"),
            ),
            Some("compatible") => {
                let Some(url) = self.base_url.as_deref() else {
                    return Err(Failure::Usage(
                        "--embeddings compatible needs --base-url".into(),
                    ));
                };
                let Some(m) = self.model.clone() else {
                    return Err(Failure::Usage(
                        "--embeddings compatible needs --embedding-model".into(),
                    ));
                };
                (Provider::new(Wire::OpenAi, url, key_from_env()), m)
            }
            Some(other) => {
                return Err(Failure::Usage(format!(
                    "--embeddings is builtin, openai, ollama or compatible, not {other:?}"
                )))
            }
        };
        Ok(Some(provider))
    }
}

/// An embedding failure as the person at the terminal should read it: the provider's code,
/// its sentence and its (redacted) words.
fn embed_failure(e: EmbedError) -> Failure {
    let error = e.into_error(Node::SchemaRetriever);
    let mut text = format!("{}: {}", error.error_code, error.message);
    if let Some(words) = error.provider_response {
        text.push_str(&format!(" ({words})"));
    }
    Failure::Runtime(text)
}

/// A build failure's text for the terminal.
pub(crate) fn embed_failure_text(e: Failure) -> String {
    match e {
        Failure::Usage(t) | Failure::Runtime(t) => t,
    }
}

fn parse(args: &[String], command: Command) -> Result<Options, Failure> {
    let mut o = Options {
        role: None,
        json: false,
        data: PathBuf::from("data"),
        datasource: None,
        force_search: false,
        question: None,
        embeddings: Embeddings::default(),
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
            "--embeddings" => o.embeddings.source = Some(value("a source")?),
            "--embedding-model" => o.embeddings.model = Some(value("a model")?),
            "--base-url" => o.embeddings.base_url = Some(value("a URL")?),
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

/// The index over the demo databases in `data`.
pub(crate) fn build_index(
    data: &std::path::Path,
    embedder: &dyn Embedder,
) -> Result<SchemaIndex, Failure> {
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
    pollster::block_on(SchemaIndex::read_and_build(&sources, VALUE_CAP, embedder)).map_err(|e| {
        match e {
            nl2sql_core::index::BuildError::Embed(e) => embed_failure(e),
            other => Failure::Runtime(other.to_string()),
        }
    })
}

/// Runs one of the commands.
pub fn run(args: &[String], command: Command) -> Result<(), Failure> {
    let o = parse(args, command)?;
    let builtin = BuiltinEmbedder::default();
    let transport = BlockingTransport::default();
    let provider = o
        .embeddings
        .provider()?
        .map(|(p, model)| ProviderEmbedder::new(&transport, p, &model));
    let embedder: &dyn Embedder = match &provider {
        Some(p) => p,
        None => &builtin,
    };
    let started = Instant::now();
    let index = build_index(&o.data, embedder)?;
    let build_ms = started.elapsed().as_secs_f64() * 1e3;
    let policies = Policies::demo();
    let roles: Vec<String> = o.role.iter().cloned().collect();
    let scope = policies.scope(&roles);
    let question = o.question.as_deref().unwrap_or_default();
    match command {
        Command::Route => {
            let r = pollster::block_on(route(
                &index,
                embedder,
                question,
                &scope,
                &RouteSettings::default(),
            ))
            .map_err(embed_failure)?;
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
                embedder,
                &id,
                question,
                &scope,
                &RetrieveSettings::default(),
                o.force_search,
            ))
            .map_err(embed_failure)?;
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
                    "embedding_requests": provider.as_ref().map(|p| p.requests()),
                    "embedding_tokens": provider.as_ref().map(|p| p.tokens()),
                }))?;
            } else {
                println!("embedder: {}", index.embedder());
                if let Some(p) = &provider {
                    println!(
                        "embedding requests: {}, tokens: {}",
                        p.requests(),
                        p.tokens()
                    );
                }
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
