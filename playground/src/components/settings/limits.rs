//! How runs go: the answer's writer, refining and speculative planning, and the limits on
//! calls, retries, time, rows and cost.

use super::fields::NumberField;
use crate::state::Settings;
use leptos::prelude::*;
use nl2sql_core::config::AnswerConfig;

#[component]
pub fn RunLimits() -> impl IntoView {
    let settings = expect_context::<Settings>();
    let r = settings.run;
    let save = move || settings.save();
    view! {
        <label>"Answer "
            <select id="answer-mode" on:change=move |ev| {
                let v = event_target_value(&ev);
                r.update(|c| c.answer = if v == "template" { AnswerConfig::Template } else { AnswerConfig::Llm });
                save();
            }>
                <option value="llm" selected=move || r.with(|c| c.answer == AnswerConfig::Llm)>"written by the model, streamed"</option>
                <option value="template" selected=move || r.with(|c| c.answer == AnswerConfig::Template)>"a sentence from the rows (no model call)"</option>
            </select>
        </label>
        <label class="check">
            <input type="checkbox" id="refiner" prop:checked=move || r.with(|c| c.refiner)
                on:change=move |ev| { let v = event_target_checked(&ev); r.update(|c| c.refiner = v); save(); } />
            " Refine rejected plans with a second call before retrying"
        </label>
        <label class="check">
            <input type="checkbox" id="speculative" prop:checked=move || r.with(|c| c.speculative_planning)
                on:change=move |ev| { let v = event_target_checked(&ev); r.update(|c| c.speculative_planning = v); save(); } />
            " Plan while the answerability check runs (one round trip faster; a refused question may still spend one planning call)"
        </label>
        <NumberField label="Model calls per question " id="max-calls" get=move || r.with(|c| c.max_llm_calls as f64) set=move |v| r.update(|c| c.max_llm_calls = v as u32) />
        <NumberField label="Retries after a rejection " id="retries" get=move || r.with(|c| c.retries_max as f64) set=move |v| r.update(|c| c.retries_max = v as u32) />
        <NumberField label="Time limit (ms) " id="timeout" get=move || r.with(|c| c.timeout_ms as f64) set=move |v| r.update(|c| c.timeout_ms = v as u64) />
        <NumberField label="Each query's time limit (ms; a datasource may set a shorter one) " id="query-timeout" get=move || r.with(|c| c.query_timeout_ms as f64) set=move |v| r.update(|c| c.query_timeout_ms = v as u64) />
        <NumberField label="Row cap " id="row-cap" get=move || r.with(|c| c.row_cap as f64) set=move |v| r.update(|c| c.row_cap = v as u64) />
        <label>"Cost limit per question (USD, empty: none) "
            <input type="number" id="max-cost" min="0" step="0.01" prop:value=move || r.with(|c| c.max_cost_usd.map(|v| v.to_string()).unwrap_or_default())
                on:change=move |ev| {
                    let v = event_target_value(&ev).trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
                    r.update(|c| c.max_cost_usd = v);
                    save();
                } />
        </label>
    }
}
