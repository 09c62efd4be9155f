//! The native side fails with the engine's one error type
//! ([`nl2sql_core::error::Error`]); these say which code each kind of failure here carries.

use nl2sql_core::adapter::{DatasourceError, DatasourceErrorKind};
use nl2sql_core::error::{Error, ErrorCode};

/// Something named on the command line or in a project file that cannot be used as given:
/// CONFIG_INVALID.
pub(crate) fn usage(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::ConfigInvalid, message)
}

/// A file that is missing or cannot be read, or a server that cannot be reached:
/// DATASOURCE_UNREADABLE.
pub(crate) fn unreadable(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::DatasourceUnreadable, message)
}

/// A database that could not be opened, coded by why: DATASOURCE_UNREACHABLE,
/// DATASOURCE_AUTH_FAILED, else DATASOURCE_UNREADABLE.
pub(crate) fn not_opened(e: &DatasourceError) -> Error {
    let code = match e.kind {
        DatasourceErrorKind::Unreachable => ErrorCode::DatasourceUnreachable,
        DatasourceErrorKind::Denied => ErrorCode::DatasourceAuthFailed,
        _ => ErrorCode::DatasourceUnreadable,
    };
    Error::new(code, e.to_string())
}

/// A copy that could not be made: COPY_FAILED.
pub(crate) fn copy_failed(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::CopyFailed, message)
}
