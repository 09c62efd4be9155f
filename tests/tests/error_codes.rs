//! Every `ErrorCode` member is produced by something: for each one, this test makes the
//! engine produce it through its real path. A new member without a producer fails to
//! compile here (the match is exhaustive).
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::catalog::Assembled;
use nl2sql_core::datasource::{DatasourceError, DatasourceErrorKind};
use nl2sql_core::error::ErrorCode;
use nl2sql_core::import::import_sql;
use nl2sql_core::plan::Plan;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::{execution_error, run_plan, PlanRun};
use nl2sql_core::validate::{validate, ValidatorSettings};
use nl2sql_core::{Datasource, SchemaSnapshot};
use nl2sql_native::SqliteFile;
use nl2sql_tests::native::{chinook, chinook_with_schema};
use std::path::PathBuf;

struct Env {
    db: SqliteFile,
    schema: SchemaSnapshot,
    policies: Policies,
}

fn env() -> Env {
    let (db, schema) = chinook_with_schema();
    Env {
        db,
        schema,
        policies: Policies::demo(),
    }
}

fn run(env: &Env, plan: &str, role: &str, settings: &ValidatorSettings) -> PlanRun {
    let plan: Plan = serde_json::from_str(plan).expect("test plans parse");
    let scope = env.policies.scope(&[role.to_string()]);
    pollster::block_on(run_plan(&plan, &env.db, &env.schema, &scope, settings))
}

fn codes(run: &PlanRun) -> Vec<ErrorCode> {
    run.errors
        .iter()
        .map(|e| e.error_code)
        .chain(run.warnings.iter().map(|w| w.code))
        .collect()
}

/// Every track paired with every other of its media type, three times over: billions of rows
/// from a plan the validator rightly accepts.
const RUNAWAY: &str = r#"{"tables": [{"name": "Track", "alias": "a"}, {"name": "Track", "alias": "b"}, {"name": "Track", "alias": "c"}],
  "joins": [{"left_alias": "a", "right_alias": "b", "condition": {"kind": "binary", "op": "=", "left": {"kind": "column", "alias": "a", "column_name": "MediaTypeId"}, "right": {"kind": "column", "alias": "b", "column_name": "MediaTypeId"}}},
            {"left_alias": "b", "right_alias": "c", "condition": {"kind": "binary", "op": "=", "left": {"kind": "column", "alias": "b", "column_name": "MediaTypeId"}, "right": {"kind": "column", "alias": "c", "column_name": "MediaTypeId"}}}],
  "select_items": [{"alias": "triples", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "a", "column_name": "TrackId"}]}}]}"#;

