//! The semantic embedder's weights: WordLlama's static token vectors (MIT licence), taken
//! from its published wheel on PyPI, verified, and written once as the compact file core's
//! `SemanticEmbedder::from_bytes` reads (`data/semantic-wordllama-256.bin`): the Llama 2
//! tokenizer's 32,000 tokens and 61,249 merges, and one signed byte per dimension with a
//! scale per token (9 MB, where the published half-precision matrix is 16 MB).

use crate::data::{fetch_wheel, io_failure};
use crate::run::{hex, Failure, Project};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs;
use std::path::Path;

const REQUIREMENT: &str = "wordllama==0.4.0.post1";
const WHEEL_FILE: &str =
    "wordllama-0.4.0.post1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl";
const WHEEL_SHA256: &str = "42c2c88907ace0b0681ac6f9092d6a300a6409a5d2d61071a3fb5e7159370c97";
const WEIGHTS: &str = "wordllama/weights/l2_supercat_256.safetensors";
const TOKENIZER: &str = "wordllama/tokenizers/l2_supercat_tokenizer_config.json";

/// The file in `data/` that the command line and the tests load.
pub const OUTPUT: &str = "semantic-wordllama-256.bin";
/// What the conversion writes, byte for byte (it is deterministic): a file that differs is
/// written again.
const OUTPUT_SHA256: &str = "3020bf0ad76fb4d8d8bfe7283d5b3dbd1ad605b8bb421c200cbdb7c3015527d8";

/// Makes `data/semantic-wordllama-256.bin`, downloading the wheel only when the file is
/// missing or not the one this conversion writes.
pub fn ensure(project: &Project) -> Result<(), Failure> {
    let target = project.root.join("data").join(OUTPUT);
    let current = fs::read(&target).map(|b| hex(&Sha256::digest(&b)));
    if current.as_deref().ok() == Some(OUTPUT_SHA256) {
        println!("    ok  semantic embedder weights (data/{OUTPUT}; sha256 verified)");
        return Ok(());
    }
    let staging = project.root.join("target").join("xtask-embedder");
    let unpacked = fetch_wheel(
        project,
        &staging,
        (REQUIREMENT, WHEEL_FILE, WHEEL_SHA256),
        &[
            "--platform",
            "manylinux2014_x86_64",
            "--python-version",
            "3.11",
            "--implementation",
            "cp",
        ],
        "its token vectors only",
    )?;
    let weights = read(&unpacked.join(WEIGHTS))?;
    let tokenizer = read(&unpacked.join(TOKENIZER))?;
    let out = convert(&weights, &tokenizer)?;
    let sha = hex(&Sha256::digest(&out));
    if sha != OUTPUT_SHA256 {
        return Err(Failure(format!(
            "the converted weights have sha256 {sha}, expected {OUTPUT_SHA256}; nothing was \
             written"
        )));
    }
    fs::create_dir_all(project.root.join("data")).map_err(|e| io_failure(&target, e))?;
    let partial = staging.join(OUTPUT);
    fs::write(&partial, &out).map_err(|e| io_failure(&partial, e))?;
    fs::rename(&partial, &target).map_err(|e| io_failure(&target, e))?;
    let _ = fs::remove_dir_all(&staging);
    println!(
        "    ok  semantic embedder weights written to data/{OUTPUT} ({:.1} MB)",
        out.len() as f64 / 1e6
    );
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    fs::read(path).map_err(|e| io_failure(path, e))
}

fn bad(why: &str) -> Failure {
    Failure(format!(
        "the wheel's embedder files are not as expected: {why}"
    ))
}

