//! The project configuration file, `nl2sql.toml`: the datasources (where each is, how it is
//! described, its limits and which tables it shows), who may read what, the verified
//! queries and the model provider. Read once, checked whole: a wrong file is one
//! [`Error`] naming the file, the line and the field. Secrets never live in the
//! file: it names the environment variables that hold them (`password_env`,
//! `api_key_env`). The format is documented in `docs/config.md`.

use crate::address::Address;
use nl2sql_core::adapter::{Notes, Relationship, TableNotes, Term};
use nl2sql_core::config::{NodeModels, ProviderKind};
use nl2sql_core::config::{Pattern, Policies};
use nl2sql_core::error::Error;
use nl2sql_core::feedback::Curated;
use nl2sql_core::service::valid_id;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The file commands read when `--config` is not given and it exists.
pub const DEFAULT_FILE: &str = "nl2sql.toml";

/// The file as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectFile {
    /// The datasources, in the order routing lists them.
    pub datasources: Vec<DatasourceEntry>,
    /// Roles and what each may read; none: the demo's policies, as with `--db`.
    #[serde(default)]
    pub policies: Option<Policies>,
    /// Verified queries per datasource id.
    #[serde(default)]
    pub verified: Curated,
    /// The model provider; command-line options override it.
    #[serde(default)]
    pub provider: Option<ProviderEntry>,
    /// `nl2sql serve` and `nl2sql mcp`: API keys and the roles they carry, limits.
    #[serde(default)]
    pub server: ServerEntry,
    /// The schema index: which embedders build it.
    #[serde(default)]
    pub index: IndexEntry,
}

/// The schema index's settings.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    /// The semantic embedder's weights (`cargo xtask embedder` writes them to
    /// `data/semantic-wordllama-256.bin`), relative to the project file: routing and
    /// retrieval then blend it with the lexical embedder. None: the lexical one alone,
    /// unless `NL2SQL_SEMANTIC_WEIGHTS` names a file.
    #[serde(default)]
    pub semantic_weights: Option<PathBuf>,
}

/// What `nl2sql serve` and `nl2sql mcp` read from the project file.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerEntry {
    /// API keys, stored as hashes, each with the one role it carries.
    #[serde(default)]
    pub api_keys: Vec<ApiKeyEntry>,
    /// A header a trusted gateway sets to the caller's role (off when not named); it may
    /// narrow a key's role, never widen it.
    #[serde(default)]
    pub role_header: Option<String>,
    /// The largest request body, in bytes (default 1 MiB).
    #[serde(default)]
    pub max_body_bytes: Option<usize>,
    /// Runs one key may have in flight at once (default 4).
    #[serde(default)]
    pub max_runs_per_key: Option<usize>,
    /// The role `nl2sql mcp` (stdio) asks as (default: the policies' default role).
    #[serde(default)]
    pub mcp_role: Option<String>,
}

/// One API key, as its hash.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyEntry {
    /// What logs call it (never the key).
    pub id: String,
    /// The role it carries.
    pub role: String,
    /// The key's SHA-256, 64 hexadecimal digits (`printf %s KEY | sha256sum`).
    pub sha256: String,
}

/// One datasource.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasourceEntry {
    /// Its id: 1 to 64 letters, digits, `_` or `-`.
    pub id: String,
    /// What it holds, in words: routing reads it, and the planner's prompt shows it.
    #[serde(default)]
    pub description: String,
    /// A SQLite file (relative to the config file), or a `postgres://` or `mysql://`
    /// address without its password.
    pub connection: String,
    /// The environment variable holding the server's password.
    #[serde(default)]
    pub password_env: Option<String>,
    /// Questions it answers, for routing.
    #[serde(default)]
    pub examples: Vec<String>,
    /// The schemas whose tables it reads (PostgreSQL, DuckDB; on MySQL and MariaDB the
    /// server's databases); none: every schema the login may use, system schemas excepted
    /// (on MySQL and MariaDB the address's database alone).
    #[serde(default)]
    pub schemas: Option<Vec<String>>,
    /// Table globs to show (none: every table).
    #[serde(default)]
    pub include: Vec<String>,
    /// Table globs to hide, even where `include` matches.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Limits on every query sent to it.
    #[serde(default)]
    pub limits: Limits,
    /// What its tables and columns hold and are called, and the words for their values
    /// (`[datasources.tables.NAME]`, `[datasources.tables.NAME.columns.COLUMN]`).
    #[serde(default)]
    pub tables: BTreeMap<String, TableNotes>,
    /// Its business terms (`[[datasources.terms]]`).
    #[serde(default)]
    pub terms: Vec<Term>,
    /// Joins declared where the database declares none, or rejected where the engine would
    /// infer them.
    #[serde(default)]
    pub relationships: Vec<Relationship>,
}

