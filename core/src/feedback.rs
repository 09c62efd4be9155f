//! Feedback: Right or Wrong on an answer. "Right" proposes a verified query — the answer's
//! SQL as a template whose literals that came from the question are typed parameters, the
//! question as its phrasing, who proposed it and when. A person whose role approves
//! (`approves = true`; admin in the demo policies) approves, edits or deletes it; approved
//! queries join the curated matcher, and they are the eval cases `nl2sql feedback export
//! --good` writes.
//!
//! A [`FeedbackBook`] is plain data the front end stores (the page in IndexedDB, the command
//! line and the server in a file beside the project file) and never sends anywhere.
//! Times are given by the caller (core has no clock).

pub use crate::curated::{Curated, ParamSpec, ParamType, VerifiedQuery};
use crate::engine::{QueryResult, Status};
use crate::error::{Error, ErrorCode};
use crate::index::text::terms;
use crate::lower::{lower, LowerOptions};
use crate::plan::{Expr, Literal, Plan};
use crate::policy::Scope;
use crate::schema::SchemaSnapshot;
use nl2sql_plan::walk::{children, each_expr};
use serde::{Deserialize, Serialize};
use sqlparser::ast::Value as SqlValue;
use std::collections::BTreeMap;

/// The format's version, written into every book.
pub const VERSION: u32 = 1;

/// Right or wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The answer is right.
    Right,
    /// The answer is wrong.
    Wrong,
}

/// One Right or Wrong on an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FeedbackEntry {
    /// `fb_1`, `fb_2`, … in the order given.
    pub id: String,
    /// Right or wrong.
    pub verdict: Verdict,
    /// The question answered.
    pub question: String,
    /// Where it was answered (a single datasource's answer).
    #[serde(default)]
    pub datasource: Option<String>,
    /// The SQL that answered it.
    #[serde(default)]
    pub sql: Option<String>,
    /// What the person added.
    #[serde(default)]
    pub comment: Option<String>,
    /// Who gave it (a role or a name, as the front end knows the caller).
    pub by: String,
    /// When (the front end's clock, RFC 3339).
    pub at: String,
    /// The verified query it proposed, when "Right" proposed one.
    #[serde(default)]
    pub proposal: Option<String>,
    /// Why "Right" proposed nothing, when it did not.
    #[serde(default)]
    pub not_proposed: Option<String>,
}

/// Where a proposed verified query stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    /// Waiting for a person who approves.
    Proposed,
    /// Approved: the curated matcher answers with it.
    Approved,
}

/// A verified query proposed from feedback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    /// Its datasource.
    pub datasource: String,
    /// The query (its id is the proposal's id).
    pub query: VerifiedQuery,
    /// Proposed or approved.
    pub status: ProposalStatus,
    /// Who proposed it.
    pub proposed_by: String,
    /// When.
    pub proposed_at: String,
    /// Who approved it.
    #[serde(default)]
    pub approved_by: Option<String>,
    /// When.
    #[serde(default)]
    pub approved_at: Option<String>,
    /// The question as first asked and the SQL that answered it, values in place: the eval
    /// case it becomes.
    pub example: Example,
}

/// A question and the SQL that answered it, for an eval case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// The question.
    pub question: String,
    /// The SQL, as it ran.
    pub sql: String,
    /// Whether the answer's row order matters (the plan ordered it).
    pub order_matters: bool,
    /// The role it was asked with.
    pub role: Option<String>,
}

/// Every piece of feedback and every proposal, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FeedbackBook {
    /// The format's version ([`VERSION`]).
    pub version: u32,
    /// Right and Wrong, in the order given.
    #[serde(default)]
    pub entries: Vec<FeedbackEntry>,
    /// Verified queries proposed from "Right", in the order proposed.
    #[serde(default)]
    pub proposals: Vec<Proposal>,
}

