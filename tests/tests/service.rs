//! The facade every front end uses, on the demo databases with the native host: cancel in
//! the same tick, configuration failures as CONFIG_INVALID, replay offline, SQL mode's
//! defaults, removing a datasource; and the suite's scoring of a run it answered.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::config::{AnswerConfig, ProviderConfig, ProviderKind, RunConfig};
use nl2sql_core::engine::{QueryResult, Status, TraceForm, WITHHELD};
use nl2sql_core::error::ErrorCode;
use nl2sql_core::policy::Policies;
use nl2sql_core::run::SqlStatus;
use nl2sql_core::service::{Question, Service};
use nl2sql_core::validate::REFUSAL_MESSAGE;
use nl2sql_native::{demo_workspace, NativeHost};
use nl2sql_tests::mock::{Fixture, MockProvider};
use nl2sql_tests::native::data_dir;

fn service(provider: ProviderConfig, run: RunConfig) -> Service<NativeHost> {
    let workspace = demo_workspace(&data_dir(), Policies::demo())
        .unwrap_or_else(|e| panic!("the demo workspace opens: {e}"));
    Service::new(NativeHost::default(), workspace, provider, run)
}

fn mock_provider(mock: &MockProvider) -> ProviderConfig {
    ProviderConfig {
        kind: ProviderKind::Compatible,
        model: "m".into(),
        api_key: "sk-test-key-0000".into(),
        base_url: Some(mock.base_url()),
        ..ProviderConfig::default()
    }
}

fn question(text: &str) -> Question {
    Question {
        question: text.into(),
        roles: vec!["admin".into()],
        ..Question::default()
    }
}

#[test]
fn a_cancel_in_the_same_tick_as_the_request_ends_the_run_cancelled() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let s = service(mock_provider(&mock), RunConfig::default());
    let ask = s
        .request(question("How many albums are there?"))
        .unwrap_or_else(|e| panic!("{e}"));
    s.cancel();
    let result = pollster::block_on(s.ask(ask, None));
    assert_eq!(result.status, Status::Error);
    let codes: Vec<ErrorCode> = result.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::Cancelled]);
    assert_eq!(result.usage.calls, 0, "no model call was made");
}

#[test]
fn a_configuration_that_cannot_be_used_is_config_invalid_and_registers_nothing() {
    let s = service(ProviderConfig::default(), RunConfig::default());
    let Err(e) = s.request(question("How many albums are there?")) else {
        panic!("an OpenAI configuration with no key is refused");
    };
    assert_eq!(e.code.as_str(), "CONFIG_INVALID");
    assert_eq!(e.code, nl2sql_core::error::ErrorCode::ConfigInvalid);
    let Err(e) = pollster::block_on(s.test_connection()) else {
        panic!("no connection test without a key");
    };
    assert_eq!(e.code.as_str(), "CONFIG_INVALID");
}

/// The plan that counts Chinook's albums.
const ALBUMS_PLAN: &str = r#"{"tables": [{"name": "Album", "alias": "a"}], "select_items": [{"alias": "albums", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "a", "column_name": "AlbumId"}]}}]}"#;

/// Teaches the mock to answer [`COUNT_ALBUMS`] from `datasource` with [`ALBUMS_PLAN`].
fn albums_fixtures(mock: &MockProvider, datasource: &str) {
    mock.add([
        Fixture::new(
            "answerability",
            COUNT_ALBUMS,
            &format!(r#"{{"datasources": ["{datasource}"], "reason": "albums"}}"#),
        ),
        Fixture::new("plan", COUNT_ALBUMS, ALBUMS_PLAN),
    ]);
}

/// The facade over `workspace` and a mock that counts Chinook's albums when asked
/// [`COUNT_ALBUMS`], answering by the template.
fn albums_service(
    workspace: nl2sql_core::workspace::Workspace,
    mock: &MockProvider,
) -> Service<NativeHost> {
    albums_fixtures(mock, "chinook");
    let run = RunConfig {
        answer: AnswerConfig::Template,
        ..RunConfig::default()
    };
    Service::new(NativeHost::default(), workspace, mock_provider(mock), run)
}

/// The facade over a mock that counts the albums when asked [`COUNT_ALBUMS`], and that
/// question's result (answered by the template).
fn counted_albums(mock: &MockProvider) -> (Service<NativeHost>, QueryResult) {
    albums_fixtures(mock, "chinook");
    let run = RunConfig {
        answer: AnswerConfig::Template,
        ..RunConfig::default()
    };
    let s = service(mock_provider(mock), run);
    let ask = s
        .request(question(COUNT_ALBUMS))
        .unwrap_or_else(|e| panic!("{e}"));
    let result = pollster::block_on(s.ask(ask, None));
    (s, result)
}

const COUNT_ALBUMS: &str = "Count the albums, please.";

#[test]
fn a_recorded_run_replays_offline_with_the_same_answer() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let (s, recorded) = counted_albums(&mock);
    assert_eq!(recorded.status, Status::Success, "{:?}", recorded.errors);
    // The provider is gone: a replay that reached it would fail.
    drop(mock);
    let replay = s.replaying(&recorded);
    assert!(replay.is_replay());
    let replayed = pollster::block_on(s.ask(replay, None));
    assert_eq!(replayed.status, Status::Success, "{:?}", replayed.errors);
    assert!(replayed.replay_divergences.is_empty());
    assert_eq!(
        replayed.final_answer.map(|a| a.text),
        recorded.final_answer.map(|a| a.text)
    );
}

