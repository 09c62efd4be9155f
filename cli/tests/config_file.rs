//! `nl2sql.toml`: a project file as a person writes one — two datasources (a copy of Chinook
//! with tables hidden and a row limit, the support database), its own roles, a verified
//! query — read with `--config` and from the working folder; `nl2sql init`'s starter; a
//! wrong file named by line and field; a password only through the environment.

mod common;

use common::{json, nl2sql_in};
use std::path::PathBuf;
use std::process::Command;

/// A project folder: the config and copies of two demo databases under `data/`.
fn project(name: &str, config: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("data")).expect("a scratch folder");
    for db in ["chinook", "support"] {
        let demo = nl2sql_tests::native::data_dir().join(format!("{db}.sqlite"));
        std::fs::copy(demo, dir.join("data").join(format!("{db}.sqlite"))).expect("the copy");
    }
    std::fs::write(dir.join("nl2sql.toml"), config).expect("the config");
    dir
}

const CONFIG: &str = r#"
[[datasources]]
id = "music"
description = "A record shop: artists, albums, tracks, genres, customers and their invoices."
connection = "data/chinook.sqlite"
examples = ["Which genres sell best?"]
exclude = ["Employee", "Playlist*"]

[datasources.limits]
row_limit = 5

[[datasources]]
id = "helpdesk"
description = "Customer support tickets, the agents who handle them, and their messages."
connection = "data/support.sqlite"

[policies]
default_role = "staff"

[policies.roles.staff]
allow = ["*"]

[policies.roles.guest]
allow = ["music"]
deny = ["music.Customer"]

[[verified.datasources.music]]
id = "album_count"
description = "How many albums the shop has."
questions = ["How many albums are there?"]
sql = "SELECT COUNT(*) AS albums FROM Album"
"#;

