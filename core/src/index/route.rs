//! Routing: which datasources a question belongs to. Five signals over the index (the
//! datasource descriptions, example questions, verified queries, tables, columns) and the
//! values the question names, each ranking datasources by their best entry, fused with
//! reciprocal rank fusion.

use super::embed::Embedder;
use super::store::{EntryKind, SchemaIndex};
use crate::error::Error;
use crate::policy::Scope;
use nl2sql_derive::Clean;
use serde::Serialize;

/// Routing settings (the reference engine's defaults).
/// The similarity a verified query's phrasing needs before it votes in routing.
const VERIFIED_FLOOR: f32 = 0.5;

#[derive(Debug, Clone, PartialEq)]
pub struct RouteSettings {
    /// Datasources kept after fusion.
    pub candidates: usize,
    /// A datasource whose best similarity is under this share of the best one's is dropped.
    pub floor_ratio: f32,
    /// At most this many go forward.
    pub max_datasources: usize,
    /// Entries each approximate signal looks at.
    pub vote_k: usize,
}

impl Default for RouteSettings {
    fn default() -> Self {
        RouteSettings {
            candidates: 3,
            floor_ratio: 0.5,
            max_datasources: 3,
            vote_k: 20,
        }
    }
}

/// Reciprocal rank fusion's constant.
const RRF_K: f32 = 60.0;

/// One entry of a signal's pool, for the trace.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PoolEntry {
    /// The datasource.
    pub datasource: String,
    /// The entry, as `kind: text` (table and column entries name themselves).
    pub entry: String,
    /// Its similarity to the question.
    pub similarity: f32,
}

/// One signal's search, as the trace records it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SignalRecord {
    /// `description`, `examples`, `verified`, `tables`, `columns` or `values`.
    pub name: String,
    /// The entries it looked at, most similar first.
    pub pool: Vec<PoolEntry>,
    /// Datasources by their best entry, best first; equally similar ones by id, as fusion
    /// breaks its ties.
    pub ranking: Vec<String>,
}

/// A datasource routing did not keep, and why.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Dropped {
    /// The datasource.
    pub id: String,
    /// `floor` (too far below the best) or `limit` (past the candidate count).
    pub reason: String,
}

/// Routing's first two datasources when the second matched about as well: it came first
/// in as many signals as the first did, or in at least one and one fewer, and fusion chose
/// between them on lower places.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CloseCall {
    /// The datasource ranked first.
    pub chosen: String,
    /// The one ranked second.
    pub runner_up: String,
    /// The signals that ranked the first one first.
    pub chosen_led: Vec<String>,
    /// The signals that ranked the second one first.
    pub runner_up_led: Vec<String>,
}

/// Routing's decision and how it was reached.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Routing {
    /// The datasources kept, best first.
    #[clean(keep)]
    pub ranked: Vec<String>,
    /// Those left out, with why.
    #[clean(keep)]
    pub dropped: Vec<Dropped>,
    /// Each signal that ranked something.
    #[clean(keep)]
    pub signals: Vec<SignalRecord>,
    /// Every reachable datasource's fused score, best first.
    #[clean(keep)]
    pub fused: Vec<(String, f32)>,
    /// When the first two were about equally good matches.
    #[clean(keep)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_call: Option<Box<CloseCall>>,
}

/// Ranks the datasources the scope reaches for `question`.
pub async fn route(
    index: &SchemaIndex,
    embedder: &dyn Embedder,
    question: &str,
    scope: &Scope<'_>,
    settings: &RouteSettings,
) -> Result<Routing, Error> {
    route_in_thread(index, embedder, question, None, scope, settings).await
}

