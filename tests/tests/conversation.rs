//! Conversations and the trust loop through the facade every front end uses, on the demo
//! databases with the native host and the mock provider over real HTTP: a thread whose
//! follow-ups are plan edits (and a change of subject that starts fresh), a question asked
//! back and answered, feedback that becomes an approved verified query answering with no
//! model call, and the plan cache (a hit for admin, a refusal for viewer on the same plan).
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::config::{AnswerConfig, ProviderConfig, ProviderKind, RunConfig};
use nl2sql_core::conversation::{ambiguity, ChangeKind, PlanPart, Thread};
use nl2sql_core::engine::{AnswerSource, NodeRecord, PlanSource, QueryResult, Status};
use nl2sql_core::error::{ErrorCode, Node};
use nl2sql_core::feedback::{Answered, FeedbackBook, Given, ProposalStatus, Verdict};
use nl2sql_core::policy::Policies;
use nl2sql_core::service::{Question, Service};
use nl2sql_core::Value;
use nl2sql_native::{demo_workspace, NativeHost};
use nl2sql_tests::gold::{suite, REFERENCE_SUITE};
use nl2sql_tests::mock::MockProvider;
use nl2sql_tests::native::data_dir;
use nl2sql_tests::pipeline::{col, count_all, invoices_by_country, judged, on_chinook};

fn service(mock: &MockProvider, run: RunConfig) -> Service<NativeHost> {
    let workspace = demo_workspace(&data_dir(), Policies::demo())
        .unwrap_or_else(|e| panic!("the demo workspace opens: {e}"));
    let provider = ProviderConfig {
        kind: ProviderKind::Compatible,
        model: "m".into(),
        api_key: "sk-test-key-0000".into(),
        base_url: Some(mock.base_url()),
        ..ProviderConfig::default()
    };
    Service::new(NativeHost::default(), workspace, provider, run)
}

fn template() -> RunConfig {
    RunConfig {
        answer: AnswerConfig::Template,
        ..RunConfig::default()
    }
}

fn ask(s: &Service<NativeHost>, text: &str, role: &str, thread: Option<Thread>) -> QueryResult {
    let question = Question {
        question: text.into(),
        roles: vec![role.into()],
        thread,
        ..Question::default()
    };
    let ask = s.request(question).unwrap_or_else(|e| panic!("{e}"));
    pollster::block_on(s.ask(ask, None))
}

/// The mock answers `question` (matched as the current question) on Chinook with `plan`.
fn teach(mock: &MockProvider, question: &str, plan: &serde_json::Value) {
    mock.add(on_chinook(question, plan));
}

fn sum_of(r: &QueryResult, column: usize) -> i64 {
    r.sub_queries
        .first()
        .map(|s| {
            s.rows
                .iter()
                .map(|row| match row.get(column) {
                    Some(Value::Integer(n)) => *n,
                    _ => 0,
                })
                .sum()
        })
        .unwrap_or_default()
}

fn record(r: &QueryResult, node: Node) -> &NodeRecord {
    r.trace
        .iter()
        .find(|n| n.node() == node)
        .unwrap_or_else(|| panic!("no {node} record"))
}

fn planner_message(r: &QueryResult) -> String {
    r.trace
        .iter()
        .filter(|n| n.node() == Node::AstPlanner)
        .flat_map(|n| &n.llm_calls)
        .next()
        .map(|c| c.messages[0].content.clone())
        .unwrap_or_default()
}

const Q1: &str = "How many invoices are there per billing country?";
const Q2: &str = "and only for 2012?";
const Q3: &str = "Now group them by month instead";
const Q4: &str = "How many tracks are in each genre?";

