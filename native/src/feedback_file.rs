//! Where the command line and the server keep feedback and proposed verified queries: a
//! file beside the project file (`.nl2sql/feedback.json`), or in the working directory's
//! `.nl2sql/` when there is no project file. It never leaves the machine.

use crate::sources::Sources;
use nl2sql_core::error::{Error, ErrorCode};
use nl2sql_core::feedback::FeedbackBook;
use std::path::{Path, PathBuf};

/// The feedback file of the databases `sources` names.
pub fn feedback_path(sources: &Sources) -> PathBuf {
    match sources {
        // In the same folder as the project's schema cache.
        Sources::Project(p) => crate::cache::cache_path(&p.path).with_file_name("feedback.json"),
        _ => Path::new(".nl2sql").join("feedback.json"),
    }
}

/// The book at `path`; an empty one when there is no file yet.
pub fn load(path: &Path) -> Result<FeedbackBook, Error> {
    match std::fs::read_to_string(path) {
        Ok(text) => FeedbackBook::from_json(&text).map_err(|e| Error {
            message: format!("{}: {}", path.display(), e.message),
            ..e
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FeedbackBook::default()),
        Err(e) => Err(Error::new(
            ErrorCode::FeedbackUnreadable,
            format!("The feedback file cannot be read: {}: {e}.", path.display()),
        )),
    }
}

/// Writes `book` to `path` whole or not at all (a temporary file renamed over it), readable
/// by its owner only: it holds questions and the SQL that answered them.
pub fn save(path: &Path, book: &FeedbackBook) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    }
    let temporary = path.with_extension(format!("json.{}", std::process::id()));
    crate::cache::write_private(&temporary, book.to_json().as_bytes()).map_err(|e| fail(&e))?;
    std::fs::rename(&temporary, path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        fail(&e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_is_saved_whole_and_read_back_and_a_missing_one_is_empty() {
        let dir = std::env::temp_dir().join(format!("nl2sql-feedback-{}", std::process::id()));
        let path = dir.join(".nl2sql").join("feedback.json");
        assert_eq!(load(&path), Ok(FeedbackBook::default()));
        save(&path, &FeedbackBook::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(load(&path), Ok(FeedbackBook::default()));
        std::fs::write(&path, "{ not json").unwrap_or_else(|e| panic!("{e}"));
        let Err(e) = load(&path) else {
            panic!("a damaged file is refused");
        };
        assert_eq!(e.code, ErrorCode::FeedbackUnreadable);
        assert!(e.to_string().contains("feedback.json"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
