//! `nl2sql eval`: a suite in the reference format (`data/chinook.yaml`, `data/routing.yaml`)
//! scored as the reference scores it, saved as an immutable JSON record under `benchmarks/`.
//!
//! - `plans`: the whole pipeline over real HTTP, every model answer served by the in-process
//!   mock provider (each case's datasources as the verdict, its gold plan as the plan);
//! - `retrieval`: routing and schema retrieval alone (search forced), no model;
//! - `full`: the real provider, with a spending cap.

use crate::ask::{ModelArgs, ProviderName};
use crate::{choice_name, Failure};
use clap::ValueEnum;
use nl2sql_core::adapter::BuiltinEmbedder;
use nl2sql_core::config::Policies;
use nl2sql_core::config::{AnswerConfig, ProviderConfig, RunConfig};
use nl2sql_core::error::Node;
use nl2sql_core::feedback::Curated;
use nl2sql_core::result::QueryResult;
use nl2sql_core::service::Workspace;
use nl2sql_core::service::{Question, Service};
use nl2sql_native::{NativeHost, Reading};
#[cfg(feature = "gold-plans")]
use nl2sql_suite::gold_plan_fixtures;
use nl2sql_suite::{score, Case, Gold, Scored, Suite};
use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

/// `nl2sql eval`'s command line.
#[derive(clap::Args)]
pub struct Args {
    /// The suite, in the reference format
    #[arg(long, value_name = "FILE")]
    suite: PathBuf,
    /// What is scored
    #[arg(long, value_enum)]
    mode: Mode,
    /// Stop once the priced model calls cost this many US dollars (the record is marked
    /// partial)
    #[arg(long, value_name = "USD", value_parser = crate::ask::dollars)]
    max_cost: Option<f64>,
    /// Score only this role's runs; repeat for several [default: every role a case lists;
    /// retrieval runs as the first, default admin]
    #[arg(long = "role", value_name = "ROLE")]
    roles: Vec<String>,
    #[command(flatten)]
    model: ModelArgs,
    /// The folder records are saved under, as <OUT>/<mode>/<suite>/<date>_<commit>_<config>.json
    #[arg(long, value_name = "DIR", default_value = "benchmarks")]
    out: PathBuf,
    /// A sentence saved with the record
    #[arg(long, value_name = "TEXT", default_value_t, hide_default_value = true)]
    note: String,
    /// Print the record as JSON
    #[arg(long)]
    json: bool,
    /// The embedder routing and retrieval search with
    #[arg(long, value_enum, default_value_t = EmbedderChoice::Engine)]
    embedder: EmbedderChoice,
    #[command(flatten)]
    dbs: crate::DbArgs,
}

/// Which embedder the index is built with: what is measured is what `ask` runs, unless the
/// lexical one alone is asked for (to compare the two on the same suite).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EmbedderChoice {
    /// The one `nl2sql ask` uses: blended with the semantic embedder when its weights are
    /// found
    Engine,
    /// The built-in lexical embedder alone
    Lexical,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    /// The whole pipeline over HTTP, a local provider serving each gold plan
    Plans,
    /// Routing and retrieval recall, no model
    Retrieval,
    /// The real provider (refused when CI is set)
    Full,
}

