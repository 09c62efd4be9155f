//! `nl2sql ask`: the whole pipeline on the demo databases, with a real model provider (or
//! any OpenAI-compatible endpoint). The key comes from the environment only.

use crate::Failure;
use clap::ValueEnum;
use nl2sql_core::config::QUERY_TIMEOUT_MS;
use nl2sql_core::config::{AnswerConfig, ProviderConfig, ProviderKind, RunConfig};
use nl2sql_core::result::Thread;
use nl2sql_core::result::{Event, Events, QueryResult, TraceForm, Writer};
use nl2sql_core::service::{Ask, Question, Service};
use nl2sql_native::project::ProviderEntry;
use nl2sql_native::NativeHost;
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
    /// Continue the conversation kept in FILE (a thread, JSON; none yet: a new one) and write
    /// it back with this turn, so the next ask can follow up
    #[arg(long, value_name = "FILE")]
    thread: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    /// Who writes the answer
    #[arg(long, value_enum, default_value_t = AnswerWriter::Llm)]
    answer: AnswerWriter,
    /// Stop the run (RUN_LIMIT_REACHED) once its priced model calls cost this many US dollars
    #[arg(long, value_name = "USD", value_parser = dollars)]
    max_cost: Option<f64>,
    /// Stop any query that runs longer than this many milliseconds (QUERY_TIMEOUT)
    #[arg(long, value_name = "MS", value_parser = crate::query::positive,
          default_value_t = QUERY_TIMEOUT_MS)]
    timeout_ms: u64,
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
    #[command(flatten)]
    dbs: crate::DbArgs,
}

/// The model provider and model, for `ask` and `eval`. Keys come from the environment only.
#[derive(clap::Args)]
pub(crate) struct ModelArgs {
    /// The model provider; NL2SQL_API_KEY overrides the provider's own key variable
    /// [default: the project file's [provider], else openai]
    #[arg(long, value_enum)]
    pub(crate) provider: Option<ProviderName>,
    /// The model [default: gpt-5.4-mini for openai, claude-haiku-4-5 for anthropic,
    /// llama3.1 for compatible: the same defaults as the playground and the npm package]
    #[arg(long, value_name = "MODEL")]
    pub(crate) model: Option<String>,
    /// The provider's endpoint [default: the provider's own API; http://localhost:11434/v1
    /// (a local Ollama) for compatible]
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
    fn of(kind: ProviderKind) -> ProviderName {
        match kind {
            ProviderKind::OpenAi => ProviderName::Openai,
            ProviderKind::Anthropic => ProviderName::Anthropic,
            ProviderKind::Compatible => ProviderName::Compatible,
        }
    }

    fn kind(self) -> ProviderKind {
        match self {
            ProviderName::Openai => ProviderKind::OpenAi,
            ProviderName::Anthropic => ProviderKind::Anthropic,
            ProviderName::Compatible => ProviderKind::Compatible,
        }
    }

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
pub(crate) enum AnswerWriter {
    /// A short answer the model writes, streamed, checked against the rows
    Llm,
    /// An answer filled in from the rows, no model call
    Template,
}

impl AnswerWriter {
    /// The run configuration's answer mode.
    pub(crate) fn config(self) -> AnswerConfig {
        match self {
            AnswerWriter::Llm => AnswerConfig::Llm,
            AnswerWriter::Template => AnswerConfig::Template,
        }
    }
}

/// `--max-cost`'s value parser: a number of US dollars, zero or more.
pub(crate) fn dollars(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd >= 0.0 => Ok(usd),
        _ => Err("not a number of US dollars".into()),
    }
}

impl ModelArgs {
    /// The provider configuration the options name, as the page and the npm package
    /// configure one (so the defaults are the same everywhere), its key from the
    /// environment.
    pub(crate) fn provider_config(&self) -> Result<ProviderConfig, Failure> {
        self.provider_config_with(None)
    }

    /// The provider named on the command line, else in the project file (`file`), else
    /// OpenAI; each option given on the command line wins over the file's, and the file's
    /// model and endpoint apply only to the provider it names.
    pub(crate) fn provider_config_with(
        &self,
        file: Option<&ProviderEntry>,
    ) -> Result<ProviderConfig, Failure> {
        let (config, missing) = self.provider_config_or_missing(file);
        match missing {
            Some(why) => Err(Failure::Usage(why)),
            None => Ok(config),
        }
    }