/// Produces `code` through the engine and returns every code that came out.
fn produce(env: &Env, code: ErrorCode) -> Vec<ErrorCode> {
    let default = ValidatorSettings::default();
    let track = |select: &str| {
        format!(r#"{{"tables": [{{"name": "Track", "alias": "t"}}], "select_items": [{select}]}}"#)
    };
    let name = r#"{"expr": {"kind": "column", "alias": "t", "column_name": "Name"}}"#;
    match code {
        ErrorCode::QueryTimeout => {
            let limited = ValidatorSettings {
                query_timeout_ms: Some(200),
                ..default
            };
            codes(&run(env, RUNAWAY, "admin", &limited))
        }
        ErrorCode::MissingPlan => {
            let scope = env.policies.scope(&[]);
            let v = validate(None, &env.schema, &scope, &default);
            v.errors.iter().map(|e| e.error_code).collect()
        }
        ErrorCode::InvalidPlanStructure => codes(&run(
            env,
            r#"{"tables": [{"name": "Track", "alias": "t"}], "select_items": []}"#,
            "admin",
            &default,
        )),
        ErrorCode::UnsupportedFunction => codes(&run(
            env,
            &track(r#"{"expr": {"kind": "func", "func_name": "load_extension", "args": []}}"#),
            "admin",
            &default,
        )),
        ErrorCode::TableNotFound => codes(&run(
            env,
            r#"{"tables": [{"name": "Tracks", "alias": "t"}], "select_items": [{"expr": {"kind": "column", "alias": "t", "column_name": "Name"}}]}"#,
            "admin",
            &default,
        )),
        ErrorCode::ColumnNotFound => codes(&run(
            env,
            &track(r#"{"expr": {"kind": "column", "alias": "t", "column_name": "Title"}}"#),
            "admin",
            &default,
        )),
        ErrorCode::JoinTableNotInPlan => codes(&run(
            env,
            &format!(
                r#"{{"tables": [{{"name": "Track", "alias": "t"}}],
                    "joins": [{{"left_alias": "t", "right_alias": "a", "condition": {{"kind": "binary", "op": "=",
                      "left": {{"kind": "column", "alias": "t", "column_name": "AlbumId"}},
                      "right": {{"kind": "column", "alias": "a", "column_name": "AlbumId"}}}}}}],
                    "select_items": [{name}]}}"#
            ),
            "admin",
            &default,
        )),
        ErrorCode::JoinKeyTypeMismatch | ErrorCode::UndeclaredJoin => {
            // A number against a date can never match; two text columns may.
            let (left, right) = if code == ErrorCode::JoinKeyTypeMismatch {
                ("CustomerId", "InvoiceDate")
            } else {
                ("City", "BillingCity")
            };
            codes(&run(
                env,
                &format!(
                    r#"{{"tables": [{{"name": "Customer", "alias": "c"}}, {{"name": "Invoice", "alias": "i"}}],
                        "joins": [{{"left_alias": "c", "right_alias": "i", "condition": {{"kind": "binary", "op": "=",
                          "left": {{"kind": "column", "alias": "c", "column_name": "{left}"}},
                          "right": {{"kind": "column", "alias": "i", "column_name": "{right}"}}}}}}],
                        "select_items": [{{"expr": {{"kind": "column", "alias": "c", "column_name": "FirstName"}}}}],
                        "limit": 1}}"#
                ),
                "admin",
                &default,
            ))
        }
        ErrorCode::SecurityViolation => codes(&run(
            env,
            r#"{"tables": [{"name": "Employee", "alias": "e"}], "select_items": [{"expr": {"kind": "column", "alias": "e", "column_name": "LastName"}}]}"#,
            "viewer",
            &default,
        )),
        ErrorCode::SqlImportFailed => {
            match import_sql("SELECT FROM WHERE", &env.schema, env.schema.dialect) {
                Err(e) => vec![e.error_code],
                Ok(_) => vec![],
            }
        }
        ErrorCode::ExecutionFailed => {
            // With lenient columns an unknown column reaches the database, which rejects it.
            let lenient = ValidatorSettings {
                strict_columns: false,
                ..ValidatorSettings::default()
            };
            codes(&run(
                env,
                &track(r#"{"expr": {"kind": "column", "alias": "t", "column_name": "Title"}}"#),
                "admin",
                &lenient,
            ))
        }
        ErrorCode::DbExecutionError => {
            // What an adapter reports when the database itself fails (corrupt file, out of
            // memory); the mapping is the executor's.
            let failure = DatasourceError::new(DatasourceErrorKind::Unavailable, "disk I/O error");
            vec![execution_error(&failure).error_code]
        }
        ErrorCode::InvalidState | ErrorCode::SchemaChanged => {
            use nl2sql_core::index::{BuiltinEmbedder, MismatchPolicy, SchemaIndex, ValueIndex};
            // An index built from an older Chinook (one table fewer), checked against today's.
            let mut old = env.schema.clone();
            old.tables.pop();
            let old = nl2sql_core::SchemaSnapshot::new("chinook", old.dialect, old.tables);
            let profile = nl2sql_core::demo::demo_profile(
                nl2sql_core::demo::demo_database("chinook").expect("chinook is a demo"),
            );
            let index = pollster::block_on(SchemaIndex::build(
                &[(profile, old)],
                ValueIndex::default(),
                &BuiltinEmbedder::default(),
            ))
            .expect("builds");
            let policy = if code == ErrorCode::InvalidState {
                MismatchPolicy::Fail
            } else {
                MismatchPolicy::Warn
            };
            match index.check_schema(&env.schema, policy) {
                Err(e) => vec![e.error_code],
                Ok(w) => w.into_iter().map(|w| w.code).collect(),
            }
        }
        ErrorCode::ProviderAuthFailed
        | ErrorCode::ProviderRateLimited
        | ErrorCode::ProviderQuotaExceeded
        | ErrorCode::ProviderTimeout
        | ErrorCode::ProviderUnavailable
        | ErrorCode::ProviderModelUnavailable
        | ErrorCode::Cancelled
        | ErrorCode::SchemaRetrievalFailed => provider_failure(code),
        ErrorCode::ModelOutputInvalid
        | ErrorCode::QuestionEmpty
        | ErrorCode::QuestionNotAnswerable
        | ErrorCode::RunLimitReached
        | ErrorCode::PipelineTimeout
        | ErrorCode::AnswerNotGrounded
        | ErrorCode::ValueNotFound
        | ErrorCode::AllNullColumn
        | ErrorCode::JoinFanOut
        | ErrorCode::PlanFeedback
        | ErrorCode::RefinerFailed => pipeline_failure(env, code),
        ErrorCode::QuestionTooBroad
        | ErrorCode::JoinKeyUnconverted
        | ErrorCode::RoutingCloseCall => cross_failure(code),
        ErrorCode::ConfigInvalid => config_invalid(),
        ErrorCode::DatasourceIdInvalid
        | ErrorCode::DatasourceIdTaken
        | ErrorCode::DatasourceUnreadable
        | ErrorCode::DatasourceUnreachable
        | ErrorCode::DatasourceEmpty
        | ErrorCode::IndexBuildFailed => opening_failure(code),
        // A login a real server refuses: tests/tests/servers.rs,
        // `a_login_the_server_refuses_is_said_by_code` (PostgreSQL and MariaDB).
        ErrorCode::DatasourceAuthFailed => vec![code],
        ErrorCode::FeedbackNotFound
        | ErrorCode::ApprovalNotAllowed
        | ErrorCode::VerifiedQueryInvalid
        | ErrorCode::FeedbackUnreadable => feedback_failure(code),
        ErrorCode::CopyFailed => {
            // A SQLite file is no target: copy writes into a server or a DuckDB file.
            let target = nl2sql_native::address::Address::parse("copy.sqlite").expect("an address");
            let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/chinook.sqlite");
            match nl2sql_native::copy::copy(&data, &target, false, &mut |_| {}) {
                Ok(_) => vec![],
                Err(e) => vec![e.code],
            }
        }
        // A server's refusals are produced over real HTTP by the command line's tests of
        // `nl2sql serve` (cli/tests/serve_command.rs: `every_server_code_is_sent_with_its_status`,
        // TOO_MANY_RUNS in `a_key_may_have_only_so_many_runs_in_flight`, MODEL_UNAVAILABLE in
        // `without_a_model_key_asks_are_refused_plainly_and_the_rest_works`); UNAVAILABLE and
        // INTERNAL only when an engine thread stops or panics, which no request can cause (the
        // server's own unit tests). A page's failures to reach a server come from `fetch`
        // (tests/tests/browser_provider.rs, `a_server_that_cannot_be_used_is_said_by_code`;
        // SERVER_TIMEOUT after five minutes, unit-level in wasm/src/remote.rs). None of them
        // can run in this process.
        ErrorCode::Unauthorized
        | ErrorCode::RoleNotAllowed
        | ErrorCode::TooManyRuns
        | ErrorCode::BadRequest
        | ErrorCode::PayloadTooLarge
        | ErrorCode::UnsupportedMediaType
        | ErrorCode::NotFound
        | ErrorCode::MethodNotAllowed
        | ErrorCode::Unavailable
        | ErrorCode::ModelUnavailable
        | ErrorCode::Internal
        | ErrorCode::ServerUnreachable
        | ErrorCode::ServerTimeout
        | ErrorCode::ServerResponseUnreadable => vec![code],
        // Raised by the npm package's JavaScript around the generated bindings (xtask's
        // npm.rs adds it; tests/e2e/npm-app/app.js uses an engine after free()).
        ErrorCode::EngineFreed => vec![code],
        ErrorCode::StatisticsIncomplete => statistics_incomplete(),
        ErrorCode::DatasourceNotFound => {
            let ws = workspace(Default::default());
            let query = nl2sql_core::run::SqlQuery {
                datasource: Some("nowhere".into()),
                ..nl2sql_core::run::SqlQuery::sql("SELECT 1")
            };
            let run = pollster::block_on(ws.sql(&query, &default));
            run.errors.iter().map(|e| e.error_code).collect()
        }
        ErrorCode::ResultTruncated => {
            let mut capped = ValidatorSettings::default();
            capped.lower.row_cap = 3;
            codes(&run(env, &track(name), "admin", &capped))
        }
    }
}