impl Default for FeedbackBook {
    fn default() -> Self {
        FeedbackBook {
            version: VERSION,
            entries: Vec::new(),
            proposals: Vec::new(),
        }
    }
}

/// No proposal has this id: FEEDBACK_NOT_FOUND.
fn not_found(id: String) -> Error {
    Error::new(
        ErrorCode::FeedbackNotFound,
        format!("There is no proposed verified query {id:?}."),
    )
}

/// The caller's role does not approve: APPROVAL_NOT_ALLOWED.
fn not_allowed() -> Error {
    Error::new(
        ErrorCode::ApprovalNotAllowed,
        "Your role may not approve, edit or delete verified queries (the policies give that to roles with approves = true).",
    )
}

/// An edited query breaks a rule of the verified-query format: VERIFIED_QUERY_INVALID.
fn invalid(why: String) -> Error {
    Error::new(
        ErrorCode::VerifiedQueryInvalid,
        format!("The verified query cannot be used: {why}."),
    )
}

/// A stored book cannot be read: FEEDBACK_UNREADABLE.
fn unreadable(why: String) -> Error {
    Error::new(
        ErrorCode::FeedbackUnreadable,
        format!("The feedback file cannot be read: {why}."),
    )
}

/// The answer judged: what feedback needs of a result.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    /// The question.
    pub question: &'a str,
    /// The one datasource that answered, when one did.
    pub datasource: Option<&'a str>,
    /// Its plan.
    pub plan: Option<&'a Plan>,
    /// The SQL that ran.
    pub sql: Option<&'a str>,
    /// The role it was asked with.
    pub role: Option<&'a str>,
    /// True when one datasource answered with rows the planner's plan gave (not a verified
    /// query's): only such an answer becomes a verified query.
    pub plannable: bool,
}

impl<'a> Answered<'a> {
    /// What `result` answered.
    pub fn of(result: &'a QueryResult) -> Answered<'a> {
        let single = result.single().filter(|_| result.status == Status::Success);
        Answered {
            question: &result.question,
            datasource: single.map(|s| s.datasource_id.as_str()),
            plan: single.and_then(|s| s.plan.as_ref()),
            sql: single.and_then(|s| s.sql.as_deref()),
            role: result.roles.first().map(String::as_str),
            // A follow-up's words mean what they mean only after its thread.
            plannable: single.is_some()
                && result.source.is_none()
                && !result.follow_up.as_ref().is_some_and(|f| f.continued),
        }
    }
}

/// Feedback as a front end gives it.
#[derive(Debug, Clone, Copy)]
pub struct Given<'a> {
    /// The answer judged.
    pub answered: Answered<'a>,
    /// Right or wrong.
    pub verdict: Verdict,
    /// What the person added.
    pub comment: Option<&'a str>,
    /// Who.
    pub by: &'a str,
    /// When (RFC 3339).
    pub at: &'a str,
}

/// What recording feedback did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Recorded {
    /// The entry as kept.
    pub entry: FeedbackEntry,
    /// The verified query "Right" proposed (or the existing one it added a phrasing to).
    pub proposal: Option<Proposal>,
}

impl FeedbackBook {
    /// A stored book, checked: its version, and every proposal's query against the format's
    /// rules where its datasource's schema is given (a query that no longer fits is kept,
    /// and left out of [`FeedbackBook::approved`] by the workspace like any declared one).
    pub fn from_json(text: &str) -> Result<FeedbackBook, Error> {
        let book: FeedbackBook =
            serde_json::from_str(text).map_err(|e| unreadable(e.to_string()))?;
        if book.version != VERSION {
            return Err(unreadable(format!(
                "it is version {}, this engine reads version {VERSION}",
                book.version
            )));
        }
        Ok(book)
    }

