//! `nl2sql`: the native command line.

mod ask;
mod catalogue;
mod chat;
mod copy;
mod eval;
mod feedback;
mod init;
mod progress;
mod query;
mod routing;
mod schema;
mod serve;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;
use nl2sql_core::error::{Error, ErrorCode};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The command line as clap reads it.
#[derive(Parser)]
#[command(
    name = "nl2sql",
    version,
    about = "Questions in plain words answered with checked SQL over the demo databases",
    // A single-valued option given twice keeps its last value, as the hand-written parser
    // did (clap would refuse it otherwise); this reaches every subcommand.
    args_override_self = true,
    after_help = "Exit codes: 0 when the command ran, even if the plan was refused; 2 for a \
                  wrong command line; 1 when it could not be carried out (e.g. a database \
                  cannot be opened); 3 when it ran without some datasources, which it names. \
                  A closed pipe (`nl2sql schema | head`) ends it quietly, by the pipe's \
                  signal."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate, render and run a plan (JSON)
    Plan(query::PlanArgs),
    /// Import SQL as a plan, then validate, render and run it
    Sql(query::SqlArgs),
    /// Print a datasource's tables, columns, keys and statistics
    Schema(schema::Args),
    /// Rank the demo datasources for a question (five signals and named values)
    Route(routing::RouteArgs),
    /// The schema the planner gets for a question
    Retrieve(routing::RetrieveArgs),
    /// Read every database and build the schema index: what it holds, its embedder, the time
    ///
    /// With a project file, also writes its schema cache (.nl2sql/schema-cache.json beside
    /// it): later commands take each database's schema, statistics and values from it while
    /// the database's structure is unchanged, and read it again when it changed.
    Index(routing::IndexArgs),
    /// The whole pipeline: route, check answerability while planning, validate, run, answer
    ///
    /// Keys come from the environment only (never the command line, where they would land
    /// in the shell's history).
    Ask(ask::AskArgs),
    /// A conversation: each line continues the thread, follow-ups edit the previous plan
    ///
    /// /new starts a new thread, /sql shows the last SQL, /right and /wrong give feedback on
    /// the last answer; a question the engine asks back is answered by its number. Ctrl-C
    /// cancels the running question, not the program; Ctrl-D or /quit leaves.
    Chat(chat::ChatArgs),
    /// Right or Wrong on answers, and the verified queries they propose
    ///
    /// "Right" proposes a verified query; a role that approves (admin in the demo policies)
    /// approves, edits or deletes it; approved ones answer their questions with no model
    /// call, and export --good writes them as eval cases. Kept in .nl2sql/feedback.json.
    Feedback(feedback::Args),
    /// Ask a recorded run's question again, every model answer taken from the recording
    ///
    /// Nothing is sent anywhere; prints the result and where the prompts differed from the
    /// recording.
    Replay(ask::ReplayArgs),
    /// The demo databases read ahead as JSON, for the playground
    ///
    /// Each database's schema, statistics and text values, tied to its file's SHA-256, for
    /// the playground to load instead of reading the databases in the page.
    Catalogue(catalogue::Args),
    /// Score a suite in the reference format (data/chinook.yaml, data/routing.yaml)
    ///
    /// Saves one JSON record under --out, never overwriting one; --json prints it,
    /// metrics.accuracy being execution accuracy. --provider, --model and --base-url are for
    /// --mode full.
    Eval(eval::Args),
    /// Copy a SQLite database into a PostgreSQL, MySQL or MariaDB server (tables, keys, rows)
    ///
    /// The database is created when the server does not have it yet. Into PostgreSQL it is
    /// one transaction: everything lands or nothing does. MySQL commits each table's
    /// creation by itself: a failed copy drops the tables it created (with --replace, the
    /// tables it replaced are gone). For example: nl2sql copy data/chinook.sqlite
    /// postgres://me@localhost:5432/chinook
    Copy(copy::Args),
    /// Write a commented starter project file (nl2sql.toml; docs/config.md)
    Init(init::Args),
    /// Serve the HTTP API (JSON, server-sent events) and MCP at /mcp, behind API keys
    ///
    /// Keys come from NL2SQL_API_KEYS (role:key pairs separated by commas) and the project
    /// file's [[server.api_keys]] (stored as SHA-256 hashes); each carries one role, which a
    /// request's "role" may narrow, never widen. The model key is the server's own, from the
    /// environment, and never reaches a client. The API is described at
    /// /api/v1/openapi.json; one JSON log line per request goes to stderr (NL2SQL_LOG
    /// filters it).
    Serve(serve::ServeArgs),
    /// Serve MCP over standard input and output, for a desktop assistant or an IDE
    ///
    /// Tools: ask, run_sql, list_datasources, describe_datasource, route; each datasource's
    /// schema is also a resource. Every call asks as one role (--role).
    Mcp(serve::McpArgs),
    /// Print a shell completion script
    ///
    /// For example: nl2sql completions bash > ~/.local/share/bash-completion/completions/nl2sql
    Completions(CompletionsArgs),
}

