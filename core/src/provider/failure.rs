//! What a provider's refusal or failure means, in the engine's codes and in one sentence,
//! with the provider's own words kept for disclosure and anything key-like taken out.

use super::Provider;
use crate::error::{ErrorCode, ProviderFailure};
use crate::http::{HttpFailure, HttpResponse};

/// Classifies a response that is not a success, by what its status means. `None` for a
/// 2xx, and for a request the provider refused as it stands (400, 413, 422 and the other
/// client errors without a meaning of their own): a request the engine built wrongly, one
/// too large, or a parameter the model refuses — the calling node explains it with the
/// provider's words, and sending it again would not help.
pub fn classify(
    provider: &Provider,
    model: &str,
    response: &HttpResponse,
) -> Option<ProviderFailure> {
    let status = response.status;
    let (reason, words) = error_words(&response.body);
    let reason_is = |r: &str| reason.as_deref() == Some(r);
    let label = provider.label();
    let (code, message) = match status {
        200..=299 => return None,
        401 | 403 => (
            ErrorCode::ProviderAuthFailed,
            format!("{label} refused the API key: check that it is correct and may use {model}."),
        ),
        404 => (
            ErrorCode::ProviderModelUnavailable,
            model_unavailable(label, model),
        ),
        _ if reason_is("model_not_found") => (
            ErrorCode::ProviderModelUnavailable,
            model_unavailable(label, model),
        ),
        429 if reason_is("insufficient_quota") => (
            ErrorCode::ProviderQuotaExceeded,
            format!("{label} says the account's quota is used up: add credit or use another key."),
        ),
        402 => (
            ErrorCode::ProviderQuotaExceeded,
            format!("{label} asks for payment: add credit to the account or use another key."),
        ),
        429 => (
            ErrorCode::ProviderRateLimited,
            format!("{label} is limiting the rate of requests: wait a moment and ask again."),
        ),
        408 | 504 => (ErrorCode::ProviderTimeout, timed_out(label)),
        400..=499 => return None,
        500..=599 => (
            ErrorCode::ProviderUnavailable,
            format!("{label} failed to answer (HTTP {status}): try again later."),
        ),
        _ => (
            ErrorCode::ProviderUnavailable,
            format!(
                "{label} answered with HTTP {status}, which is not an answer: check the base URL."
            ),
        ),
    };
    let detail = match (&reason, words) {
        (Some(r), Some(w)) => format!("HTTP {status} ({r}): {w}"),
        (None, Some(w)) => format!("HTTP {status}: {w}"),
        (Some(r), None) => format!("HTTP {status} ({r})"),
        (None, None) => format!("HTTP {status}: {}", excerpt(&response.body)),
    };
    Some(ProviderFailure {
        code,
        provider: label.to_string(),
        message,
        provider_response: Some(redact_keys(&detail, provider.key.expose())),
        retry_after_ms: response.header("retry-after").and_then(retry_after_ms),
    })
}

/// A call that got no response at all.
pub fn from_transport(provider: &Provider, failure: &HttpFailure) -> ProviderFailure {
    let label = provider.label();
    let (code, message, words) = match failure {
        HttpFailure::Timeout => (ErrorCode::ProviderTimeout, timed_out(label), None),
        HttpFailure::Unreachable(why) => (
            ErrorCode::ProviderUnavailable,
            format!("{label} could not be reached: check the address and the network."),
            Some(redact_keys(why, provider.key.expose())),
        ),
        HttpFailure::Cancelled => (
            ErrorCode::Cancelled,
            format!(
                "The run was cancelled while waiting for {}.",
                lower_first(label)
            ),
            None,
        ),
    };
    ProviderFailure {
        code,
        provider: label.to_string(),
        message,
        provider_response: words,
        retry_after_ms: None,
    }
}

fn model_unavailable(label: &str, model: &str) -> String {
    format!("{label} does not offer the model {model} to this key: check the model's name.")
}

fn timed_out(label: &str) -> String {
    format!("{label} did not answer in time: try again, or allow a longer timeout.")
}

fn lower_first(label: &str) -> String {
    match label.strip_prefix("The ") {
        Some(rest) => format!("the {rest}"),
        None => label.to_string(),
    }
}