/// Runs `nl2sql eval`.
pub fn run(o: &Args) -> Result<(), Failure> {
    if o.mode == Mode::Full && std::env::var_os("CI").is_some() {
        return Err(Failure::Usage(
            "--mode full calls a paid model; it is refused when CI is set".into(),
        ));
    }
    let text = std::fs::read_to_string(&o.suite)
        .map_err(|e| Failure::Runtime(format!("cannot read {}: {e}", o.suite.display())))?;
    let suite =
        Suite::parse(&text).map_err(|e| Failure::Runtime(format!("{}: {e}", o.suite.display())))?;
    let cases: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| c.status == "approved")
        .collect();
    let sources = o.dbs.sources()?;
    // Refusals name nothing, as in the reference's evaluations; no verified query answers
    // in place of the planner, which is what is measured.
    let (workspace, _) = sources
        .workspace_with(Reading {
            policies: Policies {
                refusal_names_tables: false,
                ..sources.policies()
            },
            verified: Curated::default(),
            embedder: match o.embedder {
                EmbedderChoice::Engine => sources
                    .embedder()
                    .map_err(|e| Failure::Runtime(e.to_string()))?,
                EmbedderChoice::Lexical => Rc::new(BuiltinEmbedder::default()),
            },
            fresh: false,
        })
        .map_err(|e| Failure::Runtime(e.to_string()))?;
    // A measurement without some of the datasources would be another measurement.
    if !workspace.unavailable().is_empty() {
        crate::say_unavailable(workspace.unavailable());
        return Err(Failure::Runtime(
            "the evaluation needs every datasource, and some could not be used".into(),
        ));
    }
    let embedder = workspace.index().embedder().to_string();
    let started = Instant::now();
    let (metrics, board, stopped, models) = match o.mode {
        Mode::Retrieval => {
            let service = Service::new(
                NativeHost::default(),
                workspace,
                ProviderConfig::default(),
                RunConfig::default(),
            );
            let (m, b) = retrieval(&cases, &service, &o.roles)?;
            (m, b, false, json!({}))
        }
        Mode::Plans | Mode::Full => answers(o, &cases, workspace)?,
    };
    let config = config_name(o, &embedder);
    let record = json!({
        "schema": 2,
        "kind": choice_name(&o.mode),
        "recorded_at": nl2sql_native::now_rfc3339(),
        "engine_version": env!("CARGO_PKG_VERSION"),
        "git_commit": git(&["rev-parse", "--short", "HEAD"]),
        // Records written earlier do not make the tree dirty.
        "git_dirty": git(&["status", "--porcelain", "--", ".", ":(exclude)benchmarks"])
            .is_some_and(|s| !s.is_empty()),
        "note": o.note,
        "dataset": {"name": o.suite.file_name().map(|n| n.to_string_lossy().to_string()),
                    "sha256": hex(&Sha256::digest(text.as_bytes()))},
        "config": {"name": config, "embedder": embedder, "models": models},
        "roles": o.roles,
        "metrics": metrics,
        "stopped": stopped,
        "partial": stopped,
        "seconds": started.elapsed().as_secs_f64(),
        "scoreboard": board,
    });
    let path = save(o, &config, &record)?;
    if o.json {
        println!("{record}");
    } else {
        print_summary(&record);
        println!("record: {}", path.display());
    }
    Ok(())
}

type Board = Vec<Json>;

/// Modes `plans` and `full`: every case and role asked through the engine's facade.
fn answers(
    o: &Args,
    cases: &[&Case],
    workspace: Workspace,
) -> Result<(Json, Board, bool, Json), Failure> {
    let mock = match o.mode {
        Mode::Plans => Some(gold_plans::provider(cases)?),
        _ => None,
    };
    // Scored answers are the rows: the template writes the sentence, no model call.
    // Every case is planned afresh: a cached plan would score the cache, not the planner.
    let run = RunConfig {
        answer: AnswerConfig::Template,
        plan_cache: false,
        ..RunConfig::default()
    };
    let provider = match &mock {
        Some(m) => ModelArgs {
            provider: Some(ProviderName::Compatible),
            model: Some("gold-plans".into()),
            base_url: Some(m.base_url()),
        }
        .provider_config()?,
        None => o.model.provider_config()?,
    };
    let models = json!({"planner": provider.model, "provider": provider.provider().label()});
    let service = Service::new(NativeHost::default(), workspace, provider, run);
    let mut board = Vec::new();
    let mut spent = 0.0;
    let mut stopped = false;
    let answer_cases = cases.iter().filter(|c| c.kind == "answer");
    let progress = crate::progress::Progress::counted(answer_cases.clone().count() as u64, "cases");
    'cases: for case in answer_cases {
        progress.step();
        let want = case.gold_rows();
        for (role, expected) in case.roles(&o.roles) {
            if o.max_cost.is_some_and(|cap| spent >= cap) {
                stopped = true;
                break 'cases;
            }
            let asked = Question::new(case.question.as_str()).as_roles([role.as_str()]);
            let ask = service.request(asked).map_err(crate::source_failure)?;
            let r = pollster::block_on(service.ask(ask, None));
            spent += r.usage.cost_usd.unwrap_or(0.0);
            board.push(board_line(case, &role, &expected, &want, &r));
            if !o.json {
                let last = board.last().cloned().unwrap_or_default();
                progress.line(&format!(
                    "{} {role}: {}",
                    case.id,
                    if last["pass"] == true { "pass" } else { "FAIL" }
                ));
            }
        }
    }
    Ok((answer_metrics(&board), board, stopped, models))
}

