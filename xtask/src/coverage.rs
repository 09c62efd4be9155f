//! `cargo xtask coverage`: how much SQL written by others the plan language holds (issue
//! 32). It builds the command line and runs the two Python harnesses, `corpus/run.py` (the
//! analyst corpus on its four engines) and `corpus/tpc.py` (TPC-H and TPC-DS on DuckDB,
//! SQLite, PostgreSQL, MariaDB and Spark), printing their summaries and keeping their JSON under
//! `target/coverage/`.
//!
//! `cargo xtask coverage` is a measurement: low numbers never fail it, only a harness that
//! could not run (a gold query that failed, a package that would not install, a crash of
//! the script itself). `cargo xtask test` runs it too, without Spark's TPC-DS, and fails
//! below the floors of `corpus/floors.json` or on any answer that differs; its
//! servers step runs TPC-H on Spark ([`spark_tpch`]) while the Spark server is up.

use crate::run::{Failure, Project};
use std::time::Instant;

/// The harnesses' virtual environment, beside pyspark's.
const VENV: &str = "target/tools/coverage";
/// What the harnesses import. DuckDB is pinned to the version its TPC extensions are built
/// for (they are loaded from these packages: DuckDB cannot download extensions here).
const PACKAGES: [&str; 6] = [
    "duckdb==1.5.5",
    "duckdb-extension-tpch==1.5.5",
    "duckdb-extension-tpcds==1.5.5",
    "psycopg[binary]",
    "pymysql",
    "pyyaml",
];
/// Imports that prove the packages are there, at the pinned DuckDB.
const PROBE: &str = "import duckdb, duckdb_extension_tpch, duckdb_extension_tpcds, psycopg, \
                     pymysql, yaml; assert duckdb.__version__ == '1.5.5', duckdb.__version__";
/// Where the results go.
const OUT: &str = "target/coverage";

/// The whole measurement: the corpus on its four engines, TPC on DuckDB, SQLite, PostgreSQL
/// and MariaDB (about a minute each), then on a Spark Connect server started for it (about
/// 8 minutes with the server's start).
pub fn run(project: &Project) -> Result<(), Failure> {
    harnesses(project, TPC_ENGINES, None)?;
    let spark = crate::services::Spark::start(project)?;
    spark_tpc(project, &spark.url(), "tpch,tpcds", false)
}

/// The step of `cargo xtask test`: the same without Spark, held to the floors of
/// `corpus/floors.json` (fewer answers right, or any answer different, fails it).
pub fn check(project: &Project) -> Result<(), Failure> {
    harnesses(project, TPC_ENGINES, Some(FLOORS))?;
    routing(project)
}

/// Routing over the corpus's 14 databases, lexical and blended, with and without their
/// descriptions (tests/tests/corpus_routing.rs, which holds the blend to its floors), and
/// the demo's suites with the blend.
fn routing(project: &Project) -> Result<(), Failure> {
    println!("\n==> routing across the analysts' corpus (tests/tests/corpus_routing.rs)");
    let started = Instant::now();
    let dbs = project.root.join(OUT).join("corpus-dbs");
    let dbs_text = dbs.to_string_lossy().into_owned();
    if !dbs.join("shop.sqlite").is_file() {
        project
            .command("python3", &["corpus/generate.py", &dbs_text])
            .output("corpus/generate.py")?;
    }
    project
        .cargo_native(
            "test",
            &[
                "--test",
                "corpus_routing",
                "--",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ],
        )
        .env("NL2SQL_CORPUS_DBS", &dbs_text)
        .run("routing across the corpus")?;
    println!("    ({:.0} s)", started.elapsed().as_secs_f64());
    Ok(())
}

/// TPC-H on the Spark Connect server at `spark` (the one the servers step of `cargo xtask
/// test` starts), held to the floors' `tpc-spark` section. (TPC-DS on Spark, five more
/// minutes here, is `cargo xtask coverage`'s.)
pub fn spark_tpch(project: &Project, spark: &str) -> Result<(), Failure> {
    spark_tpc(project, spark, "tpch", true)
}