#[test]
fn a_project_file_names_the_datasources_their_tables_limits_and_roles() {
    let dir = project("config-project", CONFIG);
    // Read from the working folder, no option needed.
    let schema = json(&nl2sql_in(
        &dir,
        &["schema", "--datasource", "music", "--json"],
    ));
    assert_eq!(schema["datasource_id"], "music");
    let tables: Vec<&str> = schema["tables"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        tables.contains(&"Track") && !tables.contains(&"Employee"),
        "{tables:?}"
    );
    assert!(
        !tables.iter().any(|t| t.starts_with("Playlist")),
        "{tables:?}"
    );
    // A hidden table is not there to be asked about.
    let hidden = json(&nl2sql_in(
        &dir,
        &[
            "sql",
            "--datasource",
            "music",
            "--json",
            "SELECT e.LastName FROM Employee e",
        ],
    ));
    assert_eq!(
        hidden["errors"][0]["error_code"], "TABLE_NOT_FOUND",
        "{hidden}"
    );
    // The datasource's row limit caps every query.
    let capped = json(&nl2sql_in(
        &dir,
        &[
            "sql",
            "--datasource",
            "music",
            "--json",
            "SELECT t.Name FROM Track t",
        ],
    ));
    assert_eq!(capped["rows"].as_array().map(Vec::len), Some(5), "{capped}");
    assert_eq!(capped["truncated"], true);
    // The file's roles: a guest reads the music but not its customers.
    let refused = json(&nl2sql_in(
        &dir,
        &[
            "sql",
            "--datasource",
            "music",
            "--role",
            "guest",
            "--json",
            "SELECT c.Email FROM Customer c",
        ],
    ));
    assert_eq!(
        refused["errors"][0]["error_code"], "SECURITY_VIOLATION",
        "{refused}"
    );
    // Routing reads the descriptions; --config from elsewhere reads the same file.
    let elsewhere = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let config = dir.join("nl2sql.toml");
    let routed = json(&nl2sql_in(
        &elsewhere,
        &[
            "route",
            "--config",
            &config.to_string_lossy(),
            "--json",
            "Which agent closed the most tickets?",
        ],
    ));
    assert_eq!(routed["ranked"][0], "helpdesk", "{routed}");
    // An id the file does not name is a wrong command line.
    let unknown = nl2sql_in(&dir, &["schema", "--datasource", "chinook"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("music, helpdesk"));
}

#[test]
fn a_wrong_file_is_config_invalid_with_its_line_and_field() {
    let bad = CONFIG.replace("row_limit = 5", "row_limit = \"five\"");
    let dir = project("config-wrong", &bad);
    let out = nl2sql_in(&dir, &["schema"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("CONFIG_INVALID: nl2sql.toml, line 10, datasources[0].limits.row_limit"),
        "{err}"
    );
}

#[test]
fn a_password_comes_only_from_the_variable_the_file_names() {
    let with_password = r#"
[[datasources]]
id = "shop"
connection = "postgres://me:hunter2@127.0.0.1:1/shop"
"#;
    let dir = project("config-password", with_password);
    let out = nl2sql_in(&dir, &["schema"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("password_env") && !err.contains("hunter2"),
        "{err}"
    );

    let by_variable = r#"
[[datasources]]
id = "shop"
connection = "postgres://me@127.0.0.1:1/shop"
password_env = "NL2SQL_TEST_SHOP_PASSWORD"
"#;
    let dir = project("config-password-env", by_variable);
    let unset = nl2sql_in(&dir, &["schema"]);
    assert!(String::from_utf8_lossy(&unset.stderr).contains("NL2SQL_TEST_SHOP_PASSWORD is not set"));
    let set = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .arg("schema")
        .current_dir(&dir)
        .env("NL2SQL_TEST_SHOP_PASSWORD", "hunter2")
        .output()
        .expect("the nl2sql binary runs");
    // Nothing listens on port 1: refused, and the password is nowhere.
    assert_eq!(set.status.code(), Some(1));
    let err = String::from_utf8_lossy(&set.stderr);
    assert!(err.contains("refused") && !err.contains("hunter2"), "{err}");
}

#[test]
fn init_writes_a_starter_once() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("config-init");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let out = nl2sql_in(&dir, &["init"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("nl2sql.toml")).expect("it wrote the file");
    assert!(text.contains("[[datasources]]") && text.contains("password_env"));
    // Its database is not there yet: the message says which file, not that the config is wrong.
    let schema = nl2sql_in(&dir, &["schema"]);
    assert_eq!(schema.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&schema.stderr).contains("shop.sqlite"));
    let again = nl2sql_in(&dir, &["init"]);
    assert_eq!(again.status.code(), Some(2));
    // With --json, what was written, as one object.
    let written = json(&nl2sql_in(&dir, &["init", "--json", "other.toml"]));
    assert_eq!(written["path"], "other.toml");
    let on_disk = std::fs::metadata(dir.join("other.toml")).map_or(0, |m| m.len());
    assert_eq!(written["bytes"].as_u64(), Some(on_disk));
}

#[test]
fn ask_uses_the_files_provider_and_reads_the_key_from_the_variable_it_names() {
    let mock = nl2sql_tests::mock::MockProvider::start().expect("the mock provider starts");
    let q = "How many tracks are there?";
    mock.add([
        nl2sql_tests::mock::Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["music"], "reason": "tracks"}"#,
        ),
        nl2sql_tests::mock::Fixture::new(
            "plan",
            q,
            r#"{"tables": [{"name": "Track", "alias": "t"}], "select_items": [{"alias": "tracks", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "t", "column_name": "TrackId"}]}}]}"#,
        ),
    ]);
    let config = format!(
        "{CONFIG}\n[provider]\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"{}\"\napi_key_env = \"MY_KEY\"\n",
        mock.base_url()
    );
    let dir = project("config-provider", &config);
    let ask = |key: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_nl2sql"));
        command
            .args(["ask", "--answer", "template", "--json", q])
            .current_dir(&dir)
            .env_remove("OPENAI_API_KEY")
            .env_remove("NL2SQL_API_KEY")
            .env_remove("MY_KEY");
        if let Some(key) = key {
            command.env("MY_KEY", key);
        }
        command.output().expect("the nl2sql binary runs")
    };
    let without = ask(None);
    assert_eq!(without.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&without.stderr).contains("MY_KEY"));
    let out = ask(Some("sk-test-key-0000"));
    let result = json(&out);
    assert_eq!(result["status"], "success", "{result}");
    assert_eq!(result["sub_queries"][0]["datasource_id"], "music");
    assert_eq!(
        result["sub_queries"][0]["rows"],
        serde_json::json!([[3503]])
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("sk-test-key-0000"));
}