impl DatasourceEntry {
    /// The words people use for its tables, columns, values and terms.
    pub fn notes(&self) -> Notes {
        Notes {
            tables: self.tables.clone(),
            terms: self.terms.clone(),
            relationships: self.relationships.clone(),
        }
    }
}

/// A datasource's limits, on top of the run's own (the lower one wins).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// At most this many rows from any query.
    #[serde(default)]
    pub row_limit: Option<usize>,
    /// Every query stops after this many milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// The model provider, without its key.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderEntry {
    /// `openai`, `anthropic` or `compatible`.
    #[serde(default)]
    pub kind: ProviderKind,
    /// The model every node uses unless `models` says otherwise.
    #[serde(default)]
    pub model: Option<String>,
    /// The API base.
    #[serde(default)]
    pub base_url: Option<String>,
    /// A model per node.
    #[serde(default)]
    pub models: NodeModels,
    /// The environment variable holding the key (default: the provider's own).
    #[serde(default)]
    pub api_key_env: Option<String>,
}

/// A project read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// Where the file is.
    pub path: PathBuf,
    /// What it says.
    pub file: ProjectFile,
}

/// A `schemas` list that names each schema once, none empty. A name is read as the
/// database writes it (PostgreSQL's are case-sensitive), and may hold any character but a
/// control character.
fn check_schemas(schemas: &[String]) -> Result<(), String> {
    if schemas.is_empty() {
        return Err(
            "names no schema: name at least one, or leave `schemas` out to read every schema"
                .into(),
        );
    }
    for (i, schema) in schemas.iter().enumerate() {
        if schema.is_empty() || schema.chars().count() > 128 || schema.chars().any(char::is_control)
        {
            return Err(format!(
                "{schema:?} is not a schema name (1 to 128 characters, none a control character)"
            ));
        }
        if schemas[..i].contains(schema) {
            return Err(format!("{schema:?} is named twice"));
        }
    }
    Ok(())
}

/// A configuration file that cannot be used: CONFIG_INVALID, its message naming the file,
/// the line and the field where the fault has them (`nl2sql.toml, line 4,
/// datasources[1].limits.timeout_ms: …`).
pub fn config_error(
    file: &str,
    line: Option<usize>,
    field: Option<&str>,
    message: impl fmt::Display,
) -> Error {
    let mut place = file.to_string();
    if let Some(line) = line {
        place.push_str(&format!(", line {line}"));
    }
    if let Some(field) = field {
        place.push_str(&format!(", {field}"));
    }
    Error::config(format!("{place}: {message}"))
}

