//! What a run produced, part by part: the plan in readable form, the checks, the SQL, the
//! rows, and every error and warning with its code.

use super::{ErrorLine, RowsView};
use crate::browser::{copy, download};
use crate::state::AppState;
use leptos::prelude::*;
use nl2sql_core::engine::{PlanSource, QueryResult, SubQuery};
use nl2sql_core::error::{PipelineError, RunWarning};
use nl2sql_core::validate::ValidationCheck;
use std::sync::Arc;

#[component]
pub fn ResultPanels() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.run.with(|r| {
            if let Some(res) = &r.result {
                return Some(view! { <Finished result=Arc::clone(res) /> }.into_any());
            }
            let p = r.preview.clone()?;
            Some(view! {
                <section class="panels">
                    {p.sql.map(|sql| view! { <SqlBlock sql=sql /> })}
                    <RowsView columns=p.columns rows=p.rows total=p.row_count truncated=false name="preview".to_string() />
                </section>
            }.into_any())
        })
    }
}

#[component]
fn Finished(result: Arc<QueryResult>) -> impl IntoView {
    let several = result.sub_queries.len() > 1;
    let trace = serde_json::to_string_pretty(result.as_ref()).unwrap_or_default();
    view! {
        <section class="panels">
            <div class="panel-actions">
                <button type="button" id="download-trace" on:click=move |_| { let _ = download("nl2sql-trace.json", "application/json", &trace); }>
                    "Download trace (JSON)"
                </button>
            </div>
            <Problems errors=result.errors.clone() warnings=result.warnings.clone() />
            {result.combined.clone().map(|combined| view! {
                <article class="part combined">
                    <h3>"Combined result"</h3>
                    <SqlBlock sql=combined.sql />
                    <RowsView
                        total=combined.rows.len()
                        columns=combined.columns
                        rows=combined.rows
                        truncated=combined.truncated
                        name="combined".to_string() />
                </article>
            })}
            {result.sub_queries.iter().cloned().map(|q| view! { <Part query=q several=several /> }).collect_view()}
        </section>
    }
}

/// One sub-query: plan, checks, SQL, rows.
#[component]
fn Part(query: SubQuery, several: bool) -> impl IntoView {
    let SubQuery {
        id,
        datasource_id: ds,
        plan,
        sql,
        validation,
        columns,
        rows,
        truncated,
        retry_count: retries,
        plan_source,
    } = query;
    let plan_text = plan.map(|p| p.to_string());
    let has_rows = !columns.is_empty();
    view! {
        <article class="part" data-sub-query=id.clone() data-datasource=ds.clone()>
            <h3>{if several { format!("{id} · {ds}") } else { format!("From {ds}") }}
                {(retries > 0).then(|| view! { <span class="retries">{format!(" · {retries} retries")}</span> })}
                {(plan_source == PlanSource::Cache).then(|| view! { <span class="plan-source" data-plan-source="cache">" · plan from the cache (planner skipped)"</span> })}
            </h3>
            {plan_text.map(|p| view! {
                <details class="plan" open>
                    <summary>"Plan"</summary>
                    <p class="plan-text"><code>{p}</code></p>
                </details>
            })}
            <Checks checks=validation />
            {sql.map(|s| view! { <SqlBlock sql=s /> })}
            {has_rows.then(|| view! {
                <RowsView
                    total=rows.len()
                    columns=columns
                    rows=rows
                    truncated=truncated
                    name=format!("{ds}-{id}") />
            })}
        </article>
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

/// SQL, highlighted, with a copy button.
#[component]
pub fn SqlBlock(sql: String) -> impl IntoView {
    let text = sql.clone();
    view! {
        <div class="sql-block">
            <pre class="sql"><code>
                {highlight(&sql).into_iter().map(|(class, t)| view! { <span class=class>{t}</span> }).collect_view()}
            </code></pre>
            <button type="button" class="copy" on:click=move |_| copy(&text)>"Copy"</button>
        </div>
    }
}

const KEYWORDS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "BY",
    "ORDER",
    "LIMIT",
    "OFFSET",
    "JOIN",
    "LEFT",
    "RIGHT",
    "INNER",
    "OUTER",
    "CROSS",
    "FULL",
    "ON",
    "AS",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "DESC",
    "ASC",
    "HAVING",
    "DISTINCT",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "WITH",
    "UNION",
    "ALL",
    "INTERSECT",
    "EXCEPT",
    "OVER",
    "PARTITION",
    "CAST",
    "LIKE",
    "BETWEEN",
    "EXISTS",
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "COALESCE",
    "ROUND",
];

/// Splits SQL into `(class, text)` pieces: keywords, strings, numbers, identifiers.
fn highlight(sql: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let chars: Vec<char> = sql.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let class = if c == '\'' || c == '"' {
            i += 1;
            while i < chars.len() {
                if chars[i] == c {
                    if chars.get(i + 1) == Some(&c) {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                i += 1;
            }
            if c == '\'' {
                "sql-string"
            } else {
                "sql-ident"
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            "sql-number"
        } else if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if KEYWORDS.contains(&word.to_uppercase().as_str()) {
                "sql-keyword"
            } else {
                "sql-name"
            }
        } else {
            i += 1;
            "sql-punct"
        };
        out.push((class, chars[start..i].iter().collect()));
    }
    out
}
