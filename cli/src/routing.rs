//! `nl2sql route`, `nl2sql retrieve` and `nl2sql index`: the schema index over the
//! databases, built in memory on every run (it takes milliseconds), asked through the
//! engine's facade.

use crate::{source_failure, Failure};
use clap::ValueEnum;
use nl2sql_core::adapter::HttpTransport;
use nl2sql_core::adapter::{ApiKey, Provider, ProviderEmbedder, Wire};
use nl2sql_core::adapter::{CircuitBreaker, Embedder, GuardedEmbedder};
use nl2sql_core::config::{ProviderConfig, RunConfig};
use nl2sql_core::error::{Error, Node};
use nl2sql_core::service::Service;
use nl2sql_native::{BlockingTransport, CacheReport, NativeHost, Reading, WallClock};
use serde::Serialize;
use serde_json::json;
use std::rc::Rc;
use std::time::Instant;

/// `nl2sql index`'s command line, and the options every command that builds the index
/// takes.
#[derive(clap::Args)]
pub struct IndexArgs {
    #[command(flatten)]
    embeddings: Embeddings,
    /// Print JSON
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    dbs: crate::DbArgs,
}

/// `nl2sql route`'s command line.
#[derive(clap::Args)]
pub struct RouteArgs {
    /// The question, in quotes
    question: String,
    /// The caller's role [default: the policy's default role, admin]
    #[arg(long, value_name = "ROLE")]
    role: Option<String>,
    #[command(flatten)]
    index: IndexArgs,
}

/// `nl2sql retrieve`'s command line.
#[derive(clap::Args)]
pub struct RetrieveArgs {
    /// The question, in quotes
    question: String,
    /// The demo database to retrieve from: chinook, support or webanalytics (with --db, its
    /// database)
    #[arg(long, value_name = "ID", required_unless_present = "db")]
    datasource: Option<String>,
    /// Skip the small-schema shortcut (every table sent), for measuring recall
    #[arg(long)]
    force_search: bool,
    /// The caller's role [default: the policy's default role, admin]
    #[arg(long, value_name = "ROLE")]
    role: Option<String>,
    #[command(flatten)]
    index: IndexArgs,
}

/// Where the index's vectors come from.
#[derive(clap::Args)]
struct Embeddings {
    /// Where the index's vectors come from (a provider's key: NL2SQL_API_KEY or
    /// OPENAI_API_KEY)
    #[arg(long = "embeddings", value_enum, value_name = "SOURCE",
          default_value_t = Source::Builtin)]
    source: Source,
    /// The embedding model [default: text-embedding-3-small for openai, nomic-embed-text
    /// for ollama; compatible needs one]
    #[arg(long = "embedding-model", value_name = "MODEL")]
    model: Option<String>,
    /// The embedding provider's endpoint [default: https://api.openai.com/v1 for openai,
    /// http://localhost:11434/v1 for ollama; compatible needs one]
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Source {
    /// The built-in embedder: no network, no key (blended with the semantic one when its
    /// weights are found: the project file's [index], NL2SQL_SEMANTIC_WEIGHTS, or
    /// data/semantic-wordllama-256.bin)
    Builtin,
    /// OpenAI's embeddings API
    Openai,
    /// A local Ollama server
    Ollama,
    /// Any OpenAI-compatible endpoint (needs --base-url and --embedding-model)
    Compatible,
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
        let url = |default: &'static str| self.base_url.as_deref().unwrap_or(default);
        let (url, model) = match self.source {
            Source::Builtin => return Ok(None),
            Source::Openai => (
                url("https://api.openai.com/v1"),
                model("text-embedding-3-small"),
            ),
            Source::Ollama => (url("http://localhost:11434/v1"), model("nomic-embed-text")),
            // Checked here rather than by clap, so that the message names the rule.
            Source::Compatible => match (self.base_url.as_deref(), self.model.clone()) {
                (Some(url), Some(model)) => (url, model),
                (None, _) => {
                    return Err(Failure::Usage(
                        "--embeddings compatible needs --base-url".into(),
                    ))
                }
                (_, None) => {
                    return Err(Failure::Usage(
                        "--embeddings compatible needs --embedding-model".into(),
                    ))
                }
            },
        };
        Ok(Some((
            Provider::new(Wire::OpenAi, url, key_from_env()),
            model,
        )))
    }
}

/// The index as a command uses it: the engine over the databases, read and indexed.
struct Built {
    service: Service<NativeHost>,
    /// The provider embedder, when one built the index (for its request counts).
    provider: Option<Rc<ProviderEmbedder>>,
    build_ms: f64,
    /// What reading the databases did with a project's schema cache.
    cache: CacheReport,
}