#[test]
fn sql_mode_defaults_to_the_first_datasource_under_the_run_row_cap() {
    let run = RunConfig {
        row_cap: 7,
        ..RunConfig::default()
    };
    let s = service(ProviderConfig::default(), run);
    let first = s.datasources()[0].id.clone();
    assert_eq!(first, "chinook");
    let r = pollster::block_on(s.sql("SELECT Name FROM Artist", None, &["admin".into()]));
    assert_eq!(r.status, SqlStatus::Ok, "{:?}", r.errors);
    assert_eq!(r.datasource, "chinook");
    assert_eq!(r.rows.len(), 7);
    assert!(r.truncated);
    let unknown = pollster::block_on(s.sql("SELECT 1", Some("nope"), &[]));
    let codes: Vec<ErrorCode> = unknown.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::DatasourceNotFound]);
}

#[test]
fn a_removed_datasource_is_gone_from_the_list_and_from_routing() {
    let s = service(ProviderConfig::default(), RunConfig::default());
    pollster::block_on(s.remove("support")).unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<String> = s.datasources().into_iter().map(|d| d.id).collect();
    assert_eq!(ids, ["chinook", "webanalytics"]);
    let routing = pollster::block_on(s.route("open support tickets", &["admin".into()]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!routing.ranked.iter().any(|id| id == "support"));
    let Err(e) = pollster::block_on(s.remove("support")) else {
        panic!("removing it twice fails");
    };
    assert_eq!(e.code.as_str(), "DATASOURCE_NOT_FOUND");
}

#[test]
fn the_suite_scores_a_run_against_what_the_case_expects() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let (_, r) = counted_albums(&mock);
    let suite = |rows: &str| {
        let yaml = format!("cases:\n  - id: t\n    question: {COUNT_ALBUMS}\n    rows: [{rows}]\n");
        nl2sql_suite::Suite::parse(&yaml).unwrap_or_else(|e| panic!("{e}"))
    };
    let right = suite("{albums: 347}").cases.remove(0);
    let wrong = suite("{albums: 348}").cases.remove(0);
    let scored = nl2sql_suite::score(&right, "allowed", &right.gold_rows(), &r);
    assert!(scored.pass && scored.lenient, "{:?}", scored.why);
    let scored = nl2sql_suite::score(&wrong, "allowed", &wrong.gold_rows(), &r);
    assert!(!scored.pass && !scored.lenient);
    assert!(scored.why.is_some());
    for expected in ["refused", "unanswerable", "something else"] {
        let scored = nl2sql_suite::score(&right, expected, &right.gold_rows(), &r);
        assert!(!scored.pass, "{expected}");
    }
}

#[test]
fn a_request_the_provider_refuses_as_it_stands_is_not_sent_again() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let provider = ProviderConfig {
        model: "fault-400".into(),
        ..mock_provider(&mock)
    };
    let run = RunConfig {
        speculative_planning: false,
        ..RunConfig::default()
    };
    let s = service(provider, run);
    let ask = s
        .request(question("How many albums are there?"))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = pollster::block_on(s.ask(ask, None));
    assert_eq!(r.status, Status::Error);
    assert_eq!(r.usage.calls, 1, "one refused call, not resent");
    let e = &r.errors[0];
    assert_eq!(e.error_code, ErrorCode::ModelOutputInvalid);
    assert!(e.message.contains("Unsupported parameter"), "{}", e.message);
}