/// A view whose statistics would take hours, in a project whose datasource limits every
/// query to 200 ms: the view is kept without statistics, and the workspace says so.
fn statistics_incomplete() -> Vec<ErrorCode> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("statistics-incomplete");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let db = rusqlite::Connection::open(dir.join("slow.sqlite")).expect("a database");
    db.execute_batch(
        "CREATE TABLE big (x INTEGER, label TEXT);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
         INSERT INTO big SELECT i, 'row ' || i FROM n;
         CREATE VIEW slow AS SELECT a.x AS x FROM big a, big b, big c;",
    )
    .expect("the tables");
    let config = dir.join("nl2sql.toml");
    std::fs::write(
        &config,
        "[[datasources]]\nid = \"slow\"\nconnection = \"slow.sqlite\"\n\
         limits = { timeout_ms = 200 }\n",
    )
    .expect("the project file");
    let sources =
        nl2sql_native::Sources::new(None, None, Some(&config), &dir).expect("the project reads");
    let ws = sources
        .workspace(Policies::demo())
        .expect("the view does not stop the read");
    let view = ws.source("slow").and_then(|s| s.schema.table("slow"));
    assert!(view.is_some_and(|v| v.unread.as_deref().is_some_and(|w| w.contains("200 ms"))));
    assert_eq!(
        ws.source("slow")
            .and_then(|s| s.schema.table("big"))
            .map(|t| t.row_count),
        Some(2000)
    );
    ws.notices().iter().map(|n| n.warning.code).collect()
}