    /// The book as stored (pretty JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Records `given`. "Right" on a single datasource's answer proposes a verified query
    /// (or adds the question as a phrasing of the proposal with the same SQL); when none
    /// can be made, the entry says why.
    pub fn record(&mut self, given: Given<'_>, schema: Option<&SchemaSnapshot>) -> Recorded {
        let a = given.answered;
        let mut entry = FeedbackEntry {
            id: format!("fb_{}", self.entries.len() + 1),
            verdict: given.verdict,
            question: a.question.to_string(),
            datasource: a.datasource.map(str::to_string),
            sql: a.sql.map(str::to_string),
            comment: given.comment.map(str::to_string),
            by: given.by.to_string(),
            at: given.at.to_string(),
            proposal: None,
            not_proposed: None,
        };
        let mut proposal = None;
        if given.verdict == Verdict::Right {
            match self.propose(given, schema) {
                Ok(p) => {
                    entry.proposal = Some(p.query.id.clone());
                    proposal = Some(p);
                }
                Err(why) => entry.not_proposed = Some(why),
            }
        }
        self.entries.push(entry.clone());
        Recorded { entry, proposal }
    }

    fn propose(
        &mut self,
        given: Given<'_>,
        schema: Option<&SchemaSnapshot>,
    ) -> Result<Proposal, String> {
        let a = given.answered;
        let Some(datasource) = a.datasource.filter(|_| a.plannable) else {
            return Err(
                "only an answer the planner wrote to a question standing alone, from one datasource, becomes a verified query (ask a follow-up as one whole question to propose it)"
                    .into(),
            );
        };
        let (Some(plan), Some(sql)) = (a.plan, a.sql) else {
            return Err("the answer has no plan and SQL to verify".into());
        };
        let schema = schema
            .filter(|s| s.datasource_id == datasource)
            .ok_or_else(|| format!("datasource {datasource} is not open"))?;
        let (mut query, _) = template(a.question, plan, schema)?;
        // The same SQL proposed before (and not yet approved: an approved query changes
        // only by an approver's edit) gains this question as one more phrasing.
        if let Some(existing) = self
            .proposals
            .iter_mut()
            .find(|p| p.datasource == datasource && p.query.sql == query.sql)
        {
            if existing.status == ProposalStatus::Approved {
                return Err(format!(
                    "the approved verified query {datasource}.{} already runs this SQL",
                    existing.query.id
                ));
            }
            let mut widened = existing.query.clone();
            for q in query.questions {
                if !widened.questions.contains(&q) {
                    widened.questions.push(q);
                }
            }
            check(datasource, &widened, schema)?;
            existing.query = widened;
            return Ok(existing.clone());
        }
        query.id = self.fresh_id(datasource, &query.id);
        check(datasource, &query, schema)?;
        let proposal = Proposal {
            datasource: datasource.to_string(),
            query,
            status: ProposalStatus::Proposed,
            proposed_by: given.by.to_string(),
            proposed_at: given.at.to_string(),
            approved_by: None,
            approved_at: None,
            example: Example {
                question: a.question.to_string(),
                sql: sql.to_string(),
                order_matters: !plan.order_by.is_empty(),
                role: a.role.map(str::to_string),
            },
        };
        self.proposals.push(proposal.clone());
        Ok(proposal)
    }

    /// An id not yet taken in `datasource`, from `wanted`.
    fn fresh_id(&self, datasource: &str, wanted: &str) -> String {
        let taken = |id: &str| {
            self.proposals
                .iter()
                .any(|p| p.datasource == datasource && p.query.id == id)
        };
        if !taken(wanted) {
            return wanted.to_string();
        }
        (2..)
            .map(|n| format!("{wanted}_{n}"))
            .find(|id| !taken(id))
            .unwrap_or_else(|| wanted.to_string())
    }

    fn find(&mut self, datasource: &str, id: &str) -> Result<&mut Proposal, Error> {
        self.proposals
            .iter_mut()
            .find(|p| p.datasource == datasource && p.query.id == id)
            .ok_or_else(|| not_found(format!("{datasource}.{id}")))
    }

