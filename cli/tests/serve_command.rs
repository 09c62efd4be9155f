//! `nl2sql serve`, run as a team runs it, and spoken to over real HTTP on loopback: who may
//! ask what, the hostile corpus, the streamed events, a client that goes away, the limits,
//! the OpenAPI document, and no secret anywhere in what it says.

use nl2sql_core::api::{event_name, StreamParser, Streamed};
use nl2sql_core::error::ErrorCode;
use nl2sql_core::result::Routing;
use nl2sql_core::result::Value;
use nl2sql_core::result::{Event, QueryResult, Status};
use nl2sql_core::result::{SqlRun, SqlStatus};
use nl2sql_core::service::DatasourceInfo;
use nl2sql_server::types::{ApiError, DatasourceSummary, Health, HealthStatus};
use nl2sql_tests::hostile::{OUTSIDE_SQL, REFUSED_SQL};
use nl2sql_tests::mock::{Fixture, MockProvider};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ADMIN: &str = "admin-key-for-the-tests-0001";
const ANALYST: &str = "analyst-key-for-the-tests-02";
const VIEWER: &str = "viewer-key-for-the-tests-003";
const MODEL_KEY: &str = "sk-proj-server-side-key-0123456789";
const ALBUMS: &str = "How many albums are there?";

/// A `nl2sql serve` child on a free loopback port, stopped when dropped.
struct Server {
    child: Child,
    base: String,
    log: Arc<Mutex<Vec<String>>>,
    /// Its working directory.
    dir: PathBuf,
}