/// A verified query that no longer fits its schema is dropped with a CONFIG_INVALID
/// warning on the workspace, and every run carries it.
fn config_invalid() -> Vec<ErrorCode> {
    let declared: nl2sql_core::curated::Curated = serde_json::from_str(
        r#"{"datasources": {"chinook": [{"id": "gone", "description": "A dropped table",
            "questions": ["How many old playlists?"], "sql": "SELECT COUNT(*) AS n FROM PlaylistOld"}]}}"#,
    )
    .expect("the declaration parses");
    let ws = workspace(declared);
    assert!(ws.curated().datasources.is_empty());
    ws.notices().iter().map(|n| n.warning.code).collect()
}

/// Opening datasources that cannot be opened: a bad id, an id taken twice, a file that is
/// not a database, a database without tables, and an index whose embedder fails.
fn opening_failure(code: ErrorCode) -> Vec<ErrorCode> {
    use nl2sql_core::index::{BuiltinEmbedder, DatasourceProfile, Embedder};
    use nl2sql_core::workspace::{Opening, Workspace};
    use std::rc::Rc;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opening-failures");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let opening = |id: &str, db: Rc<dyn Datasource>| Opening {
        profile: DatasourceProfile {
            id: id.into(),
            description: String::new(),
            examples: vec![],
            verified: vec![],
            notes: Default::default(),
        },
        datasource: db,
        read_ahead: None,
    };
    let embedder: Rc<dyn Embedder> = match code {
        ErrorCode::IndexBuildFailed => Rc::new(Failing),
        _ => Rc::new(BuiltinEmbedder::default()),
    };
    let openings = match code {
        ErrorCode::DatasourceIdInvalid => vec![opening("a b", Rc::new(chinook()))],
        ErrorCode::DatasourceIdTaken => vec![
            opening("music", Rc::new(chinook())),
            opening("music", Rc::new(chinook())),
        ],
        ErrorCode::DatasourceUnreadable => {
            // A file that is not a database, named on the command line.
            let path = dir.join("notes.sqlite");
            std::fs::write(&path, "not a database, just words").expect("a file");
            let named = path.to_string_lossy();
            let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
            let opened = nl2sql_native::Sources::new(Some(&named), None, None, &data)
                .and_then(|sources| sources.open(None).map(|_| ()));
            return match opened {
                Ok(()) => vec![],
                Err(e) => vec![e.code],
            };
        }
        ErrorCode::DatasourceUnreachable => {
            // Nothing listens on port 1 of this machine.
            let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
            let address = "postgres://nl2sql@127.0.0.1:1/nothing";
            let opened = nl2sql_native::Sources::new(Some(address), None, None, &data)
                .and_then(|sources| sources.open(None).map(|_| ()));
            return match opened {
                Ok(()) => vec![],
                Err(e) => vec![e.code],
            };
        }
        ErrorCode::DatasourceEmpty => {
            let path = dir.join("empty.sqlite");
            rusqlite::Connection::open(&path)
                .and_then(|c| c.execute_batch("PRAGMA user_version = 1;"))
                .expect("an empty database");
            vec![opening(
                "empty",
                Rc::new(SqliteFile::open("empty", &path).expect("opens")),
            )]
        }
        _ => vec![opening("chinook", Rc::new(chinook()))],
    };
    match pollster::block_on(Workspace::open(
        openings,
        Policies::demo(),
        Default::default(),
        embedder,
    )) {
        Ok(_) => vec![],
        Err(e) => vec![e.code],
    }
}

/// An embedder that always fails, as a provider's does when it is down.
struct Failing;

impl nl2sql_core::index::Embedder for Failing {
    fn id(&self) -> String {
        "failing".into()
    }

    fn embed<'a>(
        &'a self,
        _texts: &'a [String],
    ) -> nl2sql_core::LocalBoxFuture<'a, Result<Vec<Vec<f32>>, nl2sql_core::error::Error>> {
        Box::pin(std::future::ready(Err(nl2sql_core::index::unsearchable(
            "the provider is down",
        ))))
    }
}