    /// Approves proposal `id` of `datasource` as `by`, whose `scope` must approve.
    pub fn approve(
        &mut self,
        datasource: &str,
        id: &str,
        scope: &Scope<'_>,
        by: &str,
        at: &str,
    ) -> Result<Proposal, Error> {
        if !scope.may_approve() {
            return Err(not_allowed());
        }
        let p = self.find(datasource, id)?;
        p.status = ProposalStatus::Approved;
        p.approved_by = Some(by.to_string());
        p.approved_at = Some(at.to_string());
        Ok(p.clone())
    }

    /// Replaces proposal `id`'s query with `query` (its id kept), checked against `schema`;
    /// an approved query stays approved.
    pub fn edit(
        &mut self,
        datasource: &str,
        id: &str,
        mut query: VerifiedQuery,
        scope: &Scope<'_>,
        schema: &SchemaSnapshot,
    ) -> Result<Proposal, Error> {
        if !scope.may_approve() {
            return Err(not_allowed());
        }
        query.id = id.to_string();
        check(datasource, &query, schema).map_err(invalid)?;
        // The eval case follows the edit: its SQL is the edited query with its examples.
        let example = example_of(&query, schema).map_err(invalid)?;
        let p = self.find(datasource, id)?;
        p.example.question = example.0;
        p.example.sql = example.1;
        p.query = query;
        Ok(p.clone())
    }

    /// Deletes proposal `id` (approved or not).
    pub fn delete(&mut self, datasource: &str, id: &str, scope: &Scope<'_>) -> Result<(), Error> {
        if !scope.may_approve() {
            return Err(not_allowed());
        }
        self.find(datasource, id)?;
        self.proposals
            .retain(|p| !(p.datasource == datasource && p.query.id == id));
        Ok(())
    }

    /// The approved queries, per datasource: what joins the curated matcher.
    pub fn approved(&self) -> Curated {
        let mut curated = Curated::default();
        for p in self
            .proposals
            .iter()
            .filter(|p| p.status == ProposalStatus::Approved)
        {
            curated
                .datasources
                .entry(p.datasource.clone())
                .or_default()
                .push(p.query.clone());
        }
        curated
    }

    /// Takes in another book (an imported file): entries are appended under new ids, and a
    /// proposal is added unless one with its datasource and id is already here. Returns
    /// how many proposals were added.
    pub fn merge(&mut self, other: FeedbackBook) -> usize {
        for mut e in other.entries {
            e.id = format!("fb_{}", self.entries.len() + 1);
            self.entries.push(e);
        }
        let mut added = 0;
        for p in other.proposals {
            let here = self
                .proposals
                .iter()
                .any(|q| q.datasource == p.datasource && q.query.id == p.query.id);
            if !here {
                self.proposals.push(p);
                added += 1;
            }
        }
        added
    }
}

/// `declared` with `approved` added (a declared query keeps its id: an approved one with
/// the same id and datasource is left out).
pub fn merged(declared: &Curated, approved: &Curated) -> Curated {
    let mut all = declared.clone();
    for (datasource, queries) in &approved.datasources {
        let list = all.datasources.entry(datasource.clone()).or_default();
        for q in queries {
            if !list.iter().any(|d| d.id == q.id) {
                list.push(q.clone());
            }
        }
    }
    all
}

/// `query`'s first phrasing and its SQL with every parameter at its example (or default):
/// the question and gold SQL of its eval case.
fn example_of(query: &VerifiedQuery, schema: &SchemaSnapshot) -> Result<(String, String), String> {
    let mut values = BTreeMap::new();
    let mut question = query.questions.first().cloned().unwrap_or_default();
    for (name, spec) in &query.params {
        let Some(value) = spec.example.as_ref().or(spec.default.as_ref()) else {
            return Err(format!("the parameter {name} has no example"));
        };
        let raw = match value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        question = question.replace(&format!("{{{name}}}"), &raw);
        values.insert(name.clone(), crate::curated::typed(spec, &raw)?);
    }
    let plan = crate::curated::bind(query, &values, schema).map_err(|e| e.message)?;
    let sql = crate::run::render(&plan, schema, schema.dialect, &LowerOptions::default())
        .map_err(|e| e.message)?;
    Ok((question, sql))
}

