//! The HTTP contract: how the engine reaches a model provider without doing I/O itself.
//!
//! Core builds requests and reads responses; an [`HttpTransport`] outside core sends them
//! (`fetch` with an `AbortController` in the browser, a blocking client in the command line,
//! the same clients against a local mock provider in tests). Every provider call is a JSON
//! `POST`, so that is all the contract offers.

use crate::datasource::LocalBoxFuture;
use std::fmt;

/// One JSON `POST`.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The full URL.
    pub url: String,
    /// Headers besides `content-type: application/json`, which transports always send.
    /// Values may hold secrets (an API key), so `Debug` prints only the names.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: String,
    /// Give up after this many milliseconds (the whole exchange, not just the connect).
    pub timeout_ms: u64,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpRequest")
            .field("url", &self.url)
            .field("headers", &names)
            .field("body_bytes", &self.body.len())
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// What came back: any status, the body read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// The HTTP status code.
    pub status: u16,
    /// Response headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
}

impl HttpResponse {
    /// The first header with this (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Why no response arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpFailure {
    /// The exchange took longer than the request's timeout.
    Timeout,
    /// The server could not be reached, or the connection broke; the transport's words.
    Unreachable(String),
    /// The caller cancelled the run while the request was in flight.
    Cancelled,
}

impl fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpFailure::Timeout => f.write_str("the request timed out"),
            HttpFailure::Unreachable(why) => write!(f, "the server could not be reached: {why}"),
            HttpFailure::Cancelled => f.write_str("the request was cancelled"),
        }
    }
}

/// Sends JSON `POST`s. The futures need not be `Send`: the browser has one thread.
pub trait HttpTransport {
    /// Sends `request` and reads the whole response, whatever its status.
    fn post<'a>(
        &'a self,
        request: &'a HttpRequest,
    ) -> LocalBoxFuture<'a, Result<HttpResponse, HttpFailure>>;

    /// Sends `request` and, when the status is a success, hands the body to `on_chunk` piece
    /// by piece as it arrives (each piece whole UTF-8); the response returned then has an
    /// empty body. Any other status comes back with its body whole, unstreamed.
    ///
    /// The default reads the whole body first: right, but with no early pieces.
    fn post_streaming<'a>(
        &'a self,
        request: &'a HttpRequest,
        on_chunk: &'a mut dyn FnMut(&str),
    ) -> LocalBoxFuture<'a, Result<HttpResponse, HttpFailure>> {
        Box::pin(async move {
            let mut response = self.post(request).await?;
            if (200..300).contains(&response.status) {
                on_chunk(&std::mem::take(&mut response.body));
            }
            Ok(response)
        })
    }
}

/// Turns bytes arriving in arbitrary pieces into whole UTF-8 text: a character split
/// between two pieces waits for the rest. Invalid bytes become U+FFFD.
#[derive(Debug, Default)]
pub struct Utf8Chunks {
    pending: Vec<u8>,
}

impl Utf8Chunks {
    /// The text completed by `bytes` (possibly empty).
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let valid = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            // A character cut at the end waits; an invalid one in the middle does not.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => self.pending.len(),
        };
        let rest = self.pending.split_off(valid);
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending = rest;
        text
    }

    /// Whatever is left when the stream ends.
    pub fn finish(self) -> String {
        String::from_utf8_lossy(&self.pending).into_owned()
    }
}

/// A transport that sends nothing: every request fails as unreachable. A replayed run holds
/// one, so no request can leave the machine even if a call were not answered from the
/// recording.
pub struct Offline;

impl HttpTransport for Offline {
    fn post<'a>(
        &'a self,
        _request: &'a HttpRequest,
    ) -> LocalBoxFuture<'a, Result<HttpResponse, HttpFailure>> {
        Box::pin(async {
            Err(HttpFailure::Unreachable(
                "a replayed run sends nothing".into(),
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_across_pieces_wait_for_their_rest() {
        let text = "naïve € 🎵";
        let bytes = text.as_bytes();
        let mut chunks = Utf8Chunks::default();
        let mut out = String::new();
        for b in bytes {
            out.push_str(&chunks.push(std::slice::from_ref(b)));
        }
        out.push_str(&chunks.finish());
        assert_eq!(out, text);
        let mut bad = Utf8Chunks::default();
        assert_eq!(bad.push(b"a\xffb"), "a\u{fffd}b");
    }
}