#[test]
fn index_writes_a_schema_cache_that_later_commands_reuse_until_the_structure_changes() {
    let dir = project("config-cache", CONFIG);
    let cache = dir.join(".nl2sql").join("schema-cache.json");
    let built = json(&nl2sql_in(&dir, &["index", "--json"]));
    assert_eq!(built["schema_cache"]["written"], true, "{built}");
    assert_eq!(
        built["schema_cache"]["datasources"],
        serde_json::json!(["music", "helpdesk"])
    );
    assert!(cache.is_file());
    let genres = |dir: &PathBuf| -> serde_json::Value {
        let schema = json(&nl2sql_in(
            dir,
            &["schema", "--datasource", "music", "--json"],
        ));
        let genre = schema["tables"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == "Genre").cloned());
        genre.unwrap_or_default()
    };
    assert_eq!(genres(&dir)["row_count"], 25);
    // New rows do not change the structure: the cached read (25 genres) is still used.
    let db = rusqlite::Connection::open(dir.join("data/chinook.sqlite")).expect("the copy");
    db.execute("INSERT INTO Genre (Name) VALUES ('Shoegaze')", [])
        .expect("a row");
    assert_eq!(genres(&dir)["row_count"], 25, "the cache is reused");
    // A new column does: the database is read again, and the cache refreshed.
    db.execute_batch("ALTER TABLE Genre ADD COLUMN Era TEXT")
        .expect("a column");
    let changed = genres(&dir);
    assert_eq!(changed["row_count"], 26, "read again: {changed}");
    assert!(changed["columns"].to_string().contains("Era"));
    let routed = nl2sql_in(&dir, &["route", "--json", "Which genres sell best?"]);
    assert_eq!(json(&routed)["ranked"][0], "music");
    let text = std::fs::read_to_string(&cache).expect("the cache");
    assert!(text.contains("\"Era\""), "the cache was refreshed");
    // A cache that cannot be read is named, and the databases are read instead.
    std::fs::write(&cache, "{ not a cache").expect("a broken cache");
    let out = nl2sql_in(&dir, &["route", "--json", "Which genres sell best?"]);
    assert_eq!(json(&out)["ranked"][0], "music");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("the schema cache was not used") && said.contains("is not a schema cache"),
        "{said}"
    );
}

#[test]
fn notes_name_tables_columns_and_values_in_the_words_people_use() {
    let config = format!(
        "{CONFIG}\n\
         [[datasources]]\nid = \"desk\"\nconnection = \"data/support.sqlite\"\n\
         [datasources.tables.tickets]\ndescription = \"One request for help.\"\n\
         synonyms = [\"case\"]\n\
         [datasources.tables.tickets.columns.status]\n\
         values = {{ pending = [\"waiting on us\"] }}\n\
         [datasources.tables.ghost]\ndescription = \"Not there.\"\n\
         [[datasources.terms]]\nterm = \"backlog\"\nmeans = \"tickets not closed\"\n\
         tables = [\"tickets\"]\n"
    );
    let dir = project("config-notes", &config);
    let out = nl2sql_in(
        &dir,
        &[
            "retrieve",
            "--datasource",
            "desk",
            "--force-search",
            "How many cases are waiting on us?",
        ],
    );
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("value: tickets.status = 'pending'"),
        "{shown}"
    );
    assert!(
        shown.contains("- tickets: One request for help. (also called: case)"),
        "{shown}"
    );
    assert!(
        shown.contains("\"backlog\" means tickets not closed"),
        "{shown}"
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("A note was dropped") && said.contains("desk.ghost"),
        "{said}"
    );
}

