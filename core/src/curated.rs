//! Verified queries: SQL a person wrote and checked, declared per datasource with the
//! phrasings that ask for it and typed parameters. A question that matches one is answered
//! by it: bound, policy-checked and run like any plan, often with no model call at all.
//!
//! Values are never spliced into SQL text. Numbers, checked and re-formatted by us, take
//! their placeholder's place in the parsed statement; text and dates enter the imported
//! plan as literals, which the renderer escapes like every other literal.

use crate::error::{ErrorCode, Node, PipelineError, Severity};
use crate::import::import_sql;
use crate::index::VerifiedPhrase;
use crate::plan::Plan;
use crate::policy::Policies;
use crate::schema::SchemaSnapshot;
use crate::validate::{validate, ValidatorSettings};
use serde::{Deserialize, Serialize};
use sqlparser::ast::{visit_expressions_mut, Expr, Query, Value as SqlValue};
use std::collections::BTreeMap;
use std::ops::ControlFlow;

/// A parameter's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    /// A whole number.
    Int,
    /// A finite number.
    Float,
    /// Text.
    String,
    /// A day, `YYYY-MM-DD`.
    Date,
}

/// One declared parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// Its type.
    #[serde(rename = "type")]
    pub kind: ParamType,
    /// The value when the question gives none; without one the parameter is required.
    #[serde(default)]
    pub default: Option<serde_json::Value>,
    /// Smallest allowed (numbers and dates).
    #[serde(default)]
    pub min: Option<serde_json::Value>,
    /// Largest allowed (numbers and dates).
    #[serde(default)]
    pub max: Option<serde_json::Value>,
    /// The allowed values (text only), matched without regard to case.
    #[serde(default)]
    pub choices: Vec<String>,
    /// A value for the index's phrasings and the checks.
    #[serde(default)]
    pub example: Option<serde_json::Value>,
}

/// One verified query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct VerifiedQuery {
    /// Unique per datasource, `^[a-z][a-z0-9_]*$`.
    pub id: String,
    /// What it answers, shown to the model and embedded.
    pub description: String,
    /// Phrasings that ask for it, with `{param}` placeholders.
    pub questions: Vec<String>,
    /// Its parameters by name.
    #[serde(default)]
    pub params: BTreeMap<String, ParamSpec>,
    /// One read-only statement with `:param` placeholders.
    pub sql: String,
}

/// The verified queries of every datasource.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Curated {
    /// Per datasource id.
    pub datasources: BTreeMap<String, Vec<VerifiedQuery>>,
}

/// A parameter's value, checked and typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum ParamValue {
    /// A whole number (in JavaScript a `bigint` beyond ±2^53, exactly).
    Int(#[cfg_attr(feature = "ts", ts(type = "number | bigint"))] i64),
    /// A finite number.
    Float(f64),
    /// Text or a date.
    Text(String),
}

impl Curated {
    /// Parses declarations (JSON) and checks every rule against the datasources' schemas.
    pub fn from_json(text: &str, schemas: &[&SchemaSnapshot]) -> Result<Curated, String> {
        let curated: Curated = serde_json::from_str(text).map_err(|e| e.to_string())?;
        curated.check(schemas)?;
        Ok(curated)
    }

    /// The queries of `datasource`.
    pub fn queries(&self, datasource: &str) -> &[VerifiedQuery] {
        self.datasources.get(datasource).map_or(&[], Vec::as_slice)
    }

    /// The query `id` of `datasource`.
    pub fn query(&self, datasource: &str, id: &str) -> Option<&VerifiedQuery> {
        self.queries(datasource).iter().find(|q| q.id == id)
    }

    /// Every rule of the format: slugs unique per datasource, placeholders declared and every
    /// parameter used, bounds and choices only where they apply, defaults and examples valid,
    /// and the SQL one read-only statement that imports as a plan with its examples bound.
    pub fn check(&self, schemas: &[&SchemaSnapshot]) -> Result<(), String> {
        for (datasource, queries) in &self.datasources {
            let schema = schema_of(schemas, datasource)?;
            let mut seen = Vec::new();
            for q in queries {
                check_query(datasource, schema, q, &seen)?;
                seen.push(q.id.clone());
            }
        }
        Ok(())
    }

