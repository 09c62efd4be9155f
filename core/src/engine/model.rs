//! Where a node's model calls go: [`Live`] sends them to a provider (waiting out a rate
//! limit or an outage when it may), [`super::Replay`] answers them from a recorded run. The
//! calling code ([`super::llm`]) sees only the [`Model`] trait, so it never depends on
//! either.

use super::control::{backoff_ms, Sleep};
use super::settings::Agent;
use crate::datasource::LocalBoxFuture;
use crate::error::{ErrorCode, Node};
use crate::http::HttpTransport;
use crate::provider::chat::{call, ChatAnswer, ChatError};
use crate::provider::ChatRequest;

/// Answers chat requests.
pub trait Model {
    /// One request made by `node` with `agent`'s provider; streamed pieces of the answer go
    /// to `on_delta`.
    fn chat<'a>(
        &'a self,
        agent: &'a Agent,
        node: Node,
        request: &'a ChatRequest,
        on_delta: &'a mut dyn FnMut(&str),
    ) -> LocalBoxFuture<'a, Result<ChatAnswer, ChatError>>;
}

/// A provider over HTTP.
pub struct Live<'a> {
    /// HTTP to the provider.
    pub transport: &'a dyn HttpTransport,
    /// Waits between tries after a rate limit or an outage; `None`: no second try.
    pub sleep: Option<&'a dyn Sleep>,
    /// Tries after the first, at most.
    pub retries: u32,
}

impl Model for Live<'_> {
    fn chat<'a>(
        &'a self,
        agent: &'a Agent,
        _node: Node,
        request: &'a ChatRequest,
        on_delta: &'a mut dyn FnMut(&str),
    ) -> LocalBoxFuture<'a, Result<ChatAnswer, ChatError>> {
        Box::pin(async move {
            let mut attempt = 0;
            loop {
                let answer = call(self.transport, &agent.provider, request, on_delta).await;
                let wait = match (&answer, self.sleep) {
                    (Err(ChatError::Provider(f)), Some(sleep))
                        if attempt < self.retries
                            && matches!(
                                f.code,
                                ErrorCode::ProviderRateLimited | ErrorCode::ProviderUnavailable
                            ) =>
                    {
                        attempt += 1;
                        let seed =
                            u64::from_str_radix(&hash(&request.system), 16).unwrap_or_default();
                        Some((sleep, backoff_ms(attempt, f.retry_after_ms, seed)))
                    }
                    _ => None,
                };
                match wait {
                    // Waiting longer than the call may take is pointless.
                    Some((sleep, ms)) if ms < agent.timeout_ms => sleep.sleep(ms).await,
                    _ => return answer,
                }
            }
        })
    }
}

/// FNV-1a of a text, as 16 hex digits.
pub fn hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}