fn check(datasource: &str, query: &VerifiedQuery, schema: &SchemaSnapshot) -> Result<(), String> {
    let one = Curated {
        datasources: BTreeMap::from([(datasource.to_string(), vec![query.clone()])]),
    };
    one.check(&[schema])
}

/// A parameter found in the question.
struct Found {
    name: String,
    spec: ParamSpec,
    /// The literal as the plan holds it.
    literal: Literal,
    /// Where the question says it (byte range).
    at: (usize, usize),
}

/// `plan` as a verified query for `question`: each literal the question spells out (text as
/// a whole word or phrase, letter case aside; numbers as written) becomes a parameter named
/// after the column it is compared with, typed by the literal, and the plan's own `LIMIT`
/// when the question gives it; the phrasing is the question with `{name}` in their place,
/// the SQL the plan rendered in the schema's dialect with `:name` in theirs (and no row cap:
/// the engine applies its own). Returns the query and how many parameters it found.
pub fn template(
    question: &str,
    plan: &Plan,
    schema: &SchemaSnapshot,
) -> Result<(VerifiedQuery, usize), String> {
    let question = question.trim();
    let mut found: Vec<Found> = Vec::new();
    each_expr(plan, &mut |_, e| {
        let Expr::Binary { left, right, .. } = e else {
            return;
        };
        for (side, other) in [(left, right), (right, left)] {
            let Expr::Literal(lit) = side.as_ref() else {
                continue;
            };
            let Some((alias, column)) = first_column(other) else {
                continue;
            };
            let Some((kind, text)) = spelt(lit) else {
                continue;
            };
            if found.iter().any(|f| f.literal == *lit) {
                continue;
            }
            let Some(at) = locate(question, &text, &found) else {
                continue;
            };
            let name = unique(&found, &param_name(column));
            let mut spec = spec(kind, &text);
            spec.choices = choices(plan, schema, (alias, column), &text);
            found.push(Found {
                name,
                spec,
                literal: lit.clone(),
                at,
            });
        }
    });
    let limit = plan.limit.and_then(|n| {
        let at = locate(question, &n.to_string(), &found)?;
        Some((n, at))
    });
    if let Some((n, at)) = limit {
        let name = unique(&found, "n");
        let mut spec = spec(ParamType::Int, &n.to_string());
        spec.default = Some(serde_json::json!(n));
        spec.min = Some(serde_json::json!(1));
        spec.max = Some(serde_json::json!(1000));
        found.push(Found {
            name,
            spec,
            literal: Literal::Integer(n),
            at,
        });
    }
    let mut query = lower(plan, schema, schema.dialect, &LowerOptions::default())
        .map_err(|e| format!("the plan does not render: {e}"))?;
    if plan.limit.is_none() {
        query.limit_clause = None;
        query.fetch = None;
    }
    let mut used: Vec<String> = Vec::new();
    crate::curated::each_value_mut(&mut query, &mut |value| {
        // The generator writes text as a pre-quoted token, escaped for the dialect.
        let hit = found.iter().find(|f| match (&f.literal, &*value) {
            (Literal::Text(t), SqlValue::Placeholder(p)) => {
                *p == crate::lower::quote_text(t, schema.dialect)
            }
            (Literal::Integer(i), SqlValue::Number(n, _)) => *n == i.to_string(),
            (Literal::Real(r), SqlValue::Number(n, _)) => n.parse::<f64>().ok() == Some(*r),
            _ => false,
        });
        if let Some(f) = hit {
            *value = SqlValue::Placeholder(format!(":{}", f.name));
            used.push(f.name.clone());
        }
        true
    });
    // A value the SQL does not hold as it stands (inside a LIKE pattern, say) stays fixed:
    // a parameter the statement would ignore would answer other values wrongly.
    found.retain(|f| used.contains(&f.name));
    // Positions are of the trimmed question (see below), always character boundaries.
    let mut phrasing = question.to_string();
    let mut by_place: Vec<&Found> = found.iter().collect();
    by_place.sort_by_key(|f| std::cmp::Reverse(f.at.0));
    for f in by_place {
        if phrasing.get(f.at.0..f.at.1).is_some() {
            phrasing.replace_range(f.at.0..f.at.1, &format!("{{{}}}", f.name));
        }
    }
    let id = slug(question);
    let count = found.len();
    let description = match &plan.reasoning {
        Some(r) if !r.trim().is_empty() => r.trim().to_string(),
        _ => format!("Answers: {question}"),
    };
    Ok((
        VerifiedQuery {
            id,
            description,
            questions: vec![phrasing],
            params: found.into_iter().map(|f| (f.name, f.spec)).collect(),
            sql: query.to_string(),
        },
        count,
    ))
}

