//! The decomposer: a question that needs several datasources becomes one sub-question per
//! datasource, each with the columns it must return and the key it joins on, plus how the
//! results combine and what happens after. The model proposes; [`check`] decides whether
//! the proposal is usable before any sub-query is planned.

use crate::schema::TypeCategory;
use nl2sql_derive::Clean;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeSet;

/// How the sub-results are put together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CombineKind {
    /// Rows whose keys match in every sub-result (an inner join on the keys).
    Join,
    /// All rows of all sub-results, one after another (the same columns in each).
    Union,
    /// One row per key found in any sub-result, each sub-result's values side by side.
    Compare,
}

/// What a join key holds, as the decomposer declares it for every part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    /// Whole numbers (ids).
    Number,
    /// Text (emails, names, codes).
    Text,
    /// Calendar dates.
    Date,
}

impl KeyKind {
    /// The schema category a key column of this kind is checked against.
    pub fn category(self) -> TypeCategory {
        match self {
            KeyKind::Number => TypeCategory::Number,
            KeyKind::Text => TypeCategory::Text,
            KeyKind::Date => TypeCategory::Temporal,
        }
    }
}

/// One part of the question, for one datasource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SubQuestion {
    /// Stable id: `q1`, `q2`, …
    pub id: String,
    /// The datasource that answers it.
    pub datasource: String,
    /// The part of the question this datasource answers, as a question.
    pub question: String,
    /// The result columns, named and ordered as the combination needs them.
    pub columns: Vec<String>,
    /// The column among `columns` that joins it to the others (join and compare).
    pub key: Option<String>,
    /// What the key holds, the same in every part. Absent in decompositions recorded
    /// before it was asked for; the aggregator then infers it from the values.
    #[serde(default)]
    pub key_type: Option<KeyKind>,
}

/// One ordering applied after the combination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PostOrder {
    /// A column of the combined result.
    pub column: String,
    /// Largest first.
    pub descending: bool,
}

/// The decomposer's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Clean)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Decomposition {
    /// The parts, one or more per datasource.
    #[clean(keep)]
    pub sub_queries: Vec<SubQuestion>,
    /// How their results combine.
    #[clean(keep)]
    pub combine: CombineKind,
    /// Ordering of the combined rows.
    #[serde(default)]
    #[clean(keep)]
    pub order_by: Vec<PostOrder>,
    /// At most this many combined rows.
    #[serde(default)]
    #[clean(keep)]
    pub limit: Option<u64>,
}

/// Where a combined column comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The column `column` of part number `part`.
    Part {
        /// Index into `sub_queries`.
        part: usize,
        /// The part's column name.
        column: String,
    },
    /// The compare key, from whichever part has the row.
    Key,
}

impl Decomposition {
    /// The combined result's columns and where each comes from: for a join, the first
    /// part's columns and then each other part's non-key columns; for a union, the first
    /// part's; for a compare, the key and then each part's non-key columns. A name already
    /// taken is prefixed with the part's id (`q2_total`).
    pub fn layout(&self) -> Vec<(String, Source)> {
        let mut out: Vec<(String, Source)> = Vec::new();
        let push = |out: &mut Vec<(String, Source)>, part: usize, column: &str| {
            let taken = out.iter().any(|(n, _)| n == column);
            let name = match (taken, self.sub_queries.get(part)) {
                (true, Some(p)) => format!("{}_{column}", p.id),
                _ => column.to_string(),
            };
            out.push((
                name,
                Source::Part {
                    part,
                    column: column.to_string(),
                },
            ));
        };
        match self.combine {
            CombineKind::Union => {
                if let Some(first) = self.sub_queries.first() {
                    for c in &first.columns {
                        push(&mut out, 0, c);
                    }
                }
            }
            CombineKind::Join | CombineKind::Compare => {
                let compare = self.combine == CombineKind::Compare;
                if let (true, Some(key)) = (
                    compare,
                    self.sub_queries.first().and_then(|p| p.key.clone()),
                ) {
                    out.push((key, Source::Key));
                }
                for (i, part) in self.sub_queries.iter().enumerate() {
                    for c in &part.columns {
                        let is_key = part.key.as_deref() == Some(c.as_str());
                        if !is_key || (i == 0 && !compare) {
                            push(&mut out, i, c);
                        }
                    }
                }
            }
        }
        out
    }