/// Feedback refused: an unknown proposal, a role that does not approve, an edit that is not
/// a verified query, a book that does not read.
fn feedback_failure(code: ErrorCode) -> Vec<ErrorCode> {
    use nl2sql_core::curated::VerifiedQuery;
    use nl2sql_core::feedback::FeedbackBook;
    let policies = Policies::demo();
    let admin = policies.scope(&["admin".to_string()]);
    let viewer = policies.scope(&["viewer".to_string()]);
    let mut book = FeedbackBook::default();
    let (_, schema) = chinook_with_schema();
    let outcome = match code {
        ErrorCode::FeedbackNotFound => book
            .approve("chinook", "fb_9", &admin, "me", "now")
            .map(|_| ()),
        ErrorCode::ApprovalNotAllowed => book
            .approve("chinook", "fb_9", &viewer, "me", "now")
            .map(|_| ()),
        ErrorCode::VerifiedQueryInvalid => {
            let broken: VerifiedQuery = serde_json::from_str(
                r#"{"id": "x", "description": "d", "questions": ["q"], "sql": "DELETE FROM Track"}"#,
            )
            .expect("a query's shape");
            book.edit("chinook", "fb_9", broken, &admin, &schema)
                .map(|_| ())
        }
        _ => FeedbackBook::from_json("{\"not\": \"a book\"}").map(|_| ()),
    };
    match outcome {
        Ok(()) => vec![],
        Err(e) => vec![e.code],
    }
}

/// A workspace over Chinook with `declared` verified queries.
fn workspace(declared: nl2sql_core::curated::Curated) -> nl2sql_core::workspace::Workspace {
    use nl2sql_core::index::{BuiltinEmbedder, DatasourceProfile};
    use nl2sql_core::workspace::{Opening, Workspace};
    use std::rc::Rc;
    let opening = Opening {
        profile: DatasourceProfile {
            id: "chinook".into(),
            description: "A music store".into(),
            examples: vec![],
            verified: vec![],
            notes: Default::default(),
        },
        datasource: Rc::new(chinook()),
        read_ahead: None,
    };
    pollster::block_on(Workspace::open(
        vec![opening],
        Policies::demo(),
        declared,
        Rc::new(BuiltinEmbedder::default()),
    ))
    .expect("the workspace opens")
}

/// Provider codes come from a provider embedder talking to the mock provider over HTTP.
fn provider_failure(code: ErrorCode) -> Vec<ErrorCode> {
    use nl2sql_core::error::Node;
    use nl2sql_core::index::Embedder;
    use nl2sql_core::provider::{ApiKey, Provider, ProviderEmbedder, Wire};
    use nl2sql_native::BlockingTransport;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let mock = nl2sql_tests::mock::MockProvider::start().expect("the mock provider starts");
    let mut transport = BlockingTransport::default();
    let (model, timeout) = match code {
        ErrorCode::ProviderAuthFailed => ("fault-401", 5_000),
        ErrorCode::ProviderRateLimited => ("fault-429-rate", 5_000),
        ErrorCode::ProviderQuotaExceeded => ("fault-429-quota", 5_000),
        ErrorCode::ProviderTimeout => ("fault-hang", 200),
        ErrorCode::ProviderUnavailable => ("fault-500", 5_000),
        ErrorCode::ProviderModelUnavailable => ("fault-404", 5_000),
        ErrorCode::Cancelled => {
            transport = BlockingTransport::cancelled_by(Arc::new(AtomicBool::new(true)));
            ("m", 5_000)
        }
        _ => ("fault-malformed", 5_000),
    };
    let provider = Provider::new(
        Wire::OpenAi,
        &mock.base_url(),
        ApiKey::new("sk-test-key-0000"),
    );
    let embedder = ProviderEmbedder::new(std::rc::Rc::new(transport), provider, model)
        .with_timeout_ms(timeout);
    match pollster::block_on(embedder.embed(&["tracks".to_string()])) {
        Ok(_) => vec![],
        Err(e) => vec![e.at(Node::SchemaRetriever).error_code],
    }
}

