//! The npm package's declarations for what the engine emits are generated from the Rust
//! types; the checked-in `wasm/src/results.d.ts` must be exactly what generation gives.
//! `cargo xtask typescript` rewrites it (it runs this test with NL2SQL_WRITE_TYPESCRIPT=1).
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

fn results_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../wasm/src/results.d.ts")
}

#[test]
fn the_checked_in_declarations_are_the_generated_ones() {
    let generated = nl2sql_core::typescript::declarations();
    let path = results_file();
    if std::env::var_os("NL2SQL_WRITE_TYPESCRIPT").is_some() {
        std::fs::write(&path, &generated)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{} is stale: run `cargo xtask typescript` and commit the result",
        path.display()
    );
}

/// The fields `export interface NAME { … }` declares in the hand-written options.
fn option_fields(name: &str) -> Vec<String> {
    let options = include_str!("../../wasm/src/api.d.ts");
    let start = options
        .find(&format!("export interface {name} {{"))
        .unwrap_or_else(|| panic!("api.d.ts declares {name}"));
    let body = &options[start..];
    let body = &body[body.find('{').unwrap_or(0) + 1..body.find("\n}").unwrap_or(body.len())];
    body.lines()
        .filter_map(|l| l.trim().split_once("?:").map(|(k, _)| k.to_string()))
        .collect()
}

#[test]
fn the_declared_run_settings_are_the_ones_the_engine_reads() {
    let json = serde_json::to_value(nl2sql_core::config::RunConfig::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut read: Vec<String> = json
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    let mut declared = option_fields("RunSettings");
    read.sort();
    declared.sort();
    assert_eq!(declared, read);
}

#[test]
fn the_declared_provider_options_are_the_ones_the_engine_reads() {
    let mut declared = option_fields("ProviderOptions");
    declared.sort();
    // `kind` and `model` are required there; the rest optional.
    assert_eq!(declared, ["api_key", "base_url", "models"]);
    let all = r#"{"kind": "compatible", "model": "m", "api_key": "k", "base_url": "http://x",
                  "models": {"planner": "p"}}"#;
    let parsed = serde_json::from_str::<nl2sql_core::config::ProviderConfig>(all);
    assert!(parsed.is_ok(), "{:?}", parsed.err());
}

#[test]
fn the_package_rejects_with_the_one_vocabulary() {
    let options = include_str!("../../wasm/src/api.d.ts");
    let start = options
        .find("export interface EngineError extends Error {")
        .unwrap_or_else(|| panic!("api.d.ts declares EngineError"));
    let body = &options[start..];
    let body = &body[..body.find('}').unwrap_or(body.len())];
    assert!(body.contains("code: ErrorCodeName;"), "{body}");
}
