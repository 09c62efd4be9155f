//! The curated matcher: a question a verified query answers is answered by it. Code decides
//! when one phrasing matches the whole question and its values parse (no model call);
//! otherwise, when a verified query is similar enough, one small structured call picks one
//! or none. Only the routed datasources' queries are searched. Every fallback says why,
//! and a fallback is never an error: the run goes on to the generated path.

use super::llm::{structured, Structured};
use super::node::{At, Record, Run};
use super::trace::{Candidate, CuratedMatch, MatchReason};
use super::{AnswerSource, Asked, Engine, SubQuery};
use crate::curated::{bind, extract, typed, Curated, ParamValue, VerifiedQuery};
use crate::error::{Node, PipelineError, RunWarning};
use crate::index::EntryKind;
use crate::policy::Scope;
use crate::provider::{Message, Role};
use crate::run::run_plan;
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;

/// Similarity below which no verified query is offered to the model. Higher than the
/// reference's 0.6 (set for OpenAI's embeddings): the built-in embedder scores questions
/// that merely share words higher.
pub const MATCH_FLOOR: f32 = 0.7;
/// Verified queries offered to the model at most.
const TOP_K: usize = 5;

/// The model's pick.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Choice {
    query_id: String,
    #[serde(default)]
    params: Vec<ChoiceParam>,
    #[serde(default)]
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChoiceParam {
    name: String,
    value: String,
}

const NONE: &str = "none_of_these";

const MATCHER_SYSTEM: &str = "Decide whether one of the verified queries below answers the question exactly. Pick one only when its meaning is exactly what the question asks (the same measure, grouping and filters); when unsure, pick none_of_these. Give each parameter the value the question states, as text; leave out parameters the question does not state.";

/// A verified query's answer: its sub-query, warnings, and where it came from.
pub(super) struct Verified {
    pub sub: SubQuery,
    pub warnings: Vec<RunWarning>,
    pub source: AnswerSource,
}

/// What the matcher decided, the calls it made one after another, and its outcome:
/// `Ok(Some)` a verified query answered; `Ok(None)` a fallback, recorded, and the run goes
/// on; `Err` the run must stop (cancelled, out of time, out of budget).
pub(super) struct Matched {
    /// `None` when the matcher never ran (the run was cancelled or out of time first).
    pub record: Option<CuratedMatch>,
    pub sequential: u32,
    pub outcome: Result<Option<Verified>, PipelineError>,
}

/// What the model is asked to choose among.
struct Offer<'m> {
    curated: &'m Curated,
    question: &'m str,
    searchable: &'m [&'m String],
    scope: &'m Scope<'m>,
}

type Pick<'c> = (String, &'c VerifiedQuery, BTreeMap<String, ParamValue>);