impl Project {
    /// Reads and checks the file at `path`.
    pub fn load(path: &Path) -> Result<Project, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            config_error(
                &path.display().to_string(),
                None,
                None,
                format!("cannot read it: {e}"),
            )
        })?;
        Project::parse(&text, path)
    }

    /// Reads and checks `text`, the contents of `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Project, Error> {
        let file = path.display().to_string();
        let error = |line: Option<usize>, field: Option<String>, message: String| {
            config_error(&file, line, field.as_deref(), message)
        };
        let de = toml::Deserializer::parse(text).map_err(|e| {
            error(
                e.span().map(|s| line_at(text, s.start)),
                None,
                e.message().trim().to_string(),
            )
        })?;
        let parsed: ProjectFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.inner();
            error(
                inner.span().map(|s| line_at(text, s.start)),
                (path != ".").then_some(path),
                inner.message().trim().to_string(),
            )
        })?;
        let project = Project {
            path: path.to_path_buf(),
            file: parsed,
        };
        project
            .check(text)
            .map_err(|(line, field, message)| error(line, Some(field), message))?;
        Ok(project)
    }

    /// What serde cannot check: ids, addresses, limits, patterns, policies.
    fn check(&self, text: &str) -> Result<(), (Option<usize>, String, String)> {
        let entries = &self.file.datasources;
        if entries.is_empty() {
            return Err((
                None,
                "datasources".into(),
                "name at least one datasource ([[datasources]])".into(),
            ));
        }
        for (i, entry) in entries.iter().enumerate() {
            let at = nth_line(text, "[[datasources]]", i);
            let field = |name: &str| format!("datasources[{i}].{name}");
            if !valid_id(&entry.id) {
                return Err((
                    at,
                    field("id"),
                    format!(
                        "{:?}: an id is 1 to 64 letters, digits, `_` or `-`",
                        entry.id
                    ),
                ));
            }
            if entries[..i].iter().any(|e| e.id == entry.id) {
                return Err((at, field("id"), format!("{:?} is used twice", entry.id)));
            }
            if entry.connection.contains("://") && url_has_password(&entry.connection) {
                return Err((
                    at,
                    field("connection"),
                    "holds a password: name the variable that holds it with password_env".into(),
                ));
            }
            Address::parse(&entry.connection).map_err(|e| (at, field("connection"), e.message))?;
            if entry.limits.row_limit == Some(0) || entry.limits.timeout_ms == Some(0) {
                return Err((at, field("limits"), "limits must be positive".into()));
            }
            if let Some(schemas) = &entry.schemas {
                check_schemas(schemas).map_err(|e| (at, field("schemas"), e))?;
            }
            for (name, globs) in [("include", &entry.include), ("exclude", &entry.exclude)] {
                for glob in globs {
                    table_pattern(&entry.id, glob).map_err(|e| (at, field(name), e))?;
                }
            }
        }
        if let Some(policies) = &self.file.policies {
            policies.validate().map_err(|e| {
                (
                    nth_line(text, "[policies]", 0),
                    "policies".into(),
                    e.message,
                )
            })?;
        }
        let server = &self.file.server;
        for (i, key) in server.api_keys.iter().enumerate() {
            let at = nth_line(text, "[[server.api_keys]]", i);
            let field = |name: &str| format!("server.api_keys[{i}].{name}");
            let hex = key.sha256.len() == 64 && key.sha256.bytes().all(|b| b.is_ascii_hexdigit());
            if !hex {
                return Err((
                    at,
                    field("sha256"),
                    "is not a SHA-256 (64 hexadecimal digits): store the key's hash, never \
                     the key (printf %s KEY | sha256sum)"
                        .into(),
                ));
            }
            if !valid_id(&key.id) {
                return Err((
                    at,
                    field("id"),
                    format!("{:?}: an id is 1 to 64 letters, digits, `_` or `-`", key.id),
                ));
            }
            if server.api_keys[..i].iter().any(|k| k.id == key.id) {
                return Err((at, field("id"), format!("{:?} is used twice", key.id)));
            }
            if !self.policies().roles.contains_key(&key.role) {
                return Err((
                    at,
                    field("role"),
                    format!("{:?} is not a role of the policies", key.role),
                ));
            }
        }
        if server.max_body_bytes == Some(0) || server.max_runs_per_key == Some(0) {
            return Err((
                nth_line(text, "[server]", 0),
                "server".into(),
                "limits must be positive".into(),
            ));
        }
        Ok(())
    }

    /// Datasource `entry`'s address, a relative file path read from the config's folder
    /// and the password taken from `password_env`.
    pub fn address(&self, entry: &DatasourceEntry) -> Result<Address, Error> {
        let file = self.path.display().to_string();
        let fault = |field: &str, message: String| {
            config_error(
                &file,
                None,
                Some(&format!("datasources.{}.{field}", entry.id)),
                message,
            )
        };
        // A file's relative path is read from the config's folder (after a `duckdb:`
        // prefix, which stays).
        let mut connection = entry.connection.clone();
        let (prefix, file) = match connection.strip_prefix("duckdb:") {
            Some(file) => ("duckdb:", file.to_string()),
            None => ("", connection.clone()),
        };
        if !file.contains("://") && Path::new(&file).is_relative() {
            let base = self.path.parent().unwrap_or_else(|| Path::new(""));
            connection = format!("{prefix}{}", base.join(&file).to_string_lossy());
        }
        let address = Address::parse(&connection).map_err(|e| fault("connection", e.message))?;
        match &entry.password_env {
            None => Ok(address),
            Some(var) => match std::env::var(var) {
                Ok(secret) if !secret.is_empty() => Ok(address.with_password(secret)),
                _ => Err(fault(
                    "password_env",
                    format!("the environment variable {var} is not set"),
                )),
            },
        }
    }

    /// The policies: the file's, or the demo's.
    pub fn policies(&self) -> Policies {
        self.file.policies.clone().unwrap_or_else(Policies::demo)
    }
}

