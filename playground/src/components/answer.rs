//! The answer card: the answer as it streams, then what it rests on — rows, checks, time,
//! model calls, tokens, cost, and which datasources answered and why.

use crate::state::AppState;
use leptos::prelude::*;
use nl2sql_core::engine::{MatchReason, QueryResult};
use nl2sql_core::error::Node;

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
                    Some(res) => res.status.as_str().to_string(),
                })
            };
            view! {
                <article class="answer-card" data-status=status aria-live="polite">
                    <h2 class="question">{move || run.with(|r| r.question.clone())}</h2>
                    {move || run.with(|r| r.result.as_ref().and_then(|res| res.follow_up.clone()))
                        .map(|f| view! { <super::FollowedAs record=f /> })}
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
            let e = r.result.as_ref()?.errors.first()?;
            let code = e.error_code.as_str();
            let code_attr = code;
            let message = e.message.clone();
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
            let curated = r.result.as_ref()?.curated.as_ref()?;
            if !curated.matched {
                return None;
            }
            let choice = curated.choice.clone().unwrap_or_default();
            let choice_attr = choice.clone();
            let by = if curated.reason == MatchReason::Code {
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
fn facts_of(res: &QueryResult) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let rows = match &res.combined {
        Some(combined) => combined.rows.len(),
        None => res.sub_queries.iter().map(|q| q.rows.len()).sum(),
    };
    out.push(("rows", rows.to_string()));
    let checks = res.sub_queries.iter().flat_map(|q| &q.validation);
    let (passed, all) = checks.fold((0, 0), |(p, n), c| (p + usize::from(c.passed), n + 1));
    out.push(("checks passed", format!("{passed} of {all}")));
    let model: u64 = res
        .trace
        .iter()
        .flat_map(|n| &n.llm_calls)
        .map(|c| c.latency_ms)
        .sum();
    out.push(("time", format!("{} ms", res.duration_ms)));
    out.push(("waiting on the model", format!("{model} ms")));
    let usage = &res.usage;
    out.push((
        "model calls",
        format!("{} ({} in sequence)", usage.calls, res.sequential_llm_calls),
    ));
    let tokens = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
    out.push((
        "tokens",
        format!(
            "{} in / {} out",
            tokens(usage.input_tokens),
            tokens(usage.output_tokens)
        ),
    ));
    out.push((
        "cost",
        usage
            .cost_usd
            .map_or("not priced".to_string(), |c| format!("${c:.4}")),
    ));
    let mut answered: Vec<&str> = res
        .sub_queries
        .iter()
        .map(|q| q.datasource_id.as_str())
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
fn why_these(res: &QueryResult) -> Option<String> {
    if res.curated.as_ref().is_some_and(|c| c.matched) {
        return Some("a verified query matched the question".into());
    }
    if let Some(ds) = &res.datasource {
        return Some(format!("you chose {ds}"));
    }
    let resolver = res
        .trace
        .iter()
        .find(|n| n.node() == Node::DatasourceResolver)?;
    let reason = &resolver.output.resolver()?.verdict.as_ref()?.reason;
    (!reason.is_empty()).then(|| reason.clone())
}