/// The gold plans served over HTTP, when this build has the mock provider.
#[cfg(feature = "gold-plans")]
mod gold_plans {
    use super::{gold_plan_fixtures, Case, Failure};

    /// The in-process mock provider, answering as the reference's gold-plan model does:
    /// each case's datasources as the verdict (none for an unanswerable case), its gold plan
    /// as the plan.
    pub(super) fn provider(cases: &[&Case]) -> Result<nl2sql_mock::MockProvider, Failure> {
        let mock = nl2sql_mock::MockProvider::start().map_err(|e| {
            Failure::Runtime(format!("the gold-plan provider could not start: {e}"))
        })?;
        let fixtures = gold_plan_fixtures(cases.iter().copied()).map_err(Failure::Runtime)?;
        let fixtures = fixtures
            .iter()
            .map(|(name, question, answer)| nl2sql_mock::Fixture::new(name, question, answer));
        mock.add(fixtures);
        Ok(mock)
    }
}

/// This build has no mock provider: `--mode plans` says how to get one.
#[cfg(not(feature = "gold-plans"))]
mod gold_plans {
    use super::{Case, Failure};

    /// No provider can exist in this build.
    pub(super) enum MockProvider {}

    impl MockProvider {
        pub(super) fn base_url(&self) -> String {
            match *self {}
        }
    }

    pub(super) fn provider(_: &[&Case]) -> Result<MockProvider, Failure> {
        Err(Failure::Usage(
            "--mode plans replays the gold plans through the in-process mock provider, which \
             this build leaves out; build with --features gold-plans"
                .into(),
        ))
    }
}

/// One run's line on the board: how it scored (scored once, by the suite crate) and what
/// it cost.
fn board_line(
    case: &Case,
    role: &str,
    expected: &str,
    want: &[Vec<Gold>],
    r: &QueryResult,
) -> Json {
    let Scored { pass, lenient, why } = score(case, expected, want, r);
    let codes: Vec<&str> = r.errors.iter().map(|e| e.error_code.as_str()).collect();
    let nodes: BTreeMap<String, Json> = r
        .usage_by_node
        .iter()
        .map(|(n, u)| {
            (
                n.to_string(),
                json!({"calls": u.calls, "input": u.input_tokens, "output": u.output_tokens}),
            )
        })
        .collect();
    json!({
        "id": case.id, "role": role, "expected": expected, "pass": pass,
        "lenient_pass": lenient, "status": r.status, "codes": codes, "why": why,
        "latency_ms": r.duration_ms, "sequential_llm_calls": r.sequential_llm_calls,
        "calls": r.usage.calls, "input_tokens": r.usage.input_tokens,
        "cached_input_tokens": r.usage.cached_input_tokens, "output_tokens": r.usage.output_tokens,
        "cost": r.usage.cost_usd, "retries": r.sub_queries.iter().map(|q| q.retry_count).sum::<u32>(),
        "refused_by_check": codes.contains(&"QUESTION_NOT_ANSWERABLE"),
        "planner_calls": r.trace.iter().filter(|n| n.node() == Node::AstPlanner).map(|n| n.llm_calls.len()).sum::<usize>(),
        "nodes": nodes,
    })
}