impl Engine<'_> {
    /// Tries the verified queries of the `routed` datasources.
    pub(super) async fn try_verified(
        &self,
        curated: &Curated,
        q: &Asked<'_>,
        routed: &[String],
        run: &Run<'_>,
    ) -> Matched {
        let mut record = CuratedMatch {
            matched: false,
            reason: MatchReason::NoCandidates,
            candidates: vec![],
            choice: None,
            params: BTreeMap::new(),
            detail: None,
        };
        let step = match run.begin::<CuratedMatch>(At::run()).await {
            Ok(step) => step,
            Err(e) => {
                return Matched {
                    record: None,
                    sequential: 0,
                    outcome: Err(e),
                }
            }
        };
        let mut calls = Vec::new();
        let outcome = self
            .match_and_run(curated, q, routed, run, &mut record, &mut calls)
            .await;
        let errors = outcome.as_ref().err().cloned().into_iter().collect();
        let sequential = u32::from(!calls.is_empty());
        step.end(Record {
            outputs: Some(record.clone()),
            errors,
            calls,
        });
        Matched {
            record: Some(record),
            sequential,
            outcome,
        }
    }

    /// The matcher's work: a phrasing matched by code, else by the model; the match bound,
    /// checked and run.
    async fn match_and_run(
        &self,
        curated: &Curated,
        q: &Asked<'_>,
        routed: &[String],
        run: &Run<'_>,
        record: &mut CuratedMatch,
        calls: &mut Vec<super::trace::LlmCall>,
    ) -> Result<Option<Verified>, PipelineError> {
        let searchable: Vec<&String> = routed
            .iter()
            .filter(|d| !curated.queries(d).is_empty())
            .collect();
        let picked = match by_code(curated, q.question, &searchable) {
            Ok(Some(hit)) => {
                record.reason = MatchReason::Code;
                Some(hit)
            }
            Ok(None) => {
                let offer = Offer {
                    curated,
                    question: q.question,
                    searchable: &searchable,
                    scope: &q.scope,
                };
                // The run stops, but the matcher's call stays on the record.
                self.by_model(&offer, run, record, calls)
                    .await
                    .inspect_err(|_| record.reason = MatchReason::ModelFailed)?
            }
            Err(detail) => {
                record.reason = MatchReason::ParamInvalid;
                record.detail = Some(detail);
                None
            }
        };
        let Some((datasource, query, params)) = picked else {
            return Ok(None);
        };
        record.choice = Some(format!("{datasource}.{}", query.id));
        record.params = params.clone();
        match self
            .run_verified(
                &datasource,
                query,
                &params,
                &q.scope,
                &self.bounded_validator(run),
            )
            .await
        {
            Ok((sub, warnings)) => {
                record.matched = true;
                run.rows(&sub);
                let source = AnswerSource::Verified {
                    id: query.id.clone(),
                    datasource_id: datasource,
                    params,
                };
                Ok(Some(Verified {
                    sub,
                    warnings,
                    source,
                }))
            }
            Err((reason, detail)) => {
                record.reason = reason;
                record.detail = Some(detail);
                Ok(None)
            }
        }
    }

    /// Offers the most similar verified queries to the model, when any is similar enough.
    async fn by_model<'c>(
        &self,
        offer: &Offer<'c>,
        run: &Run<'_>,
        record: &mut CuratedMatch,
        calls: &mut Vec<super::trace::LlmCall>,
    ) -> Result<Option<Pick<'c>>, PipelineError> {
        let best = self.similar(offer, record).await;
        match best.first() {
            None => {
                record.reason = MatchReason::NoCandidates;
                return Ok(None);
            }
            Some(top) if top.similarity < MATCH_FLOOR => {
                record.reason = MatchReason::BelowFloor;
                return Ok(None);
            }
            Some(_) => {}
        }
        let choice = match self.ask_model(offer, &best, run, calls).await {
            Ok(c) => c,
            Err(e) => {
                let e = run.explain(e);
                if e.error_code.is_fatal()
                    || matches!(
                        e.error_code,
                        crate::error::ErrorCode::Cancelled
                            | crate::error::ErrorCode::PipelineTimeout
                    )
                {
                    return Err(e);
                }
                record.reason = MatchReason::ModelFailed;
                record.detail = Some(e.message);
                return Ok(None);
            }
        };
        Ok(read_choice(offer.curated, &best, choice, record))
    }

    /// The verified queries (by their phrasings) most similar to the question, best first,
    /// at most [`TOP_K`]; also kept on the record.
    async fn similar(&self, offer: &Offer<'_>, record: &mut CuratedMatch) -> Vec<Candidate> {
        let index = self.catalog.index();
        let Ok(vector) = index
            .embed_query(self.catalog.embedder(), offer.question)
            .await
        else {
            record.detail = Some("the question could not be embedded".into());
            return Vec::new();
        };
        let mut best: Vec<Candidate> = Vec::new();
        for d in offer.searchable {
            for hit in index.search(&vector, EntryKind::Verified, Some(d), offer.scope, None) {
                let Some(id) = &hit.entry.verified_query else {
                    continue;
                };
                // Only a phrasing is a question asked the same way; the description
                // shares words with far too many questions to count as a match.
                if offer
                    .curated
                    .query(d, id)
                    .is_some_and(|q| q.description == hit.entry.text)
                {
                    continue;
                }
                if !best
                    .iter()
                    .any(|c| &c.query_id == id && &c.datasource_id == *d)
                {
                    best.push(Candidate {
                        datasource_id: d.to_string(),
                        query_id: id.clone(),
                        similarity: hit.similarity,
                    });
                }
            }
        }
        best.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
        best.truncate(TOP_K);
        record.candidates = best.clone();
        best
    }

    /// One small structured call: which of `best` answers the question, with its values.
    async fn ask_model(
        &self,
        offer: &Offer<'_>,
        best: &[Candidate],
        run: &Run<'_>,
        calls: &mut Vec<super::trace::LlmCall>,
    ) -> Result<Choice, PipelineError> {
        let offered: Vec<serde_json::Value> = best
            .iter()
            .filter_map(|c| {
                let q = offer.curated.query(&c.datasource_id, &c.query_id)?;
                let params: serde_json::Map<String, serde_json::Value> = q
                    .params
                    .iter()
                    .map(|(n, s)| (n.clone(), json!({"type": s.kind, "required": s.default.is_none(), "choices": s.choices})))
                    .collect();
                Some(json!({"id": format!("{}.{}", c.datasource_id, q.id), "description": q.description, "params": params}))
            })
            .collect();
        let agent = run.bounded(&self.settings.resolver);
        let now = || self.clock.now_ms();
        structured(
            &self.caller(&now),
            &agent,
            Structured {
                node: Node::CuratedMatcher,
                name: "verified_query_choice",
                description:
                    "The verified query that answers the question exactly, or none_of_these.",
                schema: choice_schema(),
                system: format!(
                    "{MATCHER_SYSTEM}\n\nVerified queries:\n{}",
                    serde_json::to_string(&offered).unwrap_or_default()
                ),
                messages: vec![Message {
                    role: Role::User,
                    content: format!("Question: {}", offer.question),
                }],
            },
            &|text| serde_json::from_str::<Choice>(text).map_err(|e| e.to_string()),
            calls,
            &run.budget,
        )
        .await
    }

    /// Binds, checks against the policy and runs a verified query; its warnings (a capped
    /// result) go to the answer.
    async fn run_verified(
        &self,
        datasource: &str,
        query: &VerifiedQuery,
        params: &BTreeMap<String, ParamValue>,
        scope: &Scope<'_>,
        settings: &crate::validate::ValidatorSettings,
    ) -> Result<(SubQuery, Vec<RunWarning>), (MatchReason, String)> {
        let (db, schema) = self
            .open(datasource)
            .map_err(|e| (MatchReason::ExecutionFailed, e.message))?;
        let plan =
            bind(query, params, schema).map_err(|e| (MatchReason::ExecutionFailed, e.message))?;
        let r = run_plan(&plan, db, schema, scope, settings).await;
        if let Some(e) = r.errors.iter().find(|e| e.severity.is_blocking()) {
            let reason = if e.error_code == crate::error::ErrorCode::SecurityViolation {
                MatchReason::PolicyDenied
            } else {
                MatchReason::ExecutionFailed
            };
            return Err((reason, e.message.clone()));
        }
        let frame = r.frame.unwrap_or_default();
        let sub = SubQuery {
            id: format!("verified_{}", query.id),
            datasource_id: datasource.to_string(),
            plan: Some(plan),
            sql: r.sql,
            validation: r.validation.checks,
            columns: frame.columns,
            rows: frame.rows,
            truncated: frame.truncated,
            retry_count: 0,
            plan_source: super::PlanSource::Verified,
        };
        Ok((sub, r.warnings))
    }
}