/// Whether an address names a password (`user:password@`, or `?password=` in the query).
fn url_has_password(text: &str) -> bool {
    Address::parse(text).is_ok_and(|a| a.password().is_some())
}

/// A table glob of datasource `id` as a policy pattern.
pub fn table_pattern(id: &str, glob: &str) -> Result<Pattern, String> {
    if glob.is_empty() || glob.split('.').count() > 2 || glob.split('.').any(str::is_empty) {
        return Err(format!(
            "{glob:?}: a table pattern is a table name or a glob (`*`, `?`), `schema.table` for a \
             table outside the connection's own schema, without a datasource"
        ));
    }
    Pattern::try_from(format!("{id}.{glob}")).map_err(|e| e.message)
}

/// The 1-based line holding byte `at`.
fn line_at(text: &str, at: usize) -> usize {
    text.get(..at).map_or(1, |t| t.matches('\n').count() + 1)
}

/// The line of the `n`-th line that starts with `header`.
fn nth_line(text: &str, header: &str, n: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(header))
        .nth(n)
        .map(|(i, _)| i + 1)
}

/// The commented starter `nl2sql init` writes; it parses as it is.
pub const STARTER: &str = include_str!("starter.toml");

#[cfg(test)]
mod tests {
    use super::*;
    use nl2sql_core::error::ErrorCode;

    fn parse(text: &str) -> Result<Project, Error> {
        Project::parse(text, Path::new("nl2sql.toml"))
    }

    #[test]
    fn the_starter_parses() {
        let p = parse(STARTER).unwrap_or_else(|e| panic!("{e}"));
        assert!(!p.file.datasources.is_empty());
    }

    #[test]
    fn a_wrong_file_names_its_line_and_field() {
        let text = "[[datasources]]\nid = \"a\"\nconnection = \"a.sqlite\"\n\n\
                    [[datasources]]\nid = \"b\"\nconnection = \"b.sqlite\"\n\
                    limits = { timeout_ms = \"ten\" }\n";
        let e = parse(text).unwrap_err();
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert!(
            e.message
                .starts_with("nl2sql.toml, line 8, datasources[1].limits.timeout_ms: "),
            "{e}"
        );

        let e = parse("[[datasources]]\nid = \"a\"\nconection = \"x\"\n").unwrap_err();
        assert!(e.message.starts_with("nl2sql.toml, line 3"), "{e}");
        assert!(e.message.contains("conection"), "{e}");

        let e = parse("[[datasources]\nid = 1").unwrap_err();
        assert!(e.message.starts_with("nl2sql.toml, line 1"), "{e}");

        let twice = "[[datasources]]\nid = \"a\"\nconnection = \"a.sqlite\"\n\
                     [[datasources]]\nid = \"a\"\nconnection = \"b.sqlite\"\n";
        let e = parse(twice).unwrap_err();
        assert!(
            e.message
                .starts_with("nl2sql.toml, line 4, datasources[1].id: "),
            "{e}"
        );
    }

