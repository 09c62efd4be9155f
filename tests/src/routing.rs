//! The routing and retrieval suites, run on any set of datasources: the reference engine's
//! routing suite (`data/routing.yaml`), retrieval recall on its Chinook suite, and our own
//! routing questions (`tests/gold/routing_own.yaml`).

use nl2sql_core::conversation::Thread;
use nl2sql_core::demo::{demo_profile, DEMO_DATABASES};
use nl2sql_core::engine::prompts::{planner_user, PLANNER_SYSTEM};
use nl2sql_core::index::{retrieve, route, Embedder, RetrieveSettings, RouteSettings, SchemaIndex};
use nl2sql_core::policy::Policies;
use nl2sql_core::Datasource;
use nl2sql_suite::Suite;

/// The reference routing suite's text.
pub const ROUTING_SUITE: &str = include_str!("../../data/routing.yaml");
/// Our own routing questions.
pub const OWN_ROUTING: &str = include_str!("../gold/routing_own.yaml");
/// Our routing questions in the words people use, naming no table or column.
pub const WORDS_ROUTING: &str = include_str!("../gold/routing_words.yaml");
/// Our own held-out retrieval questions on all three databases.
pub const OWN_RETRIEVAL: &str = include_str!("../gold/retrieval_own.yaml");

/// Most distinct values read per column for the value index.
pub const VALUE_CAP: usize = 5_000;

fn suite(text: &str) -> Suite {
    Suite::parse(text).unwrap_or_else(|e| panic!("a routing suite: {e}"))
}

/// Every question of a suite.
pub fn questions(text: &str) -> Vec<String> {
    suite(text).cases.into_iter().map(|c| c.question).collect()
}

/// Builds the index over the three demo databases, opened by `open`.
pub async fn demo_index(
    open: &dyn Fn(&str) -> Box<dyn Datasource>,
    embedder: &dyn Embedder,
) -> SchemaIndex {
    let opened: Vec<Box<dyn Datasource>> = DEMO_DATABASES.iter().map(|d| open(d.id)).collect();
    let sources: Vec<_> = DEMO_DATABASES
        .iter()
        .zip(&opened)
        .map(|(d, ds)| (demo_profile(d), ds.as_ref()))
        .collect();
    match SchemaIndex::read_and_build(&sources, VALUE_CAP, embedder).await {
        Ok(index) => index,
        Err(e) => panic!("{e}"),
    }
}

/// A suite's score: passes, cases, and a line per failure.
pub struct Score {
    /// Cases that passed.
    pub passed: usize,
    /// Cases scored.
    pub total: usize,
    /// Cases whose first-ranked datasource is one they need.
    pub top1: usize,
    /// Cases whose every needed datasource is in routing's list (at most `candidates`, 3).
    pub listed: usize,
    /// One line per failed case.
    pub failures: Vec<String>,
}

/// Routes every case for every role it is `allowed` for (the reference's retrieval mode: no
/// model; a case passes when its first-ranked datasource is one it needs and every one it
/// needs is in the list).
pub async fn routing_score(index: &SchemaIndex, embedder: &dyn Embedder, text: &str) -> Score {
    let policies = Policies::demo();
    let settings = RouteSettings::default();
    let mut score = Score {
        passed: 0,
        total: 0,
        top1: 0,
        listed: 0,
        failures: vec![],
    };
    for case in suite(text).cases {
        let roles: Vec<String> = if case.outcome.is_empty() {
            vec!["admin".to_string()]
        } else {
            case.outcome
                .iter()
                .filter(|(_, o)| o.as_str() == "allowed")
                .map(|(r, _)| r.clone())
                .collect()
        };
        for role in roles {
            score.total += 1;
            let scope = policies.scope(std::slice::from_ref(&role));
            let routing = match route(index, embedder, &case.question, &scope, &settings).await {
                Ok(r) => r,
                Err(e) => panic!("routing failed: {e}"),
            };
            let top_ok = routing
                .ranked
                .first()
                .is_some_and(|d| case.datasources.contains(d));
            let all_in = case.datasources.iter().all(|d| routing.ranked.contains(d));
            score.top1 += usize::from(top_ok);
            score.listed += usize::from(all_in);
            if top_ok && all_in {
                score.passed += 1;
            } else {
                score.failures.push(format!(
                    "{} ({role}): wants {:?}, got {:?} — {}",
                    case.id, case.datasources, routing.ranked, case.question
                ));
            }
        }
    }
    score
}