/// The model's choice among `best`, typed: a pick, or the fallback reason on the record.
fn read_choice<'c>(
    curated: &'c Curated,
    best: &[Candidate],
    choice: Choice,
    record: &mut CuratedMatch,
) -> Option<Pick<'c>> {
    if choice.query_id == NONE {
        record.reason = MatchReason::NoneOfThese;
        record.detail = Some(choice.reason);
        return None;
    }
    // `datasource.query`, or a bare query id when only one candidate has it.
    let found = best
        .iter()
        .find(|c| format!("{}.{}", c.datasource_id, c.query_id) == choice.query_id)
        .or_else(|| {
            let bare: Vec<&Candidate> = best
                .iter()
                .filter(|c| c.query_id == choice.query_id)
                .collect();
            match bare.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        });
    let Some((datasource, query)) = found.and_then(|c| {
        curated
            .query(&c.datasource_id, &c.query_id)
            .map(|q| (c.datasource_id.clone(), q))
    }) else {
        record.reason = MatchReason::UnknownQuery;
        record.detail = Some(choice.query_id);
        return None;
    };
    let raw: BTreeMap<String, String> = choice
        .params
        .into_iter()
        .map(|p| (p.name, p.value))
        .collect();
    match typed_params(query, &raw) {
        Ok(params) => {
            record.reason = MatchReason::Model;
            Some((datasource, query, params))
        }
        Err((reason, detail)) => {
            record.reason = reason;
            record.detail = Some(detail);
            None
        }
    }
}