#[test]
fn follow_ups_edit_the_previous_plan_and_a_new_subject_starts_fresh() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let (by_country, in_2012) = invoices_by_country();
    let month = serde_json::json!({"kind": "func", "func_name": "MONTH", "args": [col("i", "InvoiceDate")]});
    let by_month = serde_json::json!({
        "tables": [{"name": "Invoice", "alias": "i"}],
        "select_items": [{"expr": month, "alias": "month"}, {"expr": count_all(), "alias": "invoices"}],
        "where": in_2012["where"],
        "group_by": [{"expr": month}],
        "order_by": [{"expr": month}]
    });
    let by_genre = serde_json::json!({
        "tables": [{"name": "Genre", "alias": "g"}, {"name": "Track", "alias": "t"}],
        "joins": [{"left_alias": "g", "right_alias": "t", "condition": {"kind": "binary", "op": "=", "left": col("g", "GenreId"), "right": col("t", "GenreId")}}],
        "select_items": [{"expr": col("g", "Name"), "alias": "genre"}, {"expr": count_all(), "alias": "tracks"}],
        "group_by": [{"expr": col("g", "Name")}]
    });
    for (q, plan) in [
        (Q1, &by_country),
        (Q2, &in_2012),
        (Q3, &by_month),
        (Q4, &by_genre),
    ] {
        teach(&mock, q, plan);
    }
    mock.add([
        judged(Q2, true, "It narrows the last answer to 2012."),
        judged(Q3, true, "It regroups the same invoices."),
        judged(Q4, false, "Genres are a subject of their own."),
    ]);
    let s = service(&mock, template());

    let first = ask(&s, Q1, "admin", None);
    assert_eq!(first.status, Status::Success, "{:?}", first.errors);
    assert_eq!(sum_of(&first, 1), 412, "every invoice, by country");
    assert_eq!(first.follow_up, None, "no thread was given");
    assert_eq!(first.thread.turns.len(), 1);

    // A filter added.
    let second = ask(&s, Q2, "admin", Some(first.thread.clone()));
    assert_eq!(second.status, Status::Success, "{:?}", second.errors);
    assert_eq!(sum_of(&second, 1), 83, "the invoices of 2012");
    let follow = second
        .follow_up
        .clone()
        .unwrap_or_else(|| panic!("a follow-up"));
    assert!(follow.continued, "{}", follow.reason);
    assert_eq!(follow.previous_datasource.as_deref(), Some("chinook"));
    let diff = follow.diff.unwrap_or_else(|| panic!("a plan diff"));
    let added = diff.of(PlanPart::Filter, ChangeKind::Added);
    assert_eq!(added.len(), 1, "{diff:?}");
    assert!(added[0].contains("2012"), "{added:?}");
    assert_eq!(diff.changes.len(), 1, "nothing else changed: {diff:?}");
    let message = planner_message(&second);
    assert!(message.contains("Conversation so far"), "{message}");
    assert!(
        message.contains(&format!("1. \"{Q1}\" (on chinook)")),
        "{message}"
    );
    assert!(message.contains("Columns: country, invoices"), "{message}");
    assert!(message.ends_with(&format!("Question: {Q2}")));
    // The resolver's model judged it, reading the earlier turn and its plan; its record says
    // why it continued, and the planner's what changed.
    assert_eq!(follow.reason, "It narrows the last answer to 2012.");
    let resolver = record(&second, Node::DatasourceResolver);
    let resolved = resolver.output.resolver().and_then(|o| o.thread.as_ref());
    assert!(resolved.is_some_and(|t| t.continued), "{resolved:?}");
    let judging = resolver
        .llm_calls
        .first()
        .unwrap_or_else(|| panic!("the continuation check's call"));
    let read = &judging.messages[0].content;
    assert!(
        read.contains(&format!("1. \"{Q1}\" (on chinook)")),
        "{read}"
    );
    assert!(read.contains("Plan: "), "the earlier plan is read: {read}");
    assert!(read.ends_with(&format!("New question: {Q2}")), "{read}");
    let planner = second
        .trace
        .iter()
        .find(|n| n.node() == Node::AstPlanner)
        .unwrap_or_else(|| panic!("a planner record"));
    let edit = planner
        .output
        .planner()
        .and_then(|o| o.edit_of_previous.as_ref());
    assert_eq!(
        edit.and_then(|d| d.changes.first())
            .map(|c| c.part.as_str()),
        Some("filter"),
        "{edit:?}"
    );
    assert_eq!(
        second.sequential_llm_calls, 2,
        "the continuation check, then the answerability check and the plan together"
    );
    assert_eq!(second.thread.turns.len(), 2);

    // The grouping changed.
    let third = ask(&s, Q3, "admin", Some(second.thread.clone()));
    assert_eq!(third.status, Status::Success, "{:?}", third.errors);
    assert_eq!(third.sub_queries[0].rows.len(), 12, "one row per month");
    assert_eq!(sum_of(&third, 1), 83);
    let diff = third
        .follow_up
        .as_ref()
        .and_then(|f| f.diff.clone())
        .unwrap_or_else(|| panic!("a plan diff"));
    assert_eq!(diff.of(PlanPart::GroupBy, ChangeKind::Removed).len(), 1);
    assert_eq!(diff.of(PlanPart::GroupBy, ChangeKind::Added).len(), 1);
    assert!(diff.of(PlanPart::Filter, ChangeKind::Added).is_empty());
    assert_eq!(diff.of(PlanPart::OrderBy, ChangeKind::Added).len(), 1);
    let message = planner_message(&third);
    assert!(message.contains(&format!("2. \"{Q2}\"")), "{message}");
    let bpe = tiktoken_rs::o200k_base().unwrap_or_else(|e| panic!("{e}"));
    let call = third
        .trace
        .iter()
        .filter(|n| n.node() == Node::AstPlanner)
        .flat_map(|n| &n.llm_calls)
        .next()
        .unwrap_or_else(|| panic!("a planner call"));
    let tool = nl2sql_core::plan::plan_json_schema().to_string();
    let tokens: usize = [call.system.as_str(), message.as_str(), tool.as_str()]
        .iter()
        .map(|t| bpe.encode_ordinary(t).len())
        .sum();
    println!(
        "third turn: planner input {tokens} tokens (o200k_base), {} sequential model calls",
        third.sequential_llm_calls
    );
    assert!(tokens <= 4_000, "{tokens}");

    // A change of subject starts fresh.
    let fourth = ask(&s, Q4, "admin", Some(third.thread.clone()));
    assert_eq!(fourth.status, Status::Success, "{:?}", fourth.errors);
    let follow = fourth
        .follow_up
        .clone()
        .unwrap_or_else(|| panic!("a record"));
    assert!(!follow.continued);
    assert_eq!(follow.reason, "Genres are a subject of their own.");
    assert_eq!(follow.diff, None);
    assert_eq!(fourth.thread.turns.len(), 1, "the thread started again");
    assert!(!planner_message(&fourth).contains("Conversation so far"));
    let resolver = record(&fourth, Node::DatasourceResolver);
    let thread = resolver.output.resolver().and_then(|o| o.thread.as_ref());
    assert!(thread.is_some_and(|t| !t.continued), "{thread:?}");
}

