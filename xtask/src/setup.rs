//! The idempotent set-up: checks each tool and installs only what is missing or at the
//! wrong version. Everything comes from the package registries (crates.io, npm, Debian);
//! nothing is downloaded from anywhere else.

use crate::data;
use crate::run::{apt_install, hex, Failure, Project};
use sha2::{Digest, Sha256};
use std::fs;

const WASM_TARGET: &str = "wasm32-unknown-unknown";

pub fn ensure(project: &Project) -> Result<(), Failure> {
    println!("==> set-up");
    let cargo_lock = fs::read_to_string(project.root.join("Cargo.lock"))
        .map_err(|e| Failure(format!("cannot read Cargo.lock: {e}")))?;
    let wasm_bindgen = locked_version(&cargo_lock, "wasm-bindgen")
        .ok_or_else(|| Failure("Cargo.lock does not lock wasm-bindgen".into()))?;
    wasm_target(project)?;
    // wasm-bindgen-cli is compiled (two minutes on a fresh machine) while the rest is set up,
    // most of which waits on downloads (npm, pyspark, the demo data), not on the cores.
    std::thread::scope(|scope| {
        let bindgen = scope.spawn(|| wasm_bindgen_cli(project, &wasm_bindgen));
        let rest = the_rest(project);
        let bindgen = bindgen.join().unwrap_or_else(|_| {
            Err(Failure(
                "installing wasm-bindgen-cli stopped unexpectedly".into(),
            ))
        });
        rest.and(bindgen)
    })
}

/// Everything but wasm-bindgen-cli, in order.
fn the_rest(project: &Project) -> Result<(), Failure> {
    npm_packages(project)?;
    duckdb_library(project)?;
    duckdb_wasm(project)?;
    chromium(project)?;
    database_servers(project)?;
    spark_prerequisites(project)?;
    pyspark(project)?;
    data::ensure(project)?;
    crate::embedder::ensure(project)?;
    data::ensure_catalogue(project)
}

fn wasm_target(project: &Project) -> Result<(), Failure> {
    if project.find("rustup").is_none() {
        return if target_in_sysroot(project) {
            ok(&format!("{WASM_TARGET} target"))
        } else {
            Err(Failure(format!(
                "the {WASM_TARGET} target is needed and rustup is not on PATH to add it; \
                 install Rust with rustup, then run `rustup target add {WASM_TARGET}`"
            )))
        };
    }
    let installed = project
        .command("rustup", &["target", "list", "--installed"])
        .output("rustup target list")?;
    if installed.lines().any(|l| l.trim() == WASM_TARGET) {
        return ok(&format!("{WASM_TARGET} target"));
    }
    println!("    adding the {WASM_TARGET} target");
    project
        .command("rustup", &["target", "add", WASM_TARGET])
        .run("rustup target add")
}

/// Without rustup, the target may still be in the toolchain's sysroot.
fn target_in_sysroot(project: &Project) -> bool {
    project
        .command("rustc", &["--print", "sysroot"])
        .output("rustc --print sysroot")
        .map(|root| {
            std::path::Path::new(root.trim())
                .join("lib/rustlib")
                .join(WASM_TARGET)
                .is_dir()
        })
        .unwrap_or(false)
}

/// wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock, or its output does not
/// match the generated glue.
fn wasm_bindgen_cli(project: &Project, wanted: &str) -> Result<(), Failure> {
    let have = project.version_of("wasm-bindgen");
    if have.as_deref() == Some(&format!("wasm-bindgen {wanted}")) {
        return ok(&format!("wasm-bindgen-cli {wanted}"));
    }
    println!("    installing wasm-bindgen-cli {wanted} (found {have:?}); about 3 minutes");
    // Not --locked: the CLI's own lock file pins a webpki-roots release the registry mirror
    // here does not carry; the unlocked resolution builds and runs correctly.
    project
        .cargo(&[
            "install",
            "--force",
            "wasm-bindgen-cli",
            "--version",
            wanted,
        ])
        .run("cargo install wasm-bindgen-cli")
}