/// The first column an expression reads, with its alias (what a literal compared with it
/// is about).
fn first_column(e: &Expr) -> Option<(Option<&str>, &str)> {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if let Expr::Column { alias, column } = e {
            return Some((alias.as_deref(), column));
        }
        stack.extend(children(e).into_iter().rev());
    }
    None
}

/// A text parameter's allowed values: every value of its column, when the statistics hold
/// them all (a category such as a country) and `value` is one of them; otherwise none, and
/// any text is taken.
fn choices(
    plan: &Plan,
    schema: &SchemaSnapshot,
    (alias, column): (Option<&str>, &str),
    value: &str,
) -> Vec<String> {
    let table = match alias {
        Some(a) => plan.tables.iter().find(|t| t.alias == a),
        None => plan.tables.first(),
    };
    let Some(stats) = table
        .and_then(|t| schema.table(&t.name))
        .and_then(|t| t.column(column))
        .map(|c| &c.stats)
    else {
        return Vec::new();
    };
    let complete = stats.distinct_count <= crate::schema::SAMPLE_ALL_MAX
        && stats.sample_values.len() as u64 == stats.distinct_count;
    if complete && stats.sample_values.iter().any(|v| v == value) {
        let mut all = stats.sample_values.clone();
        all.sort();
        all
    } else {
        Vec::new()
    }
}

/// A literal's type and how a question would spell it.
fn spelt(lit: &Literal) -> Option<(ParamType, String)> {
    match lit {
        Literal::Text(t) if is_date(t) => Some((ParamType::Date, t.clone())),
        Literal::Text(t) if !t.trim().is_empty() => Some((ParamType::String, t.clone())),
        Literal::Integer(i) => Some((ParamType::Int, i.to_string())),
        Literal::Real(r) if r.is_finite() => Some((ParamType::Float, r.to_string())),
        _ => None,
    }
}