#[test]
fn a_thread_is_plain_data_bounded_to_its_last_turns() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let plan = serde_json::json!({
        "tables": [{"name": "Invoice", "alias": "i"}],
        "select_items": [{"expr": count_all(), "alias": "invoices"}]
    });
    teach(&mock, Q1, &plan);
    teach(&mock, Q2, &plan);
    mock.add([
        judged(Q2, true, "It narrows the last answer."),
        judged("and the weather?", true, "It goes on from the last answer."),
    ]);
    let s = service(
        &mock,
        RunConfig {
            thread_turns: 2,
            ..template()
        },
    );
    let mut thread = ask(&s, Q1, "admin", None).thread;
    for _ in 0..3 {
        // The thread crosses as JSON and comes back whole.
        let json = serde_json::to_string(&thread).unwrap_or_default();
        thread = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        let r = ask(&s, Q2, "admin", Some(thread));
        assert_eq!(r.status, Status::Success, "{:?}", r.errors);
        thread = r.thread;
        assert!(thread.turns.len() <= 2);
    }
    assert_eq!(thread.turns.len(), 2);
    // A failed run leaves the thread as it was.
    let failed = ask(&s, "and the weather?", "admin", Some(thread.clone()));
    assert_ne!(failed.status, Status::Success);
    assert_eq!(failed.thread, thread);
}

