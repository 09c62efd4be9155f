//! `nl2sql chat` and `nl2sql feedback`, run as a person runs them (lines on standard input),
//! against the mock model provider over HTTP: follow-ups edit the previous plan, a question
//! asked back is answered by its number, Right proposes a verified query that a role that
//! approves approves, and the approved query then answers with no model call.

use nl2sql_tests::mock::MockProvider;
use nl2sql_tests::pipeline::{col, count_all, judged, on_chinook};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const KEY: &str = "sk-proj-chat-0123456789abcdefghijKLMNOP";

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// A fresh working directory: the feedback file and the chat history go under it.
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nl2sql-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

fn nl2sql(dir: &Path, args: &[&str], input: Option<&str>) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nl2sql"));
    cmd.args(args)
        .arg("--data")
        .arg(data())
        .current_dir(dir)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("NL2SQL_API_KEY")
        .env("OPENAI_API_KEY", KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the nl2sql binary runs");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.unwrap_or_default().as_bytes());
    }
    child.wait_with_output().expect("the nl2sql binary ends")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn teach(mock: &MockProvider, question: &str, plan: &serde_json::Value) {
    mock.add(on_chinook(question, plan));
}

fn model(mock: &MockProvider) -> Vec<String> {
    [
        "--base-url",
        &mock.base_url(),
        "--model",
        "gpt-5.4",
        "--answer",
        "template",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn a_chat_follows_up_shows_its_sql_takes_feedback_and_starts_fresh() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let by_country = json!({
        "tables": [{"name": "Invoice", "alias": "i"}],
        "select_items": [{"expr": col("i", "BillingCountry"), "alias": "country"}, {"expr": count_all(), "alias": "invoices"}],
        "group_by": [{"expr": col("i", "BillingCountry")}]
    });
    let mut germany = by_country.clone();
    germany["where"] = json!({"kind": "binary", "op": "=", "left": col("i", "BillingCountry"), "right": {"kind": "literal", "value": "Germany"}});
    let tracks = json!({"tables": [{"name": "Track", "alias": "t"}], "select_items": [{"expr": count_all(), "alias": "tracks"}]});
    teach(
        &mock,
        "How many invoices are there per billing country?",
        &by_country,
    );
    teach(&mock, "and only Germany?", &germany);
    teach(&mock, "How many tracks does the store sell?", &tracks);
    mock.add([
        judged(
            "and only Germany?",
            true,
            "It narrows the last answer to Germany.",
        ),
        judged(
            "How many tracks does the store sell?",
            false,
            "Tracks are a subject of their own.",
        ),
    ]);
    let dir = workdir("chat");
    let mut args = vec!["chat".to_string()];
    args.extend(model(&mock));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let lines = "How many invoices are there per billing country?\nand only Germany?\n/sql\n/right\nHow many tracks does the store sell?\n/right\n/nonsense\n/new\n/quit\n";
    let out = nl2sql(&dir, &args, Some(lines));
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("Brazil | 35"),
        "the first answer's rows: {said}"
    );
    assert!(
        said.contains("(follows up: It narrows the last answer to Germany.)"),
        "{said}"
    );
    assert!(said.contains("+ "), "the plan's change is shown: {said}");
    assert!(said.contains("Germany | 28"), "{said}");
    assert!(
        said.contains("WHERE i.BillingCountry = 'Germany'"),
        "/sql shows the last SQL: {said}"
    );
    // A follow-up's answer is noted, not proposed; a standalone question's is proposed.
    assert!(
        said.contains("No verified query was proposed: only an answer the planner wrote to a question standing alone"),
        "{said}"
    );
    assert!(
        said.contains("Proposed verified query chinook.fb_"),
        "{said}"
    );
    assert!(
        said.contains("(a new thread: Tracks are a subject of their own.)"),
        "{said}"
    );
    assert!(said.contains("3503"), "the track count: {said}");
    assert!(said.contains("Unknown command /nonsense"), "{said}");
    assert!(said.contains("A new thread."), "{said}");
    assert!(!said.contains(KEY), "the key never shows");
    // The feedback and the history are kept in the working directory's .nl2sql/.
    let book = std::fs::read_to_string(dir.join(".nl2sql/feedback.json")).unwrap_or_default();
    assert!(
        book.contains("How many tracks does the store sell?"),
        "{book}"
    );
    assert!(book.contains("\"verdict\": \"right\""), "{book}");
    assert!(dir.join(".nl2sql/chat-history").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_question_asked_back_in_a_chat_is_answered_by_its_number() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let asked = "How many tracks are in Classical?";
    let genre = json!({
        "tables": [{"name": "Track", "alias": "t"}, {"name": "Genre", "alias": "g"}],
        "joins": [{"left_alias": "t", "right_alias": "g", "condition": {"kind": "binary", "op": "=", "left": col("t", "GenreId"), "right": col("g", "GenreId")}}],
        "select_items": [{"expr": count_all(), "alias": "genre_tracks"}],
        "where": {"kind": "binary", "op": "=", "left": col("g", "Name"), "right": {"kind": "literal", "value": "Classical"}}
    });
    let playlist = json!({
        "tables": [{"name": "PlaylistTrack", "alias": "pt"}, {"name": "Playlist", "alias": "p"}],
        "joins": [{"left_alias": "pt", "right_alias": "p", "condition": {"kind": "binary", "op": "=", "left": col("pt", "PlaylistId"), "right": col("p", "PlaylistId")}}],
        "select_items": [{"expr": count_all(), "alias": "playlist_tracks"}],
        "where": {"kind": "binary", "op": "=", "left": col("p", "Name"), "right": {"kind": "literal", "value": "Classical"}}
    });
    teach(
        &mock,
        &format!("{asked} (I mean Classical as the genre: Genre.Name)"),
        &genre,
    );
    teach(
        &mock,
        &format!("{asked} (I mean Classical as the playlist: Playlist.Name)"),
        &playlist,
    );
    let dir = workdir("chat-clarify");
    let mut args = vec!["chat".to_string()];
    args.extend(model(&mock));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = nl2sql(&dir, &args, Some(&format!("{asked}\n2\n/quit\n")));
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("Which do you mean?"), "{said}");
    assert!(said.contains("Type a number to choose."), "{said}");
    // The second option, whichever it is, was asked.
    let second = said
        .lines()
        .find(|l| l.trim_start().starts_with("2. "))
        .unwrap_or_default()
        .to_string();
    let expected = if second.contains("genre") {
        "genre_tracks\n74"
    } else {
        "playlist_tracks\n75"
    };
    assert!(said.contains(expected), "{second}: {said}");
    assert!(
        said.contains("it answers the question the engine asked back"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn feedback_from_the_command_line_proposes_approves_exports_and_answers_with_no_model_call() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let germany = json!({
        "tables": [{"name": "Invoice", "alias": "i"}],
        "select_items": [{"expr": count_all(), "alias": "invoices"}],
        "where": {"kind": "binary", "op": "=", "left": col("i", "BillingCountry"), "right": {"kind": "literal", "value": "Germany"}}
    });
    teach(&mock, "How many invoices were billed to Germany?", &germany);
    let dir = workdir("feedback");
    let trace = dir.join("answer.json");
    let mut args = vec!["ask".to_string()];
    args.extend(model(&mock));
    args.extend([
        "--role".to_string(),
        "analyst".to_string(),
        "--trace".to_string(),
        trace.to_string_lossy().to_string(),
        "How many invoices were billed to Germany?".to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = nl2sql(&dir, &args, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    let trace_arg = trace.to_string_lossy().to_string();
    let wrong = nl2sql(
        &dir,
        &[
            "feedback",
            "wrong",
            "--trace",
            &trace_arg,
            "--comment",
            "paid ones only",
        ],
        None,
    );
    assert_eq!(wrong.status.code(), Some(0), "{}", text(&wrong));
    let right = nl2sql(&dir, &["feedback", "right", "--trace", &trace_arg], None);
    let said = text(&right);
    assert_eq!(right.status.code(), Some(0), "{said}");
    let id = said
        .split_whitespace()
        .find(|w| w.starts_with("chinook.") && w.ends_with(':'))
        .map(|w| w.trim_end_matches(':').to_string())
        .unwrap_or_else(|| panic!("a proposal's id: {said}"));
    let listed = text(&nl2sql(&dir, &["feedback", "list"], None));
    assert!(
        listed.contains("1 answers marked right, 1 wrong"),
        "{listed}"
    );
    assert!(listed.contains(&format!("{id}  [proposed")), "{listed}");
    assert!(listed.contains(":billing_country"), "{listed}");

    let refused = nl2sql(
        &dir,
        &["feedback", "approve", &id, "--role", "viewer"],
        None,
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused).contains("APPROVAL_NOT_ALLOWED"),
        "{}",
        text(&refused)
    );
    let unknown = nl2sql(
        &dir,
        &["feedback", "approve", "chinook.nope", "--role", "admin"],
        None,
    );
    assert!(
        text(&unknown).contains("FEEDBACK_NOT_FOUND"),
        "{}",
        text(&unknown)
    );
    let approved = nl2sql(&dir, &["feedback", "approve", &id, "--role", "admin"], None);
    assert_eq!(approved.status.code(), Some(0), "{}", text(&approved));

    // The same question with another value: the verified query, no model call.
    let mut args = vec!["ask".to_string()];
    args.extend(model(&mock));
    args.extend([
        "--json".to_string(),
        "How many invoices were billed to France?".to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = nl2sql(&dir, &args, None);
    let result: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    assert_eq!(result["source"]["type"], "verified", "{result}");
    assert_eq!(result["usage"]["calls"], 0);
    assert_eq!(result["sub_queries"][0]["rows"], json!([[35]]));

    let cases = dir.join("good.yaml");
    let cases_arg = cases.to_string_lossy().to_string();
    let exported = nl2sql(
        &dir,
        &["feedback", "export", "--good", "--out", &cases_arg],
        None,
    );
    assert_eq!(exported.status.code(), Some(0), "{}", text(&exported));
    let yaml = std::fs::read_to_string(&cases).unwrap_or_default();
    assert!(
        yaml.contains("question: How many invoices were billed to Germany?"),
        "{yaml}"
    );
    assert!(yaml.contains("analyst: allowed"), "{yaml}");
    let suite = nl2sql_suite::Suite::parse(&yaml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(suite.cases.len(), 1);

    let deleted = nl2sql(&dir, &["feedback", "delete", &id, "--role", "admin"], None);
    assert_eq!(deleted.status.code(), Some(0), "{}", text(&deleted));
    let listed = text(&nl2sql(&dir, &["feedback", "list"], None));
    assert!(listed.contains("0 verified queries proposed"), "{listed}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_cancels_the_running_question_not_the_chat() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let mock = MockProvider::start().expect("the mock provider starts");
    let dir = workdir("chat-interrupt");
    // Every model call takes 3 s: the question is still running when Ctrl-C comes.
    let mut child = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args([
            "chat",
            "--base-url",
            &mock.base_url(),
            "--model",
            "fault-slow-3000",
        ])
        .args(["--answer", "template", "--data"])
        .arg(data())
        .current_dir(&dir)
        .env("OPENAI_API_KEY", KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the nl2sql binary runs");
    // Its output is read as it comes: the question goes in once the chat says it is
    // ready (its start takes most of a second in a debug build, longer on a busy machine,
    // and a Ctrl-C before then would stop a program that has not started chatting yet).
    let stdout = child.stdout.take().expect("stdout is piped");
    let (lines, heard) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut all = String::new();
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            all.push_str(&line);
            all.push('\n');
            let _ = lines.send(line);
        }
        all
    });
    let ready = heard
        .recv_timeout(Duration::from_secs(60))
        .expect("the chat starts and greets");
    assert!(ready.contains("nl2sql chat"), "{ready}");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let _ = stdin.write_all(b"How many tracks does the store sell?\n");
    let _ = stdin.flush();
    std::thread::sleep(Duration::from_millis(800));
    let asked = Instant::now();
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    // The chat goes on: it still takes commands after the cancel.
    std::thread::sleep(Duration::from_millis(300));
    let _ = stdin.write_all(b"/sql\n/quit\n");
    drop(stdin);
    let out = child.wait_with_output().expect("the chat ends");
    let waited = asked.elapsed();
    let said = format!(
        "{ready}\n{}{}",
        reader.join().unwrap_or_default(),
        text(&out)
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "the chat itself was not stopped: {said}"
    );
    assert!(said.contains("cancelling…"), "{said}");
    assert!(said.contains("CANCELLED"), "{said}");
    assert!(
        said.contains("No SQL yet."),
        "a command after the cancel: {said}"
    );
    assert!(
        waited < Duration::from_millis(2_500),
        "the model call was given up at once, not waited out: {waited:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