fn is_date(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn spec(kind: ParamType, example: &str) -> ParamSpec {
    let example = match kind {
        ParamType::Int => example
            .parse::<i64>()
            .map_or_else(|_| serde_json::json!(example), |n| serde_json::json!(n)),
        ParamType::Float => example
            .parse::<f64>()
            .map_or_else(|_| serde_json::json!(example), |n| serde_json::json!(n)),
        ParamType::String | ParamType::Date => serde_json::json!(example),
    };
    ParamSpec {
        kind,
        default: None,
        min: None,
        max: None,
        choices: Vec::new(),
        example: Some(example),
    }
}

/// Where `text` stands in `question` as whole words (ASCII letter case aside; other
/// letters exactly), not inside a span another parameter took: byte positions that are
/// always character boundaries of `question`.
fn locate(question: &str, text: &str, taken: &[Found]) -> Option<(usize, usize)> {
    let (hay, needle) = (question.as_bytes(), text.as_bytes());
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    let word_before = |i: usize| {
        question[..i]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
    };
    let word_after = |i: usize| {
        question[i..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric)
    };
    (0..=hay.len() - needle.len()).find_map(|start| {
        let end = start + needle.len();
        let here = question.is_char_boundary(start)
            && question.is_char_boundary(end)
            && hay[start..end].eq_ignore_ascii_case(needle);
        let clear = taken.iter().all(|f| end <= f.at.0 || start >= f.at.1);
        (here && clear && !word_before(start) && !word_after(end)).then_some((start, end))
    })
}

/// `BillingCountry` → `billing_country`.
fn param_name(column: &str) -> String {
    let words = crate::index::text::words(column);
    let name = words.join("_");
    match name.chars().next() {
        Some(c) if c.is_ascii_lowercase() => name,
        _ => format!("p_{name}"),
    }
}

fn unique(found: &[Found], wanted: &str) -> String {
    let clean: String = wanted
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let taken = |n: &str| found.iter().any(|f| f.name == n);
    if !taken(&clean) {
        return clean;
    }
    (2..)
        .map(|i| format!("{clean}_{i}"))
        .find(|n| !taken(n))
        .unwrap_or(clean)
}

/// An id from the question's first terms: `how many invoices per country` →
/// `fb_invoice_country`.
fn slug(question: &str) -> String {
    let words: Vec<String> = terms(question)
        .into_iter()
        .map(|t| {
            t.chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                .to_lowercase()
        })
        .filter(|t| !t.is_empty())
        .take(5)
        .collect();
    // `fb_`: a proposal's id never takes a declared query's, which would shadow it.
    match words.join("_") {
        joined if joined.is_empty() => "fb_query".to_string(),
        joined => format!("fb_{joined}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nl2sql_plan::test_fixtures::schema;

    fn plan(value: &str, limit: Option<i64>) -> Plan {
        let mut plan: Plan = Plan::from_json(
            &(serde_json::json!({
                "tables": [{"name": "Artist", "alias": "a"}],
                "select_items": [{"expr": {"kind": "column", "alias": "a", "column_name": "Name"}}],
                "where": {"kind": "binary", "op": "=",
                    "left": {"kind": "column", "alias": "a", "column_name": "Name"},
                    "right": {"kind": "literal", "value": value}}
            }))
            .to_string(),
        )
        .unwrap_or_default();
        plan.limit = limit;
        plan
    }

    #[test]
    fn literals_the_question_spells_become_parameters() {
        let (q, n) = template(
            "Which artists are called AC/DC? Show the top 5",
            &plan("AC/DC", Some(5)),
            &schema(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(n, 2);
        assert_eq!(
            q.questions,
            vec!["Which artists are called {name}? Show the top {n}"]
        );
        assert!(
            q.sql.contains(":name") && q.sql.contains("LIMIT :n"),
            "{}",
            q.sql
        );
        assert!(q.id.starts_with("fb_"), "{}", q.id);
        // A literal the question does not spell stays in the SQL.
        let (fixed, n) = template(
            "Which artists are called that?",
            &plan("Queen", None),
            &schema(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(n, 0);
        assert!(
            fixed.sql.contains("'Queen'") && !fixed.sql.contains("LIMIT"),
            "{}",
            fixed.sql
        );
    }

    #[test]
    fn any_question_and_literal_are_taken_without_panicking() {
        for (question, value) in [
            ("  Rock", " Rock"),
            ("  Rock", "Rock"),
            ("İ é Ω", "é"),
            ("ÅÅÅ rock ÅÅÅ", "ROCK"),
            ("", "x"),
            ("x", ""),
            ("🎸🎸", "🎸"),
            ("a\u{0301}b", "\u{0301}"),
        ] {
            let _ = template(question, &plan(value, None), &schema());
        }
    }
}
