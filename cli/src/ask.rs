//! `nl2sql ask`: the whole pipeline on the demo databases, with a real model provider (or
//! any OpenAI-compatible endpoint). The key comes from the environment only.

use crate::routing::{build_index, embed_failure_text};
use crate::Failure;
use clap::ValueEnum;
use nl2sql_core::curated::Curated;
use nl2sql_core::demo::{DEMO_DATABASES, DEMO_VERIFIED};
use nl2sql_core::engine::{
    Agent, AnswerMode, AskOptions, Engine, EngineSettings, Event, Events, Parts, QueryResult,
    Replay, Writer,
};
use nl2sql_core::index::BuiltinEmbedder;
use nl2sql_core::policy::Policies;
use nl2sql_core::provider::{ApiKey, Provider, Wire};
use nl2sql_core::Datasource;
use nl2sql_native::{BlockingTransport, SqliteFile, WallClock};
use std::path::PathBuf;

/// `nl2sql ask`'s command line.
#[derive(clap::Args)]
pub struct AskArgs {
    /// The question, in quotes
    question: String,
    /// A role the caller holds; repeat for several [default: the policy's default role]
    #[arg(long = "role", value_name = "ROLE")]
    roles: Vec<String>,
    /// Ask this demo database, no routing: chinook, support or webanalytics
    #[arg(long, value_name = "ID")]
    datasource: Option<String>,
    /// Validate and render the plan, but do not run it
    #[arg(long)]
    plan_only: bool,
    #[command(flatten)]
    model: ModelArgs,
    /// Who writes the answer
    #[arg(long, value_enum, default_value_t = AnswerWriter::Llm)]
    answer: AnswerWriter,
    /// Stop the run (RUN_LIMIT_REACHED) once its priced model calls cost this many US dollars
    #[arg(long, value_name = "USD", value_parser = dollars)]
    max_cost: Option<f64>,
    #[command(flatten)]
    output: RunArgs,
}

/// `nl2sql replay`'s command line.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The recorded run (from ask --trace)
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    output: RunArgs,
}

/// What `ask` and `replay` share: where the databases are and what the run writes.
#[derive(clap::Args)]
struct RunArgs {
    /// Write the whole result, with every node's record, as JSON to this file
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Print the whole result as JSON instead of the rows and the answer
    #[arg(long)]
    json: bool,
    /// The folder holding the demo databases
    #[arg(long, value_name = "DIR", default_value = "data")]
    data: PathBuf,
}

