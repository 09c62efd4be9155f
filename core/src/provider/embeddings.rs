//! Provider embeddings over the OpenAI wire (`POST {base}/embeddings`), which OpenAI, Ollama,
//! LM Studio, vLLM and OpenRouter all speak, sent in batches.

use super::failure::{classify, from_transport};
use super::{Provider, Wire};
use crate::datasource::LocalBoxFuture;
use crate::error::Error;
use crate::http::{HttpRequest, HttpTransport};
use crate::index::{Embedder, Vector};
use crate::provider::redact_keys;
use std::cell::Cell;
use std::rc::Rc;

/// Embeds texts with a provider's model, `batch_size` texts per request, one request at a
/// time (a provider's rate limit is per key, so parallel batches would only trip it sooner).
pub struct ProviderEmbedder {
    transport: Rc<dyn HttpTransport>,
    provider: Provider,
    model: String,
    dimensions: Option<u32>,
    batch_size: usize,
    timeout_ms: u64,
    requests: Cell<u32>,
    tokens: Cell<u64>,
}

#[derive(serde::Serialize)]
struct Request<'t> {
    model: &'t str,
    input: &'t [String],
    encoding_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<u32>,
}

#[derive(serde::Deserialize)]
struct Response {
    data: Vec<Datum>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(serde::Deserialize)]
struct Datum {
    index: usize,
    embedding: Vec<f32>,
}

#[derive(serde::Deserialize)]
struct Usage {
    #[serde(default)]
    prompt_tokens: u64,
}

impl ProviderEmbedder {
    /// Embeds with `model` at `provider`, through `transport`. Defaults: 128 texts per
    /// request, 30 s per request, the model's own dimensions.
    pub fn new(transport: Rc<dyn HttpTransport>, provider: Provider, model: &str) -> Self {
        ProviderEmbedder {
            transport,
            provider,
            model: model.to_string(),
            dimensions: None,
            batch_size: 128,
            timeout_ms: 30_000,
            requests: Cell::new(0),
            tokens: Cell::new(0),
        }
    }

    /// At most `n` texts per request (at least one).
    pub fn with_batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// Asks for vectors of `n` dimensions (models that can shorten theirs, such as OpenAI's
    /// `text-embedding-3-*`).
    pub fn with_dimensions(mut self, n: u32) -> Self {
        self.dimensions = Some(n);
        self
    }

    /// Gives up on a request after `ms` milliseconds.
    pub fn with_timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = ms;
        self
    }

    /// Requests sent so far.
    pub fn requests(&self) -> u32 {
        self.requests.get()
    }

    /// Input tokens the provider reported so far.
    pub fn tokens(&self) -> u64 {
        self.tokens.get()
    }

    async fn embed_batch(&self, texts: &[String]) -> Result<Vec<Vector>, Error> {
        let body = serde_json::to_string(&Request {
            model: &self.model,
            input: texts,
            encoding_format: "float",
            dimensions: self.dimensions,
        })
        .map_err(|e| {
            crate::index::unsearchable(format!("the embeddings request could not be built: {e}"))
        })?;
        let request = HttpRequest {
            url: self.provider.url("/embeddings"),
            headers: self.provider.auth_headers(),
            body,
            timeout_ms: self.timeout_ms,
        };
        self.requests.set(self.requests.get().saturating_add(1));
        let response = self
            .transport
            .post(&request)
            .await
            .map_err(|f| crate::error::Error::from(from_transport(&self.provider, &f)))?;
        if let Some(failure) = classify(&self.provider, &self.model, &response) {
            return Err(failure.into());
        }
        let label = self.provider.label();
        let unreadable = |why: String| {
            crate::index::unsearchable(format!(
                "{label} answered the embeddings request with {}",
                redact_keys(&why, self.provider.key.expose())
            ))
        };
        if response.status != 200 {
            return Err(unreadable(format!(
                "HTTP {}: {}",
                response.status, response.body
            )));
        }
        let parsed: Response = serde_json::from_str(&response.body)
            .map_err(|e| unreadable(format!("a body that is not an embeddings list ({e})")))?;
        if let Some(usage) = parsed.usage {
            self.tokens
                .set(self.tokens.get().saturating_add(usage.prompt_tokens));
        }
        let mut slots: Vec<Option<Vector>> = vec![None; texts.len()];
        for datum in parsed.data {
            let slot = slots.get_mut(datum.index).ok_or_else(|| {
                unreadable(format!(
                    "a vector for input {}, which was not sent",
                    datum.index
                ))
            })?;
            *slot = Some(datum.embedding);
        }
        let mut vectors = Vec::with_capacity(texts.len());
        for (i, slot) in slots.into_iter().enumerate() {
            let mut v = slot.ok_or_else(|| unreadable(format!("no vector for input {i}")))?;
            if v.iter().any(|x| !x.is_finite()) {
                return Err(unreadable(format!(
                    "a vector with a non-finite number for input {i}"
                )));
            }
            normalize(&mut v);
            vectors.push(v);
        }
        Ok(vectors)
    }
}

/// Providers mostly return unit vectors already; Ollama's models need not.
fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

impl Embedder for ProviderEmbedder {
    fn id(&self) -> String {
        let wire = match self.provider.wire {
            Wire::OpenAi => "openai",
            Wire::Anthropic => "anthropic",
        };
        match self.dimensions {
            Some(d) => format!("{wire}:{}@{}/{d}", self.model, self.provider.base_url),
            None => format!("{wire}:{}@{}", self.model, self.provider.base_url),
        }
    }

    fn embed<'b>(&'b self, texts: &'b [String]) -> LocalBoxFuture<'b, Result<Vec<Vector>, Error>> {
        Box::pin(async move {
            if self.provider.wire == Wire::Anthropic {
                return Err(crate::index::unsearchable(
                    "Anthropic offers no embeddings: use an OpenAI-compatible endpoint or the built-in embedder",
                ));
            }
            // Providers refuse empty strings; an empty text has no features to embed anyway.
            let asked: Vec<(usize, String)> = texts
                .iter()
                .enumerate()
                .filter(|(_, t)| !t.trim().is_empty())
                .map(|(i, t)| (i, t.clone()))
                .collect();
            let mut vectors: Vec<Option<Vector>> = vec![None; texts.len()];
            let mut dims = None;
            for batch in asked.chunks(self.batch_size) {
                let inputs: Vec<String> = batch.iter().map(|(_, t)| t.clone()).collect();
                for ((i, _), v) in batch.iter().zip(self.embed_batch(&inputs).await?) {
                    if *dims.get_or_insert(v.len()) != v.len() {
                        return Err(crate::index::unsearchable(format!(
                            "the embeddings model returned vectors of {} and {} dimensions",
                            dims.unwrap_or_default(),
                            v.len()
                        )));
                    }
                    vectors[*i] = Some(v);
                }
            }
            let dims = dims.unwrap_or(1);
            Ok(vectors
                .into_iter()
                .map(|v| v.unwrap_or_else(|| vec![0.0; dims]))
                .collect())
        })
    }
}