/// [`route`] for a question that follows up a conversation on datasource `thread`: one
/// more signal, which the floor never drops, since a follow-up's own words may say little.
pub async fn route_in_thread(
    index: &SchemaIndex,
    embedder: &dyn Embedder,
    question: &str,
    thread: Option<&str>,
    scope: &Scope<'_>,
    settings: &RouteSettings,
) -> Result<Routing, Error> {
    let query = index.embed_query(embedder, question).await?;
    let mut reachable: Vec<String> = index
        .schemas()
        .iter()
        .map(|s| s.datasource_id.clone())
        .filter(|d| scope.can_reach(d))
        .collect();
    reachable.sort();

    let mut signals: Vec<SignalRecord> = Vec::new();
    let mut best: Vec<(String, f32)> = Vec::new();
    let searches = [
        ("description", EntryKind::Datasource, None),
        ("examples", EntryKind::Example, Some(settings.vote_k)),
        ("verified", EntryKind::Verified, Some(settings.vote_k)),
        ("tables", EntryKind::Table, Some(settings.vote_k)),
        ("columns", EntryKind::Column, Some(settings.vote_k)),
    ];
    let visible = index.visibility(scope);
    for (name, kind, k) in searches {
        let mut hits = index.search_visible(&query, kind, None, &visible, k);
        // An entry that shares nothing with the question is no evidence: without this, a
        // signal whose entries are all empty (datasources with no description) would
        // rank every datasource by id and tilt fusion toward the first in the alphabet.
        hits.retain(|h| h.similarity > 0.0);
        // A verified query is evidence only when it asks nearly the same thing; a
        // datasource with many verified queries must not win every question by count.
        if kind == EntryKind::Verified {
            hits.retain(|h| h.similarity >= VERIFIED_FLOOR);
        }
        let mut ranking: Vec<(String, f32)> = Vec::new();
        for h in &hits {
            if !ranking.iter().any(|(d, _)| *d == h.entry.datasource) {
                ranking.push((h.entry.datasource.clone(), h.similarity));
            }
            match best.iter_mut().find(|(d, _)| *d == h.entry.datasource) {
                Some((_, s)) => *s = s.max(h.similarity),
                None => best.push((h.entry.datasource.clone(), h.similarity)),
            }
        }
        if ranking.is_empty() {
            continue;
        }
        ranking.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        signals.push(SignalRecord {
            name: name.to_string(),
            pool: hits
                .iter()
                .map(|h| PoolEntry {
                    datasource: h.entry.datasource.clone(),
                    entry: describe(h.entry),
                    similarity: round(h.similarity),
                })
                .collect(),
            ranking: ranking.into_iter().map(|(d, _)| d).collect(),
        });
    }
    // Values the question names are evidence too: exact and case-insensitive matches only,
    // longer spans first.
    let hints = index.values().link(question, None, scope, 20);
    let mut by_value: Vec<String> = Vec::new();
    for h in hints
        .iter()
        .filter(|h| h.matched != super::values::MatchKind::Fuzzy)
    {
        if !by_value.contains(&h.datasource) {
            by_value.push(h.datasource.clone());
        }
    }
    if !by_value.is_empty() {
        signals.push(SignalRecord {
            name: "values".to_string(),
            pool: hints
                .iter()
                .map(|h| PoolEntry {
                    datasource: h.datasource.clone(),
                    entry: format!("value: {}", h.render()),
                    similarity: round(h.score),
                })
                .collect(),
            ranking: by_value,
        });
    }

    if let Some(d) = thread.filter(|d| reachable.iter().any(|r| r == d)) {
        signals.push(SignalRecord {
            name: "thread".to_string(),
            pool: vec![PoolEntry {
                datasource: d.to_string(),
                entry: "the conversation's datasource".to_string(),
                similarity: 1.0,
            }],
            ranking: vec![d.to_string()],
        });
    }

    let mut fused: Vec<(String, f32)> = reachable
        .iter()
        .map(|d| {
            let score = signals
                .iter()
                .map(|s| {
                    let rank = s
                        .ranking
                        .iter()
                        .position(|x| x == d)
                        .unwrap_or(s.ranking.len())
                        + 1;
                    1.0 / (RRF_K + rank as f32)
                })
                .sum::<f32>();
            (d.clone(), score)
        })
        .collect();
    // Best score first; ties go to the smaller id. Scores are compared rounded, so sums of
    // equal ranks taken in another order (which differ in the last bit) still tie.
    fused.sort_by(|a, b| round(b.1).total_cmp(&round(a.1)).then(a.0.cmp(&b.0)));

    let top = best
        .iter()
        .map(|(_, s)| *s)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut ranked = Vec::new();
    let mut dropped = Vec::new();
    for (i, (d, _)) in fused.iter().enumerate() {
        let similarity = best
            .iter()
            .find(|(x, _)| x == d)
            .map_or(f32::NEG_INFINITY, |(_, s)| *s);
        let named_by_value = signals
            .iter()
            .any(|s| (s.name == "values" || s.name == "thread") && s.ranking.contains(d));
        if i >= settings.candidates || ranked.len() >= settings.max_datasources {
            dropped.push(Dropped {
                id: d.clone(),
                reason: "limit".to_string(),
            });
        } else if top > 0.0 && similarity < settings.floor_ratio * top && !named_by_value {
            dropped.push(Dropped {
                id: d.clone(),
                reason: "floor".to_string(),
            });
        } else {
            ranked.push(d.clone());
        }
    }
    let close_call = close_call(&ranked, &signals);
    Ok(Routing {
        ranked,
        dropped,
        signals,
        fused: fused.into_iter().map(|(d, s)| (d, round(s))).collect(),
        close_call,
    })
}

/// The first two routing kept, when the second came first in as many signals as the first,
/// or in at least one and only one fewer (three signals to two is a split vote; neither
/// leading anything is one too: nothing told them apart). One kept, or the second dropped
/// by the floor: no close call.
fn close_call(ranked: &[String], signals: &[SignalRecord]) -> Option<Box<CloseCall>> {
    let [chosen, runner_up, ..] = ranked else {
        return None;
    };
    let led = |d: &String| -> Vec<String> {
        (signals.iter())
            .filter(|s| s.ranking.first() == Some(d))
            .map(|s| s.name.clone())
            .collect()
    };
    let (chosen_led, runner_up_led) = (led(chosen), led(runner_up));
    let (c, r) = (chosen_led.len(), runner_up_led.len());
    (r >= c || (r >= 1 && r + 1 >= c)).then(|| Box::new(CloseCall {
        chosen: chosen.clone(),
        runner_up: runner_up.clone(),
        chosen_led,
        runner_up_led,
    }))
}

/// Rounded for the trace, so records are byte-identical run to run and easy to read.
fn round(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}

/// How the trace names an entry: tables and columns by name; a datasource's description and
/// examples by what they are (their text may speak of tables the role may not read).
fn describe(e: &super::store::Entry) -> String {
    match (&e.table, &e.column, e.kind) {
        (Some(t), Some(c), _) => format!("column {t}.{c}"),
        (Some(t), None, _) => format!("table {t}"),
        (None, _, EntryKind::Datasource) => format!("description of {}", e.datasource),
        (None, _, EntryKind::Example) => format!("example question of {}", e.datasource),
        (None, _, _) => format!("entry of {}", e.datasource),
    }
}
