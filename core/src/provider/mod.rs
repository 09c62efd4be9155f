//! Model providers: who a call goes to, with which key, and what its failures mean.
//!
//! Pure request building and response reading; the bytes travel through an
//! [`crate::http::HttpTransport`]. The key lives in an [`ApiKey`], which never prints.

pub mod chat;
mod embeddings;
mod failure;
pub mod probe;

pub use crate::error::ProviderFailure;
#[cfg(feature = "internals")]
pub use chat::{ChatAnswer, ChatError};
pub use chat::{ChatRequest, Message, Output, Role, StructuredMethod, Usage};
pub use embeddings::ProviderEmbedder;
#[cfg(feature = "internals")]
pub use failure::{classify, from_transport};
pub use failure::redact_keys;

use std::fmt;

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// OpenAI's (Chat Completions, Embeddings), also spoken by Ollama, LM Studio, vLLM and
    /// OpenRouter at their own base URLs.
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

/// An API key. It never prints, whole or masked: `Debug` and `Display` show `[key]`, and
/// the only way to the text is [`ApiKey::expose`], which request builders call.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; surrounding white space (a pasted newline) is dropped.
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into().trim().to_string())
    }

    /// The key itself, for the request header and for redaction only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when there is no key (local servers such as Ollama need none).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[key]")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[key]")
    }
}

/// Where calls go: the wire, the base URL and the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// The wire format.
    pub wire: Wire,
    /// The API base, without a trailing slash, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The key; empty for servers that need none.
    pub key: ApiKey,
}

impl Provider {
    /// OpenAI's API.
    pub fn openai(key: ApiKey) -> Provider {
        Provider::new(Wire::OpenAi, "https://api.openai.com/v1", key)
    }

    /// Anthropic's API.
    pub fn anthropic(key: ApiKey) -> Provider {
        Provider::new(Wire::Anthropic, "https://api.anthropic.com/v1", key)
    }

    /// A local Ollama server's OpenAI-compatible API; no key.
    pub fn ollama() -> Provider {
        Provider::new(Wire::OpenAi, "http://localhost:11434/v1", ApiKey::default())
    }

    /// Any endpoint speaking `wire` at `base_url`.
    pub fn new(wire: Wire, base_url: &str, key: ApiKey) -> Provider {
        Provider {
            wire,
            base_url: base_url.trim().trim_end_matches('/').to_string(),
            key,
        }
    }

    /// The provider as a person names it, from the endpoint's host: "OpenAI", "Anthropic",
    /// "OpenRouter", "Ollama", or "The model provider" for a host no preset names.
    pub fn label(&self) -> &'static str {
        let host = host_of(&self.base_url);
        if host == "api.openai.com" {
            "OpenAI"
        } else if host == "api.anthropic.com" {
            "Anthropic"
        } else if host == "openrouter.ai" || host.ends_with(".openrouter.ai") {
            "OpenRouter"
        } else if host.ends_with(":11434") {
            "Ollama"
        } else {
            // An unknown host is named by the wire it speaks.
            match self.wire {
                Wire::OpenAi => "The OpenAI-compatible provider",
                Wire::Anthropic => "The Anthropic-compatible provider",
            }
        }
    }

    /// `base_url` joined with `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// The authentication headers this wire wants, none when there is no key.
    pub fn auth_headers(&self) -> Vec<(String, String)> {
        if self.key.is_empty() {
            return Vec::new();
        }
        match self.wire {
            Wire::OpenAi => vec![(
                "authorization".to_string(),
                format!("Bearer {}", self.key.expose()),
            )],
            Wire::Anthropic => vec![("x-api-key".to_string(), self.key.expose().to_string())],
        }
    }
}

/// The `host[:port]` of a URL, lower-cased.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    host.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_never_print() {
        let key = ApiKey::new(" sk-test-0123456789abcdefghij\n");
        assert_eq!(key.expose(), "sk-test-0123456789abcdefghij");
        let p = Provider::openai(key);
        let shown = format!("{p:?} {}", p.key);
        assert!(!shown.contains("0123456789"), "{shown}");
        assert_eq!(
            p.auth_headers(),
            vec![(
                "authorization".to_string(),
                "Bearer sk-test-0123456789abcdefghij".to_string()
            )]
        );
        assert!(Provider::ollama().auth_headers().is_empty());
    }

    #[test]
    fn labels_come_from_the_host() {
        let label = |url| Provider::new(Wire::OpenAi, url, ApiKey::default()).label();
        assert_eq!(label("https://api.openai.com/v1/"), "OpenAI");
        assert_eq!(label("https://openrouter.ai/api/v1"), "OpenRouter");
        assert_eq!(label("http://localhost:11434/v1"), "Ollama");
        assert_eq!(
            label("http://user:pw@10.0.0.2:8000/v1"),
            "The OpenAI-compatible provider"
        );
        assert_eq!(
            Provider::new(
                Wire::Anthropic,
                "https://llm.example.com/v1",
                ApiKey::default()
            )
            .label(),
            "The Anthropic-compatible provider"
        );
        assert_eq!(Provider::anthropic(ApiKey::default()).label(), "Anthropic");
        assert_eq!(
            Provider::new(Wire::OpenAi, "http://x/v1/", ApiKey::default()).url("/embeddings"),
            "http://x/v1/embeddings"
        );
    }
}