#[derive(clap::Args)]
struct CompletionsArgs {
    /// The shell the script is for
    shell: Shell,
}

/// Why a command did not complete.
pub(crate) enum Failure {
    /// The command line is wrong in a way clap cannot see (e.g. an unknown datasource):
    /// exit 2.
    Usage(String),
    /// The command was right but could not be carried out (e.g. an unreadable file): exit 1.
    Runtime(String),
    /// The command did its work with the datasources it could read, and some could not be
    /// (unreachable, refused, unreadable): exit 3, so a script can tell.
    Partly(String),
}

fn main() -> ExitCode {
    // Parsed in two steps so that a usage failure found later can name its subcommand.
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.format(&mut Cli::command()).exit(),
    };
    // A closed pipe ends the command line quietly, as it ends any Unix tool (Rust's
    // default turns the failed print into a panic). The servers keep Rust's default: a
    // client gone away is an error they report and carry on from.
    if !matches!(cli.command, Command::Serve(_) | Command::Mcp(_)) {
        sigpipe::reset();
    }
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            let command = matches
                .subcommand_name()
                .map(|name| format!("nl2sql {name}"))
                .unwrap_or_else(|| "nl2sql".into());
            eprintln!("nl2sql: {message}\n\nFor more information, try '{command} --help'.");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(message)) => {
            eprintln!("nl2sql: {message}");
            ExitCode::from(1)
        }
        Err(Failure::Partly(message)) => {
            eprintln!("nl2sql: {message}");
            ExitCode::from(3)
        }
    }
}

fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Plan(args) => query::plan_command(&args),
        Command::Sql(args) => query::sql_command(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Route(args) => routing::route_command(&args),
        Command::Retrieve(args) => routing::retrieve_command(&args),
        Command::Index(args) => routing::index_command(&args),
        Command::Ask(args) => ask::run(&args),
        Command::Chat(args) => chat::run(&args),
        Command::Feedback(args) => feedback::run(&args),
        Command::Replay(args) => ask::replay(&args),
        Command::Catalogue(args) => catalogue::run(&args),
        Command::Eval(args) => eval::run(&args),
        Command::Copy(args) => copy::run(&args),
        Command::Init(args) => init::run(&args),
        Command::Serve(args) => serve::serve(&args),
        Command::Mcp(args) => serve::mcp(&args),
        Command::Completions(args) => completions(args.shell),
    }
}

/// Prints the completion script for `shell`. It is written to memory first: clap_complete
/// panics when its writer fails (a closed pipe), and a failure here is an exit code.
fn completions(shell: Shell) -> Result<(), Failure> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "nl2sql", &mut script);
    std::io::stdout()
        .write_all(&script)
        .map_err(|e| Failure::Runtime(format!("writing the script: {e}")))
}