    /// The combined result's column names (see [`Decomposition::layout`]).
    pub fn output_columns(&self) -> Vec<String> {
        self.layout().into_iter().map(|(n, _)| n).collect()
    }
}

/// The decomposer's instructions.
pub const DECOMPOSER_SYSTEM: &str = "The question needs data from more than one datasource, and no query can read two datasources at once. Split it into sub-questions, one per datasource (or more), that the engine answers separately and then combines itself.

Rules:
1. Each sub-question is a complete question one datasource can answer on its own, with the filters that belong to it.
2. `columns` names the result columns the sub-question must return, in order, as short snake_case names.
3. For `join` (keep the rows whose keys match in every part) and `compare` (every key from any part, the parts' values side by side), give each part a `key`: one of its own columns holding the same thing in every part (an email, an id, a country name), and a `key_type` saying what it holds: `number`, `text` or `date`, the same in every part. For `union` (rows of all parts together), every part returns the same columns and `key` and `key_type` are null.
4. `order_by` and `limit` apply to the combined rows and may name only the combined columns: the first part's columns, then the other parts' non-key columns.
5. Use ids q1, q2, … and only the datasources listed.";

/// The decomposer's question message: the datasources that go forward, each with the
/// schema retrieved for the question, and the question.
pub fn decomposer_user(schemas: &[(String, String)], question: &str) -> String {
    let mut text = String::new();
    for (datasource, schema) in schemas {
        text.push_str(&format!("Datasource {datasource}:\n{schema}\n"));
    }
    text.push_str(&format!("Question: {question}"));
    text
}

/// The decomposition's JSON Schema (strict: every property required, absent as null).
pub fn decomposition_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "sub_queries": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "datasource": {"type": "string"},
                    "question": {"type": "string"},
                    "columns": {"type": "array", "items": {"type": "string"}},
                    "key": {"type": ["string", "null"]},
                    "key_type": {"type": ["string", "null"], "enum": ["number", "text", "date", null]}
                },
                "required": ["id", "datasource", "question", "columns", "key", "key_type"],
                "additionalProperties": false
            }},
            "combine": {"type": "string", "enum": ["join", "union", "compare"]},
            "order_by": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "column": {"type": "string"},
                    "descending": {"type": "boolean"}
                },
                "required": ["column", "descending"],
                "additionalProperties": false
            }},
            "limit": {"type": ["integer", "null"]}
        },
        "required": ["sub_queries", "combine", "order_by", "limit"],
        "additionalProperties": false
    })
}

/// Parses and checks a decomposition against the datasources that go forward; the error
/// text goes back to the model on a parse retry.
pub fn parse(text: &str, datasources: &[String]) -> Result<Decomposition, String> {
    let d: Decomposition = serde_json::from_str(text).map_err(|e| e.to_string())?;
    check(&d, datasources)?;
    Ok(d)
}

