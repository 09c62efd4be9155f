//! `nl2sql serve` (an HTTP API with streaming) and `nl2sql mcp` (an MCP server over stdio,
//! and over streamable HTTP at `/mcp` under `serve`): the same engine, configuration and
//! roles as every other front end, behind API keys.
//!
//! The engine is single-threaded by design (its futures are not `Send`, its databases are
//! `Rc`s), so it runs on a few engine threads ([`lanes`]), each with its own `Service` and
//! its own connections, all built from one read of the schemas. The async side (tokio,
//! axum, rmcp) only authenticates, queues work and relays the engine's events; a client
//! that goes away sets its run's cancel flag, which the engine, the model transport and the
//! database query all watch.

pub mod api;
pub mod auth;
pub mod lanes;
pub mod log;
pub mod mcp;
pub mod metrics;
pub mod openapi;
pub mod shared;
pub mod traces;
pub mod types;

pub use auth::{Caller, Keys};
pub use lanes::{Lanes, SourcesSpec};
pub use shared::{Limits, Shared};

use nl2sql_core::config::{ProviderConfig, RunConfig};
use std::net::SocketAddr;
use std::sync::Arc;

/// Everything `nl2sql serve` and `nl2sql mcp` are started with.
pub struct Options {
    /// Where the databases are (read again by every engine thread).
    pub sources: SourcesSpec,
    /// The model provider, its key the server's own (from the environment).
    pub provider: ProviderConfig,
    /// Limits and answer mode of every run.
    pub run: RunConfig,
    /// Engine threads: runs served at once.
    pub lanes: usize,
    /// Request and run limits.
    pub limits: Limits,
    /// How often a datasource left out (unreachable, refused, unreadable) is tried again.
    pub retry: std::time::Duration,
    /// Where OpenTelemetry traces of the runs go (an OTLP/HTTP traces address); none: off.
    pub traces: Option<String>,
}

/// Why the server could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// Who may call the API.
pub struct Access {
    /// The API keys and their roles.
    pub keys: Keys,
    /// A header a trusted gateway sets to the caller's role (narrowing the key's), if any.
    pub role_header: Option<String>,
}

/// Serves the HTTP API (and MCP at `/mcp`) on `listen` until Ctrl-C or SIGTERM; `ready`
/// hears the bound address once it accepts connections.
pub fn serve(
    options: Options,
    access: Access,
    listen: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), StartError> {
    let Access { keys, role_header } = access;
    let role_header = role_header
        .map(|name| {
            axum::http::HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|_| StartError(format!("{name:?} is not a header name")))
        })
        .transpose()?;
    if keys.is_empty() {
        return Err(StartError(
            "no API keys: set NL2SQL_API_KEYS (role:key pairs, separated by commas) or add \
             [[server.api_keys]] to the project file"
                .into(),
        ));
    }
    keys.check_unique().map_err(StartError)?;
    let shared = Arc::new(Shared::start(options)?);
    keys.check_roles(shared.policies()).map_err(StartError)?;
    let runtime = runtime()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| StartError(format!("cannot listen on {listen}: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| StartError(format!("cannot listen on {listen}: {e}")))?;
        let state = api::AppState::new(Arc::clone(&shared), keys).with_role_header(role_header);
        let app = api::router(state);
        tracing::info!(target: "nl2sql::serve", address = %bound, engine_threads = shared.lanes(), "listening");
        ready(bound);
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(stopped())
            .await
            .map_err(|e| StartError(format!("the server stopped: {e}")));
        shared.flush_traces();
        served
    })
}

/// Serves MCP over stdin and stdout, asking as `role` (none: the policies' default), until
/// the client closes the stream.
pub fn mcp_stdio(options: Options, role: Option<String>) -> Result<(), StartError> {
    let shared = Arc::new(Shared::start(options)?);
    let caller = match role {
        Some(role) if !shared.policies().roles.contains_key(&role) => {
            return Err(StartError(format!(
                "{role:?} is not a role of the policies (roles: {})",
                shared.role_names().join(", ")
            )))
        }
        Some(role) => Caller::local(role),
        None => match shared.default_role() {
            Some(role) => Caller::local(role),
            None => {
                return Err(StartError(format!(
                    "name the role the tools ask as: --role (roles: {})",
                    shared.role_names().join(", ")
                )))
            }
        },
    };
    let served = runtime()?.block_on(mcp::serve_stdio(Arc::clone(&shared), caller));
    shared.flush_traces();
    served
}

fn runtime() -> Result<tokio::runtime::Runtime, StartError> {
    // The async side only relays: two worker threads are plenty; the engine has its own.
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| StartError(format!("cannot start the async runtime: {e}")))
}

/// Resolves at Ctrl-C or SIGTERM.
async fn stopped() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!(target: "nl2sql::serve", "stopping");
}
