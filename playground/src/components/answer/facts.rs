//! The card's figures: from the result once there is one, the preview's rows before.

use crate::state::RunState;
use leptos::prelude::*;
use nl2sql_core::error::Node;
use nl2sql_core::result::QueryResult;

#[component]
pub fn Facts() -> impl IntoView {
    let run = expect_context::<RunState>();
    let facts = move || match run.result.get() {
        Some(res) => facts_of(&res),
        None => run.view.with(|r| {
            let rows = r.preview.as_ref().map(|p| p.row_count);
            rows.map(|n| vec![("rows", n.to_string())])
                .unwrap_or_default()
        }),
    };
    move || {
        let facts = facts();
        (!facts.is_empty()).then(|| {
            view! {
                <dl class="facts">
                    {facts.into_iter().map(|(name, value)| view! {
                        <div class="fact" data-fact=name>
                            <dt>{name}</dt>
                            <dd>{value}</dd>
                        </div>
                    }).collect_view()}
                </dl>
            }
        })
    }
}

fn facts_of(res: &QueryResult) -> Vec<(&'static str, String)> {
    let rows = match &res.combined {
        Some(combined) => combined.rows.len(),
        None => res.sub_queries.iter().map(|q| q.rows.len()).sum(),
    };
    let checks = res.sub_queries.iter().flat_map(|q| &q.validation);
    let (passed, all) = checks.fold((0, 0), |(p, n), c| (p + usize::from(c.passed), n + 1));
    let calls = res.trace.iter().flat_map(|n| &n.llm_calls);
    let model: u64 = calls.map(|c| c.latency_ms).sum();
    let usage = &res.usage;
    let tokens = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
    let mut out = vec![
        ("rows", rows.to_string()),
        ("checks passed", format!("{passed} of {all}")),
        ("time", format!("{} ms", res.duration_ms)),
        ("waiting on the model", format!("{model} ms")),
        (
            "model calls",
            format!("{} ({} in sequence)", usage.calls, res.sequential_llm_calls),
        ),
        (
            "tokens",
            format!(
                "{} in / {} out",
                tokens(usage.input_tokens),
                tokens(usage.output_tokens)
            ),
        ),
        (
            "cost",
            usage
                .cost_usd
                .map_or("not priced".to_string(), |c| format!("${c:.4}")),
        ),
    ];
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
