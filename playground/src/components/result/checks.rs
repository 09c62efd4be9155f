//! A plan in readable form, the checks it passed or failed, and a run's errors and
//! warnings, each with its code.

use crate::components::ErrorLine;
use leptos::prelude::*;
use nl2sql_core::error::{PipelineError, RunWarning};
use nl2sql_core::result::ValidationCheck;

#[component]
pub fn PlanText(plan: String) -> impl IntoView {
    view! {
        <details class="plan" open>
            <summary>"Plan"</summary>
            <p class="plan-text"><code>{plan}</code></p>
        </details>
    }
}

#[component]
pub fn Checks(checks: Vec<ValidationCheck>) -> impl IntoView {
    (!checks.is_empty()).then(|| {
        view! {
            <ul class="checks">
                {checks.into_iter().map(|c| {
                    let passed = c.passed;
                    let message = c.message;
                    view! {
                        <li class="check-item" data-passed=passed.to_string()>
                            <span aria-hidden="true">{if passed { "✔" } else { "✘" }}</span>" "{c.name.label()}
                            {(!message.is_empty()).then(|| view! { <span class="check-message">{format!(": {message}")}</span> })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
    })
}

#[component]
pub fn Problems(errors: Vec<PipelineError>, warnings: Vec<RunWarning>) -> impl IntoView {
    (!(errors.is_empty() && warnings.is_empty())).then(|| {
        view! {
            <div class="problems" role="alert">
                {errors.into_iter().map(|e| view! { <ErrorLine error=e /> }).collect_view()}
                {warnings.into_iter().map(|w| {
                    let code = w.code.as_str();
                    let recovered = w.recovered.then_some(" (a retry got past this)");
                    view! {
                        <p class="warning-line" data-code=code data-recovered=w.recovered.to_string()>
                            <code>{code}</code>" "{w.message}{recovered}
                        </p>
                    }
                }).collect_view()}
            </div>
        }
    })
}