fn answer_metrics(board: &[Json]) -> Json {
    let n = board.len();
    let count = |f: &dyn Fn(&Json) -> bool| board.iter().filter(|b| f(b)).count();
    let passed = count(&|b| b["pass"] == true);
    let lenient = count(&|b| b["lenient_pass"] == true);
    // Answerability: a refusal by the check is a positive "not answerable".
    let said_no = count(&|b| b["refused_by_check"] == true);
    let right_no = count(&|b| b["refused_by_check"] == true && b["expected"] == "unanswerable");
    let should_no = count(&|b| b["expected"] == "unanswerable");
    let mut latencies: Vec<f64> = board
        .iter()
        .filter_map(|b| b["latency_ms"].as_f64())
        .collect();
    latencies.sort_by(f64::total_cmp);
    let sum = |k: &str| 0.0 + board.iter().filter_map(|b| b[k].as_f64()).sum::<f64>();
    let per = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
    json!({
        "cases": n,
        "accuracy": ratio(passed, n),
        "lenient_accuracy": ratio(lenient, n),
        "accuracy_interval": wilson(passed, n),
        "lenient_accuracy_interval": wilson(lenient, n),
        "answerability_precision": if said_no == 0 { 1.0 } else { ratio(right_no, said_no) },
        "answerability_recall": if should_no == 0 { 1.0 } else { ratio(right_no, should_no) },
        "cost_total": sum("cost"),
        "cost_per_question": per(sum("cost")),
        "tokens_per_question": {"input": per(sum("input_tokens")), "cached": per(sum("cached_input_tokens")), "output": per(sum("output_tokens"))},
        "sequential_llm_calls_per_question": per(sum("sequential_llm_calls")),
        "latency_p50": percentile(&latencies, 0.5),
        "latency_p95": percentile(&latencies, 0.95),
        "retries": sum("retries"),
    })
}

