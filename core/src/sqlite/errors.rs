use crate::datasource::{DatasourceError, DatasourceErrorKind};

/// Sorts a SQLite failure into a datasource error kind.
///
/// `code` is SQLite's primary result code when the adapter has it (rusqlite does, sql.js
/// does not); the message decides otherwise. SQLite's generic `SQLITE_ERROR` (1) covers the
/// query's own faults: syntax, unknown tables and columns, misused aggregates.
pub fn classify_error(code: Option<i32>, message: &str) -> DatasourceError {
    const SQLITE_ERROR: i32 = 1;
    const SQLITE_PERM: i32 = 3;
    const SQLITE_READONLY: i32 = 8;
    const SQLITE_AUTH: i32 = 23;
    const SQLITE_RANGE: i32 = 25;

    let lower = message.to_ascii_lowercase();
    let refused_words = [
        "readonly database",
        "not authorized",
        "prohibited",
        "too many attached",
    ];
    let kind = match code {
        Some(SQLITE_PERM | SQLITE_READONLY | SQLITE_AUTH) => DatasourceErrorKind::Refused,
        Some(SQLITE_ERROR | SQLITE_RANGE) => DatasourceErrorKind::InvalidQuery,
        Some(_) => DatasourceErrorKind::Unavailable,
        None if refused_words.iter().any(|w| lower.contains(w)) => DatasourceErrorKind::Refused,
        None if is_unavailable_message(&lower) => DatasourceErrorKind::Unavailable,
        None => DatasourceErrorKind::InvalidQuery,
    };
    DatasourceError::new(kind, message.trim())
}

/// The messages SQLite gives for the non-`SQLITE_ERROR` codes that mean it could not run.
fn is_unavailable_message(lower: &str) -> bool {
    [
        "not a database",
        "malformed",
        "out of memory",
        "interrupted",
        "disk i/o",
        "database is locked",
        "unable to open",
        "database or disk is full",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_win_over_words() {
        assert_eq!(
            classify_error(Some(8), "x").kind,
            DatasourceErrorKind::Refused
        );
        assert_eq!(
            classify_error(Some(1), "no such table: Nope").kind,
            DatasourceErrorKind::InvalidQuery
        );
        assert_eq!(
            classify_error(Some(11), "whatever").kind,
            DatasourceErrorKind::Unavailable
        );
    }

    #[test]
    fn messages_decide_without_a_code() {
        let kind = |m| classify_error(None, m).kind;
        assert_eq!(
            kind("no such column: Nme"),
            DatasourceErrorKind::InvalidQuery
        );
        assert_eq!(
            kind("near \"SELEC\": syntax error"),
            DatasourceErrorKind::InvalidQuery
        );
        assert_eq!(
            kind("attempt to write a readonly database"),
            DatasourceErrorKind::Refused
        );
        assert_eq!(
            kind("file is not a database"),
            DatasourceErrorKind::Unavailable
        );
        assert_eq!(
            kind("database disk image is malformed"),
            DatasourceErrorKind::Unavailable
        );
    }
}
