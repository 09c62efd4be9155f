//! Where a command's databases come from: the demo folder (`--data`), or one database a
//! person names with `--db` (and perhaps `--id`). A SQLite file is read today; server URLs
//! and DuckDB files are recognised and refused by name, so a person learns what is missing
//! rather than that their file "is not a database".

use crate::demo::{demo_path, DemoPathError};
use crate::SqliteFile;
use nl2sql_core::demo::{demo_database, demo_profile, DEMO_DATABASES, DEMO_VERIFIED};
use nl2sql_core::index::{BuiltinEmbedder, DatasourceProfile};
use nl2sql_core::policy::Policies;
use nl2sql_core::workspace::{Opening, Workspace, WorkspaceError};
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The databases a command reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sources {
    /// The three demo databases in this folder.
    Demo(PathBuf),
    /// One SQLite file, under this id.
    One {
        /// Its datasource id: `--id`, else the file's stem.
        id: String,
        /// The file.
        path: PathBuf,
    },
}

/// Why the databases cannot be named or opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceError {
    /// The command line names something that cannot be used as given.
    Usage(String),
    /// A named file is missing or cannot be read.
    Unreadable(String),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Usage(why) | SourceError::Unreadable(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SourceError {}

impl From<DemoPathError> for SourceError {
    fn from(e: DemoPathError) -> Self {
        match e {
            DemoPathError::UnknownId(why) => SourceError::Usage(why),
            DemoPathError::Missing(why) => SourceError::Unreadable(why),
        }
    }
}

/// Server URLs and file kinds that have no adapter yet, and what to say about each.
const NOT_YET: [(&str, &str); 6] = [
    ("postgres://", "PostgreSQL"),
    ("postgresql://", "PostgreSQL"),
    ("mysql://", "MySQL"),
    ("mariadb://", "MariaDB"),
    ("sc://", "Spark Connect"),
    (".duckdb", "DuckDB"),
];

impl Sources {
    /// `--db` (with `--id`) when given, else the demo databases in `data`.
    pub fn new(db: Option<&str>, id: Option<&str>, data: &Path) -> Result<Sources, SourceError> {
        let Some(db) = db else {
            return match id {
                Some(_) => Err(SourceError::Usage(
                    "--id names the database --db opens; give --db too".into(),
                )),
                None => Ok(Sources::Demo(data.to_path_buf())),
            };
        };
        let lower = db.to_ascii_lowercase();
        if let Some((_, name)) = NOT_YET
            .iter()
            .find(|(mark, _)| lower.starts_with(mark) || lower.ends_with(mark))
        {
            return Err(SourceError::Usage(format!(
                "{name} databases cannot be opened yet: --db takes a SQLite file for now"
            )));
        }
        // Any other address may hold a password: it is refused without being repeated.
        if db.contains("://") {
            return Err(SourceError::Usage(
                "--db takes a SQLite file's path, or (once their adapters exist) a postgres://, \
                 mysql:// or sc:// address; the address given is none of these"
                    .into(),
            ));
        }
        let path = PathBuf::from(db);
        if !path.is_file() {
            return Err(SourceError::Unreadable(format!(
                "cannot open {db}: there is no such file (a SQLite file's path is expected)"
            )));
        }
        let id = match id {
            Some(id) if valid_id(id) => id.to_string(),
            Some(id) => {
                return Err(SourceError::Usage(format!(
                    "--id {id:?}: an id is 1 to 64 letters, digits, `_` or `-`"
                )))
            }
            None => id_from_stem(&path),
        };
        Ok(Sources::One { id, path })
    }

    /// The ids, in order.
    pub fn ids(&self) -> Vec<String> {
        match self {
            Sources::Demo(_) => DEMO_DATABASES.iter().map(|d| d.id.to_string()).collect(),
            Sources::One { id, .. } => vec![id.clone()],
        }
    }

    /// The id and file of `id` (none: the first database, Chinook among the demo ones).
    pub fn path(&self, id: Option<&str>) -> Result<(String, PathBuf), SourceError> {
        match (self, id) {
            (Sources::Demo(data), id) => Ok(demo_path(id.unwrap_or("chinook"), data)?),
            (Sources::One { id: own, path }, Some(asked)) if asked != own => {
                Err(SourceError::Usage(format!(
                    "no datasource {asked:?}: --db opened {} as {own:?}",
                    path.display()
                )))
            }
            (Sources::One { id, path }, _) => Ok((id.clone(), path.clone())),
        }
    }

    /// `id` (as [`Sources::path`]) opened read-only.
    pub fn open(&self, id: Option<&str>) -> Result<SqliteFile, SourceError> {
        let (id, path) = self.path(id)?;
        SqliteFile::open(&id, &path).map_err(|e| SourceError::Unreadable(e.to_string()))
    }

    /// Every database opened, each with how routing describes it.
    pub fn open_all(&self) -> Result<Vec<(DatasourceProfile, SqliteFile)>, SourceError> {
        self.ids()
            .iter()
            .map(|id| Ok((self.profile(id), self.open(Some(id))?)))
            .collect()
    }

    /// How routing describes `id`: a demo database's own words, else its file's name (never
    /// the folders above it, which would reach the model provider in the prompts).
    fn profile(&self, id: &str) -> DatasourceProfile {
        match (self, demo_database(id)) {
            (Sources::Demo(_), Some(d)) => demo_profile(d),
            (Sources::One { path, .. }, _) | (Sources::Demo(path), None) => DatasourceProfile {
                id: id.to_string(),
                description: format!(
                    "The SQLite database {}.",
                    path.file_name().unwrap_or_default().to_string_lossy()
                ),
                examples: vec![],
                verified: vec![],
            },
        }
    }

    /// Every database read and indexed, with `policies` and the demo's verified queries (a
    /// query of a database not opened is kept aside; one that no longer fits is dropped
    /// with a notice).
    pub fn workspace(&self, policies: Policies) -> Result<Workspace, WorkspaceError> {
        let curated = serde_json::from_str(DEMO_VERIFIED)
            .map_err(|e| WorkspaceError::Config(format!("the demo's verified queries: {e}")))?;
        let openings = self
            .open_all()
            .map_err(|e| WorkspaceError::Unreadable(e.to_string()))?
            .into_iter()
            .map(|(profile, db)| Opening {
                profile,
                datasource: Rc::new(db),
                read_ahead: None,
            })
            .collect();
        pollster::block_on(Workspace::open(
            openings,
            policies,
            curated,
            Rc::new(BuiltinEmbedder::default()),
        ))
    }
}

/// What a datasource id may be (as the workspace checks it).
fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A datasource id from a file's stem: letters, digits, `_` and `-` kept, anything else
/// `_`, at most 64 characters (what a datasource id may hold).
fn id_from_stem(path: &Path) -> String {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if id.is_empty() {
        "db".into()
    } else {
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_url_or_duckdb_file_is_named_as_not_yet_supported() {
        for (db, name) in [
            ("postgres://me@localhost:5432/shop", "PostgreSQL"),
            ("mysql://me@localhost/shop", "MySQL"),
            ("sc://localhost:15002", "Spark Connect"),
            ("warehouse.duckdb", "DuckDB"),
        ] {
            let e = Sources::new(Some(db), None, Path::new("data")).unwrap_err();
            assert!(
                matches!(&e, SourceError::Usage(t) if t.contains(name)),
                "{e}"
            );
        }
        let e = Sources::new(Some("/no/such/file.sqlite"), None, Path::new("data")).unwrap_err();
        assert!(matches!(e, SourceError::Unreadable(_)));
        let e = Sources::new(None, Some("x"), Path::new("data")).unwrap_err();
        assert!(matches!(e, SourceError::Usage(_)));
        // An address it cannot use is refused without repeating it: it may hold a password.
        let secret = "jdbc:postgresql://h/db?user=u&password=hunter2";
        let e = Sources::new(Some(secret), None, Path::new("data")).unwrap_err();
        assert!(matches!(&e, SourceError::Usage(_)) && !e.to_string().contains("hunter2"));
        let here = std::env::current_exe().map(|p| p.to_string_lossy().into_owned());
        let here = here.unwrap_or_default();
        let e = Sources::new(Some(&here), Some("a b"), Path::new("data")).unwrap_err();
        assert!(matches!(e, SourceError::Usage(t) if t.contains("--id")));
    }

    #[test]
    fn an_id_comes_from_the_file_stem_made_safe() {
        assert_eq!(
            id_from_stem(Path::new("/tmp/My Shop.v2.sqlite")),
            "My_Shop_v2"
        );
        assert_eq!(id_from_stem(Path::new("/tmp/.sqlite")), "_sqlite");
    }
}