    /// [`ModelArgs::provider_config_with`] for a server, which starts without a key (SQL
    /// mode, routing and schemas need none): the configuration, and what is missing when a
    /// key is needed and none is set.
    pub(crate) fn provider_config_or_missing(
        &self,
        file: Option<&ProviderEntry>,
    ) -> (ProviderConfig, Option<String>) {
        let file = file.filter(|f| self.provider.is_none_or(|p| p.kind() == f.kind));
        let kind = self
            .provider
            .map(ProviderName::kind)
            .or(file.map(|f| f.kind))
            .unwrap_or_default();
        let mut variables: Vec<&str> = file
            .and_then(|f| f.api_key_env.as_deref())
            .into_iter()
            .collect();
        variables.extend(ProviderName::of(kind).key_variables());
        let api_key = variables
            .iter()
            .find_map(|n| std::env::var(n).ok().filter(|k| !k.trim().is_empty()))
            .unwrap_or_default();
        // A compatible endpoint (a local Ollama, say) may need no key.
        let missing = (api_key.is_empty() && kind.needs_key())
            .then(|| format!("no key: set {}", variables.join(" or ")));
        let config = ProviderConfig {
            kind,
            model: self
                .model
                .clone()
                .or_else(|| file.and_then(|f| f.model.clone()))
                .unwrap_or_else(|| kind.default_model().to_string()),
            api_key,
            base_url: self
                .base_url
                .clone()
                .or_else(|| file.and_then(|f| f.base_url.clone())),
            models: file.map(|f| f.models.clone()).unwrap_or_default(),
        };
        (config, missing)
    }
}

pub(crate) fn print_rows(
    sql: Option<&str>,
    columns: &[String],
    rows: &[Vec<nl2sql_core::result::Value>],
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
    let run = RunConfig {
        answer: args.answer.config(),
        max_cost_usd: args.max_cost,
        query_timeout_ms: args.timeout_ms,
        ..RunConfig::default()
    };
    let sources = args.output.dbs.sources()?;
    let provider = args.model.provider_config_with(sources.provider())?;
    let service = open(&sources, provider, run)?;
    let book =
        nl2sql_native::feedback_file::load(&nl2sql_native::feedback_file::feedback_path(&sources))
            .map_err(|e| Failure::Runtime(e.to_string()))?;
    pollster::block_on(service.use_approved(&book)).map_err(|e| Failure::Runtime(e.to_string()))?;
    let thread = match &args.thread {
        Some(file) => Some(read_thread(file)?),
        None => None,
    };
    let ask = service
        .request(Question {
            question: args.question.clone(),
            roles: args.roles.clone(),
            datasource: args.datasource.clone(),
            plan_only: args.plan_only,
            // The command line's caller owns the data and the configuration.
            trace: TraceForm::Full,
            thread,
        })
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let result = execute(&args.output, &service, ask)?;
    if let Some(file) = &args.thread {
        let json = serde_json::to_string_pretty(&result.thread)
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        std::fs::write(file, json)
            .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", file.display())))?;
    }
    crate::whole(&service)
}

/// The thread kept in `file`: a new one when there is no file yet.
fn read_thread(file: &std::path::Path) -> Result<Thread, Failure> {
    match std::fs::read_to_string(file) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            Failure::Runtime(format!(
                "{} is not a thread (nl2sql ask --thread): {e}",
                file.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Thread::default()),
        Err(e) => Err(Failure::Runtime(format!(
            "cannot read {}: {e}",
            file.display()
        ))),
    }
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
    let service = open(
        &args.output.dbs.sources()?,
        ProviderConfig::default(),
        RunConfig::default(),
    )?;
    let ask = service.replaying(&recorded);
    execute(&args.output, &service, ask).map(|_| ())
}

/// The facade over the databases the options name.
fn open(
    sources: &nl2sql_native::Sources,
    provider: ProviderConfig,
    run: RunConfig,
) -> Result<Service<NativeHost>, Failure> {
    // A missing file is named before anything is read.
    for id in sources.ids() {
        sources.id(Some(&id)).map_err(crate::source_failure)?;
    }
    let (workspace, cache) = sources
        .workspace_reporting(sources.policies())
        .map_err(|e| Failure::Runtime(e.to_string()))?;
    crate::say_cache_problems(&cache);
    crate::say_unavailable(workspace.unavailable());
    Ok(Service::new(
        NativeHost::default(),
        workspace,
        provider,
        run,
    ))
}

fn execute(o: &RunArgs, service: &Service<NativeHost>, ask: Ask) -> Result<QueryResult, Failure> {
    let replaying = ask.is_replay();
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
    let result = pollster::block_on(service.ask(ask, events));
    let json =
        serde_json::to_string_pretty(&result).map_err(|e| Failure::Runtime(e.to_string()))?;
    if let Some(path) = &o.trace {
        std::fs::write(path, &json)
            .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display())))?;
    }
    if o.json {
        println!("{json}");
        return Ok(result);
    }
    if let Some(c) = &result.clarification {
        println!("{}", c.question);
        for o in &c.options {
            println!("  - {}", o.question);
        }
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
    if replaying {
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
    Ok(result)
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