    #[test]
    fn the_server_section_holds_key_hashes_with_known_roles() {
        let head = "[[datasources]]\nid = \"a\"\nconnection = \"a.sqlite\"\n\n[server]\n\
                    role_header = \"x-role\"\nmax_runs_per_key = 2\n\n[[server.api_keys]]\n\
                    id = \"ops\"\n";
        let hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let good = format!("{head}role = \"analyst\"\nsha256 = \"{hash}\"\n");
        let p = parse(&good).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.file.server.api_keys[0].role, "analyst");
        assert_eq!(p.file.server.max_runs_per_key, Some(2));
        // A key where its hash belongs is refused, and not repeated.
        let key = format!("{head}role = \"analyst\"\nsha256 = \"sk-the-key-itself\"\n");
        let e = parse(&key).unwrap_err();
        assert!(e.message.contains(", server.api_keys[0].sha256: "), "{e}");
        assert!(!e.to_string().contains("sk-the-key-itself"), "{e}");
        let role = format!("{head}role = \"owner\"\nsha256 = \"{hash}\"\n");
        let e = parse(&role).unwrap_err();
        assert!(e.message.contains(", server.api_keys[0].role: "), "{e}");
    }

    #[test]
    fn a_schema_list_names_each_schema_once() {
        let head = "[[datasources]]\nid = \"a\"\nconnection = \"postgres://me@h/db\"\n";
        let p = parse(&format!("{head}schemas = [\"public\", \"Sales\"]\n")).unwrap();
        assert_eq!(
            p.file.datasources[0].schemas.as_deref(),
            Some(&["public".to_string(), "Sales".to_string()][..])
        );
        for (list, why) in [
            ("[]", "names no schema"),
            ("[\"a\", \"a\"]", "\"a\" is named twice"),
            ("[\"\"]", "is not a schema name"),
            ("[\"a\\u0000\"]", "is not a schema name"),
        ] {
            let e = parse(&format!("{head}schemas = {list}\n")).unwrap_err();
            assert!(
                e.message.contains("line 1, datasources[0].schemas: ") && e.message.contains(why),
                "{list}: {e}"
            );
        }
    }

    #[test]
    fn a_password_in_the_file_is_refused_without_being_repeated() {
        for url in [
            "postgres://me:hunter2@h/db",
            "mysql://me@h/db?password=hunter2",
        ] {
            let text = format!("[[datasources]]\nid = \"a\"\nconnection = \"{url}\"\n");
            let e = parse(&text).unwrap_err();
            assert!(e.message.contains(", datasources[0].connection: "), "{e}");
            assert!(!e.to_string().contains("hunter2"), "{e}");
        }
    }

    #[test]
    fn relative_files_are_read_from_the_config_folder() {
        let text = "[[datasources]]\nid = \"a\"\nconnection = \"data/a.sqlite\"\n";
        let p = Project::parse(text, Path::new("/srv/proj/nl2sql.toml")).unwrap();
        let address = p.address(&p.file.datasources[0]).unwrap();
        assert_eq!(
            address.path(),
            Some(PathBuf::from("/srv/proj/data/a.sqlite"))
        );
        let text = "[[datasources]]\nid = \"w\"\nconnection = \"duckdb:w.db\"\n";
        let p = Project::parse(text, Path::new("/srv/proj/nl2sql.toml")).unwrap();
        let address = p.address(&p.file.datasources[0]).unwrap();
        assert_eq!(address.engine(), crate::address::Engine::DuckDb);
        assert_eq!(address.path(), Some(PathBuf::from("/srv/proj/w.db")));
    }
}
