//! The crate's one error type: what went wrong (its [`ErrorKind`]) and a plain sentence.
//! Validation findings are not errors of this kind: they are records
//! ([`nl2sql_error::PipelineError`]) a validation collects, since one plan can have many.

use nl2sql_error::ErrorCode;
use std::fmt;

/// Why something in this crate could not be done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// What is wrong, and where possible how to fix it.
    pub message: String,
}

/// The kinds of failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// A plan's JSON does not describe a plan; `path` says where (`select_items[1].expr`).
    Shape {
        /// Where in the plan.
        path: String,
    },
    /// A plan that cannot be rendered as SQL for the dialect asked for.
    Unbuildable,
    /// A policy pattern or role that cannot be used.
    Policy,
    /// SQL that does not parse (a corrected text may).
    Unreadable,
    /// SQL that parses but is not exactly one read-only query, or is too large to analyse.
    Refused,
}

impl Error {
    /// An error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// A plan the generator cannot build.
    pub fn unbuildable(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unbuildable, message)
    }

    /// The stable code a caller sees for it.
    pub fn code(&self) -> ErrorCode {
        match self.kind {
            ErrorKind::Shape { .. } | ErrorKind::Unbuildable => ErrorCode::InvalidPlanStructure,
            ErrorKind::Policy => ErrorCode::ConfigInvalid,
            ErrorKind::Unreadable => ErrorCode::SqlImportFailed,
            ErrorKind::Refused => ErrorCode::SecurityViolation,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Shape { path } if !path.is_empty() => write!(f, "{path}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}