#[test]
fn with_nothing_indexed_a_question_fails_as_schema_retrieval_not_as_a_refusal() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let s = service(mock_provider(&mock), RunConfig::default());
    for id in ["chinook", "support", "webanalytics"] {
        pollster::block_on(s.remove(id)).unwrap_or_else(|e| panic!("{e}"));
    }
    let ask = s
        .request(question("How many albums are there?"))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = pollster::block_on(s.ask(ask, None));
    let codes: Vec<ErrorCode> = r.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::SchemaRetrievalFailed]);
    assert!(
        r.errors[0].message.contains("re-index"),
        "{}",
        r.errors[0].message
    );
    assert_eq!(r.usage.calls, 0);
}

#[test]
fn with_twenty_datasources_the_check_sees_routing_s_few_and_forwards_at_most_three() {
    use nl2sql_core::curated::Curated;
    use nl2sql_core::index::{BuiltinEmbedder, DatasourceProfile};
    use nl2sql_core::workspace::{Opening, Workspace};
    use std::rc::Rc;
    let path = data_dir().join("chinook.sqlite");
    let openings = (1..=20)
        .map(|i| {
            let id = format!("store{i:02}");
            let db =
                nl2sql_native::SqliteFile::open(&id, &path).unwrap_or_else(|e| panic!("{id}: {e}"));
            Opening {
                profile: DatasourceProfile {
                    id: id.clone(),
                    description: format!("Music store number {i}: albums, artists, tracks."),
                    examples: vec![],
                    verified: vec![],
                    notes: Default::default(),
                },
                datasource: Rc::new(db),
                read_ahead: None,
            }
        })
        .collect();
    let workspace = pollster::block_on(Workspace::open(
        openings,
        Policies::read_all(),
        Curated::default(),
        Rc::new(BuiltinEmbedder::default()),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let mock = MockProvider::start().expect("the mock provider starts");
    let every: Vec<String> = (1..=20).map(|i| format!("\"store{i:02}\"")).collect();
    mock.add([Fixture::new(
        "answerability",
        COUNT_ALBUMS,
        &format!(
            r#"{{"datasources": [{}], "combine": false, "reason": "albums"}}"#,
            every.join(", ")
        ),
    )]);
    let run = RunConfig {
        speculative_planning: false,
        ..RunConfig::default()
    };
    let s = Service::new(NativeHost::default(), workspace, mock_provider(&mock), run);
    let ask = s
        .request(Question {
            question: COUNT_ALBUMS.into(),
            ..Question::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let r = pollster::block_on(s.ask(ask, None));
    let resolver = r
        .trace
        .iter()
        .find(|n| n.node() == nl2sql_core::error::Node::DatasourceResolver)
        .unwrap_or_else(|| panic!("a resolver record: {:?}", r.errors));
    let call = &resolver.llm_calls[0];
    let prompt: String = std::iter::once(call.system.as_str())
        .chain(call.messages.iter().map(|m| m.content.as_str()))
        .collect();
    let listed = prompt.matches("\"id\":").count();
    assert!((1..=3).contains(&listed), "{listed} datasources listed");
    // About 4 characters a token: well within the 4,000-token budget per call.
    assert!(prompt.len() < 8_000, "{} characters", prompt.len());
    let accepted = resolver
        .output
        .resolver()
        .and_then(|o| o.accepted.as_ref())
        .map_or(0, Vec::len);
    assert!((1..=3).contains(&accepted), "{accepted} forwarded");
}

#[test]
fn a_run_s_own_canceller_stops_it_alone() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let (s, _) = counted_albums(&mock);
    let stopped = s
        .request(question(COUNT_ALBUMS))
        .unwrap_or_else(|e| panic!("{e}"));
    let beside = s
        .request(question(COUNT_ALBUMS))
        .unwrap_or_else(|e| panic!("{e}"));
    stopped.canceller().cancel();
    let stopped = pollster::block_on(s.ask(stopped, None));
    let beside = pollster::block_on(s.ask(beside, None));
    let codes: Vec<ErrorCode> = stopped.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::Cancelled]);
    assert_eq!(beside.status, Status::Success, "{:?}", beside.errors);
}

#[test]
fn a_cleaned_result_tells_a_refused_caller_no_table_role_or_rule() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let q = "Which employees earn the most, privately?";
    mock.add([
        Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["chinook"], "reason": "staff"}"#,
        ),
        Fixture::new(
            "plan",
            q,
            r#"{"tables": [{"name": "Employee", "alias": "e"}], "select_items": [{"expr": {"kind": "column", "alias": "e", "column_name": "LastName"}}]}"#,
        ),
    ]);
    // The demo policy names refused tables (for the data's owner in the page).
    let s = service(mock_provider(&mock), RunConfig::default());
    let ask = s
        .request(Question {
            question: q.into(),
            roles: vec!["analyst".into()],
            ..Question::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let full = pollster::block_on(s.ask(ask, None));
    let codes: Vec<ErrorCode> = full.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::SecurityViolation]);
    let json = |r: &QueryResult| serde_json::to_string(r).unwrap_or_default();
    let whole = json(&full);
    assert!(whole.contains("\"rule\""), "the full trace keeps the rule");
    assert!(whole.contains("Role analyst may not read chinook.Employee"));

    assert!(
        whole.contains("\"name\":\"Employee\""),
        "the full trace keeps the plan"
    );

    // The front end chooses the cleaned form for a caller across a trust boundary.
    let ask = s
        .request(Question {
            question: q.into(),
            roles: vec!["analyst".into()],
            trace: TraceForm::Cleaned,
            ..Question::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let cleaned = pollster::block_on(s.ask(ask, None));
    let codes: Vec<ErrorCode> = cleaned.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::SecurityViolation]);
    assert_eq!(cleaned.errors[0].message, REFUSAL_MESSAGE);
    assert_eq!(cleaned.sub_queries[0].plan, None);
    let text = json(&cleaned);
    // The whole result, trace and model calls included, names no refused table (the
    // question says "employees"; only the refused plan said "Employee"), rule or role.
    for leak in [
        "Employee",
        "Role analyst",
        "chinook.",
        "\"details\"",
        "\"rule\"",
    ] {
        assert!(!text.contains(leak), "the cleaned result holds {leak:?}");
    }
    assert!(text.contains(WITHHELD));
    assert_eq!(
        json(&full.clone().cleaned()).len(),
        json(&full.in_form(TraceForm::Cleaned)).len()
    );
}

