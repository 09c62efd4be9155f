//! `cargo xtask npm`: the npm package in `pkg/`, built from the `wasm` crate: an ES module
//! (`wasm-bindgen --target web`), the optimised `.wasm`, TypeScript declarations,
//! `package.json` and the README (both kept in `wasm/npm/`), and the DuckDB host module.

use crate::run::{Failure, Project};
use crate::WASM_PROFILE;
use std::fs;

pub fn build(project: &Project) -> Result<(), Failure> {
    package(project)?;
    crate::sizes::report(&project.root.join("pkg"), "pkg/")
}

/// The package's own target folder. Its dependencies' features differ from the page's
/// (Leptos turns on more of serde's and futures'), so the two builds share no compiled
/// crate anyway; apart, they run side by side instead of one waiting for the other's lock,
/// and each fills the core the other leaves idle in its single-threaded stretches (one
/// codegen unit, link-time optimisation).
const TARGET_DIR: &str = "target/npm";

/// The package in `pkg/`, without its size report.
pub fn package(project: &Project) -> Result<(), Failure> {
    project
        .cargo(&[
            "build",
            "-p",
            "nl2sql-wasm",
            "--features",
            "npm",
            "--target",
            "wasm32-unknown-unknown",
            "--profile",
            WASM_PROFILE,
            "--target-dir",
            TARGET_DIR,
        ])
        .run("cargo build of the wasm crate")?;
    let pkg = project.root.join("pkg");
    if pkg.exists() {
        fs::remove_dir_all(&pkg).map_err(|e| Failure(format!("cannot clear pkg/: {e}")))?;
    }
    let wasm = project.root.join(format!(
        "{TARGET_DIR}/wasm32-unknown-unknown/{WASM_PROFILE}/nl2sql_wasm.wasm"
    ));
    let (wasm, pkg_dir) = (wasm.display().to_string(), pkg.display().to_string());
    project
        .command(
            "wasm-bindgen",
            &[
                "--target",
                "web",
                "--out-dir",
                &pkg_dir,
                "--out-name",
                "nl2sql",
                &wasm,
            ],
        )
        .run("wasm-bindgen")?;
    let module = pkg.join("nl2sql_bg.wasm").display().to_string();
    let mut args = crate::page::WASM_OPT_ARGS.to_vec();
    args.extend(["-o", &module, &module]);
    project.command("wasm-opt", &args).run("wasm-opt")?;
    declare_disposable(&pkg.join("nl2sql.d.ts"))?;
    guard_freed(project, &pkg.join("nl2sql.js"))?;
    let manifest = fs::read_to_string(project.root.join("wasm/npm/package.json"))
        .map_err(|e| Failure(format!("wasm/npm/package.json: {e}")))?
        .replace("WORKSPACE_VERSION", env!("CARGO_PKG_VERSION"));
    fs::write(pkg.join("package.json"), manifest)
        .map_err(|e| Failure(format!("pkg/package.json: {e}")))?;
    fs::copy(
        project.root.join("wasm/npm/README.md"),
        pkg.join("README.md"),
    )
    .map_err(|e| Failure(format!("pkg/README.md: {e}")))?;
    // The DuckDB host the engine imports when a CSV, Parquet or DuckDB file is first
    // opened; DuckDB-WASM's worker and module come from the host page's own
    // @duckdb/duckdb-wasm (README: "CSV, Parquet and DuckDB files").
    let duckdb = project
        .root
        .join(crate::setup::DUCKDB_WASM_DIR)
        .join("nl2sql-duckdb.js");
    fs::copy(&duckdb, pkg.join("nl2sql-duckdb.js"))
        .map_err(|e| Failure(format!("{}: {e}", duckdb.display())))?;
    // wasm-bindgen's own ignore file would keep everything out of `npm pack`.
    let _ = fs::remove_file(pkg.join(".gitignore"));
    Ok(())
}

/// wasm-bindgen declares `[Symbol.dispose]()` on every class; without the library that
/// declares `Symbol.dispose`, a strict `tsc` with its default `lib` (and no
/// `skipLibCheck`) rejects the package. The reference pulls in just that library.
fn declare_disposable(declarations: &std::path::Path) -> Result<(), Failure> {
    let text = fs::read_to_string(declarations)
        .map_err(|e| Failure(format!("{}: {e}", declarations.display())))?;
    let reference = "/// <reference lib=\"esnext.disposable\" />\n";
    if text.starts_with(reference) {
        return Ok(());
    }
    fs::write(declarations, format!("{reference}{text}"))
        .map_err(|e| Failure(format!("{}: {e}", declarations.display())))
}

/// Appends `wasm/npm/freed.js` to the generated module: an engine used after `free()` then
/// fails with the code `ENGINE_FREED`, not the bindings' bare message.
fn guard_freed(project: &Project, module: &std::path::Path) -> Result<(), Failure> {
    let guard = project.root.join("wasm/npm/freed.js");
    let guard =
        fs::read_to_string(&guard).map_err(|e| Failure(format!("{}: {e}", guard.display())))?;
    let text =
        fs::read_to_string(module).map_err(|e| Failure(format!("{}: {e}", module.display())))?;
    if !text.contains("export class Engine") {
        return Err(Failure(format!(
            "{} declares no Engine class to guard",
            module.display()
        )));
    }
    fs::write(module, format!("{text}{guard}"))
        .map_err(|e| Failure(format!("{}: {e}", module.display())))
}