/// The safetensors matrix and the tokenizer's JSON, in core's format.
fn convert(safetensors: &[u8], tokenizer: &[u8]) -> Result<Vec<u8>, Failure> {
    let (rows, dims, halves) = matrix(safetensors)?;
    let json: serde_json::Value =
        serde_json::from_slice(tokenizer).map_err(|e| bad(&e.to_string()))?;
    let model = &json["model"];
    let vocab_map = model["vocab"].as_object().ok_or_else(|| bad("no vocab"))?;
    let mut vocab: Vec<Option<&str>> = vec![None; vocab_map.len()];
    for (token, id) in vocab_map {
        let slot = id
            .as_u64()
            .and_then(|i| vocab.get_mut(i as usize))
            .ok_or_else(|| bad("a token id out of range"))?;
        *slot = Some(token);
    }
    if vocab.len() != rows {
        return Err(bad("the vocabulary and the matrix differ in size"));
    }
    let ids: HashMap<&str, u32> = vocab
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.map(|t| (t, i as u32)))
        .collect();
    let mut merges: Vec<[u32; 3]> = Vec::new();
    for m in model["merges"].as_array().ok_or_else(|| bad("no merges"))? {
        let text = m.as_str().ok_or_else(|| bad("a merge is not text"))?;
        let (left, right) = text
            .split_once(' ')
            .ok_or_else(|| bad("a merge has no pair"))?;
        let merged = format!("{left}{right}");
        match (ids.get(left), ids.get(right), ids.get(merged.as_str())) {
            (Some(l), Some(r), Some(m)) => merges.push([*l, *r, *m]),
            _ => return Err(bad(&format!("the merge {text:?} names an unknown token"))),
        }
    }

    let mut out = b"N2SEMB01".to_vec();
    for n in [rows, dims, merges.len()] {
        out.extend((n as u32).to_le_bytes());
    }
    for token in &vocab {
        let token = token.ok_or_else(|| bad("a token id is missing"))?;
        out.extend((token.len() as u16).to_le_bytes());
        out.extend(token.as_bytes());
    }
    for m in &merges {
        for x in m {
            out.extend(x.to_le_bytes());
        }
    }
    let floats: Vec<f32> = halves.chunks_exact(2).map(|b| f16(b[0], b[1])).collect();
    let scales: Vec<f32> = floats
        .chunks_exact(dims)
        .map(|row| row.iter().fold(0f32, |m, x| m.max(x.abs())) / 127.0)
        .collect();
    for s in &scales {
        out.extend(s.to_le_bytes());
    }
    for (row, scale) in floats.chunks_exact(dims).zip(&scales) {
        for x in row {
            let q = if *scale > 0.0 {
                (x / scale).round()
            } else {
                0.0
            };
            out.push(q.clamp(-127.0, 127.0) as i8 as u8);
        }
    }
    Ok(out)
}

/// The one half-precision matrix of a safetensors file: rows, columns and its bytes.
fn matrix(file: &[u8]) -> Result<(usize, usize, &[u8]), Failure> {
    let len = file
        .get(..8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as usize)
        .ok_or_else(|| bad("a short safetensors file"))?;
    let body = len
        .checked_add(8)
        .ok_or_else(|| bad("a safetensors header too long"))?;
    let header: serde_json::Value = file
        .get(8..body)
        .and_then(|h| serde_json::from_slice(h).ok())
        .ok_or_else(|| bad("a safetensors header that is not JSON"))?;
    let tensor = &header["embedding.weight"];
    let shape: Vec<usize> = (tensor["shape"].as_array().into_iter().flatten())
        .filter_map(|x| x.as_u64().map(|x| x as usize))
        .collect();
    let offsets: Vec<usize> = (tensor["data_offsets"].as_array().into_iter().flatten())
        .filter_map(|x| x.as_u64().map(|x| x as usize))
        .collect();
    match (tensor["dtype"].as_str(), &shape[..], &offsets[..]) {
        (Some("F16"), &[rows, dims], &[start, end])
            if dims > 0
                && rows.checked_mul(dims).and_then(|n| n.checked_mul(2))
                    == end.checked_sub(start) =>
        {
            (body.checked_add(start).zip(body.checked_add(end)))
                .and_then(|(a, b)| file.get(a..b))
                .map(|data| (rows, dims, data))
                .ok_or_else(|| bad("the matrix runs past the file"))
        }
        _ => Err(bad("embedding.weight is not a half-precision matrix")),
    }
}

/// IEEE half precision to single.
fn f16(lo: u8, hi: u8) -> f32 {
    let bits = u16::from_le_bytes([lo, hi]);
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let fraction = f32::from(bits & 0x3ff);
    sign * match exponent {
        0 => fraction * 2f32.powi(-24),
        31 if fraction == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + fraction / 1024.0) * 2f32.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::f16;

    #[test]
    fn half_precision_decodes() {
        assert_eq!(f16(0x00, 0x3c), 1.0);
        assert_eq!(f16(0x00, 0xc0), -2.0);
        assert_eq!(f16(0x01, 0x00), 2f32.powi(-24));
        assert_eq!(f16(0x55, 0x35), 0.333_251_95);
    }
}