/// `suites` of TPC on Spark at `spark`, held to the floors' `tpc-spark` section when
/// `floors`.
fn spark_tpc(project: &Project, spark: &str, suites: &str, floors: bool) -> Result<(), Failure> {
    let python = python(project)?;
    println!("\n==> TPC ({suites}) on Spark (corpus/tpc.py --engines spark)");
    let started = Instant::now();
    let out = project.root.join(OUT);
    std::fs::create_dir_all(&out)
        .map_err(|e| Failure(format!("cannot create {}: {e}", out.display())))?;
    let json = out.join("tpc-spark.json").to_string_lossy().into_owned();
    let mut args = vec![
        "corpus/tpc.py",
        "--engines",
        "spark",
        "--suites",
        suites,
        "--spark",
        spark,
        "--json",
        &json,
    ];
    if floors {
        args.extend(["--floors", FLOORS, "--floors-section", "tpc-spark"]);
    }
    project
        .command(&python, &args)
        .run("corpus/tpc.py on Spark")?;
    println!("    ({:.0} s)", started.elapsed().as_secs_f64());
    Ok(())
}

/// The engines TPC runs on besides Spark's server.
const TPC_ENGINES: &str = "duckdb,sqlite,postgres,mysql";
/// The least counts of right answers `cargo xtask test` accepts.
const FLOORS: &str = "corpus/floors.json";

fn harnesses(project: &Project, tpc_engines: &str, floors: Option<&str>) -> Result<(), Failure> {
    let python = python(project)?;
    crate::setup::database_servers(project)?;
    println!("\n==> the command line (cargo build)");
    project
        .cargo_native("build", &[])
        .run("cargo build of the command line")?;
    let out = project.root.join(OUT);
    std::fs::create_dir_all(&out)
        .map_err(|e| Failure(format!("cannot create {}: {e}", out.display())))?;
    let runs: [(&str, &str, &str, &[&str]); 2] = [
        (
            "the analyst corpus (corpus/run.py)",
            "corpus/run.py",
            "corpus.json",
            &[],
        ),
        (
            "TPC-H and TPC-DS (corpus/tpc.py)",
            "corpus/tpc.py",
            "tpc.json",
            &["--engines", tpc_engines],
        ),
    ];
    for (title, script, json, extra) in runs {
        println!("\n==> {title}");
        let started = Instant::now();
        let json = out.join(json).to_string_lossy().into_owned();
        let mut args = vec![script, "--json", &json];
        args.extend_from_slice(extra);
        if let Some(f) = floors {
            args.extend(["--floors", f]);
        }
        project.command(&python, &args).run(script)?;
        println!("    ({:.0} s)", started.elapsed().as_secs_f64());
    }
    Ok(())
}

/// The virtual environment's python, with the packages installed when they are not.
fn python(project: &Project) -> Result<String, Failure> {
    println!("==> Python packages ({VENV})");
    let venv = project.root.join(VENV);
    let python = venv
        .join("bin")
        .join("python")
        .to_string_lossy()
        .into_owned();
    let ready = |p: &str| project.command(p, &["-c", PROBE]).output("probe").is_ok();
    if venv.join("bin").join("python").is_file() && ready(&python) {
        println!("    ok  {}", PACKAGES.join(", "));
        return Ok(python);
    }
    println!("    installing {} from PyPI", PACKAGES.join(", "));
    let venv_text = venv.to_string_lossy().into_owned();
    project
        .command("python3", &["-m", "venv", "--clear", &venv_text])
        .run("python3 -m venv (Debian's python3-venv provides it)")?;
    let mut args = vec![
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
    ];
    args.extend(PACKAGES);
    project.command(&python, &args).run("pip install")?;
    if ready(&python) {
        Ok(python)
    } else {
        Err(Failure(format!(
            "the packages installed into {VENV}, but `{PROBE}` still fails"
        )))
    }
}