/// `npm ci` from the committed lock file, skipped when node_modules was installed from
/// this very lock file (a stamp records its hash).
fn npm_packages(project: &Project) -> Result<(), Failure> {
    // playwright-core needs Node 20; Debian 12's own nodejs package is 18.
    let node = project.version_of("node").unwrap_or_default();
    let major: u32 = node
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if major < 20 || project.find("npm").is_none() {
        return Err(Failure(format!(
            "Node.js 20 or newer with npm is needed (found {node:?}); install it from \
             nodejs.org or your distribution's Node 20+ packages"
        )));
    }
    let lock = fs::read(project.root.join("package-lock.json"))
        .map_err(|e| Failure(format!("cannot read package-lock.json: {e}")))?;
    let hash = hex(&Sha256::digest(&lock));
    let stamp = project.root.join("node_modules").join(".xtask-lock-sha256");
    if fs::read_to_string(&stamp).ok().as_deref() == Some(hash.as_str()) {
        return ok(
            "npm packages (sql.js, DuckDB-WASM, esbuild, binaryen, playwright-core, typescript)",
        );
    }
    println!("    npm ci");
    project
        .command("npm", &["ci", "--no-audit", "--no-fund"])
        .run("npm ci")?;
    fs::write(&stamp, hash).map_err(|e| Failure(format!("cannot write {}: {e}", stamp.display())))
}

/// The DuckDB library the `duckdb` crate links (`.cargo/config.toml` points there), which
/// npm installs for Linux on x86-64 only; elsewhere `DUCKDB_LIB_DIR` names one.
fn duckdb_library(project: &Project) -> Result<(), Failure> {
    let lib = project
        .root
        .join("node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so");
    if lib.is_file() {
        return ok("the DuckDB library (npm @duckdb/node-bindings-linux-x64)");
    }
    if let Some(dir) = std::env::var_os("DUCKDB_LIB_DIR").filter(|d| !d.is_empty()) {
        return ok(&format!(
            "the DuckDB library (DUCKDB_LIB_DIR={})",
            std::path::Path::new(&dir).display()
        ));
    }
    Err(Failure(format!(
        "{} is missing: npm installs DuckDB's library for Linux on x86-64 only. Elsewhere, \
         point DUCKDB_LIB_DIR at a DuckDB 1.5.6 library, or build the command line without \
         DuckDB (cargo build -p nl2sql-cli --no-default-features)",
        lib.display()
    )))
}

/// Where the page's DuckDB-WASM files are put together; the page serves them from `duckdb/`
/// and the npm package ships the module.
pub const DUCKDB_WASM_DIR: &str = "target/duckdb";
/// DuckDB-WASM's own files the page serves next to the module: the worker and the module
/// built with WebAssembly exceptions, which every current browser runs.
const DUCKDB_WASM_FILES: [&str; 2] = ["duckdb-browser-eh.worker.js", "duckdb-eh.wasm"];

/// `nl2sql-duckdb.js`: the page's DuckDB host (`wasm/js/duckdb/host.js`) bundled with
/// DuckDB-WASM's API and Apache Arrow into one module the engine imports on first use,
/// and DuckDB-WASM's worker and module beside it. esbuild takes under a second.
fn duckdb_wasm(project: &Project) -> Result<(), Failure> {
    let out = project.root.join(DUCKDB_WASM_DIR);
    fs::create_dir_all(&out)
        .map_err(|e| Failure(format!("cannot create {}: {e}", out.display())))?;
    let module = out.join("nl2sql-duckdb.js").display().to_string();
    project
        .command(
            "esbuild",
            &[
                "wasm/js/duckdb/host.js",
                "--bundle",
                "--format=esm",
                "--minify",
                "--log-level=warning",
                &format!("--outfile={module}"),
            ],
        )
        .run("esbuild of the DuckDB host")?;
    let dist = project.root.join("node_modules/@duckdb/duckdb-wasm/dist");
    for name in DUCKDB_WASM_FILES {
        let (from, to) = (dist.join(name), out.join(name));
        let size = |p: &std::path::Path| fs::metadata(p).map(|m| m.len()).ok();
        // Copied only when changed: the module is 34 MB.
        if size(&from).is_some() && size(&from) == size(&to) {
            continue;
        }
        fs::copy(&from, &to)
            .map_err(|e| Failure(format!("cannot copy {}: {e}", from.display())))?;
    }
    ok("DuckDB-WASM for the page (npm @duckdb/duckdb-wasm, bundled by esbuild)")
}