/// Retrieval recall on the reference Chinook suite with search forced.
pub struct Recall {
    /// Needed tables retrieved / needed tables.
    pub tables: f64,
    /// Needed columns retrieved / needed columns.
    pub columns: f64,
    /// Columns sent per question, on average.
    pub columns_sent: f64,
    /// Cases measured.
    pub cases: usize,
    /// What was missed, per case.
    pub misses: Vec<String>,
}

/// Measures retrieval recall (as admin, search forced) over a suite's cases that name their
/// tables: the reference Chinook suite's gold cases, or our held-out questions. Each case
/// is retrieved from its first datasource.
pub async fn recall(index: &SchemaIndex, embedder: &dyn Embedder, text: &str) -> Recall {
    recall_of(index, embedder, suite(text).cases).await
}

/// [`recall`] over cases already read.
pub async fn recall_of(
    index: &SchemaIndex,
    embedder: &dyn Embedder,
    gold: Vec<nl2sql_suite::Case>,
) -> Recall {
    let policies = Policies::demo();
    let scope = policies.scope(&["admin".to_string()]);
    let settings = RetrieveSettings::default();
    let (mut need_t, mut got_t, mut need_c, mut got_c, mut sent, mut cases) = (0, 0, 0, 0, 0, 0);
    let mut misses = Vec::new();
    for case in gold {
        if case.tables.is_empty() {
            continue;
        }
        let datasource = case.datasources.first().map_or("chinook", String::as_str);
        cases += 1;
        let r = match retrieve(
            index,
            embedder,
            datasource,
            &case.question,
            &scope,
            &settings,
            true,
        )
        .await
        {
            Ok(r) => r,
            Err(e) => panic!("retrieval failed: {e}"),
        };
        sent += r.columns.len();
        let missing_t: Vec<&String> = case
            .tables
            .iter()
            .filter(|t| !r.tables.contains(t))
            .collect();
        let missing_c: Vec<&String> = case
            .columns
            .iter()
            .filter(|c| !r.columns.contains(c))
            .collect();
        need_t += case.tables.len();
        got_t += case.tables.len() - missing_t.len();
        need_c += case.columns.len();
        got_c += case.columns.len() - missing_c.len();
        if !missing_t.is_empty() || !missing_c.is_empty() {
            misses.push(format!(
                "{}: tables {missing_t:?}, columns {missing_c:?} — {}",
                case.id, case.question
            ));
        }
    }
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    Recall {
        tables: ratio(got_t, need_t),
        columns: ratio(got_c, need_c),
        columns_sent: ratio(sent, cases),
        cases,
        misses,
    }
}

/// The planner's whole input for `question` on `datasource`, as the engine asks it (as the
/// admin): its instructions, the message with the retrieved schema and `thread`'s turns,
/// and the plan's JSON Schema (the tool's parameters). Retrieval searches with the thread's
/// questions too, and the schema's share is cut by as much as the turns take.
pub async fn planner_input(
    index: &SchemaIndex,
    embedder: &dyn Embedder,
    datasource: &str,
    question: &str,
    thread: &Thread,
) -> [String; 3] {
    let policies = Policies::demo();
    let scope = policies.scope(&["admin".to_string()]);
    let schema = index
        .schema(datasource)
        .unwrap_or_else(|| panic!("{datasource} is not indexed"));
    let context = thread.context();
    let mut search = thread.questions();
    search.push(question.to_string());
    let retrieval = retrieve(
        index,
        embedder,
        datasource,
        &search.join(" "),
        &scope,
        &RetrieveSettings::default().sharing(context.len()),
        false,
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let message = planner_user(
        Some("2026-12-01"),
        schema,
        &retrieval,
        question,
        None,
        &context,
    );
    [
        PLANNER_SYSTEM.to_string(),
        message,
        nl2sql_core::plan::plan_json_schema().to_string(),
    ]
}
