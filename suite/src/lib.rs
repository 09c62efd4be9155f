//! The evaluation suite format: the reference engine's `data/chinook.yaml` and
//! `data/routing.yaml`, and our own gold files in the same shape. Read once here for
//! `nl2sql eval`, the tests and the benchmarks, with how a run is scored against a case
//! ([`score`]); it compiles for wasm too, because the browser tests read the suites.

pub mod compare;
mod export;
mod score;

pub use compare::{compare, compare_lenient, Gold};
pub use export::good_cases;
pub use score::{score, Scored};

use nl2sql_core::result::Plan;
use serde::Deserialize;
use serde_norway::Value as Yaml;
use std::collections::BTreeMap;

/// A suite: its cases, in file order.
#[derive(Debug, Clone, Deserialize)]
pub struct Suite {
    /// The cases.
    pub cases: Vec<Case>,
}

impl Suite {
    /// Reads a suite from its YAML text.
    pub fn parse(text: &str) -> Result<Suite, String> {
        serde_norway::from_str(text).map_err(|e| format!("the suite does not parse: {e}"))
    }
}

/// One case. Every field but the id is optional in the format.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// `chinook_001`, `own_001`, …
    pub id: String,
    /// The question.
    #[serde(default)]
    pub question: String,
    /// The datasources that hold the answer (routing suites, and the reference's verdicts).
    #[serde(default)]
    pub datasources: Vec<String>,
    /// `approved` unless the suite says otherwise.
    #[serde(default = "approved")]
    pub status: String,
    /// `answer` (a question to answer) unless the suite says otherwise.
    #[serde(default = "answer")]
    pub kind: String,
    /// The expected outcome per role: `allowed`, `refused` or `unanswerable`.
    #[serde(default)]
    pub outcome: BTreeMap<String, String>,
    /// The tables retrieval must find.
    #[serde(default)]
    pub tables: Vec<String>,
    /// The columns retrieval must find (`table.column`).
    #[serde(default)]
    pub columns: Vec<String>,
    /// Whether row order is part of the answer.
    #[serde(default)]
    pub order_matters: bool,
    /// The gold rows, as mappings in column order.
    #[serde(default)]
    pub rows: Option<Vec<Yaml>>,
    /// The gold plan, as YAML.
    #[serde(default)]
    pub plan: Option<Yaml>,
    /// The SQL (our own suite).
    #[serde(default)]
    pub sql: Option<String>,
    /// What the case exercises (our own suite).
    #[serde(default)]
    pub tags: Vec<String>,
}

fn approved() -> String {
    "approved".into()
}

fn answer() -> String {
    "answer".into()
}

fn gold_cell(v: &Yaml) -> Gold {
    match v {
        Yaml::Null => Gold::Null,
        Yaml::Bool(b) => Gold::Bool(*b),
        Yaml::Number(n) => Gold::Number(n.as_f64().unwrap_or(f64::NAN)),
        Yaml::String(s) => Gold::Text(s.clone()),
        other => Gold::Text(format!("{other:?}")),
    }
}

impl Case {
    /// The gold rows as cells, columns in file order.
    pub fn gold_rows(&self) -> Vec<Vec<Gold>> {
        self.rows
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|r| match r {
                Yaml::Mapping(m) => m.values().map(gold_cell).collect(),
                other => vec![gold_cell(other)],
            })
            .collect()
    }

    /// The gold plan, parsed; `Ok(None)` when the case has none.
    pub fn gold_plan(&self) -> Result<Option<Plan>, String> {
        let Some(raw) = self.plan.clone() else {
            return Ok(None);
        };
        // Through the plan's own reader, which takes the fields in any order.
        let text = serde_json::to_string(&raw)
            .map_err(|e| format!("{}: the gold plan is not JSON data: {e}", self.id))?;
        Plan::from_json(&text)
            .map(Some)
            .map_err(|e| format!("{}: the gold plan does not parse: {e}", self.id))
    }

    /// True when every role listed expects the question to be unanswerable.
    pub fn unanswerable(&self) -> bool {
        !self.outcome.is_empty() && self.outcome.values().all(|o| o == "unanswerable")
    }

    /// The roles to run and what each expects, limited to `only` when it names any (no
    /// roles listed: admin, allowed).
    pub fn roles(&self, only: &[String]) -> Vec<(String, String)> {
        let all: Vec<(String, String)> = if self.outcome.is_empty() {
            vec![("admin".into(), "allowed".into())]
        } else {
            self.outcome
                .iter()
                .map(|(r, o)| (r.clone(), o.clone()))
                .collect()
        };
        all.into_iter()
            .filter(|(r, _)| only.is_empty() || only.contains(r))
            .collect()
    }
}

/// What a model answering as the reference's gold-plan model does would say, as
/// `(structured output name, question, answer)`: each case's datasources as the
/// answerability verdict (none for an unanswerable case), its gold plan as the plan.
pub fn gold_plan_fixtures<'c>(
    cases: impl IntoIterator<Item = &'c Case>,
) -> Result<Vec<(String, String, String)>, String> {
    let mut out = Vec::new();
    for case in cases.into_iter().filter(|c| c.kind == "answer") {
        let named: &[String] = if case.unanswerable() {
            &[]
        } else {
            &case.datasources
        };
        let verdict = serde_json::json!({"datasources": named, "combine": false, "reason": "the suite's datasources"});
        out.push((
            "answerability".to_string(),
            case.question.clone(),
            verdict.to_string(),
        ));
        if let Some(plan) = case.gold_plan()? {
            let plan = serde_json::to_string(&plan)
                .map_err(|e| format!("{}: the gold plan does not serialize: {e}", case.id))?;
            out.push(("plan".to_string(), case.question.clone(), plan));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = r#"
cases:
- id: c1
  question: How many albums?
  datasources: [chinook]
  outcome: {admin: allowed, viewer: allowed}
  order_matters: false
  rows:
  - {n: 347}
  plan:
    tables: [{name: Album, alias: a}]
    select_items: [{expr: {kind: func, func_name: COUNT, args: [{kind: column, column_name: "*"}]}, alias: n}]
- id: c2
  question: What is the weather?
  datasources: [chinook]
  outcome: {admin: unanswerable}
"#;

    #[test]
    fn a_suite_reads_into_cases_rows_plans_roles_and_fixtures() {
        let suite = Suite::parse(SUITE).unwrap();
        let [c1, c2] = suite.cases.as_slice() else {
            panic!("two cases")
        };
        assert_eq!(c1.gold_rows(), vec![vec![Gold::Number(347.0)]]);
        assert!(c1.gold_plan().unwrap().is_some());
        assert_eq!(
            c1.roles(&["viewer".into()]),
            [("viewer".to_string(), "allowed".to_string())]
        );
        assert!(c2.unanswerable() && !c1.unanswerable());
        let fixtures = gold_plan_fixtures(&suite.cases).unwrap();
        let names: Vec<&str> = fixtures.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["answerability", "plan", "answerability"]);
        assert!(
            fixtures[2].2.contains(r#""datasources":[]"#),
            "{fixtures:?}"
        );
        assert!(Suite::parse("cases: 3").is_err());
    }
}
