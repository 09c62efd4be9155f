//! `nl2sql ask`: the whole pipeline on the demo databases, with a real model provider (or
//! any OpenAI-compatible endpoint). The key comes from the environment only.

use crate::routing::{build_index, embed_failure_text};
use crate::Failure;
use nl2sql_core::curated::Curated;
use nl2sql_core::demo::{DEMO_DATABASES, DEMO_VERIFIED};
use nl2sql_core::engine::{
    Agent, AnswerMode, AskOptions, Engine, EngineSettings, Event, Events, Parts, Replay, Writer,
};
use nl2sql_core::index::BuiltinEmbedder;
use nl2sql_core::policy::Policies;
use nl2sql_core::provider::{ApiKey, Provider, Wire};
use nl2sql_core::Datasource;
use nl2sql_native::{BlockingTransport, SqliteFile, WallClock};
use std::path::PathBuf;

struct Options {
    question: Option<String>,
    roles: Vec<String>,
    datasource: Option<String>,
    plan_only: bool,
    provider: String,
    model: Option<String>,
    base_url: Option<String>,
    trace: Option<PathBuf>,
    json: bool,
    data: PathBuf,
    /// The answer written by the model (`llm`) or by a template.
    written: bool,
    /// Dollars the run may spend.
    max_cost: Option<f64>,
}

fn parse(args: &[String]) -> Result<Options, Failure> {
    let mut o = Options {
        question: None,
        roles: vec![],
        datasource: None,
        plan_only: false,
        provider: "openai".into(),
        model: None,
        base_url: None,
        trace: None,
        json: false,
        data: PathBuf::from("data"),
        written: true,
        max_cost: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |what: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Failure::Usage(format!("{arg} needs {what}")))
        };
        match arg.as_str() {
            "--role" => o.roles.push(value("a role")?),
            "--datasource" => o.datasource = Some(value("an id")?),
            "--plan-only" => o.plan_only = true,
            "--provider" => o.provider = value("openai, anthropic or compatible")?,
            "--model" => o.model = Some(value("a model")?),
            "--base-url" => o.base_url = Some(value("a URL")?),
            "--trace" => o.trace = Some(value("a file")?.into()),
            "--json" => o.json = true,
            "--max-cost" => {
                let text = value("a number of US dollars")?;
                let usd = text
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0);
                let Some(usd) = usd else {
                    return Err(Failure::Usage(format!(
                        "--max-cost is a number of US dollars, not {text:?}"
                    )));
                };
                o.max_cost = Some(usd);
            }
            "--answer" => {
                o.written = match value("llm or template")?.as_str() {
                    "llm" => true,
                    "template" => false,
                    other => {
                        return Err(Failure::Usage(format!(
                            "--answer is llm or template, not {other:?}"
                        )))
                    }
                }
            }
            "--data" => o.data = value("a folder")?.into(),
            other if other.starts_with("--") => {
                return Err(Failure::Usage(format!("unknown option {other:?}")))
            }
            q if o.question.is_none() => o.question = Some(q.to_string()),
            _ => return Err(Failure::Usage("give one question, in quotes".into())),
        }
    }
    Ok(o)
}

fn env_key(names: &[&str]) -> ApiKey {
    names
        .iter()
        .find_map(|n| std::env::var(n).ok().filter(|k| !k.trim().is_empty()))
        .map(ApiKey::new)
        .unwrap_or_default()
}

/// The provider and model the options name.
fn agent(o: &Options) -> Result<Agent, Failure> {
    agent_for(&o.provider, o.model.clone(), o.base_url.clone())
}