/// Pipeline codes come from `Engine::ask` with the mock provider over HTTP.
fn pipeline_failure(env: &Env, code: ErrorCode) -> Vec<ErrorCode> {
    use nl2sql_core::engine::{Agent, Engine, EngineSettings, Hooks, Parts, Question};
    use nl2sql_core::index::{BuiltinEmbedder, Clock, SchemaIndex, ValueIndex};
    use nl2sql_core::provider::{ApiKey, Provider, Wire};
    use nl2sql_native::BlockingTransport;
    use nl2sql_tests::mock::{Fixture, MockProvider};
    struct Zero;
    impl Clock for Zero {
        fn now_ms(&self) -> u64 {
            0
        }
    }
    let mock = MockProvider::start().expect("the mock provider starts");
    let q = "How many albums are there?";
    let verdict = if code == ErrorCode::QuestionNotAnswerable {
        r#"{"datasources": [], "reason": "no"}"#
    } else {
        r#"{"datasources": ["chinook"], "reason": "albums"}"#
    };
    mock.add([
        Fixture::new("answerability", q, verdict),
        Fixture::new("plan", q, r#"{"tables": 3}"#),
        Fixture::new("plan", "not a valid plan", r#"{"tables": 4}"#),
    ]);
    // A good plan whose written answer invents a number.
    let counted = "Count the albums, please.";
    let albums = r#"{"tables": [{"name": "Album", "alias": "a"}], "select_items": [{"alias": "albums", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "a", "column_name": "AlbumId"}]}}]}"#;
    mock.add([
        Fixture::new(
            "answerability",
            counted,
            r#"{"datasources": ["chinook"], "reason": "albums"}"#,
        ),
        Fixture::new("plan", counted, albums),
        Fixture::new("text", counted, "There are 9,999 albums."),
    ]);
    // Results the sanity checks flag: a genre no track has, a column that is all NULL.
    let missing = "Tracks of the Zzyzx genre?";
    let nulls = "Companies of customers without one?";
    mock.add([
        Fixture::new("answerability", missing, r#"{"datasources": ["chinook"], "reason": "tracks"}"#),
        Fixture::new("plan", missing, r#"{"tables": [{"name": "Genre", "alias": "g"}], "select_items": [{"expr": {"kind": "column", "alias": "g", "column_name": "GenreId"}}], "where": {"kind": "binary", "op": "=", "left": {"kind": "column", "alias": "g", "column_name": "Name"}, "right": {"kind": "literal", "value": "Zzyzx"}}}"#),
        Fixture::new("answerability", nulls, r#"{"datasources": ["chinook"], "reason": "customers"}"#),
        Fixture::new("plan", nulls, r#"{"tables": [{"name": "Customer", "alias": "c"}], "select_items": [{"expr": {"kind": "column", "alias": "c", "column_name": "Company"}}], "where": {"kind": "binary", "op": "IS", "left": {"kind": "column", "alias": "c", "column_name": "Company"}, "right": {"kind": "literal", "is_null": true}}}"#),
    ]);
    // SUM over invoices joined to their lines adds each invoice's total once per line.
    let fanned = "Total invoiced, counting lines?";
    mock.add([
        Fixture::new("answerability", fanned, r#"{"datasources": ["chinook"], "reason": "invoices"}"#),
        Fixture::new("plan", fanned, r#"{"tables": [{"name": "Invoice", "alias": "i"}, {"name": "InvoiceLine", "alias": "l"}], "joins": [{"left_alias": "i", "right_alias": "l", "condition": {"kind": "binary", "op": "=", "left": {"kind": "column", "alias": "i", "column_name": "InvoiceId"}, "right": {"kind": "column", "alias": "l", "column_name": "InvoiceId"}}}], "select_items": [{"alias": "total", "expr": {"kind": "func", "func_name": "SUM", "is_aggregate": true, "args": [{"kind": "column", "alias": "i", "column_name": "Total"}]}}]}"#),
    ]);
    // A plan the validator rejects, retried after the refiner's advice (or, when the
    // refiner's answer cannot be read, the rejection's own words).
    let refined = "Longest tracks, refined?";
    let title = r#"{"tables": [{"name": "Track", "alias": "t"}], "select_items": [{"expr": {"kind": "column", "alias": "t", "column_name": "Title"}}]}"#;
    let name = r#"{"tables": [{"name": "Track", "alias": "t"}], "select_items": [{"expr": {"kind": "column", "alias": "t", "column_name": "Name"}}], "limit": 2}"#;
    mock.add([
        Fixture::new(
            "answerability",
            refined,
            r#"{"datasources": ["chinook"], "reason": "tracks"}"#,
        ),
        Fixture::new("plan", refined, title),
        Fixture::new("text", refined, "Track has no Title; use Name."),
        Fixture::new("plan", "Title", name),
    ]);
    let q = match code {
        ErrorCode::PlanFeedback | ErrorCode::RefinerFailed => refined,
        ErrorCode::JoinFanOut => fanned,
        ErrorCode::AnswerNotGrounded => counted,
        ErrorCode::ValueNotFound => missing,
        ErrorCode::AllNullColumn => nulls,
        ErrorCode::QuestionEmpty => " \t\n ",
        _ => q,
    };
    let embedder = BuiltinEmbedder::default();
    let profile = nl2sql_core::demo::demo_profile(
        nl2sql_core::demo::demo_database("chinook").expect("chinook is a demo"),
    );
    let index = pollster::block_on(SchemaIndex::build(
        &[(profile, env.schema.clone())],
        ValueIndex::default(),
        &embedder,
    ))
    .expect("builds");
    let transport = BlockingTransport::default();
    let provider = Provider::new(
        Wire::OpenAi,
        &mock.base_url(),
        ApiKey::new("sk-test-key-0000"),
    );
    let mut settings = EngineSettings::new(Agent::new(provider, "m"));
    if code == ErrorCode::RunLimitReached {
        settings.max_llm_calls = 1;
    }
    if code == ErrorCode::PipelineTimeout {
        settings.timeout_ms = 0;
    }
    if matches!(code, ErrorCode::PlanFeedback | ErrorCode::RefinerFailed) {
        let model = if code == ErrorCode::RefinerFailed {
            "fault-malformed"
        } else {
            "m"
        };
        settings.feedback = nl2sql_core::engine::Feedback::Refiner(Agent {
            model: model.to_string(),
            ..settings.planner.clone()
        });
    }
    if code == ErrorCode::AnswerNotGrounded {
        settings.answer = nl2sql_core::engine::AnswerMode::Llm(settings.planner.clone());
    }
    let engine = Engine::new(
        Parts {
            catalog: Box::new(Assembled {
                datasources: vec![&env.db],
                index: &index,
                embedder: &embedder,
                policies: &env.policies,
            }),
            transport: &transport,
            clock: &Zero,
        },
        settings,
    );
    let r = pollster::block_on(engine.ask(&Question::new(q), Hooks::default()));
    if code == ErrorCode::QuestionEmpty {
        assert_eq!(
            mock.received().len(),
            0,
            "an empty question reached the model"
        );
    }
    r.errors
        .iter()
        .map(|e| e.error_code)
        .chain(r.warnings.iter().map(|w| w.code))
        .collect()
}

/// Codes of questions across datasources come from `Engine::ask` over Chinook and the
/// support database, combining in a scratch SQLite.
fn cross_failure(code: ErrorCode) -> Vec<ErrorCode> {
    use nl2sql_core::engine::{Agent, Engine, EngineSettings, Hooks, Parts, Question};
    use nl2sql_core::index::{BuiltinEmbedder, Clock};
    use nl2sql_core::provider::{ApiKey, Provider, Wire};
    use nl2sql_native::{BlockingTransport, MemoryScratch};
    use nl2sql_tests::mock::{Fixture, MockProvider};
    struct Zero;
    impl Clock for Zero {
        fn now_ms(&self) -> u64 {
            0
        }
    }
    let open = |id: &str| -> Box<dyn Datasource> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../data")
            .join(format!("{id}.sqlite"));
        Box::new(SqliteFile::open(id, path).expect("opens"))
    };
    let embedder = BuiltinEmbedder::default();
    let index = pollster::block_on(nl2sql_tests::routing::demo_index(&open, &embedder));
    let dbs: Vec<Box<dyn Datasource>> = ["chinook", "support"].iter().map(|d| open(d)).collect();
    let mock = MockProvider::start().expect("the mock provider starts");
    let q = "Support customer ids beside Chinook emails?";
    let (decomposition, plans) = if code == ErrorCode::QuestionTooBroad {
        let parts: Vec<serde_json::Value> = (1..=7)
            .map(|i| serde_json::json!({"id": format!("q{i}"), "datasource": "chinook", "question": format!("part {i}"), "columns": ["n"], "key": null}))
            .collect();
        (
            serde_json::json!({"sub_queries": parts, "combine": "union", "order_by": [], "limit": null}),
            vec![],
        )
    } else {
        (
            serde_json::json!({"sub_queries": [
                {"id": "q1", "datasource": "support", "question": "support ids", "columns": ["id"], "key": "id"},
                {"id": "q2", "datasource": "chinook", "question": "chinook emails", "columns": ["id"], "key": "id"}
            ], "combine": "join", "order_by": [], "limit": null}),
            vec![
                Fixture::new(
                    "plan",
                    "support ids",
                    r#"{"tables": [{"name": "customers", "alias": "c"}], "select_items": [{"expr": {"kind": "column", "alias": "c", "column_name": "customer_id"}}]}"#,
                ),
                Fixture::new(
                    "plan",
                    "chinook emails",
                    r#"{"tables": [{"name": "Customer", "alias": "c"}], "select_items": [{"expr": {"kind": "column", "alias": "c", "column_name": "Email"}}]}"#,
                ),
            ],
        )
    };
    // Both databases hold customers with their countries: routing calls it close.
    let close = "How many customers do we have, by country?";
    mock.add([
        Fixture::new(
            "answerability",
            close,
            r#"{"datasources": ["chinook"], "reason": "customers"}"#,
        ),
        Fixture::new(
            "plan",
            close,
            r#"{"tables": [{"name": "Customer", "alias": "c"}], "select_items": [{"expr": {"kind": "column", "alias": "c", "column_name": "Country"}}], "limit": 1}"#,
        ),
    ]);
    let asked = if code == ErrorCode::RoutingCloseCall {
        close
    } else {
        q
    };
    mock.add(
        [
            Fixture::new(
                "answerability",
                q,
                r#"{"datasources": ["chinook", "support"], "combine": true, "reason": "both"}"#,
            ),
            Fixture::new("decomposition", q, &decomposition.to_string()),
        ]
        .into_iter()
        .chain(plans),
    );
    let provider = Provider::new(
        Wire::OpenAi,
        &mock.base_url(),
        ApiKey::new("sk-test-key-0000"),
    );
    let transport = BlockingTransport::default();
    let policies = Policies::demo();
    let engine = Engine::new(
        Parts {
            catalog: Box::new(Assembled {
                datasources: dbs.iter().map(|d| d.as_ref()).collect(),
                index: &index,
                embedder: &embedder,
                policies: &policies,
            }),
            transport: &transport,
            clock: &Zero,
        },
        EngineSettings::new(Agent::new(provider, "m")),
    )
    .combining_with(&MemoryScratch);
    let r = pollster::block_on(engine.ask(&Question::new(asked), Hooks::default()));
    // JOIN_KEY_UNCONVERTED is a warning: the run goes on.
    r.errors
        .iter()
        .map(|e| e.error_code)
        .chain(r.warnings.iter().map(|w| w.code))
        .collect()
}

#[test]
fn every_error_code_has_a_producer() {
    let env = env();
    for &code in ErrorCode::ALL {
        let produced = produce(&env, code);
        assert!(
            produced.contains(&code),
            "{code} was not produced; got {produced:?}"
        );
    }
}

#[test]
fn safe_messages_hide_the_database_s_words() {
    let failure = DatasourceError::new(
        DatasourceErrorKind::Unavailable,
        "/secret/path: disk I/O error",
    );
    let e = execution_error(&failure);
    assert!(!e.is_retryable());
    let client = e.for_client();
    assert!(
        !client.message.contains("/secret/path"),
        "{}",
        client.message
    );
    assert!(client.details.is_none());
    let query_fault = DatasourceError::new(DatasourceErrorKind::InvalidQuery, "no such column: x");
    let rejected = execution_error(&query_fault);
    assert!(rejected.is_retryable());
    // Across a trust boundary no database's words are left: not in the error, not in the
    // warning a retry left of it, not in a verified query's fallback.
    use nl2sql_core::engine::{CuratedMatch, MatchReason};
    use nl2sql_core::error::{Boundary, Clean, RunWarning};
    let boundary = Boundary::default();
    for message in [
        rejected.clone().cleaned(&boundary).message,
        RunWarning::recovered(rejected.clone())
            .cleaned(&boundary)
            .message,
        e.cleaned(&boundary).message,
    ] {
        assert!(
            !message.contains("no such column") && !message.contains("/secret"),
            "{message}"
        );
    }
    for (reason, detail) in [
        (MatchReason::ExecutionFailed, "no such column: x"),
        (
            MatchReason::PolicyDenied,
            "Role analyst may not read chinook.Employee",
        ),
    ] {
        let fallback = CuratedMatch {
            matched: false,
            reason,
            candidates: vec![],
            choice: None,
            params: Default::default(),
            detail: Some(detail.into()),
        };
        let cleaned = fallback.cleaned(&boundary).detail.unwrap_or_default();
        assert!(
            !cleaned.contains("column") && !cleaned.contains("Employee"),
            "{cleaned}"
        );
    }
}

/// The npm package's declarations name exactly the codes the engine has, in its order, so
/// a page switching over `error_code` sees every case.
#[test]
fn the_npm_declarations_name_every_code_and_no_other() {
    let declarations = include_str!("../../wasm/src/results.d.ts");
    let start = declarations
        .find("export type ErrorCodeName =")
        .expect("results.d.ts declares ErrorCodeName");
    let union = &declarations[start..];
    let union = &union[..union.find(';').expect("the union ends")];
    let declared: Vec<&str> = union.split('"').skip(1).step_by(2).collect();
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(declared, codes);
}