    /// The queries that fit `schemas`, and one sentence for each that does not (or whose
    /// datasource is missing), naming it, with its datasource: a bad query is dropped
    /// alone, never the others.
    pub fn fitting(&self, schemas: &[&SchemaSnapshot]) -> (Curated, Vec<(String, String)>) {
        let mut kept = Curated::default();
        let mut dropped = Vec::new();
        for (datasource, queries) in &self.datasources {
            let schema = match schema_of(schemas, datasource) {
                Ok(schema) => schema,
                Err(e) => {
                    dropped.push((datasource.clone(), e));
                    continue;
                }
            };
            let mut seen = Vec::new();
            for q in queries {
                match check_query(datasource, schema, q, &seen) {
                    Ok(()) => {
                        seen.push(q.id.clone());
                        kept.datasources
                            .entry(datasource.clone())
                            .or_default()
                            .push(q.clone());
                    }
                    Err(e) => dropped.push((datasource.clone(), e)),
                }
            }
        }
        (kept, dropped)
    }

    /// The phrasings and descriptions of `datasource`'s queries for the schema index (its
    /// verified signal), placeholders filled with examples, each with the tables the SQL
    /// reads (so a role that cannot read them never sees the phrasing).
    pub fn phrases(&self, datasource: &str) -> Vec<VerifiedPhrase> {
        let mut out = Vec::new();
        for q in self.queries(datasource) {
            let examples: BTreeMap<String, ParamValue> = q
                .params
                .iter()
                .filter_map(|(n, s)| {
                    let v = s.example.as_ref().or(s.default.as_ref())?;
                    Some((n.clone(), typed(s, &json_text(v)).ok()?))
                })
                .collect();
            let reads = crate::guard::tables_read(&q.sql);
            for text in std::iter::once(&q.description).chain(&q.questions) {
                out.push(VerifiedPhrase {
                    query_id: q.id.clone(),
                    reads: reads.clone(),
                    text: fill(text, &examples),
                });
            }
        }
        out
    }
}

/// The schema of `datasource` among `schemas`.
fn schema_of<'s>(
    schemas: &[&'s SchemaSnapshot],
    datasource: &str,
) -> Result<&'s SchemaSnapshot, String> {
    schemas
        .iter()
        .find(|s| s.datasource_id == datasource)
        .copied()
        .ok_or_else(|| format!("verified queries name an unknown datasource {datasource:?}"))
}

/// Every rule of the format for one query of `datasource`, whose earlier ids are `seen`.
fn check_query(
    datasource: &str,
    schema: &SchemaSnapshot,
    q: &VerifiedQuery,
    seen: &[String],
) -> Result<(), String> {
    let at = format!("{datasource}.{}", q.id);
    let slug = q.id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && q.id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !slug || seen.contains(&q.id) {
        return Err(format!("{at}: the id must be a unique slug (a-z, 0-9, _)"));
    }
    if q.questions.is_empty() {
        return Err(format!("{at}: needs at least one phrasing"));
    }
    let mut used = Vec::new();
    for phrasing in &q.questions {
        for name in placeholders(phrasing) {
            if !q.params.contains_key(&name) {
                return Err(format!("{at}: {{{name}}} is not a declared parameter"));
            }
            used.push(name);
        }
    }
    for (name, spec) in &q.params {
        if !used.contains(name) {
            return Err(format!("{at}: the parameter {name} is in no phrasing"));
        }
        check_spec(spec).map_err(|e| format!("{at}.{name}: {e}"))?;
    }
    let examples = q
        .params
        .iter()
        .map(|(n, s)| {
            let v = s
                .example
                .as_ref()
                .or(s.default.as_ref())
                .ok_or_else(|| format!("{at}.{n}: needs an example or a default"))?;
            Ok((
                n.clone(),
                typed(s, &json_text(v)).map_err(|e| format!("{at}.{n}: {e}"))?,
            ))
        })
        .collect::<Result<BTreeMap<_, _>, String>>()?;
    let plan = bind(q, &examples, schema).map_err(|e| format!("{at}: {}", e.message))?;
    // The tables and columns must still be there; who may read them is decided per run.
    let everyone = Policies::read_all();
    let checked = validate(
        Some(&plan),
        schema,
        &everyone.scope(&[]),
        &ValidatorSettings::default(),
    );
    match checked.errors.first() {
        Some(e) => Err(format!("{at}: {}", e.message)),
        None => Ok(()),
    }
}