#[test]
fn an_unknown_datasource_names_only_what_the_role_may_ask_and_a_skipped_routing_says_why() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let (s, _) = counted_albums(&mock);
    let ask = |datasource: &str| {
        let ask = s
            .request(Question {
                question: COUNT_ALBUMS.into(),
                roles: vec!["viewer".into()],
                datasource: Some(datasource.into()),
                ..Question::default()
            })
            .unwrap_or_else(|e| panic!("{e}"));
        pollster::block_on(s.ask(ask, None))
    };
    let r = ask("nowhere");
    assert_eq!(r.errors[0].error_code, ErrorCode::DatasourceNotFound);
    // The viewer reaches chinook and webanalytics, never support.
    let message = &r.errors[0].message;
    assert!(message.contains("chinook, webanalytics"), "{message}");
    assert!(!message.contains("support"), "{message}");

    let r = ask("chinook");
    let resolver = r
        .trace
        .iter()
        .find(|n| n.node() == nl2sql_core::error::Node::DatasourceResolver)
        .unwrap_or_else(|| panic!("a resolver record"));
    assert_eq!(
        resolver
            .output
            .resolver()
            .and_then(|o| o.routing_skipped.as_deref()),
        Some("the caller chose chinook")
    );
}

/// A service over one copy of Chinook (`shop`) that the test may change under it.
fn shop(
    mock: &MockProvider,
    name: &str,
    run: RunConfig,
) -> (Service<NativeHost>, std::path::PathBuf) {
    use nl2sql_core::curated::Curated;
    use nl2sql_core::index::{BuiltinEmbedder, DatasourceProfile};
    use nl2sql_core::workspace::{Opening, Workspace};
    use std::rc::Rc;
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.sqlite"));
    std::fs::copy(data_dir().join("chinook.sqlite"), &path).unwrap_or_else(|e| panic!("{e}"));
    let db = nl2sql_native::SqliteFile::open("shop", &path).unwrap_or_else(|e| panic!("{e}"));
    let opening = Opening {
        profile: DatasourceProfile {
            id: "shop".into(),
            description: "A music store: albums, artists, tracks.".into(),
            examples: vec![],
            verified: vec![],
            notes: Default::default(),
        },
        datasource: Rc::new(db),
        read_ahead: None,
    };
    let workspace = pollster::block_on(Workspace::open(
        vec![opening],
        Policies::read_all(),
        Curated::default(),
        Rc::new(BuiltinEmbedder::default()),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    albums_fixtures(mock, "shop");
    let run = RunConfig {
        answer: AnswerConfig::Template,
        ..run
    };
    (
        Service::new(NativeHost::default(), workspace, mock_provider(mock), run),
        path,
    )
}

fn ask_albums(s: &Service<NativeHost>) -> QueryResult {
    let ask = s
        .request(Question {
            question: COUNT_ALBUMS.into(),
            ..Question::default()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    pollster::block_on(s.ask(ask, None))
}

#[test]
fn a_database_changed_since_it_was_indexed_is_warned_about_or_refused_as_the_policy_says() {
    use nl2sql_core::index::MismatchPolicy;
    let mock = MockProvider::start().expect("the mock provider starts");
    for (policy, name) in [
        (MismatchPolicy::Warn, "changed-warn"),
        (MismatchPolicy::Fail, "changed-fail"),
        (MismatchPolicy::Ignore, "changed-ignore"),
    ] {
        let run = RunConfig {
            schema_mismatch: policy,
            ..RunConfig::default()
        };
        let (s, path) = shop(&mock, name, run);
        let unchanged = ask_albums(&s);
        assert_eq!(unchanged.status, Status::Success, "{:?}", unchanged.errors);
        assert!(unchanged.warnings.is_empty(), "{:?}", unchanged.warnings);
        // More rows are no change; a new column is.
        let writer = rusqlite::Connection::open(&path).unwrap_or_else(|e| panic!("{e}"));
        writer
            .execute_batch(
                "INSERT INTO Genre (GenreId, Name) VALUES (99, 'Skiffle');
                 ALTER TABLE Album ADD COLUMN Rating INTEGER;",
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let changed = ask_albums(&s);
        let codes: Vec<ErrorCode> = changed.errors.iter().map(|e| e.error_code).collect();
        let warned: Vec<ErrorCode> = changed.warnings.iter().map(|w| w.code).collect();
        match policy {
            MismatchPolicy::Warn => {
                assert_eq!(changed.status, Status::Success, "{codes:?}");
                assert_eq!(warned, [ErrorCode::SchemaChanged]);
                assert!(changed.warnings[0]
                    .message
                    .contains("shop changed since it was indexed"));
            }
            MismatchPolicy::Fail => {
                assert_eq!(codes, [ErrorCode::InvalidState]);
                assert_eq!(changed.usage.calls, 0, "refused before any model call");
            }
            MismatchPolicy::Ignore => {
                assert_eq!(changed.status, Status::Success, "{codes:?}");
                assert!(warned.is_empty(), "{warned:?}");
            }
        }
    }
}

#[test]
fn a_planned_query_that_would_run_for_hours_ends_the_run_at_its_time_limit() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let q = "How many triples of tracks share a media type?";
    let column = |alias: &str, name: &str| serde_json::json!({"kind": "column", "alias": alias, "column_name": name});
    let same = |l: &str, r: &str| {
        serde_json::json!({"left_alias": l, "right_alias": r, "condition":
        {"kind": "binary", "op": "=", "left": column(l, "MediaTypeId"), "right": column(r, "MediaTypeId")}})
    };
    let runaway = serde_json::json!({
        "tables": [{"name": "Track", "alias": "a"}, {"name": "Track", "alias": "b"}, {"name": "Track", "alias": "c"}],
        "joins": [same("a", "b"), same("b", "c")],
        "select_items": [{"alias": "triples", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [column("a", "TrackId")]}}]
    });
    mock.add([
        Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["chinook"], "reason": "tracks"}"#,
        ),
        Fixture::new("plan", q, &runaway.to_string()),
    ]);
    let ask_under = |run: RunConfig| {
        let run = RunConfig {
            answer: AnswerConfig::Template,
            ..run
        };
        let s = service(mock_provider(&mock), run);
        let ask = s.request(question(q)).unwrap_or_else(|e| panic!("{e}"));
        pollster::block_on(s.ask(ask, None))
    };
    let r = ask_under(RunConfig {
        query_timeout_ms: 300,
        ..RunConfig::default()
    });
    assert_eq!(r.status, Status::Error);
    let codes: Vec<ErrorCode> = r.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::QueryTimeout]);
    assert!(
        r.errors[0].message.contains("300 ms"),
        "{}",
        r.errors[0].message
    );
    // Fatal: the planner is not asked again to wait as long once more.
    assert_eq!(r.sub_queries[0].retry_count, 0);
    let executor = r
        .trace
        .iter()
        .find(|n| n.node() == nl2sql_core::error::Node::Executor)
        .unwrap_or_else(|| panic!("an executor record"));
    assert_eq!(executor.status, nl2sql_core::engine::NodeStatus::Error);
    // A query never outlives its run: the run's own limit cuts the query's, and the stop is
    // the run's timeout (raising the query's limit would not have helped).
    let r = ask_under(RunConfig {
        timeout_ms: 400,
        ..RunConfig::default()
    });
    assert_eq!(r.status, Status::Error);
    let codes: Vec<ErrorCode> = r.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::PipelineTimeout]);
}