/// The agent for `--provider`, `--model` and `--base-url`, the key from the environment.
pub(crate) fn agent_for(
    which: &str,
    model: Option<String>,
    base_url: Option<String>,
) -> Result<Agent, Failure> {
    let url = |default: &str| base_url.clone().unwrap_or_else(|| default.to_string());
    let (provider, model) = match which {
        "openai" => (
            Provider::new(
                Wire::OpenAi,
                &url("https://api.openai.com/v1"),
                env_key(&["NL2SQL_API_KEY", "OPENAI_API_KEY"]),
            ),
            model.clone().unwrap_or_else(|| "gpt-5.4".into()),
        ),
        "anthropic" => (
            Provider::new(
                Wire::Anthropic,
                &url("https://api.anthropic.com/v1"),
                env_key(&["NL2SQL_API_KEY", "ANTHROPIC_API_KEY"]),
            ),
            model.clone().unwrap_or_else(|| "claude-opus-5".into()),
        ),
        "compatible" => {
            let (Some(base), Some(model)) = (&base_url, &model) else {
                return Err(Failure::Usage(
                    "--provider compatible needs --base-url and --model".into(),
                ));
            };
            (
                Provider::new(Wire::OpenAi, base, env_key(&["NL2SQL_API_KEY"])),
                model.clone(),
            )
        }
        other => {
            return Err(Failure::Usage(format!(
                "--provider is openai, anthropic or compatible, not {other:?}"
            )))
        }
    };
    if provider.key.is_empty() && which != "compatible" {
        return Err(Failure::Usage(format!(
            "no key: set NL2SQL_API_KEY or {}",
            if which == "anthropic" {
                "ANTHROPIC_API_KEY"
            } else {
                "OPENAI_API_KEY"
            }
        )));
    }
    Ok(Agent::new(provider, &model))
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
pub fn run(args: &[String]) -> Result<(), Failure> {
    let o = parse(args)?;
    let Some(question) = o.question.clone() else {
        return Err(Failure::Usage("give a question, in quotes".into()));
    };
    let agent = agent(&o)?;
    let mut settings = EngineSettings::new(agent.clone());
    settings.max_cost_usd = o.max_cost;
    if o.written {
        settings.answer = AnswerMode::Llm(Agent {
            max_tokens: 400,
            ..agent
        });
    }
    let transport = BlockingTransport::default();
    let request = Request {
        question,
        roles: o.roles.clone(),
        datasource: o.datasource.clone(),
        plan_only: o.plan_only,
    };
    execute(&o, settings, &transport, None, &request)
}

/// Runs `nl2sql replay FILE`: the recorded run's question, asked again with every model
/// answer taken from the recording; no request leaves the machine.
pub fn replay(args: &[String]) -> Result<(), Failure> {
    let mut o = parse(args)?;
    let Some(file) = o.question.take() else {
        return Err(Failure::Usage(
            "give the file a run was recorded to (ask --trace FILE)".into(),
        ));
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Failure::Runtime(format!("cannot read {file}: {e}")))?;
    let replay = Replay::from_result_json(&text).map_err(Failure::Runtime)?;
    let recorded: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| Failure::Runtime(e.to_string()))?;
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    let request = Request {
        question: recorded["question"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        roles: strings(&recorded["roles"]),
        datasource: recorded["datasource"].as_str().map(str::to_string),
        plan_only: recorded["plan_only"].as_bool().unwrap_or(false),
    };
    // The model is never asked; the agent only names what the recording answers for.
    let agent = Agent::new(
        Provider::new(Wire::OpenAi, "http://replay.invalid/v1", ApiKey::default()),
        "replay",
    );
    let mut settings = EngineSettings::new(agent.clone());
    let written = recorded["final_answer"]["written_by"] == "llm";
    if written {
        settings.answer = AnswerMode::Llm(agent);
    }
    let offline = BlockingTransport::cancelled_by(std::sync::Arc::new(
        std::sync::atomic::AtomicBool::new(true),
    ));
    execute(&o, settings, &offline, Some(&replay), &request)
}

/// What was asked.
struct Request {
    question: String,
    roles: Vec<String>,
    datasource: Option<String>,
    plan_only: bool,
}

fn execute(
    o: &Options,
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