/// Mode `retrieval`: routing and retrieval (search forced, as admin), no model.
fn retrieval(
    cases: &[&Case],
    service: &Service<NativeHost>,
    roles: &[String],
) -> Result<(Json, Board), Failure> {
    let mut board = Vec::new();
    let progress = crate::progress::Progress::counted(cases.len() as u64, "cases");
    for case in cases {
        progress.step();
        let role = roles.first().cloned().unwrap_or_else(|| "admin".into());
        let asked_as = std::slice::from_ref(&role);
        let routing = pollster::block_on(service.route(&case.question, asked_as))
            .map_err(|e| Failure::Runtime(e.to_string()))?;
        let top1 = routing
            .ranked
            .first()
            .is_some_and(|d| case.datasources.contains(d));
        let shortlist = case.datasources.iter().all(|d| routing.ranked.contains(d));
        let mut entry = json!({"id": case.id, "kind": case.kind, "role": role,
            "routing_top1": top1, "routing_shortlist": shortlist, "ranked": routing.ranked});
        if case.kind == "answer" && !case.tables.is_empty() {
            let datasource = case.datasources.first().map_or("chinook", String::as_str);
            let r =
                pollster::block_on(service.retrieval(&case.question, datasource, asked_as, true))
                    .map_err(|e| Failure::Runtime(e.to_string()))?;
            let found =
                |need: &[String], got: &[String]| need.iter().filter(|x| got.contains(x)).count();
            let (t, c) = (
                found(&case.tables, &r.tables),
                found(&case.columns, &r.columns),
            );
            entry["tables_needed"] = json!(case.tables.len());
            entry["tables_found"] = json!(t);
            entry["columns_needed"] = json!(case.columns.len());
            entry["columns_found"] = json!(c);
            entry["tables_sent"] = json!(r.tables.len());
            entry["columns_sent"] = json!(r.columns.len());
            let recall = if case.columns.is_empty() {
                ratio(t, case.tables.len())
            } else {
                ratio(c, case.columns.len())
            };
            entry["pass"] = json!(recall >= 1.0);
        } else {
            entry["pass"] = json!(top1 && shortlist);
        }
        board.push(entry);
    }
    let measured: Vec<&Json> = board
        .iter()
        .filter(|b| b.get("tables_needed").is_some())
        .collect();
    let total = |k: &str| measured.iter().filter_map(|b| b[k].as_u64()).sum::<u64>() as usize;
    let perfect = |n: &str, f: &str| measured.iter().filter(|b| b[n] == b[f]).count();
    let routed: Vec<&Json> = board.iter().filter(|b| b["kind"] == "routing").collect();
    let m = measured.len();
    let per = |x: usize| if m == 0 { 0.0 } else { x as f64 / m as f64 };
    Ok((
        json!({
            "questions": m,
            "table_recall": ratio(total("tables_found"), total("tables_needed")),
            "column_recall": ratio(total("columns_found"), total("columns_needed")),
            "perfect_tables": ratio(perfect("tables_needed", "tables_found"), m),
            "perfect_columns": ratio(perfect("columns_needed", "columns_found"), m),
            "tables_sent": per(total("tables_sent")),
            "columns_sent": per(total("columns_sent")),
            "routing_cases": routed.len(),
            "routing_top1": ratio(routed.iter().filter(|b| b["routing_top1"] == true).count(), routed.len()),
            "routing_shortlist": ratio(routed.iter().filter(|b| b["routing_shortlist"] == true).count(), routed.len()),
            "accuracy": ratio(board.iter().filter(|b| b["pass"] == true).count(), board.len()),
        }),
        board,
    ))
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// The Wilson score interval at 95 %.
fn wilson(passed: usize, n: usize) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let (p, n) = (passed as f64 / n as f64, n as f64);
    let z = 1.96_f64;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * ((p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt()) / (1.0 + z * z / n);
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

fn config_name(o: &Args, embedder: &str) -> String {
    match o.mode {
        Mode::Plans => "gold-plans".into(),
        Mode::Retrieval => embedder.to_string(),
        Mode::Full => format!(
            "{}-{}",
            choice_name(&o.model.provider.unwrap_or(ProviderName::Openai)),
            o.model.model.as_deref().unwrap_or("default")
        ),
    }
}

/// Writes the record to `<out>/<mode>/<suite>/<date>_<commit>_<config>.json`, never over an
/// existing record (a second run the same day gets `-2`, `-3`, …).
fn save(o: &Args, config: &str, record: &Json) -> Result<PathBuf, Failure> {
    let stem = o
        .suite
        .file_stem()
        .map_or("suite".into(), |s| s.to_string_lossy().to_string());
    let dir = o.out.join(choice_name(&o.mode)).join(stem);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::Runtime(format!("cannot create {}: {e}", dir.display())))?;
    let date: String = nl2sql_native::now_rfc3339().chars().take(10).collect();
    let commit = record["git_commit"].as_str().unwrap_or("nogit").to_string();
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let base = format!("{date}_{commit}_{}", safe(config));
    let mut path = dir.join(format!("{base}.json"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{base}-{n}.json"));
        n += 1;
    }
    std::fs::write(&path, format!("{record}\n"))
        .map_err(|e| Failure::Runtime(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

fn print_summary(record: &Json) {
    let m = &record["metrics"];
    println!("\n{} on {}", record["kind"], record["dataset"]["name"]);
    if let Some(map) = m.as_object() {
        for (k, v) in map {
            println!("  {k}: {v}");
        }
    }
}

fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[test]
    fn intervals_and_percentiles() {
        let [lo, hi] = wilson(27, 47);
        assert!(
            (lo - 0.433).abs() < 0.002 && (hi - 0.705).abs() < 0.002,
            "{lo} {hi}"
        );
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 0.5), 2.0);
        assert_eq!(nl2sql_native::now_rfc3339().len(), 20);
    }

    #[test]
    fn a_path_is_never_written_twice() {
        let dir = std::env::temp_dir().join(format!("nl2sql-eval-{}", std::process::id()));
        let cli = crate::Cli::try_parse_from([
            "nl2sql".into(),
            "eval".into(),
            "--suite".into(),
            "x/routing.yaml".into(),
            "--mode".into(),
            "retrieval".into(),
            "--out".into(),
            dir.clone().into_os_string(),
        ])
        .unwrap_or_else(|e| panic!("parses: {e}"));
        let crate::Command::Eval(o) = cli.command else {
            panic!("an eval command line")
        };
        let record = json!({"git_commit": "abc"});
        let a = save(&o, "builtin-v1-512", &record).unwrap_or_else(|_| panic!("saves"));
        let b = save(&o, "builtin-v1-512", &record).unwrap_or_else(|_| panic!("saves"));
        assert_ne!(a, b);
        assert!(b.to_string_lossy().ends_with("-2.json"));
        let _ = std::fs::remove_dir_all(dir);
    }
}