/// The one verified query whose phrasing matches the whole question with values that
/// parse, if exactly one does. `Err` when phrasings matched but no values were valid.
#[allow(clippy::type_complexity)]
fn by_code<'c>(
    curated: &'c Curated,
    question: &str,
    searchable: &[&String],
) -> Result<Option<(String, &'c VerifiedQuery, BTreeMap<String, ParamValue>)>, String> {
    let mut hits: Vec<(String, &VerifiedQuery, BTreeMap<String, ParamValue>)> = Vec::new();
    let mut invalid = None;
    for d in searchable {
        for q in curated.queries(d) {
            let found = q.questions.iter().find_map(|p| {
                let raw = extract(p, question)?;
                match typed_params(q, &raw) {
                    Ok(params) => Some(params),
                    Err((_, why)) => {
                        invalid = Some(why);
                        None
                    }
                }
            });
            if let Some(params) = found {
                hits.push((d.to_string(), q, params));
            }
        }
    }
    match (hits.len(), invalid) {
        (1, _) => Ok(hits.pop()),
        (0, Some(why)) => Err(why),
        _ => Ok(None),
    }
}

/// Every parameter typed and checked, defaults filled in; a missing required one fails.
fn typed_params(
    q: &VerifiedQuery,
    raw: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, ParamValue>, (MatchReason, String)> {
    let mut out = BTreeMap::new();
    for (name, spec) in &q.params {
        let value = match (raw.get(name), &spec.default) {
            (Some(text), _) => typed(spec, text)
                .map_err(|e| (MatchReason::ParamInvalid, format!("{name}: {e}")))?,
            (None, Some(d)) => {
                let text = match d {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                typed(spec, &text)
                    .map_err(|e| (MatchReason::ParamInvalid, format!("{name}: {e}")))?
            }
            (None, None) => {
                return Err((
                    MatchReason::ParamMissing,
                    format!("the question gives no {name}"),
                ))
            }
        };
        out.insert(name.clone(), value);
    }
    Ok(out)
}

fn choice_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "query_id": {"type": "string", "description": "`datasource.query` from the list, or none_of_these."},
            "params": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
                "required": ["name", "value"],
                "additionalProperties": false
            }},
            "reason": {"type": "string"}
        },
        "required": ["query_id", "params", "reason"],
        "additionalProperties": false
    })
}
