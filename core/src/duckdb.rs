//! What every DuckDB adapter shares (the native one, DuckDB-WASM in the page): how DuckDB's
//! error messages sort into the datasource error kinds.

use crate::datasource::DatasourceErrorKind;

/// The kind of a DuckDB failure, by the class its message names first (`Catalog Error: …`,
/// `Permission Error: …`).
pub fn error_kind(message: &str) -> DatasourceErrorKind {
    let class = message.split(':').next().unwrap_or_default().trim();
    let lower = message.to_ascii_lowercase();
    let refused = ["read-only mode", "configuration has been locked"];
    if class == "Permission Error" || refused.iter().any(|r| lower.contains(r)) {
        DatasourceErrorKind::Refused
    } else if matches!(
        class,
        "INTERRUPT Error"
            | "Out of Memory Error"
            | "IO Error"
            | "FATAL Error"
            | "INTERNAL Error"
            | "Connection Error"
    ) {
        DatasourceErrorKind::Unavailable
    } else {
        DatasourceErrorKind::InvalidQuery
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_sort_by_their_class() {
        assert_eq!(
            error_kind("Binder Error: Referenced column \"x\" not found"),
            DatasourceErrorKind::InvalidQuery
        );
        assert_eq!(
            error_kind("Permission Error: Cannot access file \"http://x\""),
            DatasourceErrorKind::Refused
        );
        assert_eq!(
            error_kind("Invalid Input Error: Cannot change configuration option \"threads\" - the configuration has been locked"),
            DatasourceErrorKind::Refused
        );
        assert_eq!(
            error_kind("Out of Memory Error: failed to allocate"),
            DatasourceErrorKind::Unavailable
        );
    }
}