/// Follow-ups in other languages and in phrasings that carry none of the old English cue
/// words: the model's judgement decides, and the decision routes and plans the run.
#[test]
fn follow_ups_are_told_in_any_language_and_phrasing_by_the_model() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let (by_country, in_2012) = invoices_by_country();
    let tracks = serde_json::json!({
        "tables": [{"name": "Track", "alias": "t"}],
        "select_items": [{"expr": count_all(), "alias": "tracks"}]
    });
    // (first question, its follow-up, the follow-up's language)
    let cases = [
        (
            "Wie viele Rechnungen gibt es pro Land?",
            "Nur für 2012, bitte.",
            "German",
        ),
        (
            "Combien de factures par pays de facturation ?",
            "Et seulement pour l'année 2012 ?",
            "French",
        ),
        (
            "How many invoices are there per billing country?",
            "Restricted to 2012 please",
            "English without a cue word",
        ),
    ];
    for (first, follow, _) in &cases {
        teach(&mock, first, &by_country);
        teach(&mock, follow, &in_2012);
        mock.add([judged(follow, true, "It narrows the last answer to 2012.")]);
    }
    // A new subject in another language starts fresh, though the thread is there.
    let fresh = "Wie viele Titel verkauft der Laden?";
    teach(&mock, fresh, &tracks);
    mock.add([judged(fresh, false, "Tracks are a new subject.")]);
    let s = service(&mock, template());
    for (first, follow, language) in &cases {
        let started = ask(&s, first, "admin", None);
        assert_eq!(
            started.status,
            Status::Success,
            "{language}: {:?}",
            started.errors
        );
        let followed = ask(&s, follow, "admin", Some(started.thread.clone()));
        assert_eq!(
            followed.status,
            Status::Success,
            "{language}: {:?}",
            followed.errors
        );
        let f = followed
            .follow_up
            .clone()
            .unwrap_or_else(|| panic!("{language}: a follow-up"));
        assert!(f.continued, "{language}: {}", f.reason);
        assert_eq!(sum_of(&followed, 1), 83, "{language}: the invoices of 2012");
        assert_eq!(followed.thread.turns.len(), 2, "{language}");
        assert!(
            planner_message(&followed).contains("Conversation so far"),
            "{language}: the planner read the thread"
        );
        let added = f
            .diff
            .map(|d| d.of(PlanPart::Filter, ChangeKind::Added).len());
        assert_eq!(added, Some(1), "{language}: the plan was edited");
        if *language == "German" {
            let other = ask(&s, fresh, "admin", Some(followed.thread.clone()));
            assert_eq!(other.status, Status::Success, "{:?}", other.errors);
            assert!(other.follow_up.is_some_and(|f| !f.continued));
            assert_eq!(other.thread.turns.len(), 1, "the thread started again");
            assert_eq!(other.sub_queries[0].rows, vec![vec![Value::Integer(3503)]]);
        }
    }
    // A judgement that is not the structured output is sent back and, still wrong, fails
    // the run with the provider's answer named; the thread is left as it was.
    let broken = "Und für 2013?";
    mock.add([nl2sql_tests::mock::Fixture::new(
        "continuation",
        &format!("New question: {broken}"),
        r#"{"continues": "maybe"}"#,
    )]);
    let started = ask(&s, cases[0].0, "admin", None);
    let failed = ask(&s, broken, "admin", Some(started.thread.clone()));
    assert_eq!(failed.status, Status::Error);
    assert_eq!(failed.thread, started.thread);
    assert!(
        failed
            .errors
            .iter()
            .any(|e| e.node == Node::DatasourceResolver),
        "{:?}",
        failed.errors
    );
}

#[test]
fn an_ambiguous_question_is_asked_back_and_the_chosen_answer_continues_the_thread() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let s = service(&mock, template());
    let asked = ask(&s, "How many tracks are in Classical?", "admin", None);
    assert_eq!(
        asked.status,
        Status::NeedsClarification,
        "{:?}",
        asked.errors
    );
    assert_eq!(asked.usage.calls, 0, "asked back before any model call");
    let clarification = asked
        .clarification
        .clone()
        .unwrap_or_else(|| panic!("what it asks"));
    assert_eq!(clarification.options.len(), 2, "{clarification:?}");
    assert!(
        clarification.question.contains("Genre.Name")
            && clarification.question.contains("Playlist.Name"),
        "{}",
        clarification.question
    );
    assert!(
        asked
            .trace
            .iter()
            .all(|n| matches!(n.node(), Node::CuratedMatcher | Node::DatasourceResolver)),
        "nothing ran past the resolver"
    );
    let resolver = record(&asked, Node::DatasourceResolver);
    assert!(resolver
        .output
        .resolver()
        .is_some_and(|o| o.clarification.is_some()));
    assert_eq!(asked.thread.turns.len(), 1);
    assert!(asked.thread.turns[0].clarification.is_some());
    // Choosing the genre continues the thread.
    let genre = clarification
        .options
        .iter()
        .find(|o| o.question.contains("Genre.Name"))
        .unwrap_or_else(|| panic!("a genre option"));
    let plan = serde_json::json!({
        "tables": [{"name": "Track", "alias": "t"}, {"name": "Genre", "alias": "g"}],
        "joins": [{"left_alias": "t", "right_alias": "g", "condition": {"kind": "binary", "op": "=", "left": col("t", "GenreId"), "right": col("g", "GenreId")}}],
        "select_items": [{"expr": count_all(), "alias": "tracks"}],
        "where": {"kind": "binary", "op": "=", "left": col("g", "Name"), "right": {"kind": "literal", "value": "Classical"}}
    });
    teach(&mock, &genre.question, &plan);
    let answered = ask(&s, &genre.question, "admin", Some(asked.thread.clone()));
    assert_eq!(answered.status, Status::Success, "{:?}", answered.errors);
    assert_eq!(answered.sub_queries[0].rows, vec![vec![Value::Integer(74)]]);
    let follow = answered
        .follow_up
        .clone()
        .unwrap_or_else(|| panic!("a follow-up"));
    assert!(follow.continued);
    assert_eq!(
        follow.reason,
        "it answers the question the engine asked back"
    );
    assert!(planner_message(&answered).contains("Asked back:"));
    // A question that names the table is simply answered.
    let named = ask(
        &s,
        "How many tracks are in the Classical playlist?",
        "admin",
        None,
    );
    assert_ne!(named.status, Status::NeedsClarification);
}