/// The name a person types for `value`, as clap spells it.
pub(crate) fn choice_name(value: &impl ValueEnum) -> String {
    value
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

/// Where a command's databases are: a project file, one database of the person's own, or
/// the demo folder.
#[derive(clap::Args)]
pub(crate) struct DbArgs {
    /// The project file naming your databases, roles and verified queries (docs/config.md)
    /// [default: ./nl2sql.toml when it exists]
    #[arg(long, value_name = "FILE", conflicts_with = "db")]
    pub(crate) config: Option<PathBuf>,
    /// One database of your own instead: a SQLite or DuckDB file, postgres://user@host:port/db,
    /// mysql://user@host:port/db (the password from PGPASSWORD or MYSQL_PWD) or
    /// sc://host:port/db, Spark Connect (a token from SPARK_CONNECT_TOKEN)
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) db: Option<String>,
    /// The id --db's database goes by [default: the file's name]; the role policies naming
    /// that id apply
    #[arg(long, value_name = "ID", requires = "db")]
    pub(crate) id: Option<String>,
    /// The folder holding the demo databases
    #[arg(long, value_name = "DIR", default_value = "data")]
    pub(crate) data: PathBuf,
}

impl DbArgs {
    /// The databases these options name.
    pub(crate) fn sources(&self) -> Result<nl2sql_native::Sources, Failure> {
        nl2sql_native::Sources::new(
            self.db.as_deref(),
            self.id.as_deref(),
            self.config.as_deref(),
            &self.data,
        )
        .map_err(source_failure)
    }
}

/// Says on stderr why a project's schema cache was not used, when it was not (the
/// databases were read instead).
pub(crate) fn say_cache_problems(report: &nl2sql_native::CacheReport) {
    for problem in &report.problems {
        eprintln!("nl2sql: the schema cache was not used: {problem}");
    }
    for dropped in &report.dropped {
        eprintln!("nl2sql: CONFIG_INVALID: {dropped}");
    }
}

/// Says on stderr which datasources were left out, each with its code and reason.
pub(crate) fn say_unavailable(left_out: &[nl2sql_core::service::Unavailable]) {
    for u in left_out {
        eprintln!("nl2sql: {} was left out ({}): {}", u.id, u.code, u.reason);
    }
}

/// `Ok` when every datasource was in use; else the failure that says the command did its
/// work without some (exit 3), naming them.
pub(crate) fn whole<H: nl2sql_core::service::Host>(
    service: &nl2sql_core::service::Service<H>,
) -> Result<(), Failure> {
    let workspace = service.workspace();
    let left_out: Vec<&str> = workspace
        .unavailable()
        .iter()
        .map(|u| u.id.as_str())
        .collect();
    if left_out.is_empty() {
        return Ok(());
    }
    Err(Failure::Partly(format!(
        "{} of {} datasources could not be used ({}); the rest were",
        left_out.len(),
        left_out.len() + workspace.ids().len(),
        left_out.join(", ")
    )))
}

/// Says on stderr what the engine dropped from the configuration, each by code, naming
/// what and why.
pub(crate) fn say_notices<H: nl2sql_core::service::Host>(
    service: &nl2sql_core::service::Service<H>,
) {
    for notice in service.notices() {
        eprintln!("nl2sql: {}: {}", notice.code, notice.message);
    }
}

/// The engine's error as the command's: what was named wrongly (a configuration, a
/// datasource that is not there) is a usage failure, anything else a runtime one; the
/// message starts with the stable code, for scripts.
pub(crate) fn source_failure(e: Error) -> Failure {
    let message = format!("{}: {e}", e.code);
    match e.code {
        ErrorCode::ConfigInvalid
        | ErrorCode::DatasourceNotFound
        | ErrorCode::DatasourceIdInvalid => Failure::Usage(message),
        _ => Failure::Runtime(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own consistency checks (duplicate names, bad defaults, conflicts naming
    /// unknown options), which otherwise only fire when that path is parsed.
    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
