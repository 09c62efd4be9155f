//! `POST /v1/embeddings`: the built-in embedder's vectors, so a router fed them must route
//! exactly as the built-in embedder does; the list comes back in reverse order, as a
//! provider may send it.

use super::openai_error;
use nl2sql_core::adapter::BuiltinEmbedder;
use std::sync::atomic::{AtomicU32, Ordering};

/// The status and body for one embeddings request.
pub fn answer(json: &serde_json::Value, model: &str, batches: &AtomicU32) -> (u16, String) {
    let inputs: Vec<String> = match &json["input"] {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => Vec::new(),
    };
    if inputs.is_empty() || inputs.iter().any(|i| i.is_empty()) {
        return (
            400,
            openai_error(
                "invalid_request_error",
                "invalid_input",
                "'$.input' is invalid: empty strings are not accepted.",
            ),
        );
    }
    let embedder = BuiltinEmbedder::default();
    let batch = batches.fetch_add(1, Ordering::SeqCst);
    let mut tokens = 0;
    let mut data: Vec<serde_json::Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| {
            tokens += text.split_whitespace().count();
            let mut v = embedder.vector(text);
            if model == "fault-dims" {
                v.truncate(v.len() - (batch as usize % 2) * 8);
            }
            serde_json::json!({"object": "embedding", "index": index, "embedding": v})
        })
        .collect();
    data.reverse();
    let body = serde_json::json!({
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    });
    (200, body.to_string())
}