/// The `{name}` placeholders of a phrasing, in order.
pub fn placeholders(phrasing: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = phrasing;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(rest[open + 1..open + close].trim().to_string());
        rest = &rest[open + close + 1..];
    }
    out
}

fn fill(text: &str, values: &BTreeMap<String, ParamValue>) -> String {
    let mut out = text.to_string();
    for (name, v) in values {
        let shown = match v {
            ParamValue::Int(i) => i.to_string(),
            ParamValue::Float(f) => f.to_string(),
            ParamValue::Text(t) => t.clone(),
        };
        out = out.replace(&format!("{{{name}}}"), &shown);
    }
    out
}

fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn check_spec(spec: &ParamSpec) -> Result<(), String> {
    let numeric = matches!(
        spec.kind,
        ParamType::Int | ParamType::Float | ParamType::Date
    );
    if !numeric && (spec.min.is_some() || spec.max.is_some()) {
        return Err("min and max apply to int, float and date only".into());
    }
    if spec.kind != ParamType::String && !spec.choices.is_empty() {
        return Err("choices apply to string only".into());
    }
    for bound in [&spec.min, &spec.max].into_iter().flatten() {
        let bare = ParamSpec {
            min: None,
            max: None,
            ..spec.clone()
        };
        typed(&bare, &json_text(bound))?;
    }
    for v in [&spec.default, &spec.example].into_iter().flatten() {
        typed(spec, &json_text(v))?;
    }
    Ok(())
}

/// `raw` as a value of `spec`'s type, within its bounds and choices (a choice is returned
/// as declared, whatever case the question used).
pub fn typed(spec: &ParamSpec, raw: &str) -> Result<ParamValue, String> {
    let raw = raw.trim();
    let value = match spec.kind {
        ParamType::Int => raw
            .replace(',', "")
            .parse::<i64>()
            .map(ParamValue::Int)
            .map_err(|_| format!("{raw:?} is not a whole number"))?,
        ParamType::Float => match raw.replace(',', "").parse::<f64>() {
            Ok(f) if f.is_finite() => ParamValue::Float(f),
            _ => return Err(format!("{raw:?} is not a number")),
        },
        ParamType::Date => {
            let b = raw.as_bytes();
            let iso = b.len() == 10
                && b[4] == b'-'
                && b[7] == b'-'
                && b.iter()
                    .enumerate()
                    .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
            if !iso {
                return Err(format!("{raw:?} is not a date (YYYY-MM-DD)"));
            }
            ParamValue::Text(raw.to_string())
        }
        ParamType::String => {
            if spec.choices.is_empty() {
                ParamValue::Text(raw.to_string())
            } else {
                let found = spec.choices.iter().find(|c| c.eq_ignore_ascii_case(raw));
                ParamValue::Text(
                    found
                        .ok_or_else(|| {
                            format!("{raw:?} is not one of {}", spec.choices.join(", "))
                        })?
                        .clone(),
                )
            }
        }
    };
    let number = |v: &ParamValue| match v {
        ParamValue::Int(i) => Some(*i as f64),
        ParamValue::Float(f) => Some(*f),
        ParamValue::Text(_) => None,
    };
    let outside = |bound: &serde_json::Value, below: bool| -> bool {
        let b = json_text(bound);
        match (number(&value), b.parse::<f64>().ok(), &value) {
            (Some(v), Some(b), _) => {
                if below {
                    v < b
                } else {
                    v > b
                }
            }
            (None, _, ParamValue::Text(t)) => {
                if below {
                    t.as_str() < b.as_str()
                } else {
                    t.as_str() > b.as_str()
                }
            }
            _ => false,
        }
    };
    if let Some(min) = spec.min.as_ref().filter(|m| outside(m, true)) {
        return Err(format!("{raw} is below the minimum {}", json_text(min)));
    }
    if let Some(max) = spec.max.as_ref().filter(|m| outside(m, false)) {
        return Err(format!("{raw} is above the maximum {}", json_text(max)));
    }
    Ok(value)
}