/// The model provider and model, for `ask` and `eval`. Keys come from the environment only.
#[derive(clap::Args)]
pub(crate) struct ModelArgs {
    /// The model provider; NL2SQL_API_KEY overrides the provider's own key variable
    #[arg(long, value_enum, default_value_t = ProviderName::Openai)]
    pub(crate) provider: ProviderName,
    /// The model [default: gpt-5.4 for openai, claude-opus-5 for anthropic; compatible
    /// needs one]
    #[arg(long, value_name = "MODEL")]
    pub(crate) model: Option<String>,
    /// The provider's endpoint [default: the provider's own API; compatible needs one]
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProviderName {
    /// OpenAI (key: OPENAI_API_KEY)
    Openai,
    /// Anthropic (key: ANTHROPIC_API_KEY)
    Anthropic,
    /// Any OpenAI-compatible --base-url, e.g. Ollama (key: NL2SQL_API_KEY if it needs one)
    Compatible,
}

impl ProviderName {
    /// The environment variables holding its key, the one that wins first.
    fn key_variables(self) -> &'static [&'static str] {
        match self {
            ProviderName::Openai => &["NL2SQL_API_KEY", "OPENAI_API_KEY"],
            ProviderName::Anthropic => &["NL2SQL_API_KEY", "ANTHROPIC_API_KEY"],
            ProviderName::Compatible => &["NL2SQL_API_KEY"],
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AnswerWriter {
    /// A short answer the model writes, streamed, checked against the rows
    Llm,
    /// An answer filled in from the rows, no model call
    Template,
}

/// `--max-cost`'s value parser: a number of US dollars, zero or more.
pub(crate) fn dollars(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd >= 0.0 => Ok(usd),
        _ => Err("not a number of US dollars".into()),
    }
}

fn env_key(names: &[&str]) -> ApiKey {
    names
        .iter()
        .find_map(|n| std::env::var(n).ok().filter(|k| !k.trim().is_empty()))
        .map(ApiKey::new)
        .unwrap_or_default()
}

impl ModelArgs {
    /// The agent the options name, its key from the environment.
    pub(crate) fn agent(&self) -> Result<Agent, Failure> {
        let url = |default: &str| self.base_url.clone().unwrap_or_else(|| default.to_string());
        let model = |default: &str| self.model.clone().unwrap_or_else(|| default.to_string());
        let (wire, base, model) = match self.provider {
            ProviderName::Openai => (
                Wire::OpenAi,
                url("https://api.openai.com/v1"),
                model("gpt-5.4"),
            ),
            ProviderName::Anthropic => (
                Wire::Anthropic,
                url("https://api.anthropic.com/v1"),
                model("claude-opus-5"),
            ),
            // Checked here rather than by clap: eval's gold-plan provider comes this way too.
            ProviderName::Compatible => match (&self.base_url, &self.model) {
                (Some(base), Some(model)) => (Wire::OpenAi, base.clone(), model.clone()),
                _ => {
                    return Err(Failure::Usage(
                        "--provider compatible needs --base-url and --model".into(),
                    ))
                }
            },
        };
        let variables = self.provider.key_variables();
        let provider = Provider::new(wire, &base, env_key(variables));
        // A compatible endpoint (a local Ollama, say) may need no key.
        if provider.key.is_empty() && self.provider != ProviderName::Compatible {
            return Err(Failure::Usage(format!(
                "no key: set {}",
                variables.join(" or ")
            )));
        }
        Ok(Agent::new(provider, &model))
    }
}

fn print_rows(
    sql: Option<&str>,
    columns: &[String],
    rows: &[Vec<nl2sql_core::Value>],
    row_count: usize,
) {
    if let Some(sql) = sql {
        println!("{sql}\n");
    }
    println!("{}", columns.join(" | "));
    for row in rows.iter().take(20) {
        let cells: Vec<String> = row.iter().map(ToString::to_string).collect();
        println!("{}", cells.join(" | "));
    }
    if row_count > 20 {
        println!("… {row_count} rows in all");
    }
    println!();
}

/// Runs `nl2sql ask`.
pub fn run(args: &AskArgs) -> Result<(), Failure> {
    let agent = args.model.agent()?;
    let mut settings = EngineSettings::new(agent.clone());
    settings.max_cost_usd = args.max_cost;
    if args.answer == AnswerWriter::Llm {
        settings.answer = AnswerMode::Llm(Agent {
            max_tokens: 400,
            ..agent
        });
    }
    let transport = BlockingTransport::default();
    let request = Request {
        question: args.question.clone(),
        roles: args.roles.clone(),
        datasource: args.datasource.clone(),
        plan_only: args.plan_only,
    };
    execute(&args.output, settings, &transport, None, &request)
}

/// Runs `nl2sql replay FILE`: the recorded run's question, asked again with every model
/// answer taken from the recording; no request leaves the machine.
pub fn replay(args: &ReplayArgs) -> Result<(), Failure> {
    let file = &args.file;
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::Runtime(format!("cannot read {}: {e}", file.display())))?;
    let recorded: QueryResult = serde_json::from_str(&text).map_err(|e| {
        Failure::Runtime(format!(
            "{} is not a run's result (nl2sql ask --trace): {e}",
            file.display()
        ))
    })?;
    let replay = Replay::from_result(&recorded);
    let request = Request {
        question: recorded.question.clone(),
        roles: recorded.roles.clone(),
        datasource: recorded.datasource.clone(),
        plan_only: recorded.plan_only,
    };
    // The model is never asked; the agent only names what the recording answers for.
    let agent = Agent::new(
        Provider::new(Wire::OpenAi, "http://replay.invalid/v1", ApiKey::default()),
        "replay",
    );
    let mut settings = EngineSettings::new(agent.clone());
    let written = recorded.final_answer.as_ref().map(|a| a.written_by);
    if written == Some(Writer::Llm) {
        settings.answer = AnswerMode::Llm(agent);
    }
    let offline = BlockingTransport::cancelled_by(std::sync::Arc::new(
        std::sync::atomic::AtomicBool::new(true),
    ));
    execute(&args.output, settings, &offline, Some(&replay), &request)
}

/// What was asked.
struct Request {
    question: String,
    roles: Vec<String>,
    datasource: Option<String>,
    plan_only: bool,
}

fn execute(
    o: &RunArgs,
    settings: EngineSettings,
    transport: &BlockingTransport,
    replay: Option<&Replay>,
    request: &Request,
) -> Result<(), Failure> {
    let embedder = BuiltinEmbedder::default();
    let index =
        build_index(&o.data, &embedder).map_err(|e| Failure::Runtime(embed_failure_text(e)))?;
    let mut dbs: Vec<SqliteFile> = Vec::new();
    for d in &DEMO_DATABASES {
        let (id, path) = crate::demo_path(d.id, &o.data)?;
        dbs.push(SqliteFile::open(id, &path).map_err(|e| Failure::Runtime(e.to_string()))?);
    }
    let policies = Policies::demo();
    let clock = WallClock::start();
    let schemas: Vec<&nl2sql_core::SchemaSnapshot> = index.schemas().iter().collect();
    let curated = Curated::from_json(DEMO_VERIFIED, &schemas)
        .map_err(|e| Failure::Runtime(format!("the demo's verified queries: {e}")))?;
    let engine = Engine::new(
        Parts {
            datasources: dbs.iter().map(|d| d as &dyn Datasource).collect(),
            index: &index,
            embedder: &embedder,
            policies: &policies,
            transport,
            clock: &clock,
        },
        settings,
    )
    .combining_with(&nl2sql_native::MemoryScratch)
    .with_verified(&curated);
    let engine = match replay {
        Some(r) => engine.replaying(r),
        None => engine.waiting_with(&nl2sql_native::ThreadSleep),
    };
    // In text mode the SQL and rows print as soon as they exist, then the written answer
    // as it streams.
    let shown = std::rc::Rc::new(std::cell::Cell::new(false));
    let flag = std::rc::Rc::clone(&shown);
    let events = (!o.json).then(|| {
        Events(std::rc::Rc::new(move |e: &Event| match e {
            Event::Rows {
                sql,
                columns,
                preview,
                row_count,
                ..
            } => {
                flag.set(true);
                print_rows(sql.as_deref(), columns, preview, *row_count);
            }
            Event::AnswerDelta { text } => {
                print!("{text}");
                let _ = std::io::Write::flush(&mut std::io::stdout());
            }
            _ => {}
        }))
    });
    let options = AskOptions {
        roles: request.roles.clone(),
        datasource: request.datasource.clone(),
        plan_only: request.plan_only,
        events,
        ..AskOptions::default()
    };
    let result = pollster::block_on(engine.ask(&request.question, &options));
    let json =
        serde_json::to_string_pretty(&result).map_err(|e| Failure::Runtime(e.to_string()))?;
    if let Some(path) = &o.trace {
        std::fs::write(path, &json)
            .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display())))?;
    }
    if o.json {
        println!("{json}");
        return Ok(());
    }
    if !shown.get() {
        for q in &result.sub_queries {
            if let Some(sql) = &q.sql {
                println!("-- {}\n{sql}\n", q.datasource_id);
            }
        }
    }
    if let Some(answer) = &result.final_answer {
        // A streamed answer is already on the screen.
        if answer.written_by == Writer::Llm {
            println!();
        } else {
            println!("{}", answer.text);
        }
    }
    for e in &result.errors {
        let words = e
            .provider_response
            .as_deref()
            .map(|w| format!(" ({w})"))
            .unwrap_or_default();
        println!("{}: {}{words}", e.error_code, e.message);
    }
    for w in &result.warnings {
        println!("warning {}: {}", w.code, w.message);
    }
    if replay.is_some() {
        if result.replay_divergences.is_empty() {
            println!("\nreplayed: every prompt matched the recording");
        }
        for d in &result.replay_divergences {
            println!(
                "\nreplay: {} call {} differs from the recording ({})",
                d.node, d.call, d.what
            );
        }
    }
    println!(
        "\n{} model calls ({} in sequence), {} input / {} output tokens, {} ms",
        result.usage.calls,
        result.sequential_llm_calls,
        result
            .usage
            .input_tokens
            .map_or("?".into(), |n| n.to_string()),
        result
            .usage
            .output_tokens
            .map_or("?".into(), |n| n.to_string()),
        result.duration_ms
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    #[test]
    fn roles_accumulate_when_repeated() {
        let cli = crate::Cli::try_parse_from([
            "nl2sql",
            "ask",
            "--role",
            "analyst",
            "--role",
            "viewer",
            "a question",
        ])
        .unwrap_or_else(|e| panic!("parses: {e}"));
        let crate::Command::Ask(args) = cli.command else {
            panic!("an ask command line")
        };
        assert_eq!(args.roles, ["analyst", "viewer"]);
    }
}