/// One datasource's server answers nobody, one is an empty file and one a file that is not
/// a database: `index`, `route` and `sql` work with the one left, say each left out by its
/// code on stderr (never a password), and exit 3 — done, but partly — so a script can
/// tell. With none left, the command fails (exit 1) with the first one's code.
#[test]
fn a_bad_datasource_is_left_out_alone_and_the_exit_code_says_partly() {
    let config = r#"
[[datasources]]
id = "music"
connection = "data/chinook.sqlite"

[[datasources]]
id = "nowhere"
connection = "postgres://nl2sql@127.0.0.1:1/shop"

[[datasources]]
id = "blank"
connection = "data/blank.sqlite"

[[datasources]]
id = "words"
connection = "data/words.sqlite"
"#;
    let dir = project("left-out", config);
    let blank = dir.join("data/blank.sqlite");
    rusqlite::Connection::open(&blank)
        .and_then(|c| c.execute_batch("PRAGMA user_version = 1;"))
        .expect("an empty database");
    std::fs::write(dir.join("data/words.sqlite"), "not a database, just words").expect("a file");
    let said = |out: &std::process::Output| String::from_utf8_lossy(&out.stderr).into_owned();
    let index = nl2sql_in(&dir, &["index", "--json"]);
    let stderr = said(&index);
    assert_eq!(index.status.code(), Some(3), "{stderr}");
    for (id, code) in [
        ("nowhere", "DATASOURCE_UNREACHABLE"),
        ("blank", "DATASOURCE_EMPTY"),
        ("words", "DATASOURCE_UNREADABLE"),
    ] {
        assert!(
            stderr.contains(&format!("{id} was left out ({code})")),
            "{id}: {stderr}"
        );
    }
    assert!(
        stderr.contains("3 of 4 datasources could not be used") && !stderr.contains("hunter2"),
        "{stderr}"
    );
    let stdout = |out: &std::process::Output| -> serde_json::Value {
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
    };
    assert!(stdout(&index)["entries"]["table"].as_u64().unwrap_or(0) > 0);
    let routed = nl2sql_in(&dir, &["route", "--json", "How many albums are there?"]);
    assert_eq!(routed.status.code(), Some(3), "{}", said(&routed));
    assert_eq!(stdout(&routed)["ranked"], serde_json::json!(["music"]));
    let counted = nl2sql_in(
        &dir,
        &[
            "sql",
            "--datasource",
            "music",
            "--json",
            "SELECT COUNT(*) FROM Album",
        ],
    );
    assert_eq!(json(&counted)["rows"], serde_json::json!([[347]]));

    let none = project(
        "left-out-all",
        "[[datasources]]\nid = \"nowhere\"\nconnection = \"postgres://nl2sql@127.0.0.1:1/shop\"\n",
    );
    let index = nl2sql_in(&none, &["index"]);
    let stderr = said(&index);
    assert_eq!(index.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("DATASOURCE_UNREACHABLE") && stderr.contains("cannot connect"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

/// A database that declares no keys: `nl2sql schema` shows the relationships the engine
/// infers with their evidence; the project file declares one no name says and rejects one
/// the engine would infer; one naming a column the table lacks is dropped alone, said by
/// code, and the rest apply.
#[test]
fn relationships_are_inferred_declared_and_rejected() {
    let plain = r#"
[[datasources]]
id = "shop"
connection = "data/shop.sqlite"
"#;
    let dir = project("relationships", plain);
    rusqlite::Connection::open(dir.join("data/shop.sqlite"))
        .and_then(|c| {
            c.execute_batch(
                "CREATE TABLE customers (id INTEGER, name TEXT); \
                 CREATE TABLE users (id INTEGER, email TEXT); \
                 CREATE TABLE orders (id INTEGER, customer INTEGER, seller INTEGER, total REAL); \
                 INSERT INTO customers VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy'); \
                 INSERT INTO users VALUES (10, 'a@x'), (11, 'b@x'); \
                 INSERT INTO orders VALUES (1, 1, 10, 5.0), (2, 2, 11, 7.5), (3, 1, 10, 1.0);",
            )
        })
        .expect("a database without keys");
    let keys = |dir: &std::path::Path| -> Vec<(String, String, String)> {
        let schema = json(&nl2sql_in(dir, &["schema", "--json"]));
        let tables = schema["tables"].as_array().cloned().unwrap_or_default();
        let mut out = Vec::new();
        for t in &tables {
            for k in t["foreign_keys"].as_array().cloned().unwrap_or_default() {
                out.push((
                    format!(
                        "{}.{}",
                        t["name"].as_str().unwrap_or(""),
                        k["columns"][0].as_str().unwrap_or("")
                    ),
                    format!(
                        "{}.{}",
                        k["referenced_table"].as_str().unwrap_or(""),
                        k["referenced_columns"][0].as_str().unwrap_or("")
                    ),
                    k["source"]["kind"]
                        .as_str()
                        .unwrap_or("database")
                        .to_string(),
                ));
            }
        }
        out
    };
    let inferred = (
        "orders.customer".to_string(),
        "customers.id".to_string(),
        "inferred".to_string(),
    );
    assert_eq!(keys(&dir), vec![inferred]);
    let text = nl2sql_in(&dir, &["schema"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(
            "FK (customer) -> customers(id)  (inferred: orders.customer is named for customers"
        ),
        "{text}"
    );

    let configured = format!(
        "{plain}\n[[datasources.relationships]]\nfrom = \"orders.seller\"\nto = \"users.id\"\n\n\
         [[datasources.relationships]]\nfrom = \"orders.customer\"\nreject = true\n\n\
         [[datasources.relationships]]\nfrom = \"orders.nothing\"\nto = \"users.id\"\n"
    );
    std::fs::write(dir.join("nl2sql.toml"), configured).expect("the config");
    assert_eq!(
        keys(&dir),
        vec![(
            "orders.seller".to_string(),
            "users.id".to_string(),
            "configured".to_string()
        )]
    );
    let out = nl2sql_in(&dir, &["schema"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("CONFIG_INVALID") && stderr.contains("orders.nothing"),
        "{stderr}"
    );
}