/// A workspace opened with one empty database and one that could not be opened keeps them
/// out alone: Chinook answers, every result says which were left out to a role that may
/// reach them (their reason only in the detail, which a cleaned result drops) and nothing
/// to one that may not, and SQL sent to one left out fails with its own code.
#[test]
fn a_datasource_left_out_is_said_in_every_result_to_those_who_may_reach_it() {
    use nl2sql_core::curated::Curated;
    use nl2sql_core::error::{Boundary, Clean, Error};
    use nl2sql_core::index::{BuiltinEmbedder, DatasourceProfile};
    use nl2sql_core::service::Unavailable;
    use nl2sql_core::workspace::{Opening, Workspace};
    use std::rc::Rc;
    let dir = std::env::temp_dir().join(format!("nl2sql-left-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let empty = dir.join("empty.sqlite");
    rusqlite::Connection::open(&empty)
        .and_then(|c| c.execute_batch("PRAGMA user_version = 1;"))
        .unwrap_or_else(|e| panic!("{e}"));
    let opening = |id: &str, path: &std::path::Path| Opening {
        profile: DatasourceProfile {
            id: id.into(),
            description: format!("The database {id}."),
            examples: vec![],
            verified: vec![],
            notes: Default::default(),
        },
        datasource: Rc::new(
            nl2sql_native::SqliteFile::open(id, path).unwrap_or_else(|e| panic!("{e}")),
        ),
        read_ahead: None,
    };
    let never_opened = Unavailable::new(
        "support",
        &Error::new(
            ErrorCode::DatasourceUnreachable,
            "cannot connect to PostgreSQL at postgres://app@10.0.0.5/support",
        ),
    );
    let workspace = pollster::block_on(Workspace::open_isolated(
        vec![
            opening("chinook", &data_dir().join("chinook.sqlite")),
            opening("blank", &empty),
        ],
        vec![never_opened],
        Policies::demo(),
        Curated::default(),
        Rc::new(BuiltinEmbedder::default()),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let left_out: Vec<(&str, ErrorCode)> = (workspace.unavailable().iter())
        .map(|u| (u.id.as_str(), u.code))
        .collect();
    assert_eq!(
        left_out,
        [
            ("support", ErrorCode::DatasourceUnreachable),
            ("blank", ErrorCode::DatasourceEmpty)
        ]
    );
    assert_eq!(workspace.ids(), ["chinook"]);

    let mock = MockProvider::start().expect("the mock provider starts");
    let s = albums_service(workspace, &mock);
    let ask = s
        .request(question(COUNT_ALBUMS))
        .unwrap_or_else(|e| panic!("{e}"));
    let result = pollster::block_on(s.ask(ask, None));
    assert_eq!(result.status, Status::Success, "{:?}", result.errors);
    let said: Vec<(ErrorCode, &str)> = (result.warnings.iter())
        .map(|w| (w.code, w.message.as_str()))
        .collect();
    assert!(
        said.contains(&(
            ErrorCode::DatasourceUnreachable,
            "support could not be reached, so it was left out; questions go to the other datasources."
        )) && said.iter().any(|(c, _)| *c == ErrorCode::DatasourceEmpty),
        "{said:?}"
    );
    let cleaned = serde_json::to_string(&result.warnings.clone().cleaned(&Boundary::default()))
        .unwrap_or_default();
    assert!(!cleaned.contains("10.0.0.5"), "{cleaned}");
    assert!(serde_json::to_string(&result.warnings)
        .unwrap_or_default()
        .contains("10.0.0.5"));
    // A role hears only of those it may reach; blank is no demo role's.
    let roles = vec!["viewer".to_string()];
    let ask = s
        .request(Question {
            roles: roles.clone(),
            ..question(COUNT_ALBUMS)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let result = pollster::block_on(s.ask(ask, None));
    let heard: Vec<ErrorCode> = (result.warnings.iter())
        .map(|w| w.code)
        .filter(|c| {
            matches!(
                c,
                ErrorCode::DatasourceUnreachable | ErrorCode::DatasourceEmpty
            )
        })
        .collect();
    let demo = Policies::demo();
    let scope = demo.scope(&roles);
    let reached: Vec<ErrorCode> = [
        ("support", ErrorCode::DatasourceUnreachable),
        ("blank", ErrorCode::DatasourceEmpty),
    ]
    .into_iter()
    .filter(|(id, _)| scope.can_reach(id))
    .map(|(_, code)| code)
    .collect();
    assert_eq!(heard, reached);

    // Asked about it by name, a question fails with its code, before any model call.
    let ask = s
        .request(Question {
            datasource: Some("support".into()),
            ..question(COUNT_ALBUMS)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let named = pollster::block_on(s.ask(ask, None));
    let codes: Vec<ErrorCode> = named.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::DatasourceUnreachable]);

    let sent = pollster::block_on(s.sql("SELECT 1", Some("support"), &["admin".into()]));
    assert_eq!(sent.status, SqlStatus::Error);
    let codes: Vec<ErrorCode> = sent.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::DatasourceUnreachable]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the set-up dropped or read only in part names tables: it is said only to those who
/// may read what it names. A table read in part (its statistics past the time limit) to
/// those who may read that table; a verified query dropped for a table that is gone to
/// those who may read all of its datasource.
#[test]
fn a_set_up_notice_is_said_only_to_those_who_may_read_what_it_names() {
    use nl2sql_core::curated::Curated;
    use nl2sql_core::index::{BuiltinEmbedder, DatasourceProfile};
    use nl2sql_core::workspace::{read_source, Opening, Workspace};
    use std::rc::Rc;
    let db = nl2sql_native::SqliteFile::open("chinook", data_dir().join("chinook.sqlite"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut read =
        pollster::block_on(read_source("chinook", &db)).unwrap_or_else(|e| panic!("{e}"));
    let employee = read.schema.tables.iter_mut().find(|t| t.name == "Employee");
    employee.expect("Chinook has Employee").unread =
        Some("its statistics ran past the 200 ms limit".into());
    let declared: Curated = serde_json::from_str(
        r#"{"datasources": {"chinook": [{"id": "gone", "description": "A dropped table",
            "questions": ["How many old playlists?"], "sql": "SELECT COUNT(*) AS n FROM PlaylistOld"}]}}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let opening = Opening {
        profile: DatasourceProfile {
            id: "chinook".into(),
            description: "Music sales.".into(),
            examples: vec![],
            verified: vec![],
            notes: Default::default(),
        },
        datasource: Rc::new(db),
        read_ahead: Some(read),
    };
    let workspace = pollster::block_on(Workspace::open_isolated(
        vec![opening],
        vec![],
        Policies::demo(),
        declared,
        Rc::new(BuiltinEmbedder::default()),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let mock = MockProvider::start().expect("the mock provider starts");
    let s = albums_service(workspace, &mock);
    // admin reads everything; analyst all but Employee; viewer the music catalogue.
    for (role, told) in [("admin", true), ("analyst", false), ("viewer", false)] {
        let ask = s
            .request(Question {
                roles: vec![role.into()],
                ..question(COUNT_ALBUMS)
            })
            .unwrap_or_else(|e| panic!("{e}"));
        let result = pollster::block_on(s.ask(ask, None));
        assert_eq!(
            result.status,
            Status::Success,
            "{role}: {:?}",
            result.errors
        );
        let codes: Vec<ErrorCode> = result.warnings.iter().map(|w| w.code).collect();
        let expected = if told {
            vec![ErrorCode::ConfigInvalid, ErrorCode::StatisticsIncomplete]
        } else {
            vec![]
        };
        assert_eq!(codes, expected, "{role}: {:?}", result.warnings);
        let whole = serde_json::to_string(&result).unwrap_or_default();
        for hidden in ["Employee", "PlaylistOld"] {
            assert_eq!(whole.contains(hidden), told, "{role} and {hidden}: {whole}");
        }
    }
}