#[test]
fn no_answerable_reference_question_is_asked_back() {
    let workspace = demo_workspace(&data_dir(), Policies::demo())
        .unwrap_or_else(|e| panic!("the demo workspace opens: {e}"));
    let mut answerable = 0;
    for case in suite(REFERENCE_SUITE).cases {
        if case.outcome.values().all(|o| o == "unanswerable") {
            continue;
        }
        answerable += 1;
        for role in case.outcome.keys() {
            let roles = vec![role.clone()];
            let scope = workspace.policies().scope(&roles);
            let asked = ambiguity(
                &case.question,
                "chinook",
                workspace.index().values(),
                &scope,
            );
            assert_eq!(asked, None, "{} ({role}) would be asked back", case.id);
        }
    }
    assert_eq!(answerable, 43);
}

const BILLED: &str = "How many invoices were billed to Germany?";

#[test]
fn right_proposes_a_verified_query_that_answers_once_approved_with_no_model_call() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let plan = serde_json::json!({
        "tables": [{"name": "Invoice", "alias": "i"}],
        "select_items": [{"expr": count_all(), "alias": "invoices"}],
        "where": {"kind": "binary", "op": "=", "left": col("i", "BillingCountry"), "right": {"kind": "literal", "value": "Germany"}}
    });
    teach(&mock, BILLED, &plan);
    let s = service(&mock, template());
    let answered = ask(&s, BILLED, "analyst", None);
    assert_eq!(answered.status, Status::Success, "{:?}", answered.errors);
    assert_eq!(answered.sub_queries[0].rows, vec![vec![Value::Integer(28)]]);

    let mut book = FeedbackBook::default();
    let wrong = s.feedback(
        &mut book,
        Given {
            answered: Answered::of(&answered),
            verdict: Verdict::Wrong,
            comment: Some("should count paid ones"),
            by: "analyst",
            at: "2026-12-02T10:00:00Z",
        },
    );
    assert_eq!(wrong.proposal, None, "Wrong proposes nothing");
    let right = s.feedback(
        &mut book,
        Given {
            answered: Answered::of(&answered),
            verdict: Verdict::Right,
            comment: None,
            by: "analyst",
            at: "2026-12-02T10:01:00Z",
        },
    );
    let proposal = right.proposal.unwrap_or_else(|| {
        panic!(
            "Right proposes a verified query: {:?}",
            right.entry.not_proposed
        )
    });
    assert_eq!(proposal.status, ProposalStatus::Proposed);
    assert_eq!(
        proposal.query.questions,
        vec!["How many invoices were billed to {billing_country}?"]
    );
    assert!(
        proposal.query.sql.contains(":billing_country"),
        "{}",
        proposal.query.sql
    );
    assert!(!proposal.query.sql.contains("Germany"));
    assert_eq!(proposal.proposed_by, "analyst");
    assert_eq!(book.entries.len(), 2);

    // Only a role that approves may approve; a proposal is not in force until then.
    let id = (proposal.datasource.as_str(), proposal.query.id.as_str());
    for role in ["viewer", "analyst"] {
        let refused = pollster::block_on(s.approve(
            &mut book,
            id,
            &[role.to_string()],
            (role, "2026-12-02T10:02:00Z"),
        ));
        let Err(e) = refused else {
            panic!("{role} approved");
        };
        assert_eq!(e.code, nl2sql_core::error::ErrorCode::ApprovalNotAllowed);
    }
    pollster::block_on(s.use_approved(&book)).unwrap_or_else(|e| panic!("{e}"));
    let before = ask(
        &s,
        "How many invoices were billed to France?",
        "analyst",
        None,
    );
    assert_eq!(before.source, None, "not approved yet");
    let approved = pollster::block_on(s.approve(
        &mut book,
        id,
        &["admin".to_string()],
        ("admin", "2026-12-02T10:03:00Z"),
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(approved.status, ProposalStatus::Approved);
    assert_eq!(approved.approved_by.as_deref(), Some("admin"));

    // The same question, with another value, is answered by the verified query.
    let again = ask(
        &s,
        "How many invoices were billed to France?",
        "analyst",
        None,
    );
    assert_eq!(again.status, Status::Success, "{:?}", again.errors);
    assert_eq!(again.usage.calls, 0, "no model call");
    assert_eq!(again.sequential_llm_calls, 0);
    assert_eq!(again.sub_queries[0].rows, vec![vec![Value::Integer(35)]]);
    assert_eq!(again.sub_queries[0].plan_source, PlanSource::Verified);
    assert!(
        matches!(&again.source, Some(AnswerSource::Verified { id, .. }) if *id == proposal.query.id)
    );

    // The book survives a round trip through its file form, and exports as eval cases.
    let stored = FeedbackBook::from_json(&book.to_json()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stored, book);
    let yaml = nl2sql_suite::good_cases(&book).unwrap_or_else(|e| panic!("{e}"));
    let cases = nl2sql_suite::Suite::parse(&yaml).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cases.cases.len(), 1);
    assert_eq!(cases.cases[0].question, BILLED);
    assert_eq!(
        cases.cases[0].outcome.get("analyst").map(String::as_str),
        Some("allowed")
    );
    assert!(cases.cases[0]
        .sql
        .as_deref()
        .is_some_and(|q| q.contains("Germany")));
    assert!(FeedbackBook::from_json("{\"version\": 9}").is_err());

    // Deleting it takes it out of force again.
    pollster::block_on(s.delete_proposal(&mut book, id, &["admin".to_string()]))
        .unwrap_or_else(|e| panic!("{e}"));
    let after = ask(&s, BILLED, "analyst", None);
    assert_eq!(after.source, None);
}

