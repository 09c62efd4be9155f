//! Prints what a visitor (or a package user) downloads: each file of `dist/` or `pkg/` raw,
//! gzip -9 and brotli q11. Files under `duckdb/` are fetched only when a CSV, Parquet or
//! DuckDB file is first added, and the semantic embedder's weights once the page is ready;
//! they are counted apart from the first load.

use crate::run::Failure;
use std::fs;
use std::io::Write;
use std::path::Path;

pub fn report(dist: &Path, label: &str) -> Result<(), Failure> {
    let mut files = Vec::new();
    crate::page::files_under(dist, &mut files)?;
    files.sort();
    let under = |prefix: &'static str| {
        move |p: &std::path::PathBuf| p.strip_prefix(dist).is_ok_and(|p| p.starts_with(prefix))
    };
    let (later, rest): (Vec<_>, Vec<_>) = files.into_iter().partition(under("duckdb"));
    let (semantic, first): (Vec<_>, Vec<_>) = rest
        .into_iter()
        .partition(under("data/semantic-wordllama-256.bin"));
    table(dist, label, &first, "total")?;
    if !semantic.is_empty() {
        println!("\nfetched once the page is ready (the semantic embedder's weights):");
        table(dist, label, &semantic, "total once ready")?;
    }
    if !later.is_empty() {
        println!("\nfetched when the first CSV, Parquet or DuckDB file is added:");
        table(dist, label, &later, "total when first added")?;
    }
    Ok(())
}

fn table(
    dist: &Path,
    label: &str,
    files: &[std::path::PathBuf],
    total: &str,
) -> Result<(), Failure> {
    println!(
        "\n{:<44} {:>11} {:>11} {:>11}",
        format!("{label} file"),
        "raw",
        "gzip -9",
        "brotli 11"
    );
    let mut totals = [0usize; 3];
    for path in files {
        let bytes = fs::read(path).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
        let sizes = [bytes.len(), gzip(&bytes)?, brotli(&bytes)?];
        for (total, size) in totals.iter_mut().zip(sizes) {
            *total += size;
        }
        let name = path
            .strip_prefix(dist)
            .unwrap_or(path)
            .display()
            .to_string();
        let marker = if name.ends_with("_bg.wasm") {
            "  <- app wasm"
        } else if bytes.len() > BROTLI_11_MAX {
            "  (brotli 9)"
        } else {
            ""
        };
        println!(
            "{name:<44} {:>11} {:>11} {:>11}{marker}",
            sizes[0], sizes[1], sizes[2]
        );
    }
    println!(
        "{:<44} {:>11} {:>11} {:>11}",
        total, totals[0], totals[1], totals[2]
    );
    Ok(())
}

fn gzip(bytes: &[u8]) -> Result<usize, Failure> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(bytes)
        .map_err(|e| Failure(e.to_string()))?;
    Ok(encoder.finish().map_err(|e| Failure(e.to_string()))?.len())
}

/// Past this size brotli's best quality takes minutes (DuckDB-WASM's 34 MB module); such
/// files are compressed at quality 9, within a few per cent of 11, and marked.
const BROTLI_11_MAX: usize = 8 * 1024 * 1024;

fn brotli(bytes: &[u8]) -> Result<usize, Failure> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: if bytes.len() > BROTLI_11_MAX { 9 } else { 11 },
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)
        .map_err(|e| Failure(e.to_string()))?;
    Ok(out.len())
}