/// The reason code and message of an error body, in any of the shapes providers use:
/// OpenAI's `{"error": {"message", "type", "code"}}`, Anthropic's
/// `{"type": "error", "error": {"type", "message"}}`, or a plain `{"error": "…"}`.
fn error_words(body: &str) -> (Option<String>, Option<String>) {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(body) else {
        return (None, None);
    };
    let error = &json["error"];
    if let Some(text) = error.as_str() {
        return (None, Some(text.to_string()));
    }
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    let reason = text(&error["code"]).or_else(|| text(&error["type"]));
    (reason, text(&error["message"]))
}

fn excerpt(body: &str) -> String {
    let trimmed = body.trim();
    match trimmed.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &trimmed[..cut]),
        None if trimmed.is_empty() => "(empty body)".to_string(),
        None => trimmed.to_string(),
    }
}

/// `retry-after` in seconds (the HTTP-date form is not worth a date parser here).
fn retry_after_ms(value: &str) -> Option<u64> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).min(600_000.0) as u64)
}

const REDACTED: &str = "[redacted key]";

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Replaces anything key-like with `[redacted key]`: the key itself, a bearer token, a
/// token starting `sk-`, `pk-` or `rk-` (or `_`), whole or masked with `*` or `...`, and any
/// unbroken run of 32 or more letters, digits, `-` or `_`.
pub fn redact_keys(text: &str, key: &str) -> String {
    let text = if key.len() >= 8 {
        text.replace(key, REDACTED)
    } else {
        text.to_string()
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let at_word_start = i == 0 || !is_key_char(chars[i - 1]);
        if at_word_start {
            if let Some(end) = key_like_end(&chars, i) {
                out.push_str(REDACTED);
                i = end;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Where a key-like token starting at `start` ends, if one starts there.
fn key_like_end(chars: &[char], start: usize) -> Option<usize> {
    let word_end = |from: usize| {
        let mut j = from;
        while j < chars.len() && is_key_char(chars[j]) {
            j += 1;
        }
        j
    };
    let lower_at = |j: usize, s: &str| {
        s.chars().enumerate().all(|(k, c)| {
            chars
                .get(j + k)
                .is_some_and(|x| x.to_ascii_lowercase() == c)
        })
    };
    if lower_at(start, "bearer ") {
        let token_start = start + 7;
        let end = masked_end(chars, token_start, word_end(token_start));
        return (end > token_start).then_some(end);
    }
    let prefixed = ["sk", "pk", "rk"].iter().any(|p| lower_at(start, p))
        && matches!(chars.get(start + 2), Some('-' | '_'));
    if prefixed {
        let end = masked_end(chars, start, word_end(start));
        if end >= start + 6 {
            return Some(end);
        }
    }
    let end = word_end(start);
    (end - start >= 32).then_some(end)
}

/// Extends a token over masking (`*`, `...`) followed by more key characters, so that
/// `sk-abc...wxyz` and `sk-proj-****abcd` go whole.
fn masked_end(chars: &[char], start: usize, mut end: usize) -> usize {
    loop {
        let mut j = end;
        while j < chars.len() && (chars[j] == '*' || chars[j] == '.' || chars[j] == '…') {
            j += 1;
        }
        if j == end || j >= chars.len() || !is_key_char(chars[j]) {
            // Trailing stars belong to the mask; trailing dots end a sentence.
            while end < chars.len() && chars[end] == '*' {
                end += 1;
            }
            return end.max(start);
        }
        end = j;
        while end < chars.len() && is_key_char(chars[end]) {
            end += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{ApiKey, Wire};

    fn response(status: u16, body: &str) -> HttpResponse {
        HttpResponse {
            status,
            headers: vec![("retry-after".to_string(), "2".to_string())],
            body: body.to_string(),
        }
    }

    const KEY: &str = "sk-test-abcdefghijklmnop0123";

    fn openai() -> Provider {
        Provider::openai(ApiKey::new(KEY))
    }

    #[test]
    fn statuses_map_to_codes() {
        let code =
            |status, body: &str| classify(&openai(), "m", &response(status, body)).map(|f| f.code);
        assert_eq!(code(200, "{}"), None);
        assert_eq!(code(400, "{}"), None);
        // Refused as it stands: the node explains, and nothing is sent again.
        assert_eq!(code(413, "{}"), None);
        assert_eq!(code(422, "{}"), None);
        assert_eq!(code(402, ""), Some(ErrorCode::ProviderQuotaExceeded));
        assert_eq!(code(504, ""), Some(ErrorCode::ProviderTimeout));
        assert_eq!(code(302, ""), Some(ErrorCode::ProviderUnavailable));
        assert_eq!(code(401, ""), Some(ErrorCode::ProviderAuthFailed));
        assert_eq!(code(403, ""), Some(ErrorCode::ProviderAuthFailed));
        assert_eq!(code(404, ""), Some(ErrorCode::ProviderModelUnavailable));
        let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        assert_eq!(code(429, quota), Some(ErrorCode::ProviderQuotaExceeded));
        assert_eq!(code(429, "{}"), Some(ErrorCode::ProviderRateLimited));
        assert_eq!(code(408, ""), Some(ErrorCode::ProviderTimeout));
        assert_eq!(code(500, ""), Some(ErrorCode::ProviderUnavailable));
        assert_eq!(code(529, ""), Some(ErrorCode::ProviderUnavailable));
        let gone = r#"{"error":{"message":"no such model","code":"model_not_found"}}"#;
        assert_eq!(code(422, gone), Some(ErrorCode::ProviderModelUnavailable));
    }

    #[test]
    fn the_providers_words_are_kept_without_the_key() {
        let body = format!(
            r#"{{"error":{{"message":"Incorrect API key provided: {}. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#,
            "sk-test-********************0123"
        );
        let f = classify(&openai(), "gpt-x", &response(401, &body))
            .unwrap_or_else(|| panic!("classified"));
        assert_eq!(f.provider, "OpenAI");
        assert_eq!(
            f.message,
            "OpenAI refused the API key: check that it is correct and may use gpt-x."
        );
        let words = f.provider_response.unwrap_or_default();
        assert!(
            words.starts_with(
                "HTTP 401 (invalid_api_key): Incorrect API key provided: [redacted key]."
            ),
            "{words}"
        );
        assert!(!words.contains("0123"), "{words}");
        assert_eq!(f.retry_after_ms, Some(2000));
        let anthropic = Provider::new(
            Wire::Anthropic,
            "https://api.anthropic.com/v1",
            ApiKey::new(KEY),
        );
        let body = r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}"#;
        let f = classify(&anthropic, "claude", &response(429, body))
            .unwrap_or_else(|| panic!("classified"));
        assert_eq!(f.code, ErrorCode::ProviderRateLimited);
        assert_eq!(
            f.provider_response.as_deref(),
            Some("HTTP 429 (rate_limit_error): Number of requests has exceeded your rate limit")
        );
    }

    #[test]
    fn key_like_text_is_redacted() {
        let cases = [
            (format!("key {KEY} used"), "key [redacted key] used"),
            (
                "Authorization: Bearer abc.def-123".to_string(),
                "Authorization: [redacted key]",
            ),
            ("got sk-abc...wxyz.".to_string(), "got [redacted key]."),
            ("got sk-proj-****abcd!".to_string(), "got [redacted key]!"),
            (
                "pk_live_12345678 and rk-zz".to_string(),
                "[redacted key] and rk-zz",
            ),
            (
                format!("id {} end", "a".repeat(40)),
                "id [redacted key] end",
            ),
            ("task-sk-1234567 stays".to_string(), "task-sk-1234567 stays"),
            (
                "an ordinary sentence about skills.".to_string(),
                "an ordinary sentence about skills.",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(redact_keys(&input, KEY), want, "{input}");
        }
    }

    #[test]
    fn transport_failures_map_to_codes() {
        let p = openai();
        assert_eq!(
            from_transport(&p, &HttpFailure::Timeout).code,
            ErrorCode::ProviderTimeout
        );
        let f = from_transport(&p, &HttpFailure::Unreachable(format!("refused with {KEY}")));
        assert_eq!(f.code, ErrorCode::ProviderUnavailable);
        assert_eq!(
            f.provider_response.as_deref(),
            Some("refused with [redacted key]")
        );
        let f = from_transport(
            &Provider::new(Wire::OpenAi, "http://10.1.1.1/v1", ApiKey::default()),
            &HttpFailure::Cancelled,
        );
        assert_eq!(f.code, ErrorCode::Cancelled);
        assert_eq!(
            f.message,
            "The run was cancelled while waiting for the OpenAI-compatible provider."
        );
    }
}