#[test]
fn a_cached_plan_skips_the_planner_for_admin_and_is_refused_for_viewer() {
    let mock = MockProvider::start().expect("the mock provider starts");
    let q = "How many employees are there?";
    let plan = serde_json::json!({
        "tables": [{"name": "Employee", "alias": "e"}],
        "select_items": [{"expr": count_all(), "alias": "employees"}]
    });
    teach(&mock, q, &plan);
    let s = service(&mock, template());
    let on_chinook = |role: &str, text: &str| {
        let question = Question {
            question: text.into(),
            roles: vec![role.into()],
            datasource: Some("chinook".into()),
            ..Question::default()
        };
        let ask = s.request(question).unwrap_or_else(|e| panic!("{e}"));
        pollster::block_on(s.ask(ask, None))
    };
    let first = on_chinook("admin", q);
    assert_eq!(first.status, Status::Success, "{:?}", first.errors);
    assert_eq!(first.usage.calls, 2);
    assert_eq!(s.cached_plans(), 1);

    let hit = on_chinook("admin", "  how many EMPLOYEES are there ");
    assert_eq!(hit.status, Status::Success, "{:?}", hit.errors);
    assert_eq!(
        hit.usage.calls, 0,
        "neither the check nor the planner was asked"
    );
    assert_eq!(hit.sequential_llm_calls, 0);
    assert_eq!(hit.sub_queries[0].plan_source, PlanSource::Cache);
    assert_eq!(hit.sub_queries[0].rows, vec![vec![Value::Integer(8)]]);
    let resolver = record(&hit, Node::DatasourceResolver);
    let cached = resolver
        .output
        .resolver()
        .and_then(|o| o.plan_cache.as_ref());
    assert!(cached.is_some_and(|c| c.hit), "{cached:?}");
    let planner = hit
        .trace
        .iter()
        .find(|n| n.node() == Node::AstPlanner)
        .unwrap_or_else(|| panic!("the planner's record"));
    assert!(planner.llm_calls.is_empty());
    assert!(planner
        .output
        .planner()
        .is_some_and(|o| o.plan_cache.is_some()));
    println!(
        "plan cache hit: {} sequential model calls (a planned run: {})",
        hit.sequential_llm_calls, first.sequential_llm_calls
    );

    // The same cached plan, validated again for a viewer, is refused.
    let viewer = on_chinook("viewer", q);
    assert_eq!(viewer.status, Status::Error);
    assert_eq!(viewer.errors[0].error_code, ErrorCode::SecurityViolation);
    assert_eq!(viewer.usage.calls, 0);
    assert!(viewer.sub_queries[0].rows.is_empty());

    // Cleared, the question is planned again; off, nothing is kept.
    s.clear_plan_cache();
    assert_eq!(on_chinook("admin", q).usage.calls, 2);
    let off = service(
        &mock,
        RunConfig {
            plan_cache: false,
            ..template()
        },
    );
    let ask_off = || {
        let question = Question {
            question: q.into(),
            roles: vec!["admin".into()],
            datasource: Some("chinook".into()),
            ..Question::default()
        };
        let a = off.request(question).unwrap_or_else(|e| panic!("{e}"));
        pollster::block_on(off.ask(a, None))
    };
    assert_eq!(ask_off().usage.calls, 2);
    assert_eq!(ask_off().usage.calls, 2);
    assert_eq!(off.cached_plans(), 0);
}