/// Debian's Chromium and its driver, for the browser and end-to-end tests.
fn chromium(project: &Project) -> Result<(), Failure> {
    if project.find("chromium").is_some() && project.find("chromedriver").is_some() {
        return ok("chromium and chromedriver");
    }
    apt_install(
        project,
        &["chromium", "chromium-driver"],
        "Chromium and ChromeDriver are needed for the browser tests",
    )
}

/// Debian's PostgreSQL and MariaDB servers, which the server tests start as throwaway
/// instances.
pub(crate) fn database_servers(project: &Project) -> Result<(), Failure> {
    let mut missing = Vec::new();
    if !crate::services::postgres_installed() {
        missing.push("postgresql");
    }
    if !crate::services::mariadb_installed() {
        missing.push("mariadb-server");
    }
    if missing.is_empty() {
        return ok("PostgreSQL and MariaDB servers");
    }
    apt_install(
        project,
        &missing,
        "database servers are needed for the tests on database servers",
    )
}

/// What Spark needs from Debian: the protobuf compiler (the Spark Connect client's types
/// are generated when it builds), Java 17 (the server runs on it) and Python's venv (for
/// PyPI's pyspark, which holds the server).
fn spark_prerequisites(project: &Project) -> Result<(), Failure> {
    let mut missing = Vec::new();
    if project.find("protoc").is_none() {
        missing.push("protobuf-compiler");
    }
    if crate::services::java().is_none() {
        missing.push("openjdk-17-jre-headless");
    }
    let venv = project
        .command("python3", &["-c", "import ensurepip, venv"])
        .output("python3 -c 'import ensurepip, venv'");
    if venv.is_err() {
        missing.push("python3-venv");
    }
    if missing.is_empty() {
        return ok("protoc, Java and Python's venv (for Spark)");
    }
    apt_install(
        project,
        &missing,
        "the Spark client's build and the Spark server need them",
    )
}

/// PyPI's pyspark, whose distribution holds Spark itself and its Spark Connect server, in a
/// virtual environment of the project's own (`target/tools/pyspark`).
fn pyspark(project: &Project) -> Result<(), Failure> {
    let venv = project.root.join(crate::services::PYSPARK_VENV);
    let wanted = format!("pyspark=={}", crate::services::PYSPARK_VERSION);
    if crate::services::spark_home(project).is_some() {
        return ok(&format!(
            "{wanted} (PyPI, in {})",
            crate::services::PYSPARK_VENV
        ));
    }
    println!("    installing {wanted} from PyPI into {}", venv.display());
    let venv_text = venv.to_string_lossy().into_owned();
    project
        .command("python3", &["-m", "venv", "--clear", &venv_text])
        .run("python3 -m venv")?;
    let pip = venv.join("bin").join("pip").to_string_lossy().into_owned();
    project
        .command(
            &pip,
            &["install", "--quiet", "--disable-pip-version-check", &wanted],
        )
        .run(&format!("pip install {wanted}"))?;
    crate::services::spark_home(project)
        .map(|_| ())
        .ok_or_else(|| Failure(format!("{wanted} installed without Spark Connect's server")))
}

/// The version Cargo.lock records for a package (the first, if several).
fn locked_version(lock: &str, package: &str) -> Option<String> {
    let name_line = format!("name = \"{package}\"");
    let mut lines = lock.lines();
    lines.find(|l| l.trim() == name_line)?;
    let version = lines.next()?.trim().strip_prefix("version = \"")?;
    Some(version.trim_end_matches('"').to_string())
}

fn ok(what: &str) -> Result<(), Failure> {
    println!("    ok  {what}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_locked_version_of_a_package() {
        let lock = "[[package]]\nname = \"wasm-bindgen-macro\"\nversion = \"9.9.9\"\n\n\
                    [[package]]\nname = \"wasm-bindgen\"\nversion = \"0.2.130\"\nsource = \"x\"\n";
        assert_eq!(
            locked_version(lock, "wasm-bindgen").as_deref(),
            Some("0.2.130")
        );
        assert_eq!(locked_version(lock, "trunk"), None);
    }

    #[test]
    fn hex_is_lowercase_and_padded() {
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }
}