impl IndexArgs {
    /// Reads and indexes the databases with the embedder the options name and hands the
    /// engine to `then`. `fresh` reads every database again, ignoring the schema cache (and
    /// rewrites it).
    fn with_index(
        &self,
        fresh: bool,
        then: impl FnOnce(&Built) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let transport: Rc<dyn HttpTransport> = Rc::new(BlockingTransport::default());
        let provider = self
            .embeddings
            .provider()?
            .map(|(p, model)| Rc::new(ProviderEmbedder::new(transport, p, &model)));
        // A provider's embeddings go through the vector breaker, as the design asks of
        // every provider embedder: after repeated failures it stops calling for a while.
        let sources = self.dbs.sources()?;
        let embedder: Rc<dyn Embedder> = match &provider {
            Some(p) => Rc::new(GuardedEmbedder::new(
                Rc::clone(p) as Rc<dyn Embedder>,
                CircuitBreaker::vector(),
                Rc::new(WallClock::start()),
            )),
            None => sources.embedder().map_err(source_failure)?,
        };
        let started = Instant::now();
        let progress = crate::progress::Progress::spinner(&format!(
            "reading and indexing {} datasources",
            sources.ids().len()
        ));
        let (workspace, cache) = sources
            .workspace_with(Reading {
                policies: sources.policies(),
                verified: sources.verified().map_err(source_failure)?,
                embedder,
                fresh,
            })
            .map_err(embed_failure)?;
        drop(progress);
        let build_ms = started.elapsed().as_secs_f64() * 1e3;
        crate::say_cache_problems(&cache);
        let service = Service::new(
            NativeHost::default(),
            workspace,
            ProviderConfig::default(),
            RunConfig::default(),
        );
        crate::say_notices(&service);
        crate::say_unavailable(service.workspace().unavailable());
        let built = Built {
            service,
            provider,
            build_ms,
            cache,
        };
        then(&built)?;
        crate::whole(&built.service)
    }
}

/// An embedding failure as the person at the terminal should read it: the provider's code,
/// its sentence and its (redacted) words.
fn embed_failure(e: Error) -> Failure {
    let error = e.at(Node::SchemaRetriever);
    let mut text = format!("{}: {}", error.error_code, error.message);
    if let Some(words) = error.provider_response {
        text.push_str(&format!(" ({words})"));
    }
    Failure::Runtime(text)
}

/// Runs `nl2sql route`.
pub fn route_command(args: &RouteArgs) -> Result<(), Failure> {
    args.index.with_index(false, |built| {
        let r = pollster::block_on(built.service.route(&args.question, args.role.as_slice()))
            .map_err(embed_failure)?;
        if args.index.json {
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
            return print_json(
                &json!({"ranked": r.ranked, "dropped": r.dropped, "signals": signals,
                        "close_call": r.close_call}),
            );
        }
        println!("ranked: {}", r.ranked.join(", "));
        for d in &r.dropped {
            println!("dropped: {} ({})", d.id, d.reason);
        }
        for s in &r.signals {
            println!("signal {}: {}", s.name, s.ranking.join(", "));
        }
        if let Some(c) = &r.close_call {
            println!(
                "close call: {} (first on {}) and {} (first on {})",
                c.chosen,
                c.chosen_led.join(", "),
                c.runner_up,
                c.runner_up_led.join(", ")
            );
        }
        Ok(())
    })
}

/// Runs `nl2sql retrieve`.
pub fn retrieve_command(args: &RetrieveArgs) -> Result<(), Failure> {
    let id = args
        .index
        .dbs
        .sources()?
        .id(args.datasource.as_deref())
        .map_err(source_failure)?;
    args.index.with_index(false, |built| {
        let r = pollster::block_on(built.service.retrieval(
            &args.question,
            &id,
            args.role.as_slice(),
            args.force_search,
        ))
        .map_err(embed_failure)?;
        if args.index.json {
            let values: Vec<String> = r.values.iter().map(|v| v.render()).collect();
            return print_json(
                &json!({"tables": r.tables, "columns": r.columns, "values": values}),
            );
        }
        if let Some(text) = built.service.retrieval_text(&id, &r) {
            print!("{text}");
        }
        Ok(())
    })
}

/// Runs `nl2sql index`.
pub fn index_command(args: &IndexArgs) -> Result<(), Failure> {
    args.with_index(true, |built| {
        let summary = built.service.index_summary();
        let entries = json!(summary.entries);
        let cache = &built.cache;
        let cache_file = cache.path.as_ref().map(|p| p.display().to_string());
        if args.json {
            return print_json(&json!({
                "entries": entries,
                "build_ms": (built.build_ms * 10.0).round() / 10.0,
                "embedder": summary.embedder,
                "embedding_requests": built.provider.as_ref().map(|p| p.requests()),
                "embedding_tokens": built.provider.as_ref().map(|p| p.tokens()),
                "schema_cache": cache_file.as_ref().map(|file| json!({
                    "file": file,
                    "written": cache.written,
                    "datasources": cache.read,
                })),
            }));
        }
        println!("embedder: {}", summary.embedder);
        if let Some(p) = &built.provider {
            println!(
                "embedding requests: {}, tokens: {}",
                p.requests(),
                p.tokens()
            );
        }
        println!(
            "built in {:.1} ms (reading values from the databases included)",
            built.build_ms
        );
        println!("entries: {entries}");
        if let (Some(file), true) = (&cache_file, cache.written) {
            println!(
                "schema cache: {file} ({} read; later commands reuse it while each \
                 database's structure is unchanged)",
                cache.read.join(", ")
            );
        }
        Ok(())
    })
}

fn print_json(value: &serde_json::Value) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Failure::Runtime(e.to_string()))?;
    println!("{text}");
    Ok(())
}
