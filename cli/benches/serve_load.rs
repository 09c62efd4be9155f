//! A load benchmark for `nl2sql serve` (a bench command, not a timed test): 200 concurrent
//! SQL-mode requests and 50 concurrent asks against the mock model provider, all on
//! loopback; prints p50 / p95 latency, how many were answered, and the server's memory when
//! idle and at its peak. Run with `cargo bench -p nl2sql-cli --bench serve_load`.

use nl2sql_tests::mock::{Fixture, MockProvider};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const KEY: &str = "load-benchmark-key-0123456789";
const QUESTION: &str = "Which genres have the most tracks?";

fn main() {
    let mock = MockProvider::start().expect("the mock provider starts");
    mock.add([
        Fixture::new("answerability", QUESTION, r#"{"datasources": ["chinook"], "reason": "genres"}"#),
        Fixture::new(
            "plan",
            QUESTION,
            r#"{"tables": [{"name": "Genre", "alias": "g"}, {"name": "Track", "alias": "t"}], "joins": [{"left_alias": "g", "right_alias": "t", "condition": {"kind": "binary", "op": "=", "left": {"kind": "column", "alias": "g", "column_name": "GenreId"}, "right": {"kind": "column", "alias": "t", "column_name": "GenreId"}}}], "select_items": [{"alias": "genre", "expr": {"kind": "column", "alias": "g", "column_name": "Name"}}, {"alias": "tracks", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "t", "column_name": "TrackId"}]}}], "group_by": [{"expr": {"kind": "column", "alias": "g", "column_name": "Name"}}], "order_by": [{"expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "t", "column_name": "TrackId"}]}, "direction": "desc"}]}"#,
        ),
        Fixture::new("verified_query_choice", QUESTION, r#"{"query_id": "none_of_these", "params": [], "reason": "none"}"#),
        Fixture::new("text", QUESTION, "Rock has the most tracks."),
    ]);
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--max-runs-per-key",
            "1000",
        ])
        .args(["--base-url", &mock.base_url(), "--model", "m"])
        .arg("--data")
        .arg(&data)
        .env("NL2SQL_API_KEYS", format!("admin:{KEY}"))
        .env("OPENAI_API_KEY", "sk-load-benchmark")
        .env("NL2SQL_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nl2sql serve starts");
    let stderr = child.stderr.take().expect("piped");
    let mut lines = BufReader::new(stderr).lines();
    let address = loop {
        match lines.next() {
            Some(Ok(line)) => {
                if let Some(rest) = line.split("serving on http://").nth(1) {
                    break rest.split_whitespace().next().unwrap_or("").to_string();
                }
            }
            _ => panic!("the server did not start"),
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    let pid = child.id();
    std::thread::sleep(Duration::from_millis(500));
    let idle = memory(pid, "VmRSS");
    let base = format!("http://{address}");
    let sql = r#"{"sql": "SELECT g.Name, COUNT(t.TrackId) AS tracks FROM Genre g JOIN Track t ON t.GenreId = g.GenreId GROUP BY g.Name ORDER BY tracks DESC", "datasource": "chinook"}"#;
    let ask = format!(r#"{{"question": "{QUESTION}"}}"#);
    println!("nl2sql serve under load (4 engine threads, loopback, mock model provider)");
    println!("idle server: {} MiB resident", mib(idle));
    for (name, path, body, n) in [
        ("SQL mode", "/api/v1/sql", sql.to_string(), 200),
        ("asks", "/api/v1/ask", ask, 50),
    ] {
        let (ok, mut latencies, wall) = burst(&base, path, &body, n);
        latencies.sort_unstable();
        let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q).round() as usize];
        println!(
            "{n} concurrent {name}: {ok}/{n} answered 200, p50 {} ms, p95 {} ms, max {} ms, all in {} ms",
            at(0.5),
            at(0.95),
            latencies.last().copied().unwrap_or_default(),
            wall
        );
    }
    println!(
        "peak server memory: {} MiB (VmHWM)",
        mib(memory(pid, "VmHWM"))
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// `n` requests sent at once, each on its own connection: how many answered 200, each
/// one's latency (ms), and the whole burst's time (ms).
fn burst(base: &str, path: &str, body: &str, n: usize) -> (usize, Vec<u64>, u64) {
    let gate = Arc::new(Barrier::new(n + 1));
    let threads: Vec<_> = (0..n)
        .map(|_| {
            let (gate, url, body) = (Arc::clone(&gate), format!("{base}{path}"), body.to_string());
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(Duration::from_secs(120)))
                    .build()
                    .into();
                gate.wait();
                let started = Instant::now();
                let status = agent
                    .post(&url)
                    .header("authorization", &format!("Bearer {KEY}"))
                    .header("content-type", "application/json")
                    .send(&body)
                    .map(|mut r| {
                        let _ = r.body_mut().read_to_string();
                        r.status().as_u16()
                    })
                    .unwrap_or(0);
                (status, started.elapsed().as_millis() as u64)
            })
        })
        .collect();
    let started = Instant::now();
    gate.wait();
    let results: Vec<(u16, u64)> = threads.into_iter().filter_map(|t| t.join().ok()).collect();
    let wall = started.elapsed().as_millis() as u64;
    let ok = results.iter().filter(|(s, _)| *s == 200).count();
    (ok, results.into_iter().map(|(_, ms)| ms).collect(), wall)
}

/// A `/proc/PID/status` memory field, in kB (0 where there is none).
fn memory(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn mib(kb: u64) -> String {
    format!("{:.1}", kb as f64 / 1024.0)
}
