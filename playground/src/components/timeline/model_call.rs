//! One model call as the trace holds it (the exact prompt and the raw response), and one
//! error with its code.

use leptos::prelude::*;
use nl2sql_core::config::Role;
use nl2sql_core::error::PipelineError;
use nl2sql_core::result::LlmCall;

#[component]
pub fn ModelCall(call: LlmCall, number: usize) -> impl IntoView {
    let n = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
    let summary = format!(
        "Model call {number}: {} · {} ms · {} in ({} cached) / {} out",
        call.model,
        call.latency_ms,
        n(call.usage.input),
        n(call.usage.cached),
        n(call.usage.output)
    );
    // A structured answer is JSON: shown parsed too, for reading.
    let parsed = call
        .response
        .as_deref()
        .and_then(|r| serde_json::from_str::<serde_json::Value>(r).ok())
        .and_then(|p| serde_json::to_string_pretty(&p).ok());
    view! {
        <details class="model-call">
            <summary>{summary}</summary>
            {call.error.map(|e| view! { <p class="error">{e}</p> })}
            <h5>"System prompt"</h5>
            <pre class="prompt">{call.system}</pre>
            {call.messages.into_iter().map(|m| view! {
                <h5>{format!("Message ({})", match m.role { Role::User => "user", Role::Assistant => "assistant" })}</h5>
                <pre class="prompt">{m.content}</pre>
            }).collect_view()}
            <h5>"Raw response"</h5>
            <pre class="prompt">{call.response.unwrap_or_else(|| "(none)".to_string())}</pre>
            {parsed.map(|p| view! { <h5>"Parsed"</h5><pre class="json">{p}</pre> })}
        </details>
    }
}

#[component]
pub fn ErrorLine(error: PipelineError) -> impl IntoView {
    let code = error.error_code.as_str();
    let words = error
        .provider_response
        .map(|w| format!(" The provider said: {w}"));
    view! {
        <p class="error-line" data-code=code>
            <code>{code}</code>" "{error.message}{words}
        </p>
    }
}
