//! The answer card: the answer as it streams, then what it rests on — rows, checks, time,
//! model calls, tokens, cost, and which datasources answered and why.

use crate::state::AppState;
use leptos::prelude::*;
use serde_json::Value as Json;

#[component]
pub fn AnswerCard() -> impl IntoView {
    let state = expect_context::<AppState>();
    let run = state.run;
    let has_run = move || run.with(|r| r.running || r.result.is_some());
    move || {
        has_run().then(|| {
            let status = move || {
                run.with(|r| match &r.result {
                    None => "running".to_string(),
                    Some(res) => res["status"].as_str().unwrap_or("error").to_string(),
                })
            };
            view! {
                <article class="answer-card" data-status=status aria-live="polite">
                    <h2 class="question">{move || run.with(|r| r.question.clone())}</h2>
                    <Verified />
                    <p class="answer-text">
                        {move || run.with(|r| {
                            if r.answer.is_empty() && r.running {
                                if r.preview.is_some() { "Writing the answer…".to_string() } else { "Working on it…".to_string() }
                            } else {
                                r.answer.clone()
                            }
                        })}
                    </p>
                    <Headline />
                    <Facts />
                </article>
            }
        })
    }
}

/// The first blocking error, in plain words, when the run did not succeed.
#[component]
fn Headline() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.run.with(|r| {
            let res = r.result.as_ref()?;
            let e = res["errors"].as_array()?.first()?;
            let code = e["error_code"].as_str().unwrap_or_default().to_string();
            let code_attr = code.clone();
            let message = e["message"].as_str().unwrap_or_default().to_string();
            Some(view! {
                <p class="headline-error" data-code=code_attr>
                    <code>{code}</code>" "{message}
                </p>
            })
        })
    }
}

/// A verified query answered: say so, and which one.
#[component]
fn Verified() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.run.with(|r| {
            let curated = &r.result.as_ref()?["curated"];
            if curated["matched"] != true {
                return None;
            }
            let choice = curated["choice"].as_str().unwrap_or_default().to_string();
            let choice_attr = choice.clone();
            let by = if curated["reason"] == "code" {
                "matched by the engine, no model call"
            } else {
                "picked by the model"
            };
            Some(view! {
                <p class="verified" data-choice=choice_attr>
                    "✔ Verified query " <code>{choice}</code> " (" {by} ")"
                </p>
            })
        })
    }
}

#[component]
fn Facts() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.run.with(|r| {
            let Some(res) = &r.result else {
                let rows = r.preview.as_ref().map(|p| p.row_count);
                return rows
                    .map(|n| view! { <dl class="facts"><Fact name="rows" value=n.to_string() /></dl> }.into_any())
                    .unwrap_or_else(|| ().into_any());
            };
            let facts = facts_of(res);
            view! {
                <dl class="facts">
                    {facts.into_iter().map(|(name, value)| view! { <Fact name=name value=value /> }).collect_view()}
                </dl>
            }
            .into_any()
        })
    }
}

#[component]
fn Fact(name: &'static str, value: String) -> impl IntoView {
    view! {
        <div class="fact" data-fact=name>
            <dt>{name}</dt>
            <dd>{value}</dd>
        </div>
    }
}

/// The card's figures, from the result.
fn facts_of(res: &Json) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let subs = res["sub_queries"].as_array().cloned().unwrap_or_default();
    let rows = match res["combined"]["rows"].as_array() {
        Some(rows) => rows.len(),
        None => subs
            .iter()
            .map(|q| q["rows"].as_array().map_or(0, Vec::len))
            .sum(),
    };
    out.push(("rows", rows.to_string()));
    let checks: Vec<&Json> = subs
        .iter()
        .flat_map(|q| q["validation"].as_array().into_iter().flatten())
        .collect();
    let passed = checks.iter().filter(|c| c["passed"] == true).count();
    out.push(("checks passed", format!("{passed} of {}", checks.len())));
    let total = res["duration_ms"].as_u64().unwrap_or(0);
    let model: u64 = res["trace"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|n| n["llm_calls"].as_array().into_iter().flatten())
        .filter_map(|c| c["latency_ms"].as_u64())
        .sum();
    out.push(("time", format!("{total} ms")));
    out.push(("waiting on the model", format!("{model} ms")));
    let usage = &res["usage"];
    out.push((
        "model calls",
        format!(
            "{} ({} in sequence)",
            usage["calls"].as_u64().unwrap_or(0),
            res["sequential_llm_calls"].as_u64().unwrap_or(0)
        ),
    ));
    let tokens = |k: &str| usage[k].as_u64().map_or("?".to_string(), |n| n.to_string());
    out.push((
        "tokens",
        format!(
            "{} in / {} out",
            tokens("input_tokens"),
            tokens("output_tokens")
        ),
    ));
    out.push((
        "cost",
        usage["cost_usd"]
            .as_f64()
            .map_or("not priced".to_string(), |c| format!("${c:.4}")),
    ));
    let mut answered: Vec<String> = subs
        .iter()
        .filter_map(|q| q["datasource_id"].as_str().map(str::to_string))
        .collect();
    answered.dedup();
    if !answered.is_empty() {
        out.push(("answered from", answered.join(" + ")));
    }
    if let Some(why) = why_these(res) {
        out.push(("why", why));
    }
    out
}

/// Why these datasources: the explicit choice, the verified query, or the check's reason.
fn why_these(res: &Json) -> Option<String> {
    if res["curated"]["matched"] == true {
        return Some("a verified query matched the question".into());
    }
    if let Some(ds) = res["datasource"].as_str() {
        return Some(format!("you chose {ds}"));
    }
    let resolver = res["trace"]
        .as_array()?
        .iter()
        .find(|n| n["node"] == "datasource_resolver")?;
    resolver["outputs"]["verdict"]["reason"]
        .as_str()
        .filter(|r| !r.is_empty())
        .map(str::to_string)
}
