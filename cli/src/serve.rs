//! `nl2sql serve` (the HTTP API, with MCP at `/mcp`) and `nl2sql mcp` (MCP over stdio):
//! the command line's options turned into the server crate's, the model key from the
//! environment and the API keys from `NL2SQL_API_KEYS` and the project file.

use crate::ask::{AnswerWriter, ModelArgs};
use crate::Failure;
use nl2sql_core::config::RunConfig;
use nl2sql_core::config::QUERY_TIMEOUT_MS;
use nl2sql_server::{Access, Keys, Limits, Options, SourcesSpec};
use std::net::SocketAddr;

/// `nl2sql serve`'s command line.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// The address to listen on
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    listen: SocketAddr,
    #[command(flatten)]
    common: CommonArgs,
}

/// `nl2sql mcp`'s command line.
#[derive(clap::Args)]
pub struct McpArgs {
    /// The role every tool call asks as [default: the project file's server.mcp_role, else
    /// the policies' default role]
    #[arg(long, value_name = "ROLE")]
    role: Option<String>,
    #[command(flatten)]
    common: CommonArgs,
}

/// What both servers take.
#[derive(clap::Args)]
struct CommonArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Who writes the answers
    #[arg(long, value_enum, default_value_t = AnswerWriter::Llm)]
    answer: AnswerWriter,
    /// Engine threads: how many runs are served at once (each has its own database
    /// connections)
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    workers: u16,
    /// Stop any query that runs longer than this many milliseconds (QUERY_TIMEOUT)
    #[arg(long, value_name = "MS", value_parser = crate::query::positive,
          default_value_t = QUERY_TIMEOUT_MS)]
    timeout_ms: u64,
    /// Stop any run (PIPELINE_TIMEOUT) that takes longer than this many milliseconds
    #[arg(long, value_name = "MS", value_parser = crate::query::positive)]
    run_timeout_ms: Option<u64>,
    /// The largest request body, in bytes [default: the project file's, else 1048576]
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    max_body_bytes: Option<u64>,
    /// Runs one API key may have in flight at once [default: the project file's, else 4]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_runs_per_key: Option<u64>,
    /// Try a datasource that could not be reached or read again every this many
    /// milliseconds (it is in use from the next run once it reads)
    #[arg(long, value_name = "MS", value_parser = crate::query::positive, default_value_t = 30_000)]
    retry_ms: u64,
    /// Send OpenTelemetry traces of every run to this OTLP/HTTP collector (e.g.
    /// http://127.0.0.1:4318) [default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
    /// OTEL_EXPORTER_OTLP_ENDPOINT; neither: no traces]
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    #[command(flatten)]
    dbs: crate::DbArgs,
}

impl CommonArgs {
    /// The server's options, and the project file's server section.
    fn options(&self) -> Result<(Options, nl2sql_native::project::ServerEntry), Failure> {
        let sources = self.dbs.sources()?;
        for id in sources.ids() {
            sources.id(Some(&id)).map_err(crate::source_failure)?;
        }
        let server = match &sources {
            nl2sql_native::Sources::Project(p) => p.file.server.clone(),
            _ => Default::default(),
        };
        let (provider, missing) = self.model.provider_config_or_missing(sources.provider());
        if let Some(why) = missing {
            eprintln!("nl2sql: {why}; asks will be refused until then (SQL mode, routing and schemas work)");
        }
        let mut run = RunConfig {
            answer: self.answer.config(),
            query_timeout_ms: self.timeout_ms,
            ..RunConfig::default()
        };
        if let Some(ms) = self.run_timeout_ms {
            run.timeout_ms = ms;
        }
        let defaults = Limits::default();
        let limits = Limits {
            max_body_bytes: self
                .max_body_bytes
                .map(|b| usize::try_from(b).unwrap_or(usize::MAX))
                .or(server.max_body_bytes)
                .unwrap_or(defaults.max_body_bytes),
            max_runs_per_key: self
                .max_runs_per_key
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
                .or(server.max_runs_per_key)
                .unwrap_or(defaults.max_runs_per_key),
        };
        let options = Options {
            sources: SourcesSpec {
                db: self.dbs.db.clone(),
                id: self.dbs.id.clone(),
                config: self.dbs.config.clone(),
                data: self.dbs.data.clone(),
            },
            provider,
            run,
            lanes: usize::from(self.workers),
            limits,
            retry: std::time::Duration::from_millis(self.retry_ms),
            traces: nl2sql_server::traces::endpoint(self.otlp_endpoint.as_deref()),
        };
        Ok((options, server))
    }
}

/// Runs `nl2sql serve` until Ctrl-C or SIGTERM.
pub fn serve(args: &ServeArgs) -> Result<(), Failure> {
    nl2sql_server::log::init();
    let (options, server) = args.common.options()?;
    let from_env = match std::env::var("NL2SQL_API_KEYS") {
        Ok(text) => Keys::from_env(&text).map_err(Failure::Usage)?,
        Err(_) => Keys::default(),
    };
    let access = Access {
        keys: Keys::from_config(&server.api_keys).and(from_env),
        role_header: server.role_header.clone(),
    };
    nl2sql_server::serve(options, access, args.listen, |bound| {
        eprintln!("nl2sql: serving on http://{bound} (API at /api/v1, MCP at /mcp)");
    })
    .map_err(|e| Failure::Runtime(e.0))
}

/// Runs `nl2sql mcp` until the client closes standard input.
pub fn mcp(args: &McpArgs) -> Result<(), Failure> {
    nl2sql_server::log::init();
    let (options, server) = args.common.options()?;
    let role = args.role.clone().or(server.mcp_role);
    nl2sql_server::mcp_stdio(options, role).map_err(|e| Failure::Runtime(e.0))
}