/// Servers started by this process, for their working directories' names.
static SERVERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Server {
    fn start(mock: &MockProvider, model: &str, extra: &[&str]) -> Server {
        Server::start_with(mock, model, extra, Some(MODEL_KEY))
    }

    fn start_with(
        mock: &MockProvider,
        model: &str,
        extra: &[&str],
        model_key: Option<&str>,
    ) -> Server {
        let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
        // Its own working directory: the feedback file goes there.
        let dir = std::env::temp_dir().join(format!(
            "nl2sql-serve-{}-{}",
            std::process::id(),
            SERVERS.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
            .current_dir(&dir)
            .args(["serve", "--listen", "127.0.0.1:0", "--workers", "2"])
            .args(["--base-url", &mock.base_url(), "--model", model])
            .args(extra)
            .arg("--data")
            .arg(data)
            .env(
                "NL2SQL_API_KEYS",
                format!("admin:{ADMIN},analyst:{ANALYST},viewer:{VIEWER}"),
            )
            .env("OPENAI_API_KEY", model_key.unwrap_or_default())
            .env_remove("NL2SQL_API_KEY")
            .env_remove("NL2SQL_LOG")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nl2sql serve starts");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (found, address) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("stderr is piped");
        let lines = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("serving on http://").nth(1) {
                    let _ = found.send(rest.split_whitespace().next().unwrap_or("").to_string());
                }
                lines.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            }
        });
        let address = address
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the server did not start: {:?}", log.lock()));
        Server {
            child,
            base: format!("http://{address}"),
            log,
            dir,
        }
    }

    fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    fn log(&self) -> String {
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .join("\n")
    }

    /// The run log lines so far.
    fn runs(&self) -> Vec<serde_json::Value> {
        self.log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter(|l| l.contains("\"target\":\"nl2sql::run\""))
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Waits until `n` runs have been logged, and returns them.
    fn wait_for_runs(&self, n: usize) -> Vec<serde_json::Value> {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let runs = self.runs();
            if runs.len() >= n || Instant::now() > until {
                return runs;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `method path` with `key` and `body`: the status and the body's text.
    fn call(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&str>,
    ) -> (u16, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let url = format!("{}{path}", self.base);
        let auth = key.map(|k| format!("Bearer {k}"));
        let response = match (method, body) {
            ("GET", _) => {
                let mut r = agent.get(&url);
                if let Some(a) = &auth {
                    r = r.header("authorization", a);
                }
                r.call()
            }
            ("DELETE", _) => {
                let mut r = agent.delete(&url);
                if let Some(a) = &auth {
                    r = r.header("authorization", a);
                }
                r.call()
            }
            ("PUT", body) => {
                let mut r = agent.put(&url).header("content-type", "application/json");
                if let Some(a) = &auth {
                    r = r.header("authorization", a);
                }
                r.send(body.unwrap_or(""))
            }
            (_, body) => {
                let mut r = agent.post(&url).header("content-type", "application/json");
                if let Some(a) = &auth {
                    r = r.header("authorization", a);
                }
                r.send(body.unwrap_or(""))
            }
        };
        let mut response = response.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().unwrap_or_default();
        (status, text)
    }

    fn sql(&self, key: &str, body: serde_json::Value) -> SqlRun {
        let (status, text) = self.call("POST", "/api/v1/sql", Some(key), Some(&body.to_string()));
        assert_eq!(status, 200, "{text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    fn refused(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&str>,
    ) -> (u16, ErrorCode) {
        let (status, text) = self.call(method, path, key, body);
        let error: ApiError = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(error.error.code.http_status(), Some(status), "{text}");
        (status, error.error.code)
    }

    /// Says whether a secret appears in the log or in `seen`.
    fn assert_no_secret(&self, seen: &[&str]) {
        let log = self.log();
        for secret in [MODEL_KEY, ADMIN, ANALYST, VIEWER] {
            assert!(!log.contains(secret), "the log holds a secret");
            for text in seen {
                assert!(!text.contains(secret), "a response holds a secret");
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The refusals only a server makes, each provoked over HTTP and sent with its code's status
/// (the in-flight limit and a server without a model have tests of their own below).
#[test]
fn every_server_code_is_sent_with_its_status() {
    let mock = MockProvider::start().unwrap_or_else(|e| panic!("{e}"));
    let server = Server::start(&mock, "m", &["--max-body-bytes", "2000"]);
    let sql = r#"{"sql": "SELECT 1"}"#;
    let big = format!(r#"{{"sql": "SELECT '{}'"}}"#, "x".repeat(3000));
    let cases = [
        (
            "POST",
            "/api/v1/sql",
            None,
            Some(sql),
            ErrorCode::Unauthorized,
        ),
        (
            "POST",
            "/api/v1/sql",
            Some(VIEWER),
            Some(r#"{"sql": "SELECT 1", "role": "admin"}"#),
            ErrorCode::RoleNotAllowed,
        ),
        (
            "POST",
            "/api/v1/sql",
            Some(ADMIN),
            Some("{"),
            ErrorCode::BadRequest,
        ),
        (
            "POST",
            "/api/v1/sql",
            Some(ADMIN),
            Some(big.as_str()),
            ErrorCode::PayloadTooLarge,
        ),
        (
            "GET",
            "/api/v1/nowhere",
            Some(ADMIN),
            None,
            ErrorCode::NotFound,
        ),
        (
            "DELETE",
            "/api/v1/sql",
            Some(ADMIN),
            None,
            ErrorCode::MethodNotAllowed,
        ),
        // Refused before any model call, streamed or not.
        (
            "POST",
            "/api/v1/ask",
            Some(ADMIN),
            Some(r#"{"question": " \n\t "}"#),
            ErrorCode::QuestionEmpty,
        ),
        (
            "POST",
            "/api/v1/ask/stream",
            Some(ADMIN),
            Some(r#"{"question": ""}"#),
            ErrorCode::QuestionEmpty,
        ),
    ];
    for (method, path, key, body, code) in cases {
        let (status, got) = server.refused(method, path, key, body);
        assert_eq!(
            (got, Some(status)),
            (code, code.http_status()),
            "{method} {path}"
        );
    }
    assert_eq!(
        mock.received().len(),
        0,
        "a refused request reached the model"
    );
    // A body that is not JSON at all.
    let mut response = ureq::Agent::new_with_config(
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build(),
    )
    .post(&format!("{}/api/v1/sql", server.base))
    .header("authorization", &format!("Bearer {ADMIN}"))
    .header("content-type", "text/plain")
    .send("SELECT 1")
    .unwrap_or_else(|e| panic!("{e}"));
    let text = response.body_mut().read_to_string().unwrap_or_default();
    let error: ApiError = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(error.error.code, ErrorCode::UnsupportedMediaType);
    assert_eq!(
        Some(response.status().as_u16()),
        error.error.code.http_status()
    );
}

fn first_code(run: &SqlRun) -> Option<ErrorCode> {
    run.errors.first().map(|e| e.error_code)
}

fn album_fixtures(mock: &MockProvider) {
    mock.add([
        Fixture::new(
            "answerability",
            ALBUMS,
            r#"{"datasources": ["chinook"], "reason": "albums"}"#,
        ),
        Fixture::new(
            "plan",
            ALBUMS,
            r#"{"tables": [{"name": "Album", "alias": "a"}], "select_items": [{"alias": "albums", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "a", "column_name": "AlbumId"}]}}]}"#,
        ),
        Fixture::new("text", ALBUMS, "The store holds 347 albums."),
    ]);
}

/// Whether `text` names `word` as a whole identifier (not inside a longer one).
fn names(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

/// Every byte a role reads from the server names no table it may not read (as a whole
/// identifier) and no datasource it may not reach (as a JSON string: an id such as
/// `support` is also a word the data itself holds): the datasource list, each schema,
/// health, metrics, asks answered and refused (a plan the model wrote over a hidden table),
/// whole and streamed, and routing. The owner's descriptions of the datasources a role
/// reaches are the owner's words for whoever reaches them, and are left out of the scan.
#[test]
fn nothing_a_role_reads_from_the_server_names_what_it_may_not_read() {
    const STAFF: &str = "Who works in the store's staff?";
    let mock = MockProvider::start().expect("the mock provider starts");
    album_fixtures(&mock);
    mock.add([
        Fixture::new(
            "answerability",
            STAFF,
            r#"{"datasources": ["chinook"], "reason": "staff"}"#,
        ),
        Fixture::new(
            "plan",
            STAFF,
            r#"{"tables": [{"name": "Employee", "alias": "e"}], "select_items": [{"expr": {"kind": "column", "alias": "e", "column_name": "LastName"}}]}"#,
        ),
    ]);
    let server = Server::start(&mock, "m", &[]);
    // Every datasource and table there is, as the admin reads them.
    let (_, listed) = server.call("GET", "/api/v1/datasources", Some(ADMIN), None);
    let all: Vec<nl2sql_core::api::DatasourceSummary> =
        serde_json::from_str(&listed).unwrap_or_else(|e| panic!("{e}: {listed}"));
    assert_eq!(all.len(), 3, "{listed}");
    let policies = nl2sql_core::policy::Policies::demo();
    let mut scanned = 0;
    for (role, key) in [("analyst", ANALYST), ("viewer", VIEWER)] {
        let scope = policies.scope(&[role.to_string()]);
        let hidden: Vec<&str> = all
            .iter()
            .flat_map(|d| {
                (d.tables.iter())
                    .filter(|t| !scope.can_read(&d.id, t))
                    .map(String::as_str)
            })
            .collect();
        assert!(hidden.contains(&"Employee"), "{role}: {hidden:?}");
        let unreached: Vec<String> = (all.iter())
            .filter(|d| !scope.can_reach(&d.id))
            .map(|d| format!("\"{}\"", d.id))
            .collect();
        let mut read: Vec<(String, String)> = Vec::new();
        let mut get = |what: String, method: &str, path: &str, body: Option<String>| {
            let (status, text) = server.call(method, path, Some(key), body.as_deref());
            assert!(status < 500, "{role} {what}: {status} {text}");
            read.push((what, text));
        };
        get("the list".into(), "GET", "/api/v1/datasources", None);
        for d in all.iter().filter(|d| scope.can_reach(&d.id)) {
            let path = format!("/api/v1/datasources/{}/schema", d.id);
            get(format!("{}'s schema", d.id), "GET", &path, None);
        }
        for question in [ALBUMS, STAFF] {
            let body = serde_json::json!({ "question": question }).to_string();
            for path in ["/api/v1/ask", "/api/v1/ask/stream", "/api/v1/route"] {
                get(
                    format!("{path} {question}"),
                    "POST",
                    path,
                    Some(body.clone()),
                );
            }
        }
        get("health".into(), "GET", "/healthz", None);
        get("metrics".into(), "GET", "/metrics", None);
        let owners_words: Vec<&str> = (all.iter())
            .filter(|d| scope.can_reach(&d.id))
            .map(|d| d.description.as_str())
            .collect();
        for (what, text) in &read {
            let text = (owners_words.iter()).fold(text.clone(), |t, words| t.replace(words, ""));
            for name in &hidden {
                assert!(!names(&text, name), "{role} read {name} in {what}: {text}");
            }
            for id in &unreached {
                assert!(
                    !text.contains(id.as_str()),
                    "{role} read {id} in {what}: {text}"
                );
            }
            scanned += text.len();
        }
        server.assert_no_secret(&read.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>());
    }
    assert!(scanned > 10_000, "{scanned} bytes scanned");
    // The scan finds the name where it may be read: the admin's answer names Employee.
    let body = serde_json::json!({ "question": STAFF }).to_string();
    let (_, admins) = server.call("POST", "/api/v1/ask", Some(ADMIN), Some(&body));
    assert!(names(&admins, "Employee"), "{admins}");
}

#[test]
fn each_key_asks_as_its_role_and_a_body_may_narrow_it_never_widen_it() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let server = Server::start(&mock, "m", &[]);
    let customers =
        serde_json::json!({"sql": "SELECT c.Email FROM Customer c", "datasource": "chinook"});
    let staff =
        serde_json::json!({"sql": "SELECT e.LastName FROM Employee e", "datasource": "chinook"});

    // No key, a wrong key, a malformed header: 401 with a JSON error.
    let body = customers.to_string();
    for key in [None, Some("not-a-key-of-this-server"), Some("")] {
        let got = server.refused("POST", "/api/v1/sql", key, Some(&body));
        assert_eq!(got, (401, ErrorCode::Unauthorized), "{key:?}");
    }
    assert_eq!(
        server.refused("GET", "/api/v1/datasources", None, None),
        (401, ErrorCode::Unauthorized)
    );

    // Each role as its key says.
    let admin = server.sql(ADMIN, customers.clone());
    assert_eq!(
        (admin.status, admin.rows.len()),
        (SqlStatus::Ok, 59),
        "{:?}",
        admin.errors
    );
    let analyst = server.sql(ANALYST, customers.clone());
    assert_eq!(analyst.status, SqlStatus::Ok, "{:?}", analyst.errors);
    let analyst_staff = server.sql(ANALYST, staff.clone());
    assert_eq!(
        first_code(&analyst_staff),
        Some(ErrorCode::SecurityViolation)
    );
    let viewer = server.sql(VIEWER, customers.clone());
    assert_eq!(first_code(&viewer), Some(ErrorCode::SecurityViolation));
    assert!(viewer.rows.is_empty());
    // Refused without naming the table, the role or the rule.
    let words = format!("{:?}", viewer.errors);
    assert!(
        !words.contains("Customer") && !words.contains("viewer"),
        "{words}"
    );

    // Whatever the body says: the viewer's key asking as admin is refused (403), as an
    // unknown role is; the admin's key asking as viewer is served as viewer.
    let mut widened = customers.clone();
    widened["role"] = "admin".into();
    let got = server.refused(
        "POST",
        "/api/v1/sql",
        Some(VIEWER),
        Some(&widened.to_string()),
    );
    assert_eq!(got, (403, ErrorCode::RoleNotAllowed));
    let mut analyst_up = staff.clone();
    analyst_up["role"] = "admin".into();
    let got = server.refused(
        "POST",
        "/api/v1/sql",
        Some(ANALYST),
        Some(&analyst_up.to_string()),
    );
    assert_eq!(got, (403, ErrorCode::RoleNotAllowed));
    let mut unknown = customers.clone();
    unknown["role"] = "owner".into();
    let got = server.refused(
        "POST",
        "/api/v1/sql",
        Some(ADMIN),
        Some(&unknown.to_string()),
    );
    assert_eq!(got, (403, ErrorCode::RoleNotAllowed));
    let mut narrowed = customers.clone();
    narrowed["role"] = "viewer".into();
    assert_eq!(
        first_code(&server.sql(ADMIN, narrowed)),
        Some(ErrorCode::SecurityViolation)
    );
    let mut same = customers.clone();
    same["role"] = "viewer".into();
    assert_eq!(
        first_code(&server.sql(VIEWER, same)),
        Some(ErrorCode::SecurityViolation)
    );

    // Writes are refused, for every key.
    let write = serde_json::json!({"sql": "DELETE FROM Album", "datasource": "chinook"});
    let refused = server.sql(ADMIN, write);
    assert_eq!(first_code(&refused), Some(ErrorCode::SecurityViolation));
    assert!(
        refused.errors[0].message.contains("read-only"),
        "{:?}",
        refused.errors
    );

    // What each role may see of the datasources and their schemas.
    let (status, text) = server.call("GET", "/api/v1/datasources", Some(VIEWER), None);
    assert_eq!(status, 200);
    let listed: Vec<DatasourceSummary> = serde_json::from_str(&text).unwrap_or_default();
    let ids: Vec<&str> = listed.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["chinook", "webanalytics"]);
    assert!(!listed[0].tables.iter().any(|t| t == "Customer"));
    let (status, text) = server.call(
        "GET",
        "/api/v1/datasources/chinook/schema",
        Some(VIEWER),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let schema: DatasourceInfo = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(schema
        .schema
        .tables
        .iter()
        .all(|t| t.name != "Customer" && t.name != "Invoice"));
    assert!(schema.schema.tables.iter().any(|t| t.name == "Track"));
    assert_eq!(
        server.refused(
            "GET",
            "/api/v1/datasources/support/schema",
            Some(VIEWER),
            None
        ),
        (404, ErrorCode::DatasourceNotFound)
    );
    let (status, text) = server.call(
        "GET",
        "/api/v1/datasources/support/schema",
        Some(ADMIN),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let (status, text) = server.call(
        "POST",
        "/api/v1/route",
        Some(ADMIN),
        Some(r#"{"question": "which genres have the most tracks?"}"#),
    );
    assert_eq!(status, 200, "{text}");
    let routing: Routing = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(routing.ranked.first().map(String::as_str), Some("chinook"));

    // An ask naming a datasource the role cannot reach: not found, as a missing one.
    let hidden = serde_json::json!({"question": ALBUMS, "datasource": "support"}).to_string();
    assert_eq!(
        server.refused("POST", "/api/v1/ask", Some(VIEWER), Some(&hidden)),
        (404, ErrorCode::DatasourceNotFound)
    );

    let (_, health) = server.call("GET", "/healthz", None, None);
    let health: Health = serde_json::from_str(&health).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (health.status, health.unavailable_datasources),
        (HealthStatus::Ok, 0)
    );
    server.assert_no_secret(&[&text, &words]);
    let log = server.log();
    assert!(
        log.contains("\"key\":\"env-3\"") && log.contains("\"status\":401"),
        "{log}"
    );
}

#[test]
fn the_hostile_corpus_through_the_api_is_refused_and_nothing_is_written() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let server = Server::start(&mock, "m", &["--max-body-bytes", "65536"]);
    for sql in REFUSED_SQL {
        let run = server.sql(
            ADMIN,
            serde_json::json!({"sql": sql, "datasource": "chinook"}),
        );
        assert_eq!(
            first_code(&run),
            Some(ErrorCode::SecurityViolation),
            "{sql}"
        );
        assert!(run.rows.is_empty(), "{sql}");
    }
    for (sql, code) in OUTSIDE_SQL {
        let run = server.sql(
            ADMIN,
            serde_json::json!({"sql": sql, "datasource": "chinook"}),
        );
        assert_eq!(first_code(&run), Some(code), "{sql}");
    }
    let unions = vec!["SELECT g.Name FROM Genre g"; 102].join(" UNION ");
    let run = server.sql(
        ADMIN,
        serde_json::json!({"sql": unions, "datasource": "chinook"}),
    );
    assert_eq!(first_code(&run), Some(ErrorCode::SecurityViolation));

    // Bodies that are not the route's JSON: 4xx JSON errors, never a crash.
    let bad = [
        ("{", ErrorCode::BadRequest),
        (r#"{"sql": 1}"#, ErrorCode::BadRequest),
        (r#"{"sql": "SELECT 1", "rows": 5}"#, ErrorCode::BadRequest),
        ("[]", ErrorCode::BadRequest),
    ];
    for (body, code) in bad {
        let (_, got) = server.refused("POST", "/api/v1/sql", Some(ADMIN), Some(body));
        assert_eq!(got, code, "{body}");
    }
    let huge = format!(r#"{{"sql": "SELECT '{}'"}}"#, "x".repeat(100_000));
    assert_eq!(
        server.refused("POST", "/api/v1/sql", Some(ADMIN), Some(&huge)),
        (413, ErrorCode::PayloadTooLarge)
    );
    assert_eq!(
        server.refused("GET", "/api/v1/nowhere", Some(ADMIN), None),
        (404, ErrorCode::NotFound)
    );
    assert_eq!(
        server.refused("GET", "/api/v1/sql", Some(ADMIN), None),
        (405, ErrorCode::MethodNotAllowed)
    );
    let unknown = server.refused(
        "POST",
        "/api/v1/sql",
        Some(ADMIN),
        Some(r#"{"sql": "SELECT 1", "datasource": "elsewhere"}"#),
    );
    assert_eq!(unknown, (404, ErrorCode::DatasourceNotFound));

    // Nothing was written, and the server still serves.
    let count = server.sql(
        ADMIN,
        serde_json::json!({"sql": "SELECT COUNT(*) FROM Album a", "datasource": "chinook"}),
    );
    assert_eq!(count.rows, vec![vec![Value::Integer(347)]]);
    let (status, _) = server.call("GET", "/healthz", None, None);
    assert_eq!(status, 200);
}

/// The server-sent events of one response, read back as types by the parser a page uses.
fn events(text: &str) -> Vec<Streamed> {
    StreamParser::default()
        .push(text)
        .into_iter()
        .map(|item| item.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

#[test]
fn an_ask_answers_whole_or_streamed_its_events_in_order_then_the_result() {
    let mock = MockProvider::start().expect("the mock provider starts");
    album_fixtures(&mock);
    let server = Server::start(&mock, "m", &[]);
    let body = serde_json::json!({"question": ALBUMS}).to_string();

    let (status, text) = server.call("POST", "/api/v1/ask", Some(VIEWER), Some(&body));
    assert_eq!(status, 200, "{text}");
    let result: QueryResult = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.status, Status::Success, "{:?}", result.errors);
    assert_eq!(result.roles, ["viewer"]);
    assert_eq!(result.sub_queries[0].rows, vec![vec![Value::Integer(347)]]);
    assert_eq!(
        result.final_answer.as_ref().map(|a| a.text.as_str()),
        Some("The store holds 347 albums.")
    );

    let (status, stream) = server.call("POST", "/api/v1/ask/stream", Some(ADMIN), Some(&body));
    assert_eq!(status, 200, "{stream}");
    let events = events(&stream);
    let names: Vec<&str> = events.iter().map(event_name).collect();
    assert_eq!(names.first(), Some(&"node_started"), "{names:?}");
    assert_eq!(names.last(), Some(&"result"), "{names:?}");
    assert_eq!(names.iter().filter(|n| **n == "result").count(), 1);
    let rows_at = names.iter().position(|n| *n == "rows");
    let answer_at = names.iter().position(|n| *n == "answer_delta");
    assert!(rows_at.is_some() && rows_at < answer_at, "{names:?}");
    // Every event is the engine's typed event, and the last the run's result.
    let mut streamed = String::new();
    for item in &events[..events.len() - 1] {
        if let Streamed::Event(Event::AnswerDelta { text }) = item {
            streamed.push_str(text);
        }
    }
    let Some(Streamed::Result(last)) = events.last() else {
        panic!("the stream ends with the result: {names:?}");
    };
    assert_eq!(
        last.final_answer.as_ref().map(|a| a.text.clone()),
        Some(streamed)
    );
    // The result crossed a trust boundary: its trace has no error details.
    assert!(last
        .trace
        .iter()
        .all(|r| r.errors.iter().all(|e| e.details.is_none())));
    server.assert_no_secret(&[&text, &stream]);
}

/// Sends `body` to `path` by hand and reads until `until` appears (or the time is up),
/// then closes the connection: a client that went away.
fn post_and_leave(server: &Server, path: &str, body: &str, until: Option<&str>, wait: Duration) {
    let mut tcp = TcpStream::connect(server.address()).expect("connects");
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {ADMIN}\r\ncontent-type: \
         application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: \
         {}\r\n\r\n{body}",
        server.address(),
        body.len()
    );
    tcp.write_all(request.as_bytes()).expect("sends");
    let _ = tcp.set_read_timeout(Some(wait));
    if let Some(until) = until {
        let mut seen = Vec::new();
        let mut buffer = [0u8; 1024];
        while let Ok(n) = tcp.read(&mut buffer) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buffer[..n]);
            if String::from_utf8_lossy(&seen).contains(until) {
                break;
            }
        }
    } else {
        std::thread::sleep(wait);
    }
    let _ = tcp.shutdown(std::net::Shutdown::Both);
}

#[test]
fn a_client_that_goes_away_cancels_its_run_model_call_and_query_included() {
    let mock = MockProvider::start().expect("the mock provider starts");
    album_fixtures(&mock);
    // Every model call takes 3 s.
    let server = Server::start(&mock, "fault-slow-3000", &["--timeout-ms", "60000"]);
    let body = serde_json::json!({"question": ALBUMS}).to_string();

    post_and_leave(
        &server,
        "/api/v1/ask/stream",
        &body,
        Some("event: node_started"),
        Duration::from_millis(400),
    );
    let runs = server.wait_for_runs(1);
    assert_eq!(runs[0]["fields"]["cancelled"], true, "{runs:?}");
    assert_eq!(runs[0]["fields"]["outcome"], "CANCELLED", "{runs:?}");
    let took = runs[0]["fields"]["duration_ms"]
        .as_u64()
        .unwrap_or(u64::MAX);
    assert!(
        took < 2_500,
        "the model call in flight was given up: {took} ms"
    );
    let calls = mock.received().len();

    // A plain ask whose client leaves while it waits.
    post_and_leave(
        &server,
        "/api/v1/ask",
        &body,
        None,
        Duration::from_millis(500),
    );
    let runs = server.wait_for_runs(2);
    assert_eq!(runs[1]["fields"]["cancelled"], true, "{runs:?}");
    let took = runs[1]["fields"]["duration_ms"]
        .as_u64()
        .unwrap_or(u64::MAX);
    assert!(took < 2_500, "{took} ms");

    // A query that would run for minutes, stopped in the database when its client leaves.
    let endless = serde_json::json!({
        "sql": "SELECT COUNT(*) AS n FROM Track a JOIN Track b ON a.GenreId = b.GenreId \
                JOIN Track c ON b.GenreId = c.GenreId",
        "datasource": "chinook"
    })
    .to_string();
    post_and_leave(
        &server,
        "/api/v1/sql",
        &endless,
        None,
        Duration::from_millis(500),
    );
    let runs = server.wait_for_runs(3);
    assert_eq!(runs[2]["fields"]["work"], "sql");
    assert_eq!(runs[2]["fields"]["outcome"], "CANCELLED", "{runs:?}");
    let took = runs[2]["fields"]["duration_ms"]
        .as_u64()
        .unwrap_or(u64::MAX);
    assert!(took < 2_000, "the query was interrupted: {took} ms");

    // The same query as an MCP tool call over HTTP, its client gone the same way.
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "run_sql", "arguments": serde_json::from_str::<serde_json::Value>(&endless).unwrap_or_default()}
    })
    .to_string();
    post_and_leave(&server, "/mcp", &call, None, Duration::from_millis(500));
    let runs = server.wait_for_runs(4);
    assert_eq!(runs[3]["fields"]["work"], "sql");
    assert_eq!(runs[3]["fields"]["outcome"], "CANCELLED", "{runs:?}");
    let took = runs[3]["fields"]["duration_ms"]
        .as_u64()
        .unwrap_or(u64::MAX);
    assert!(
        took < 2_000,
        "the MCP call's query was interrupted: {took} ms"
    );
    let ended: Vec<u64> = runs
        .iter()
        .map(|r| r["fields"]["duration_ms"].as_u64().unwrap_or_default())
        .collect();
    eprintln!(
        "runs ended (ms after their start): stream closed after its first event {}, plain ask \
         closed at 500 ms {}, endless query closed at 500 ms {}, the same over MCP {}",
        ended[0], ended[1], ended[2], ended[3]
    );

    // The cancelled runs asked the model nothing more, even after their slow calls would
    // have answered.
    std::thread::sleep(Duration::from_millis(3_500));
    let later = mock.received().len();
    assert!(later <= calls + 2, "{calls} calls, then {later}");
    let (status, _) = server.call("GET", "/healthz", None, None);
    assert_eq!(status, 200);
}

#[test]
fn a_key_may_have_only_so_many_runs_in_flight() {
    let mock = MockProvider::start().expect("the mock provider starts");
    album_fixtures(&mock);
    let server = Arc::new(Server::start(
        &mock,
        "fault-slow-1500",
        &["--max-runs-per-key", "1"],
    ));
    let body = serde_json::json!({"question": ALBUMS}).to_string();
    let first = {
        let (server, body) = (Arc::clone(&server), body.clone());
        std::thread::spawn(move || server.call("POST", "/api/v1/ask", Some(ADMIN), Some(&body)))
    };
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        server.refused("POST", "/api/v1/ask", Some(ADMIN), Some(&body)),
        (429, ErrorCode::TooManyRuns)
    );
    // Another key is not held back.
    let run = server.sql(
        VIEWER,
        serde_json::json!({"sql": "SELECT COUNT(*) FROM Album a"}),
    );
    assert_eq!(run.status, SqlStatus::Ok, "{:?}", run.errors);
    let (status, text) = first.join().unwrap_or_else(|_| (0, String::new()));
    assert_eq!(status, 200, "{text}");
    // And once the first ended, the key may ask again.
    let run = server.sql(
        ADMIN,
        serde_json::json!({"sql": "SELECT COUNT(*) FROM Album a"}),
    );
    assert_eq!(run.status, SqlStatus::Ok);
}

#[test]
fn the_openapi_document_describes_every_route_and_every_reference_resolves() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let server = Server::start(&mock, "m", &[]);
    let (status, text) = server.call("GET", "/api/v1/openapi.json", None, None);
    assert_eq!(status, 200);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/api/v1/ask",
        "/api/v1/ask/stream",
        "/api/v1/sql",
        "/api/v1/route",
        "/api/v1/datasources",
        "/api/v1/datasources/{id}/schema",
        "/healthz",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path}");
    }
    let schemas = doc["components"]["schemas"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for name in [
        "QueryResult",
        "SqlRun",
        "EngineEvent",
        "ApiError",
        "Question",
        "Routing",
    ] {
        assert!(schemas.contains_key(name), "{name}");
    }
    let mut refs = Vec::new();
    collect_refs(&doc, &mut refs);
    assert!(refs.len() > 50, "{}", refs.len());
    for r in refs {
        let name = r
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("{r}"));
        assert!(schemas.contains_key(name), "{r} does not resolve");
    }
}

fn collect_refs(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v.as_str()) {
                    ("$ref", Some(r)) => out.push(r.to_string()),
                    _ => collect_refs(v, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[test]
fn serve_refuses_to_start_without_keys_and_names_a_bad_one_without_repeating_it() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let run = |keys: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_nl2sql"));
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(&data)
            .env_remove("NL2SQL_API_KEYS");
        if let Some(keys) = keys {
            command.env("NL2SQL_API_KEYS", keys);
        }
        command.output().expect("nl2sql runs")
    };
    let out = run(None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NL2SQL_API_KEYS"));
    let out = run(Some("owner:a-key-long-enough-to-be-one"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("\"owner\"") && !stderr.contains("a-key-long-enough"),
        "{stderr}"
    );
    let out = run(Some("admin-without-a-colon-0123456789"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("0123456789"), "{stderr}");
}

#[test]
fn without_a_model_key_asks_are_refused_plainly_and_the_rest_works() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let server = Server::start_with(&mock, "m", &[], None);
    let body = serde_json::json!({"question": ALBUMS}).to_string();
    for path in ["/api/v1/ask", "/api/v1/ask/stream"] {
        assert_eq!(
            server.refused("POST", path, Some(ADMIN), Some(&body)),
            (503, ErrorCode::ModelUnavailable),
            "{path}"
        );
    }
    let run = server.sql(
        ADMIN,
        serde_json::json!({"sql": "SELECT COUNT(*) FROM Album a"}),
    );
    assert_eq!(run.rows, vec![vec![Value::Integer(347)]]);
    assert!(mock.received().is_empty(), "the model was never asked");
}

#[test]
fn threads_feedback_and_approval_over_the_api() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let country = nl2sql_tests::pipeline::col("i", "BillingCountry");
    let (by_country, _) = nl2sql_tests::pipeline::invoices_by_country();
    let mut germany = by_country.clone();
    germany["where"] = serde_json::json!({"kind": "binary", "op": "=", "left": country, "right": {"kind": "literal", "value": "Germany"}});
    mock.add(nl2sql_tests::pipeline::on_chinook(
        "How many invoices are there per billing country?",
        &by_country,
    ));
    mock.add(nl2sql_tests::pipeline::on_chinook(
        "and only Germany?",
        &germany,
    ));
    mock.add([nl2sql_tests::pipeline::judged(
        "and only Germany?",
        true,
        "It narrows the last answer to Germany.",
    )]);
    let server = Server::start(&mock, "gpt-5.4", &["--answer", "template"]);
    let ask = |body: serde_json::Value| -> QueryResult {
        let (status, text) = server.call(
            "POST",
            "/api/v1/ask",
            Some(ANALYST),
            Some(&body.to_string()),
        );
        assert_eq!(status, 200, "{text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    // A thread crosses the API as plain data and comes back with the new turn.
    let first =
        ask(serde_json::json!({"question": "How many invoices are there per billing country?"}));
    assert_eq!(first.status, Status::Success, "{:?}", first.errors);
    let second = ask(serde_json::json!({"question": "and only Germany?", "thread": first.thread}));
    assert_eq!(second.status, Status::Success, "{:?}", second.errors);
    assert!(second.follow_up.as_ref().is_some_and(|f| f.continued));
    assert_eq!(second.thread.turns.len(), 2);
    let sql = second.sub_queries[0].sql.clone().unwrap_or_default();

    // Right from the analyst proposes a verified query; the viewer may not send SQL it could
    // not run, nor list or approve.
    let feedback = serde_json::json!({"question": "How many invoices went to Germany per country?", "datasource": "chinook", "sql": sql, "verdict": "right"});
    let (status, text) = server.call(
        "POST",
        "/api/v1/feedback",
        Some(ANALYST),
        Some(&feedback.to_string()),
    );
    assert_eq!(status, 200, "{text}");
    let recorded: nl2sql_core::feedback::Recorded =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let proposal = recorded
        .proposal
        .unwrap_or_else(|| panic!("a proposal: {text}"));
    assert!(
        proposal.query.sql.contains(":billing_country"),
        "{}",
        proposal.query.sql
    );
    let hidden = serde_json::json!({"question": "Customers?", "datasource": "chinook", "sql": "SELECT Email FROM Customer", "verdict": "right"});
    assert_eq!(
        server.refused(
            "POST",
            "/api/v1/feedback",
            Some(VIEWER),
            Some(&hidden.to_string())
        ),
        (422, ErrorCode::VerifiedQueryInvalid)
    );
    assert_eq!(
        server.refused("GET", "/api/v1/verified", Some(ANALYST), None),
        (403, ErrorCode::ApprovalNotAllowed)
    );
    let path = format!("/api/v1/verified/chinook/{}/approve", proposal.query.id);
    assert_eq!(
        server.refused("POST", &path, Some(VIEWER), Some("{}")),
        (403, ErrorCode::ApprovalNotAllowed)
    );
    assert_eq!(
        server.refused(
            "POST",
            "/api/v1/verified/chinook/nope/approve",
            Some(ADMIN),
            Some("{}")
        ),
        (404, ErrorCode::FeedbackNotFound)
    );
    let (status, listed) = server.call("GET", "/api/v1/verified", Some(ADMIN), None);
    assert_eq!(status, 200, "{listed}");
    assert!(listed.contains(&proposal.query.id));
    let (status, text) = server.call("POST", &path, Some(ADMIN), Some("{}"));
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("\"approved\""), "{text}");
    // Every engine thread answers with it now, with no model call.
    for _ in 0..3 {
        let r =
            ask(serde_json::json!({"question": "How many invoices went to France per country?"}));
        assert_eq!(r.status, Status::Success, "{:?}", r.errors);
        assert_eq!(r.usage.calls, 0);
        assert!(r.source.is_some());
    }
    // An edit is checked; a delete takes it out of force.
    let put = format!("/api/v1/verified/chinook/{}", proposal.query.id);
    assert_eq!(
        server.refused("PUT", &put, Some(ADMIN), Some(r#"{"id": "x", "description": "d", "questions": ["q"], "sql": "DELETE FROM Invoice"}"#)),
        (422, ErrorCode::VerifiedQueryInvalid)
    );
    let (status, _) = server.call("DELETE", &put, Some(ADMIN), None);
    assert_eq!(status, 204);
    let kept =
        std::fs::read_to_string(server.dir.join(".nl2sql/feedback.json")).unwrap_or_default();
    assert!(
        kept.contains("\"entries\""),
        "the feedback file is kept: {kept}"
    );
    let book =
        nl2sql_core::feedback::FeedbackBook::from_json(&kept).unwrap_or_else(|e| panic!("{e}"));
    assert!(book.proposals.is_empty(), "the deleted proposal is gone");
    assert_eq!(book.entries.len(), 1);
    server.assert_no_secret(&[&text, &listed, &kept]);
}

/// A project whose datasources include one whose file is not there yet and one whose
/// server nothing answers for: the server starts with the rest, lists each left out with
/// its code (and nothing of its address), says `degraded`, and once the file is there it
/// is read on the next retry and answers, with no restart.
#[test]
fn a_datasource_left_out_is_listed_by_code_and_used_once_it_reads() {
    let mock = MockProvider::start().unwrap_or_else(|e| panic!("{e}"));
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-left-out");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let later = dir.join("later.sqlite");
    let config = dir.join("nl2sql.toml");
    let project = format!(
        "[[datasources]]\nid = \"chinook\"\nconnection = {:?}\n\n\
         [[datasources]]\nid = \"later\"\nconnection = {:?}\n\n\
         [[datasources]]\nid = \"nowhere\"\nconnection = \"postgres://nl2sql@127.0.0.1:1/shop\"\n",
        data.join("chinook.sqlite").to_string_lossy(),
        later.to_string_lossy()
    );
    std::fs::write(&config, project).unwrap_or_else(|e| panic!("{e}"));
    let config = config.to_string_lossy().into_owned();
    let server = Server::start(&mock, "m", &["--config", &config, "--retry-ms", "200"]);
    let listed = || -> Vec<DatasourceSummary> {
        let (status, text) = server.call("GET", "/api/v1/datasources", Some(ADMIN), None);
        assert_eq!(status, 200, "{text}");
        assert!(
            !text.contains("hunter2") && !text.contains("127.0.0.1"),
            "{text}"
        );
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    };
    let code_of = |id: &str| {
        let all = listed();
        let found = all.into_iter().find(|d| d.id == id);
        found.map(|d| d.unavailable.map(|u| u.code))
    };
    assert_eq!(code_of("chinook"), Some(None));
    assert_eq!(
        code_of("later"),
        Some(Some(ErrorCode::DatasourceUnreadable))
    );
    assert_eq!(
        code_of("nowhere"),
        Some(Some(ErrorCode::DatasourceUnreachable))
    );
    let health = |expected: (HealthStatus, usize)| {
        let (_, text) = server.call("GET", "/healthz", None, None);
        let health: Health = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((health.status, health.unavailable_datasources), expected);
    };
    health((HealthStatus::Degraded, 2));
    // SQL on one left out, or its schema, says why by its code (503: try again later).
    let body = serde_json::json!({"sql": "SELECT 1", "datasource": "nowhere"}).to_string();
    assert_eq!(
        server.refused("POST", "/api/v1/sql", Some(ADMIN), Some(&body)),
        (503, ErrorCode::DatasourceUnreachable)
    );
    assert_eq!(
        server.refused("GET", "/api/v1/datasources/later/schema", Some(ADMIN), None),
        (503, ErrorCode::DatasourceUnreadable)
    );
    let counted = server.sql(
        ADMIN,
        serde_json::json!({"sql": "SELECT COUNT(*) FROM Album", "datasource": "chinook"}),
    );
    assert_eq!(counted.rows, vec![vec![Value::Integer(347)]]);

    std::fs::copy(data.join("chinook.sqlite"), &later).unwrap_or_else(|e| panic!("{e}"));
    let until = Instant::now() + Duration::from_secs(30);
    while code_of("later") != Some(None) {
        assert!(Instant::now() < until, "not read again: {:?}", listed());
        std::thread::sleep(Duration::from_millis(50));
    }
    health((HealthStatus::Degraded, 1));
    let counted = server.sql(
        ADMIN,
        serde_json::json!({"sql": "SELECT COUNT(*) FROM Album", "datasource": "later"}),
    );
    assert_eq!(counted.rows, vec![vec![Value::Integer(347)]], "{counted:?}");
    server.assert_no_secret(&[]);
    assert!(!server.log().contains("hunter2"));
}

/// A Prometheus scrape after a question, a query, a refusal and a request for nothing:
/// each counted by route and status, each run by kind and outcome code, the model's calls
/// and tokens; no key, role, datasource, table or path a client made up in the text.
#[test]
fn metrics_count_requests_runs_and_model_use_and_name_nothing() {
    let mock = MockProvider::start().expect("the mock provider starts");
    album_fixtures(&mock);
    let server = Server::start(&mock, "m", &[]);
    let body = serde_json::json!({"question": ALBUMS}).to_string();
    let (status, asked) = server.call("POST", "/api/v1/ask", Some(ADMIN), Some(&body));
    assert_eq!(status, 200, "{asked}");
    let counted = server.sql(
        ADMIN,
        serde_json::json!({"sql": "SELECT COUNT(*) FROM Album", "datasource": "chinook"}),
    );
    assert_eq!(counted.rows, vec![vec![Value::Integer(347)]]);
    let hidden =
        serde_json::json!({"sql": "SELECT e.LastName FROM Employee e", "datasource": "chinook"});
    let refused = server.sql(VIEWER, hidden);
    assert_eq!(refused.errors[0].error_code, ErrorCode::SecurityViolation);
    let (status, _) = server.call("GET", "/made-up-path-Employee", Some(ADMIN), None);
    assert_eq!(status, 404);

    let (status, text) = server.call("GET", "/metrics", None, None);
    assert_eq!(status, 200, "{text}");
    let value = |series: &str| -> f64 {
        (text.lines())
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {series} in:\n{text}"))
    };
    assert_eq!(value(r#"nl2sql_runs_total{work="ask",outcome="ok"}"#), 1.0);
    assert_eq!(value(r#"nl2sql_runs_total{work="sql",outcome="ok"}"#), 1.0);
    assert_eq!(
        value(r#"nl2sql_runs_total{work="sql",outcome="SECURITY_VIOLATION"}"#),
        1.0
    );
    assert_eq!(
        value(r#"nl2sql_http_requests_total{method="POST",route="/api/v1/sql",status="200"}"#),
        2.0
    );
    assert_eq!(
        value(r#"nl2sql_http_requests_total{method="GET",route="unmatched",status="404"}"#),
        1.0
    );
    // The question's answerability check, its plan and its written answer.
    assert_eq!(value("nl2sql_model_calls_total"), 3.0);
    assert!(value(r#"nl2sql_model_tokens_total{direction="in"}"#) > 0.0);
    assert_eq!(
        value(r#"nl2sql_run_duration_seconds_count{work="sql"}"#),
        2.0
    );
    assert!(value("nl2sql_query_duration_seconds_count") >= 3.0);
    assert_eq!(value("nl2sql_datasources_unavailable"), 0.0);
    for hidden in ["chinook", "Album", "Employee", "admin", "viewer", "env-"] {
        assert!(
            !text.contains(hidden),
            "the metrics name {hidden:?}:\n{text}"
        );
    }
    server.assert_no_secret(&[&text]);
}

/// A collector on loopback that keeps every OTLP/HTTP body it is sent.
struct Collector {
    url: String,
    bodies: Arc<Mutex<Vec<String>>>,
}

impl Collector {
    fn start() -> Collector {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&bodies);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || Collector::serve(stream, &kept));
            }
        });
        Collector {
            url: format!("http://127.0.0.1:{port}"),
            bodies,
        }
    }

    /// Reads requests on one connection (kept alive) and answers each with an empty 200.
    fn serve(stream: TcpStream, kept: &Mutex<Vec<String>>) {
        let mut reader = BufReader::new(match stream.try_clone() {
            Ok(s) => s,
            Err(_) => return,
        });
        let mut writer = stream;
        loop {
            let mut length = 0usize;
            let mut line = String::new();
            loop {
                line.clear();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                if line == "\r\n" {
                    break;
                }
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
            }
            let mut body = vec![0u8; length];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            if let Ok(mut bodies) = kept.lock() {
                bodies.push(String::from_utf8_lossy(&body).into_owned());
            }
            let answer =
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
            if writer.write_all(answer.as_bytes()).is_err() {
                return;
            }
        }
    }

    /// Every body received once one holds `text` (waits up to 20 s).
    fn received_with(&self, text: &str) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let all = self.bodies.lock().map(|b| b.clone()).unwrap_or_default();
            if all.iter().any(|b| b.contains(text)) || Instant::now() > until {
                return all;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// OpenTelemetry traces over OTLP/HTTP: a question's run is a span with a child per node,
/// at the trace's times, with statuses, codes and counts; a refused SQL-mode run is a span
/// too. Nothing in them names the question, the SQL, a table, a role or a key.
#[test]
fn traces_of_each_run_reach_an_otlp_collector_and_name_nothing() {
    let mock = MockProvider::start().expect("the mock provider starts");
    album_fixtures(&mock);
    let collector = Collector::start();
    let server = Server::start(&mock, "m", &["--otlp-endpoint", &collector.url]);
    let body = serde_json::json!({"question": ALBUMS}).to_string();
    let (status, asked) = server.call("POST", "/api/v1/ask", Some(ADMIN), Some(&body));
    assert_eq!(status, 200, "{asked}");
    let hidden =
        serde_json::json!({"sql": "SELECT e.LastName FROM Employee e", "datasource": "chinook"});
    let refused = server.sql(VIEWER, hidden);
    assert_eq!(refused.errors[0].error_code, ErrorCode::SecurityViolation);

    let bodies = collector.received_with("nl2sql.sql");
    let sent = bodies.join("\n");
    let parsed: Vec<serde_json::Value> = (bodies.iter())
        .map(|b| serde_json::from_str(b).unwrap_or_else(|e| panic!("{e}: {b}")))
        .collect();
    let spans: Vec<&serde_json::Value> = (parsed.iter())
        .flat_map(|b| b["resourceSpans"].as_array().into_iter().flatten())
        .flat_map(|r| r["scopeSpans"].as_array().into_iter().flatten())
        .flat_map(|s| s["spans"].as_array().into_iter().flatten())
        .collect();
    let named = |name: &str| spans.iter().find(|s| s["name"] == name).copied();
    let run = named("nl2sql.ask").unwrap_or_else(|| panic!("no run span in {sent}"));
    for node in ["datasource_resolver", "ast_planner", "executor"] {
        let span = named(node).unwrap_or_else(|| panic!("no {node} span in {sent}"));
        assert_eq!(
            span["traceId"], run["traceId"],
            "{node} is in the run's trace"
        );
        assert_eq!(
            span["parentSpanId"], run["spanId"],
            "{node} is the run's child"
        );
    }
    assert!(
        sent.contains(r#""nl2sql.status""#) && sent.contains(r#""success""#),
        "{sent}"
    );
    assert!(
        sent.contains("SECURITY_VIOLATION"),
        "the refusal's code: {sent}"
    );
    assert!(sent.contains(r#""service.name""#) && sent.contains(r#""nl2sql""#));
    for text in [
        ALBUMS, "chinook", "Album", "Employee", "LastName", "admin", "viewer", "SELECT",
    ] {
        assert!(!sent.contains(text), "a trace names {text:?}: {sent}");
    }
    server.assert_no_secret(&[&sent]);
}