/// Calls `f` on every literal value of `query` until it returns false. One traversal
/// for every caller: sqlparser's visitor is generic over its closure, and each instance of
/// it is a copy of the whole AST walk in the page's download.
pub(crate) fn each_value_mut(query: &mut Query, f: &mut dyn FnMut(&mut SqlValue) -> bool) {
    let _ = visit_expressions_mut(query, |expr| {
        if let Expr::Value(v) = expr {
            if !f(&mut v.value) {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
}

/// The sentinel a text parameter takes in the statement until the plan holds its value.
fn sentinel(name: &str) -> String {
    format!("__nl2sql_param_{name}__")
}

/// `q`'s statement with `values` bound, as a plan: numbers replace their placeholders in
/// the parsed statement, text goes in as a plan literal after import. Every placeholder
/// must have a value.
pub fn bind(
    q: &VerifiedQuery,
    values: &BTreeMap<String, ParamValue>,
    schema: &SchemaSnapshot,
) -> Result<Plan, PipelineError> {
    let fail = |message: String| {
        PipelineError::new(
            Node::SqlImport,
            ErrorCode::SqlImportFailed,
            Severity::Error,
            message,
        )
    };
    let dialect = nl2sql_plan::dialect::sql_dialect(schema.dialect);
    let mut query = crate::guard::parse_read_only(&q.sql, dialect).map_err(|e| {
        fail(format!(
            "the verified SQL is not one read-only query: {}",
            e.message
        ))
    })?;
    let mut missing = None;
    each_value_mut(&mut query, &mut |value| {
        if let SqlValue::Placeholder(p) = value {
            let name = p.trim_start_matches([':', '$', '@']).to_string();
            let replacement = match values.get(&name) {
                Some(ParamValue::Int(i)) => SqlValue::Number(i.to_string(), false),
                Some(ParamValue::Float(f)) => SqlValue::Number(f.to_string(), false),
                Some(ParamValue::Text(_)) => SqlValue::SingleQuotedString(sentinel(&name)),
                None => {
                    missing = Some(name);
                    return false;
                }
            };
            *value = replacement;
        }
        true
    });
    if let Some(name) = missing {
        return Err(fail(format!("the placeholder :{name} has no value")));
    }
    let plan = import_sql(&query.to_string(), schema, schema.dialect)?;
    let mut wire = serde_json::to_value(&plan).map_err(|e| fail(e.to_string()))?;
    for (name, v) in values {
        if let ParamValue::Text(t) = v {
            replace_text(&mut wire, &sentinel(name), t);
        }
    }
    // Read back from text, not from the value: the plan's one deserializer (the one for
    // JSON text) serves every caller, rather than a second copy in the download.
    Plan::from_json(&wire.to_string()).map_err(|e| fail(e.to_string()))
}

fn replace_text(v: &mut serde_json::Value, from: &str, to: &str) {
    match v {
        serde_json::Value::String(s) if s == from => *s = to.to_string(),
        serde_json::Value::Array(items) => items.iter_mut().for_each(|i| replace_text(i, from, to)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|i| replace_text(i, from, to)),
        _ => {}
    }
}

/// What the question's words give each parameter of `phrasing`, when the phrasing matches
/// the question as a whole (case, punctuation and spacing aside). Raw text, not yet typed.
pub fn extract(phrasing: &str, question: &str) -> Option<BTreeMap<String, String>> {
    let template = words(phrasing);
    let asked = words(question);
    // Compared without regard to case; a value is captured as the question spells it
    // ("France", not "france": text is compared exactly by the database).
    let spelt = spelt_words(question);
    let mut out = BTreeMap::new();
    matches(&template, (&asked, &spelt), &mut out).then_some(out)
}

/// The question's words as written, punctuation around them trimmed (as [`words`] trims).
fn spelt_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Lower-case words, punctuation dropped except inside words (`3.5`, `2024-01-31`) and
/// placeholders kept as `{name}`.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            if w.starts_with('{') && w.contains('}') {
                let end = w.find('}').map_or(w.len(), |i| i + 1);
                return w[..end].to_string();
            }
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

fn matches(
    template: &[String],
    (asked, spelt): (&[String], &[String]),
    out: &mut BTreeMap<String, String>,
) -> bool {
    let Some((first, rest)) = template.split_first() else {
        return asked.is_empty();
    };
    if let Some(name) = first.strip_prefix('{').and_then(|n| n.strip_suffix('}')) {
        // A value is one to four words; the shortest that lets the rest match wins.
        for take in 1..=asked.len().min(4) {
            let after = (&asked[take..], spelt.get(take..).unwrap_or_default());
            if matches(rest, after, out) {
                let value = spelt.get(..take).unwrap_or(&asked[..take]);
                out.insert(name.to_string(), value.join(" "));
                return true;
            }
        }
        return false;
    }
    asked.first() == Some(first)
        && matches(rest, (&asked[1..], spelt.get(1..).unwrap_or_default()), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrasings_match_whole_questions_and_capture_values() {
        let got = extract(
            "Who are the top {n} customers by total spend?",
            "who are the TOP 7 customers by total spend",
        );
        assert_eq!(got.and_then(|m| m.get("n").cloned()), Some("7".to_string()));
        assert!(extract(
            "Which tracks are in the {genre} genre?",
            "Which tracks are in the genre?"
        )
        .is_none());
        let got = extract(
            "Which tracks are in the {genre} genre?",
            "Which tracks are in the heavy metal genre?",
        );
        assert_eq!(
            got.and_then(|m| m.get("genre").cloned()),
            Some("heavy metal".to_string())
        );
        assert!(extract("sales by country", "sales by country and city").is_none());
        // Matched without regard to case, captured as spelt.
        let got = extract(
            "Invoices billed to {country}?",
            "invoices BILLED to New Zealand?",
        );
        assert_eq!(
            got.and_then(|m| m.get("country").cloned()),
            Some("New Zealand".to_string())
        );
    }

    #[test]
    fn a_query_that_no_longer_fits_is_dropped_alone_and_named() {
        let schema = nl2sql_plan::test_fixtures::schema();
        let mut declared: Curated = serde_json::from_str(
            r#"{"datasources": {"chinook": [
                {"id": "albums", "description": "Albums", "questions": ["How many albums are there?"],
                 "sql": "SELECT COUNT(*) AS n FROM Album"},
                {"id": "gone", "description": "A table that was dropped", "questions": ["How many playlists?"],
                 "sql": "SELECT COUNT(*) AS n FROM Playlist_Old"}
            ]}}"#,
        )
        .unwrap();
        let (kept, dropped) = declared.fitting(&[&schema]);
        let ids: Vec<&str> = kept
            .queries("chinook")
            .iter()
            .map(|q| q.id.as_str())
            .collect();
        assert_eq!(ids, ["albums"]);
        assert_eq!(dropped.len(), 1, "{dropped:?}");
        assert_eq!(dropped[0].0, "chinook", "named with its datasource");
        assert!(dropped[0].1.starts_with("chinook.gone: "), "{dropped:?}");
        assert!(declared.check(&[&schema]).is_err());
        // A datasource that is not there drops its queries with one sentence.
        declared.datasources = [("nowhere".to_string(), kept.queries("chinook").to_vec())]
            .into_iter()
            .collect();
        let (kept, dropped) = declared.fitting(&[&schema]);
        assert!(kept.datasources.is_empty());
        assert_eq!(dropped[0].0, "nowhere");
        assert!(dropped[0].1.contains("\"nowhere\""), "{dropped:?}");
    }

    #[test]
    fn values_are_typed_bounded_and_chosen() {
        let int = ParamSpec {
            kind: ParamType::Int,
            default: None,
            min: Some(1.into()),
            max: Some(100.into()),
            choices: vec![],
            example: None,
        };
        assert_eq!(typed(&int, "5"), Ok(ParamValue::Int(5)));
        assert!(typed(&int, "0").unwrap_err().contains("below the minimum"));
        assert!(typed(&int, "five").is_err());
        let genre = ParamSpec {
            kind: ParamType::String,
            choices: vec!["Rock".into(), "Jazz".into()],
            min: None,
            max: None,
            ..int.clone()
        };
        assert_eq!(typed(&genre, "rock"), Ok(ParamValue::Text("Rock".into())));
        assert!(typed(&genre, "polka").is_err());
        let day = ParamSpec {
            kind: ParamType::Date,
            min: Some("2009-01-01".into()),
            max: None,
            ..genre.clone()
        };
        let day = ParamSpec {
            choices: vec![],
            ..day
        };
        assert!(typed(&day, "2010-02-03").is_ok());
        assert!(typed(&day, "2008-12-31").is_err());
        assert!(typed(&day, "03/02/2010").is_err());
    }
}
