//! The engine's one error type: [`Error`], a stable code from the one vocabulary
//! ([`ErrorCode`], crate `nl2sql-error`) and one plain sentence, with a model provider's own
//! words when one failed. Inside a run, failures are records instead
//! ([`PipelineError`], [`RunWarning`]), since a run goes on and reports them all.

pub use nl2sql_error::{
    Boundary, Clean, ErrorCode, Node, PipelineError, RunWarning, Severity, REFUSAL_MESSAGE,
};
use std::fmt;

/// Why a call into the engine failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The stable code: what kind of failure it is.
    pub code: ErrorCode,
    /// One plain sentence (or a few): what is wrong and, where possible, how to fix it.
    pub message: String,
    /// The model provider's failure, when one failed (its code is `code`); boxed, so an
    /// `Error` stays small in every `Result`.
    pub provider: Option<Box<ProviderFailure>>,
}

impl Error {
    /// A failure with `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            provider: None,
        }
    }

    /// The same failure under another code (a provider's failure keeps its words).
    pub fn with_code(self, code: ErrorCode) -> Error {
        Error { code, ..self }
    }

    /// The record `node` reports for it inside a run.
    pub fn at(self, node: Node) -> PipelineError {
        match self.provider.map(|f| *f) {
            Some(failure) if failure.code == self.code => failure.into_error(node),
            Some(failure) => PipelineError {
                provider: Some(failure.provider),
                provider_response: failure.provider_response,
                ..PipelineError::new(node, self.code, Severity::Error, self.message)
            },
            None => PipelineError::new(node, self.code, Severity::Error, self.message),
        }
    }

    /// CONFIG_INVALID.
    pub fn config(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::ConfigInvalid, message)
    }

    /// DATASOURCE_NOT_FOUND for `id`.
    pub fn no_datasource(id: &str) -> Error {
        Error::new(
            ErrorCode::DatasourceNotFound,
            format!("there is no datasource {id:?}"),
        )
    }
}

impl From<ProviderFailure> for Error {
    fn from(failure: ProviderFailure) -> Error {
        Error {
            code: failure.code,
            message: failure.message.clone(),
            provider: Some(Box::new(failure)),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match self
            .provider
            .as_ref()
            .and_then(|p| p.provider_response.as_ref())
        {
            Some(words) if !self.message.contains(words.as_str()) => {
                write!(f, " The provider said: {words}")
            }
            _ => Ok(()),
        }
    }
}

impl std::error::Error for Error {}

/// A classified model-provider failure, not yet tied to the node that made the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderFailure {
    /// `PROVIDER_*`, or `CANCELLED` when the run was cancelled mid-call.
    pub code: ErrorCode,
    /// The provider as a person names it.
    pub provider: String,
    /// One sentence naming the provider; never the key.
    pub message: String,
    /// The provider's own words (`HTTP 401 (invalid_api_key): …`), keys redacted.
    pub provider_response: Option<String>,
    /// What the provider asked us to wait before the next call, from `retry-after`.
    pub retry_after_ms: Option<u64>,
}

impl ProviderFailure {
    /// The error the node that made the call reports.
    pub fn into_error(self, node: Node) -> PipelineError {
        PipelineError {
            provider: Some(self.provider),
            provider_response: self.provider_response,
            ..PipelineError::new(node, self.code, Severity::Error, self.message)
        }
    }
}