#[test]
#[ignore = "a benchmark: run it with `cargo xtask bench` (release)"]
fn thread_overhead() {
    use nl2sql_tests::bench::percentiles;
    use std::time::Instant;
    let mock = MockProvider::start().expect("the mock provider starts");
    let (by_country, in_2012) = invoices_by_country();
    let alone = "How many invoices were billed per country in 2012?";
    teach(&mock, Q1, &by_country);
    teach(&mock, Q2, &in_2012);
    teach(&mock, alone, &in_2012);
    mock.add([judged(Q2, true, "It narrows the last answer to 2012.")]);
    // The same plan both ways (the follow-up has the continuation check's call besides), the
    // cache off so each plans.
    let s = service(
        &mock,
        RunConfig {
            plan_cache: false,
            ..template()
        },
    );
    let thread = ask(&s, Q1, "admin", None).thread;
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for round in 0..60 {
        let started = Instant::now();
        let r = ask(&s, alone, "admin", None);
        let standalone = started.elapsed();
        assert_eq!(r.status, Status::Success);
        let started = Instant::now();
        let r = ask(&s, Q2, "admin", Some(thread.clone()));
        let followed = started.elapsed();
        assert_eq!(r.status, Status::Success);
        assert!(r.follow_up.is_some_and(|f| f.continued));
        // The first rounds warm the connections and caches.
        if round >= 10 {
            without.push(standalone.as_secs_f64() * 1e6);
            with.push(followed.as_secs_f64() * 1e6);
        }
    }
    // The thread's own work, apart from the run and its model calls: the continuation
    // check's message, the planner's context, and the plan diff.
    let second = ask(&s, Q2, "admin", Some(thread.clone()));
    let (Some(before), Some(after)) = (
        thread.turns[0].plan.clone(),
        second.sub_queries[0].plan.clone(),
    ) else {
        panic!("both plans");
    };
    let mut own = Vec::new();
    for _ in 0..1_000 {
        let started = Instant::now();
        let c = second.thread.turns_text();
        let context = second.thread.context();
        let d = nl2sql_core::conversation::diff(&before, &after);
        std::hint::black_box((c, context, d));
        own.push(started.elapsed().as_secs_f64() * 1e6);
    }
    let (own50, own95) = percentiles(own);
    println!("the thread's own work (the check's message, context, plan diff): p50 {own50:.1} µs, p95 {own95:.1} µs");
    let (with50, with95) = percentiles(with);
    let (without50, without95) = percentiles(without);
    println!(
        "a follow-up in a thread against the same question standing alone (50 each, zero-latency mock over loopback HTTP):\n  \
         standalone p50 {:.2} ms, p95 {:.2} ms; follow-up p50 {:.2} ms, p95 {:.2} ms; the thread's overhead at p50 {:.2} ms",
        without50 / 1e3,
        without95 / 1e3,
        with50 / 1e3,
        with95 / 1e3,
        (with50 - without50) / 1e3
    );
}