/// Whether `d` can be run and combined: ids unique, datasources known, columns named, keys
/// among the columns, union parts of one width, post-combine columns in the result.
pub fn check(d: &Decomposition, datasources: &[String]) -> Result<(), String> {
    let mut problems = Vec::new();
    if d.sub_queries.is_empty() {
        problems.push("there are no sub_queries".to_string());
    }
    let mut ids = BTreeSet::new();
    for part in &d.sub_queries {
        if part.id.trim().is_empty() || !ids.insert(part.id.as_str()) {
            problems.push(format!("the id {:?} is empty or used twice", part.id));
        }
        if !datasources.contains(&part.datasource) {
            problems.push(format!(
                "{}: the datasource {:?} is not one of {}",
                part.id,
                part.datasource,
                datasources.join(", ")
            ));
        }
        if part.question.trim().is_empty() {
            problems.push(format!("{}: the question is empty", part.id));
        }
        let distinct: BTreeSet<&String> = part.columns.iter().collect();
        if part.columns.is_empty() || distinct.len() != part.columns.len() {
            problems.push(format!("{}: columns must be named, each once", part.id));
        }
        match (d.combine, &part.key) {
            (CombineKind::Union, _) => {}
            (_, Some(key)) if part.columns.contains(key) => {}
            (_, Some(key)) => problems.push(format!(
                "{}: the key {key:?} is not one of its columns ({})",
                part.id,
                part.columns.join(", ")
            )),
            (_, None) => problems.push(format!(
                "{}: a {} needs a key in every part",
                part.id,
                kind_name(d.combine)
            )),
        }
    }
    let declared: BTreeSet<KeyKind> = d.sub_queries.iter().filter_map(|p| p.key_type).collect();
    if d.combine != CombineKind::Union && declared.len() > 1 {
        problems.push(
            "every part's key_type must be the same, since the keys are matched with each other"
                .to_string(),
        );
    }
    if d.combine == CombineKind::Union {
        let widths: BTreeSet<usize> = d.sub_queries.iter().map(|p| p.columns.len()).collect();
        if widths.len() > 1 {
            problems.push("a union needs the same number of columns in every part".to_string());
        }
    }
    let output = d.output_columns();
    for o in &d.order_by {
        if !output.contains(&o.column) {
            problems.push(format!(
                "order_by names {:?}, but the combined columns are {}",
                o.column,
                output.join(", ")
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn kind_name(kind: CombineKind) -> &'static str {
    match kind {
        CombineKind::Join => "join",
        CombineKind::Union => "union",
        CombineKind::Compare => "compare",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spend() -> Decomposition {
        serde_json::from_value(json!({
            "sub_queries": [
                {"id": "q1", "datasource": "support", "question": "Which customers have an open ticket?",
                 "columns": ["email", "name"], "key": "email"},
                {"id": "q2", "datasource": "chinook", "question": "How much has each customer spent?",
                 "columns": ["email", "total"], "key": "email"}
            ],
            "combine": "join",
            "order_by": [{"column": "total", "descending": true}],
            "limit": null
        }))
        .unwrap()
    }

    fn ids() -> Vec<String> {
        vec!["chinook".into(), "support".into()]
    }

    #[test]
    fn a_join_keeps_the_first_key_and_every_other_column() {
        let d = spend();
        assert_eq!(d.output_columns(), ["email", "name", "total"]);
        assert!(check(&d, &ids()).is_ok());
    }

    #[test]
    fn a_compare_prefixes_names_taken_already() {
        let mut d = spend();
        d.combine = CombineKind::Compare;
        d.sub_queries[1].columns = vec!["email".into(), "name".into()];
        d.order_by.clear();
        assert_eq!(d.output_columns(), ["email", "name", "q2_name"]);
        assert_eq!(d.layout()[0].1, Source::Key);
    }

    #[test]
    fn unusable_proposals_are_refused_with_every_reason() {
        let mut d = spend();
        d.sub_queries[1].datasource = "weather".into();
        d.sub_queries[0].key = Some("phone".into());
        d.order_by[0].column = "spent".into();
        let e = check(&d, &ids()).unwrap_err();
        assert!(e.contains("\"weather\" is not one of"), "{e}");
        assert!(
            e.contains("the key \"phone\" is not one of its columns"),
            "{e}"
        );
        assert!(e.contains("order_by names \"spent\""), "{e}");
        let mut u = spend();
        u.combine = CombineKind::Union;
        u.sub_queries[1].columns.push("extra".into());
        u.order_by.clear();
        assert!(check(&u, &ids())
            .unwrap_err()
            .contains("same number of columns"));
        let mut k = spend();
        k.sub_queries[0].key_type = Some(KeyKind::Text);
        k.sub_queries[1].key_type = Some(KeyKind::Number);
        assert!(check(&k, &ids()).unwrap_err().contains("key_type"));
    }

    #[test]
    fn key_types_are_read_and_may_be_absent_in_older_recordings() {
        let d = spend();
        assert_eq!(d.sub_queries[0].key_type, None);
        let typed: SubQuestion = serde_json::from_value(json!({
            "id": "q1", "datasource": "support", "question": "?", "columns": ["d"],
            "key": "d", "key_type": "date"
        }))
        .unwrap();
        assert_eq!(typed.key_type, Some(KeyKind::Date));
        assert_eq!(KeyKind::Date.category(), TypeCategory::Temporal);
    }
}
