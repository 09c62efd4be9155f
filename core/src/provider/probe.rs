//! "Test connection": one tiny text call, so a person learns at once whether the key, the
//! base URL and the model work, in the provider's own words when they do not.

use super::chat::{read, request, transport_failed, ChatError, ChatRequest, Output};
use super::{Message, Provider, Role};
use crate::http::HttpTransport;

/// The question the probe asks; the mock provider answers it by this text.
pub const PROBE_QUESTION: &str = "Reply with the single word: ready";

/// A provider that answered.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Probe {
    /// The provider as a person names it.
    pub provider: String,
    /// The model that answered.
    pub model: String,
    /// Its reply, cut to 80 characters.
    pub reply: String,
}

impl Probe {
    /// One sentence for the settings page.
    pub fn summary(&self) -> String {
        format!(
            "{} answered with the model {}: {:?}.",
            self.provider, self.model, self.reply
        )
    }
}

/// Asks `model` at `provider` for one word.
pub async fn probe(
    provider: &Provider,
    model: &str,
    transport: &dyn HttpTransport,
) -> Result<Probe, ChatError> {
    let call = ChatRequest {
        model: model.to_string(),
        system: "You check that a connection works.".to_string(),
        messages: vec![Message {
            role: Role::User,
            content: PROBE_QUESTION.to_string(),
        }],
        temperature: None,
        max_tokens: 16,
        output: Output::Text,
        stream: false,
        timeout_ms: 20_000,
    };
    let http = request(provider, &call);
    let response = transport
        .post(&http)
        .await
        .map_err(|f| transport_failed(provider, &f))?;
    let answer = read(provider, &call, &response)?;
    Ok(Probe {
        provider: provider.label().to_string(),
        model: model.to_string(),
        reply: answer.content.trim().chars().take(80).collect(),
    })
}
