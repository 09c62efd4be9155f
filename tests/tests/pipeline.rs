//! The whole pipeline natively: rusqlite datasources, the built-in index, the mock model
//! provider over real HTTP through the command line's transport.
#![cfg(not(target_arch = "wasm32"))]

use nl2sql_core::catalog::Assembled;
use nl2sql_core::engine::{
    Agent, AnswerSource, Engine, EngineSettings, Hooks, MatchReason, Parts, Question, Status,
    Writer,
};
use nl2sql_core::error::{ErrorCode, Node};
use nl2sql_core::index::{BuiltinEmbedder, SchemaIndex};
use nl2sql_core::policy::Policies;
use nl2sql_core::provider::{ApiKey, Provider, Wire};
use nl2sql_core::Datasource;
use nl2sql_native::{BlockingTransport, MemoryScratch, WallClock};
use nl2sql_tests::mock::{Fixture, MockProvider};
use nl2sql_tests::native::open;
use nl2sql_tests::pipeline::{
    cross_fixtures, reference_fixtures, run_reference_pipeline, CROSS_QUESTION,
};
use nl2sql_tests::routing::demo_index;
use std::time::Instant;

const KEY: &str = "sk-mock-0123456789abcdefghijKLMN";

struct World {
    mock: MockProvider,
    dbs: Vec<Box<dyn Datasource>>,
    index: SchemaIndex,
    embedder: BuiltinEmbedder,
    policies: Policies,
    transport: BlockingTransport,
    clock: WallClock,
}

fn world() -> World {
    let mock = MockProvider::start().unwrap_or_else(|e| panic!("mock: {e}"));
    mock.add(
        reference_fixtures()
            .into_iter()
            .chain(cross_fixtures())
            .map(|(n, q, a)| Fixture::new(&n, &q, &a)),
    );
    let embedder = BuiltinEmbedder::default();
    let index = pollster::block_on(demo_index(&open, &embedder));
    World {
        dbs: ["chinook", "support", "webanalytics"]
            .iter()
            .map(|d| open(d))
            .collect(),
        mock,
        index,
        embedder,
        policies: Policies {
            refusal_names_tables: false,
            ..Policies::demo()
        },
        transport: BlockingTransport::default(),
        clock: WallClock::start(),
    }
}

fn engine<'a>(w: &'a World, model: &str) -> Engine<'a> {
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    engine_with(
        w,
        &w.transport,
        EngineSettings::new(Agent::new(provider, model)),
    )
}

fn engine_with<'a>(
    w: &'a World,
    transport: &'a dyn nl2sql_core::http::HttpTransport,
    settings: EngineSettings,
) -> Engine<'a> {
    Engine::new(
        Parts {
            catalog: Box::new(Assembled {
                datasources: w.dbs.iter().map(|d| d.as_ref()).collect(),
                index: &w.index,
                embedder: &w.embedder,
                policies: &w.policies,
            }),
            transport,
            clock: &w.clock,
        },
        settings,
    )
    .combining_with(&MemoryScratch)
}

#[test]
fn the_reference_suite_through_the_whole_pipeline_over_http() {
    let w = world();
    let outcome = pollster::block_on(run_reference_pipeline(&engine(&w, "mock")));
    println!(
        "reference suite through the pipeline: {} role runs, {} failures",
        outcome.runs,
        outcome.failures.len()
    );
    assert_eq!(outcome.runs, 141);
    outcome.assert_passed();
}

#[test]
fn a_run_reports_its_nodes_calls_usage_and_answer() {
    let w = world();
    let e = engine(&w, "mock");
    let q = "How many customers do we have, by country?";
    let r = pollster::block_on(e.ask(&Question::new(q), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    // Routing ran (no explicit datasource), and chose Chinook.
    assert_eq!(
        r.routing
            .as_ref()
            .and_then(|x| x.ranked.first())
            .map(String::as_str),
        Some("chinook")
    );
    let nodes: Vec<Node> = r.trace.iter().map(|n| n.node()).collect();
    assert_eq!(
        nodes,
        [
            Node::DatasourceResolver,
            Node::SchemaRetriever,
            Node::AstPlanner,
            Node::LogicalValidator,
            Node::Generator,
            Node::Executor,
            Node::AnswerSynthesizer
        ]
    );
    assert_eq!(r.usage.calls, 2, "the answerability check and the planner");
    assert_eq!(r.sequential_llm_calls, 1, "they ran together");
    assert!(r.usage.input_tokens.is_some_and(|n| n > 0));
    let answer = r
        .final_answer
        .as_ref()
        .map(|a| a.text.clone())
        .unwrap_or_default();
    assert!(
        answer.starts_with("24 rows; the first: USA, 13"),
        "{answer}"
    );
    // The question reaches the planner whole, and the key is nowhere in the result.
    let planner = &r.trace[2].llm_calls[0];
    assert!(planner.messages[0]
        .content
        .ends_with(&format!("Question: {q}")));
    let json = serde_json::to_string(&r).unwrap_or_default();
    assert!(
        !json.contains("0123456789"),
        "the key leaked into the result"
    );
    // The stable system prompts are byte-identical across questions.
    let again = pollster::block_on(e.ask(
        &Question::new("Which genre sells the most tracks?"),
        Hooks::default(),
    ));
    assert_eq!(again.trace[2].llm_calls[0].system_hash, planner.system_hash);
    assert_eq!(
        again.trace[0].llm_calls[0].system_hash,
        r.trace[0].llm_calls[0].system_hash
    );
}

/// Track has no Title: the plan the retry tests' planner gets wrong first.
const TRACK_TITLES: &str = r#"{"tables": [{"name": "Track", "alias": "t"}], "select_items": [{"expr": {"kind": "column", "alias": "t", "column_name": "Title"}}]}"#;

/// The `limit` longest tracks by name: the retry tests' corrected plan.
fn longest_tracks(limit: u32) -> String {
    format!(
        r#"{{"tables": [{{"name": "Track", "alias": "t"}}], "select_items": [{{"expr": {{"kind": "column", "alias": "t", "column_name": "Name"}}}}], "order_by": [{{"expr": {{"kind": "column", "alias": "t", "column_name": "Milliseconds"}}, "direction": "desc"}}], "limit": {limit}}}"#
    )
}

#[test]
fn rejected_plans_are_retried_with_the_validator_s_words_and_fatal_ones_never() {
    let w = world();
    let q = "Which tracks are the longest, by name?";
    let bad = TRACK_TITLES;
    let good = &longest_tracks(3);
    w.mock.add([
        Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["chinook"], "reason": "tracks"}"#,
        ),
        Fixture::new("plan", q, bad),
        // The retry's last message is the feedback, which names the bad column.
        Fixture::new("plan", "Title", good),
    ]);
    let r = pollster::block_on(engine(&w, "mock").ask(&Question::new(q), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.sub_queries[0].retry_count, 1);
    assert_eq!(r.sub_queries[0].rows.len(), 3);
    let feedback = r
        .trace
        .iter()
        .filter(|n| n.node() == Node::AstPlanner)
        .flat_map(|n| &n.llm_calls)
        .last()
        .and_then(|c| c.messages.last())
        .map(|m| m.content.clone())
        .unwrap_or_default();
    assert!(
        feedback.contains("Title"),
        "the validator's message reached the planner: {feedback}"
    );
    // The rejection the retry got past is a warning that says so, for its sub-query.
    let recovered: Vec<_> = r.warnings.iter().filter(|w| w.recovered).collect();
    assert_eq!(recovered.len(), 1, "{:?}", r.warnings);
    assert_eq!(recovered[0].code, ErrorCode::ColumnNotFound);
    assert_eq!(recovered[0].sub_query_id.as_deref(), Some("q1"));

    // A refusal is fatal: one planner call, no retry.
    let secret = "Which employees earn the most, privately?";
    w.mock.add([
        Fixture::new("answerability", secret, r#"{"datasources": ["chinook"], "reason": "staff"}"#),
        Fixture::new("plan", secret, r#"{"tables": [{"name": "Employee", "alias": "e"}], "select_items": [{"expr": {"kind": "column", "alias": "e", "column_name": "LastName"}}]}"#),
    ]);
    let asked = Question::new(secret).as_roles(["analyst"]);
    let r = pollster::block_on(engine(&w, "mock").ask(&asked, Hooks::default()));
    assert_eq!(
        r.errors.iter().map(|e| e.error_code).collect::<Vec<_>>(),
        [ErrorCode::SecurityViolation]
    );
    assert_eq!(r.usage.calls, 2);
}

#[test]
fn provider_failures_unanswerable_questions_and_bad_output_end_runs_cleanly() {
    let w = world();
    let r = pollster::block_on(engine(&w, "fault-401").ask(
        &Question::new("How many albums are there?"),
        Hooks::default(),
    ));
    assert_eq!(r.status, Status::Error);
    assert_eq!(r.errors[0].error_code, ErrorCode::ProviderAuthFailed);
    assert!(!serde_json::to_string(&r)
        .unwrap_or_default()
        .contains("0123456789"));

    let weather = "What will the weather be in Paris tomorrow?";
    let r = pollster::block_on(engine(&w, "mock").ask(&Question::new(weather), Hooks::default()));
    assert_eq!(r.errors[0].error_code, ErrorCode::QuestionNotAnswerable);
    assert_eq!(r.usage.calls, 1, "no planner call after a refusal");

    let q = "Show me something about the help desk the model cannot plan.";
    w.mock.add([
        Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["chinook"], "reason": "maybe"}"#,
        ),
        Fixture::new("plan", q, r#"{"tables": "Track"}"#),
        Fixture::new("plan", "not a valid plan", r#"{"select": "*"}"#),
    ]);
    let r = pollster::block_on(
        engine(&w, "mock").ask(&Question::new(q).on("chinook"), Hooks::default()),
    );
    assert_eq!(
        r.errors[0].error_code,
        ErrorCode::ModelOutputInvalid,
        "{:?}",
        r.errors
    );
    // A planner whose answer never parses is retried like any retryable rejection: the
    // plan and its parse retry, on the first attempt and on each of the 3 retries.
    assert_eq!(
        r.usage.calls,
        1 + 2 * 4,
        "the verdict, then (the plan and one parse retry) × 4"
    );
    assert_eq!(r.sub_queries[0].retry_count, 3);
    // Routed, the question is first planned for the top-ranked datasource; the verdict
    // names Chinook instead, and the dropped planning stays in the trace and the usage.
    let r = pollster::block_on(engine(&w, "mock").ask(&Question::new(q), Hooks::default()));
    let top = r.routing.as_ref().and_then(|x| x.ranked.first().cloned());
    assert_eq!(
        top.as_deref(),
        Some("support"),
        "routing's pick for this vague question"
    );
    assert!(
        r.trace
            .iter()
            .any(|n| n.output.planner().is_some_and(|o| o.dropped.is_some())),
        "{:?}",
        r.trace
    );
    assert_eq!(
        r.usage.calls,
        1 + 2 + 2 * 4,
        "the verdict, two for support, (two for chinook) × 4: {:?} {:?}",
        r.routing.as_ref().map(|x| (&x.ranked, &x.dropped)),
        r.errors
    );
}

/// Counts the time spent waiting on the provider, so the engine's own time can be told apart.
struct Timed<'a> {
    inner: &'a BlockingTransport,
    waited: std::cell::Cell<std::time::Duration>,
}

impl nl2sql_core::http::HttpTransport for Timed<'_> {
    fn post<'b>(
        &'b self,
        request: &'b nl2sql_core::http::HttpRequest,
    ) -> nl2sql_core::LocalBoxFuture<
        'b,
        Result<nl2sql_core::http::HttpResponse, nl2sql_core::http::HttpFailure>,
    > {
        Box::pin(async move {
            let started = Instant::now();
            let r = self.inner.post(request).await;
            self.waited.set(self.waited.get() + started.elapsed());
            r
        })
    }
}

#[test]
#[ignore = "a benchmark: run it with `cargo xtask bench` (release)"]
fn pipeline_overhead_and_prompt_tokens() {
    use nl2sql_tests::bench::percentiles;
    let w = world();
    let timed = Timed {
        inner: &w.transport,
        waited: std::cell::Cell::new(std::time::Duration::ZERO),
    };
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let e = engine_with(
        &w,
        &timed,
        EngineSettings::new(Agent::new(provider, "mock")),
    );
    let bpe = tiktoken_rs::o200k_base().unwrap_or_else(|e| panic!("o200k_base: {e}"));
    let schema_tokens = bpe
        .encode_ordinary(&nl2sql_core::plan::plan_json_schema().to_string())
        .len();
    let verdict_schema_tokens = bpe
        .encode_ordinary(&nl2sql_core::engine::prompts::answerability_schema().to_string())
        .len();
    use nl2sql_tests::gold::GoldPlan;
    let suite = nl2sql_tests::gold::suite(nl2sql_tests::gold::REFERENCE_SUITE);
    let (mut overhead, mut wall, mut input, mut planner_in, mut check_in) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut sequential = vec![];
    let mut by_node: Vec<(Node, u64)> = vec![];
    for case in suite.cases.iter().filter(|c| c.parsed_plan().is_some()) {
        timed.waited.set(std::time::Duration::ZERO);
        let started = Instant::now();
        let r = pollster::block_on(e.ask(&Question::new(&case.question), Hooks::default()));
        let total = started.elapsed();
        assert_eq!(r.status, Status::Success, "{}: {:?}", case.id, r.errors);
        wall.push(total);
        overhead.push(total.saturating_sub(timed.waited.get()));
        sequential.push(r.sequential_llm_calls);
        for n in &r.trace {
            let llm: u64 = n.llm_calls.iter().map(|c| c.latency_ms).sum();
            match by_node.iter_mut().find(|(x, _)| *x == n.node()) {
                Some((_, t)) => *t += n.duration_ms.saturating_sub(llm),
                None => by_node.push((n.node(), n.duration_ms.saturating_sub(llm))),
            }
        }
        let mut per_node = [0usize; 2];
        for call in r.trace.iter().flat_map(|n| &n.llm_calls) {
            let text: usize = bpe.encode_ordinary(&call.system).len()
                + call
                    .messages
                    .iter()
                    .map(|m| bpe.encode_ordinary(&m.content).len())
                    .sum::<usize>();
            match call.node {
                Node::AstPlanner => per_node[0] += text + schema_tokens,
                _ => per_node[1] += text + verdict_schema_tokens,
            }
        }
        planner_in.push(per_node[0]);
        check_in.push(per_node[1]);
        input.push(per_node[0] + per_node[1]);
    }
    let ms = |v: &[std::time::Duration]| {
        let us: Vec<f64> = v.iter().map(|d| d.as_secs_f64() * 1e6).collect();
        let (p50, p95) = percentiles(us);
        format!("p50 {:.2} ms, p95 {:.2} ms", p50 / 1e3, p95 / 1e3)
    };
    let tokens = |v: &[usize]| {
        let mut s = v.to_vec();
        s.sort_unstable();
        format!(
            "median {}, max {}",
            s.get(s.len() / 2).copied().unwrap_or(0),
            s.last().copied().unwrap_or(0)
        )
    };
    println!("pipeline over {} reference questions (admin, routed, zero-latency mock over loopback HTTP):", wall.len());
    println!(
        "  non-model overhead (wall minus waiting on the provider): {}",
        ms(&overhead)
    );
    println!("  wall time: {}", ms(&wall));
    let n = wall.len().max(1) as f64;
    let spread: Vec<String> = by_node
        .iter()
        .map(|(node, total)| format!("{node} {:.2} ms", *total as f64 / n))
        .collect();
    println!(
        "  mean per node, model waits excluded (ms clock): {}",
        spread.join(", ")
    );
    println!("  sequential model calls per question: {:?}", {
        let mut s = sequential.clone();
        s.sort_unstable();
        s.dedup();
        s
    });
    println!(
        "  input tokens per question (o200k_base, schemas included): {}",
        tokens(&input)
    );
    println!(
        "    planner: {}; answerability check: {}",
        tokens(&planner_in),
        tokens(&check_in)
    );
}

#[test]
fn a_cancel_at_any_node_ends_the_run_as_cancelled_and_a_timeout_answers_politely() {
    use nl2sql_core::engine::{CancelToken, Event, Events};
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let w = world();
    let q = "How many customers do we have, by country?";
    for at in [
        Node::DatasourceResolver,
        Node::SchemaRetriever,
        Node::AstPlanner,
        Node::LogicalValidator,
        Node::Generator,
        Node::Executor,
        Node::AnswerSynthesizer,
    ] {
        let flag = Arc::new(AtomicBool::new(false));
        let transport = BlockingTransport::cancelled_by(Arc::clone(&flag));
        let token = CancelToken::new();
        token.on_cancel(move || flag.store(true, Ordering::SeqCst));
        let seen: Rc<RefCell<Vec<Event>>> = Rc::default();
        let log = Rc::clone(&seen);
        let cancel = token.clone();
        let events = Events(Rc::new(move |e: &Event| {
            log.borrow_mut().push(e.clone());
            if matches!(e, Event::NodeStarted { node, .. } if *node == at) {
                cancel.cancel();
            }
        }));
        let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
        let e = engine_with(
            &w,
            &transport,
            EngineSettings::new(Agent::new(provider, "mock")),
        );
        let hooks = Hooks {
            cancel: Some(token),
            events: Some(events),
        };
        let r = pollster::block_on(e.ask(&Question::new(q), hooks));
        assert_eq!(
            r.errors.iter().map(|e| e.error_code).collect::<Vec<_>>(),
            [ErrorCode::Cancelled],
            "cancel at {at}"
        );
        assert!(r.final_answer.is_none(), "cancel at {at}");
        // Nothing starts after the cancel, except what was already under way with it.
        let events = seen.borrow();
        let at_index = events
            .iter()
            .position(|e| matches!(e, Event::NodeStarted { node, .. } if *node == at))
            .unwrap_or(usize::MAX);
        let later_starts = events
            .iter()
            .skip(at_index + 1)
            .filter(|e| matches!(e, Event::NodeStarted { node, .. } if *node != Node::AstPlanner))
            .count();
        assert_eq!(later_starts, 0, "cancel at {at}: {events:?}");
    }

    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let mut settings = EngineSettings::new(Agent::new(provider, "fault-slow-3000"));
    settings.timeout_ms = 400;
    let e = engine_with(&w, &w.transport, settings);
    let started = Instant::now();
    let r = pollster::block_on(e.ask(&Question::new(q), Hooks::default()));
    assert_eq!(
        r.errors.iter().map(|e| e.error_code).collect::<Vec<_>>(),
        [ErrorCode::PipelineTimeout]
    );
    assert!(
        started.elapsed().as_millis() < 2_000,
        "the model call's timeout was cut to the run's"
    );
    let answer = r.final_answer.map(|a| a.text).unwrap_or_default();
    assert!(
        answer.starts_with("Sorry, I could not finish within 1 seconds"),
        "{answer}"
    );
}

#[test]
fn a_written_answer_streams_after_the_rows_and_is_checked_against_them() {
    use nl2sql_core::engine::{AnswerMode, Event, Events};
    use std::cell::RefCell;
    use std::rc::Rc;
    let w = world();
    let q = "How many customers do we have, by country?";
    let honest = "The USA has the most customers, 13, ahead of Canada with 8.";
    let invented = "Germany leads with 40 customers.";
    let other = "Which genre sells the most tracks?";
    w.mock.add([
        Fixture::new("text", q, honest),
        Fixture::new("text", other, invented),
    ]);
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let agent = Agent::new(provider, "mock");
    let mut settings = EngineSettings::new(agent.clone());
    settings.answer = AnswerMode::Llm(agent.clone());
    let e = engine_with(&w, &w.transport, settings.clone());
    let seen: Rc<RefCell<Vec<Event>>> = Rc::default();
    let log = Rc::clone(&seen);
    let hooks = Hooks {
        events: Some(Events(Rc::new(move |e: &Event| {
            log.borrow_mut().push(e.clone())
        }))),
        ..Hooks::default()
    };
    let r = pollster::block_on(e.ask(&Question::new(q), hooks));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    let answer = r
        .final_answer
        .clone()
        .unwrap_or_else(|| panic!("an answer"));
    assert_eq!(
        (answer.text.as_str(), answer.written_by),
        (honest, Writer::Llm)
    );
    // Chinook and support both hold customers: routing says the call was close, and
    // nothing else is wrong.
    assert_eq!(
        r.warnings.iter().map(|w| w.code).collect::<Vec<_>>(),
        [ErrorCode::RoutingCloseCall],
        "{:?}",
        r.warnings
    );
    assert_eq!(
        r.sequential_llm_calls, 2,
        "planning with the check, then the answer"
    );
    let events = seen.borrow();
    let rows_at = events.iter().position(|e| matches!(e, Event::Rows { .. }));
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::AnswerDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let first_delta = events
        .iter()
        .position(|e| matches!(e, Event::AnswerDelta { .. }));
    assert!(deltas.len() > 1 && deltas.concat() == honest, "{deltas:?}");
    assert!(
        rows_at.is_some() && rows_at < first_delta,
        "rows before the answer"
    );
    drop(events);

    let r = pollster::block_on(e.ask(&Question::new(other), Hooks::default()));
    let codes: Vec<ErrorCode> = r.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, [ErrorCode::AnswerNotGrounded]);
    assert!(
        r.warnings[0].message.contains("40") && r.warnings[0].message.contains("Germany"),
        "{}",
        r.warnings[0].message
    );

    // A writer that fails leaves the template answer and a warning; the rows still count.
    let broken = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    settings.answer = AnswerMode::Llm(Agent::new(broken, "fault-500"));
    let e = engine_with(&w, &w.transport, settings);
    let r = pollster::block_on(e.ask(&Question::new(q), Hooks::default()));
    assert_eq!(r.status, Status::Success);
    assert_eq!(r.final_answer.map(|a| a.written_by), Some(Writer::Template));
    assert_eq!(
        r.warnings.iter().map(|w| w.code).collect::<Vec<_>>(),
        [ErrorCode::RoutingCloseCall, ErrorCode::ProviderUnavailable]
    );
}

#[test]
fn an_empty_result_for_a_missing_value_is_retried_with_the_closest_values() {
    let w = world();
    let plan = |genre: &str| {
        format!(
            r#"{{"tables": [{{"name": "Track", "alias": "t"}}, {{"name": "Genre", "alias": "g"}}],
                "joins": [{{"left_alias": "t", "right_alias": "g", "join_type": "inner",
                    "condition": {{"kind": "binary", "op": "=", "left": {{"kind": "column", "alias": "t", "column_name": "GenreId"}}, "right": {{"kind": "column", "alias": "g", "column_name": "GenreId"}}}}}}],
                "select_items": [{{"alias": "tracks", "expr": {{"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{{"kind": "column", "alias": "t", "column_name": "TrackId"}}]}}}}],
                "where": {{"kind": "binary", "op": "=", "left": {{"kind": "column", "alias": "g", "column_name": "Name"}}, "right": {{"kind": "literal", "value": "{genre}"}}}},
                "group_by": [{{"expr": {{"kind": "column", "alias": "g", "column_name": "Name"}}}}]}}"#
        )
    };
    let q = "How many tracks are in the Jaz genre?";
    let nothing = "How many tracks are in the Zzyzx genre?";
    w.mock.add([
        Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["chinook"], "reason": "tracks"}"#,
        ),
        Fixture::new("plan", q, &plan("Jaz")),
        Fixture::new("plan", "'Jazz'", &plan("Jazz")),
        Fixture::new(
            "answerability",
            nothing,
            r#"{"datasources": ["chinook"], "reason": "tracks"}"#,
        ),
        Fixture::new("plan", nothing, &plan("Zzyzx")),
    ]);
    let e = engine(&w, "mock");
    let r = pollster::block_on(e.ask(&Question::new(q), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.sub_queries[0].retry_count, 1);
    assert_eq!(
        r.sub_queries[0].rows,
        vec![vec![nl2sql_core::Value::Integer(130)]]
    );
    let first_run = r
        .trace
        .iter()
        .find(|n| n.node() == Node::Executor)
        .map(|n| n.errors.clone())
        .unwrap_or_default();
    assert_eq!(
        first_run.iter().map(|e| e.error_code).collect::<Vec<_>>(),
        [ErrorCode::ValueNotFound]
    );
    assert!(
        first_run[0].message.contains("'Jazz'"),
        "{}",
        first_run[0].message
    );
    assert!(r
        .warnings
        .iter()
        .any(|w| w.code == ErrorCode::ValueNotFound && w.recovered));

    // With no retry left the finding is reported, never the end of the run.
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let mut settings = EngineSettings::new(Agent::new(provider, "mock"));
    settings.retries_max = 0;
    let r = pollster::block_on(
        engine_with(&w, &w.transport, settings).ask(&Question::new(q), Hooks::default()),
    );
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.sub_queries[0].retry_count, 0);
    assert!(r.sub_queries[0].rows.is_empty());
    let warned: Vec<_> = r.warnings.iter().map(|w| (w.code, w.recovered)).collect();
    assert_eq!(warned, [(ErrorCode::ValueNotFound, false)]);

    // Nothing close: the empty result stands, with a warning the answer can report.
    let r = pollster::block_on(e.ask(&Question::new(nothing), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.sub_queries[0].retry_count, 0);
    assert_eq!(
        r.warnings.iter().map(|w| w.code).collect::<Vec<_>>(),
        [ErrorCode::ValueNotFound]
    );
    assert!(
        r.warnings[0].message.contains("none is close"),
        "{}",
        r.warnings[0].message
    );

    // A result column that is NULL in every row is flagged.
    let companies = "Which of our customers in Brazil have no company?";
    w.mock.add([
        Fixture::new("answerability", companies, r#"{"datasources": ["chinook"], "reason": "customers"}"#),
        Fixture::new(
            "plan",
            companies,
            r#"{"tables": [{"name": "Customer", "alias": "c"}], "select_items": [{"expr": {"kind": "column", "alias": "c", "column_name": "LastName"}}, {"expr": {"kind": "column", "alias": "c", "column_name": "Company"}}], "where": {"kind": "binary", "op": "AND", "left": {"kind": "binary", "op": "=", "left": {"kind": "column", "alias": "c", "column_name": "Country"}, "right": {"kind": "literal", "value": "Brazil"}}, "right": {"kind": "binary", "op": "IS", "left": {"kind": "column", "alias": "c", "column_name": "Company"}, "right": {"kind": "literal", "is_null": true}}}}"#,
        ),
    ]);
    let r = pollster::block_on(e.ask(&Question::new(companies), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert!(!r.sub_queries[0].rows.is_empty());
    assert_eq!(
        r.warnings.iter().map(|w| w.code).collect::<Vec<_>>(),
        [ErrorCode::RoutingCloseCall, ErrorCode::AllNullColumn],
        "customers are in chinook and in support: a close call"
    );
}

#[test]
fn a_recorded_run_replays_without_a_provider_and_reports_changed_prompts() {
    use nl2sql_core::engine::{AnswerMode, Replay};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let w = world();
    let q = "How many customers do we have, by country?";
    w.mock
        .add([Fixture::new("text", q, "The USA leads with 13 customers.")]);
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let agent = Agent::new(provider, "mock");
    let mut settings = EngineSettings::new(agent.clone());
    settings.answer = AnswerMode::Llm(agent);
    let recorded = pollster::block_on(
        engine_with(&w, &w.transport, settings.clone()).ask(&Question::new(q), Hooks::default()),
    );
    assert_eq!(recorded.status, Status::Success);
    let json = serde_json::to_string(&recorded).unwrap_or_default();

    // No provider at all: every request would be refused.
    let offline = BlockingTransport::cancelled_by(Arc::new(AtomicBool::new(true)));
    let replay = Replay::from_result_json(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replay.len(), 3);
    let again = pollster::block_on(
        engine_with(&w, &offline, settings.clone())
            .replaying(&replay)
            .ask(&Question::new(q), Hooks::default()),
    );
    assert_eq!(again.status, Status::Success, "{:?}", again.errors);
    assert_eq!(again.sub_queries, recorded.sub_queries);
    assert_eq!(again.final_answer, recorded.final_answer);
    assert!(
        again.replay_divergences.is_empty(),
        "{:?}",
        again.replay_divergences
    );

    // Asked as the analyst, the planner sees another schema: the replay still answers,
    // and says where the prompt changed.
    let replay = Replay::from_result_json(&json).unwrap_or_else(|e| panic!("{e}"));
    let analyst = Question::new(q).as_roles(["analyst"]);
    let changed = pollster::block_on(
        engine_with(&w, &offline, settings)
            .replaying(&replay)
            .ask(&analyst, Hooks::default()),
    );
    assert_eq!(changed.status, Status::Success, "{:?}", changed.errors);
    let planner: Vec<_> = changed
        .replay_divergences
        .iter()
        .filter(|d| d.node == Node::AstPlanner)
        .collect();
    assert_eq!(planner.len(), 1, "{:?}", changed.replay_divergences);
    assert_eq!(planner[0].what, "message 0");
}

#[test]
fn a_rate_limited_call_waits_and_tries_again_only_when_the_engine_may_wait() {
    let w = world();
    let q = "How many customers do we have, by country?";
    // The mock refuses every other call to this model: the check's first try, then the
    // planner's first try.
    let e = engine(&w, "fault-flaky").waiting_with(&nl2sql_native::ThreadSleep);
    let r = pollster::block_on(e.ask(&Question::new(q), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(
        w.mock.received().len(),
        4,
        "each of the two calls was refused once, then answered"
    );
    assert_eq!(
        r.usage.calls, 2,
        "a retried request is still one model call"
    );
    let r = pollster::block_on(engine(&w, "fault-flaky").ask(&Question::new(q), Hooks::default()));
    assert_eq!(
        r.errors.iter().map(|e| e.error_code).collect::<Vec<_>>(),
        [ErrorCode::ProviderRateLimited],
        "without a way to wait, no second try"
    );
    assert_eq!(w.mock.received().len(), 5);
}

#[test]
fn a_run_stops_at_its_spending_limit() {
    let w = world();
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    // gpt-5.4 is priced; the answerability check alone costs more than this.
    let mut settings = EngineSettings::new(Agent::new(provider, "gpt-5.4"));
    settings.max_cost_usd = Some(0.000_001);
    let e = engine_with(&w, &w.transport, settings.clone());
    let r = pollster::block_on(e.ask(
        &Question::new("How many customers do we have, by country?"),
        Hooks::default(),
    ));
    assert_eq!(r.status, Status::Stopped);
    assert_eq!(
        r.errors.iter().map(|e| e.error_code).collect::<Vec<_>>(),
        [ErrorCode::RunLimitReached]
    );
    assert!(
        r.errors[0].message.contains("max_cost_usd"),
        "{}",
        r.errors[0].message
    );
    assert_eq!(r.usage.calls, 1);
    assert!(r.usage.cost_usd.is_some_and(|c| c > 0.000_001));
    // With room to spend, the same run succeeds.
    settings.max_cost_usd = Some(1.0);
    let r = pollster::block_on(engine_with(&w, &w.transport, settings).ask(
        &Question::new("How many customers do we have, by country?"),
        Hooks::default(),
    ));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
}

#[test]
fn a_question_across_two_databases_is_split_run_and_combined() {
    let w = world();
    let e = engine(&w, "mock");
    let r = pollster::block_on(e.ask(&Question::new(CROSS_QUESTION), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    let d = r.decomposition.as_ref().expect("decomposed");
    assert_eq!(d.sub_queries.len(), 2);
    let ids: Vec<(&str, &str)> = r
        .sub_queries
        .iter()
        .map(|q| (q.id.as_str(), q.datasource_id.as_str()))
        .collect();
    assert_eq!(ids, [("q1", "support"), ("q2", "chinook")]);
    let combined = r.combined.as_ref().expect("combined");
    assert_eq!(
        combined.columns,
        ["email", "first_name", "last_name", "total_spent"]
    );
    // Every customer with an open ticket is a Chinook customer: 30 of them, each with the
    // spend Chinook itself reports for that email.
    assert_eq!(combined.rows.len(), 30);
    let chinook = &w.dbs[0];
    let spend = pollster::block_on(chinook.execute(
        "SELECT lower(c.Email), round(sum(i.Total), 2) FROM Customer c JOIN Invoice i ON i.CustomerId = c.CustomerId GROUP BY c.Email",
        nl2sql_core::ExecLimits::rows(1000),
    ))
    .expect("runs");
    for row in &combined.rows {
        let email = row[0].to_string().to_lowercase();
        let want = spend.rows.iter().find(|s| s[0].to_string() == email);
        assert_eq!(want.map(|s| &s[1]), Some(&row[3]), "{email}");
    }
    let totals: Vec<f64> = combined
        .rows
        .iter()
        .map(|row| row[3].to_string().parse().expect("a number"))
        .collect();
    assert!(totals.windows(2).all(|p| p[0] >= p[1]), "ordered by spend");
    // check, decomposer, the two planners side by side: three calls one after another.
    assert_eq!(r.sequential_llm_calls, 3);
    let nodes: Vec<Node> = r.trace.iter().map(|n| n.node()).collect();
    for node in [Node::Decomposer, Node::Aggregator, Node::AnswerSynthesizer] {
        assert!(nodes.contains(&node), "{node} missing from {nodes:?}");
    }
    let parts: Vec<Option<&str>> = r
        .trace
        .iter()
        .filter(|n| n.node() == Node::Executor)
        .map(|n| n.sub_query_id.as_deref())
        .collect();
    assert_eq!(parts.len(), 2);
    assert!(parts.contains(&Some("q1")) && parts.contains(&Some("q2")));
    // The one-datasource planning started beside the check was dropped, not used.
    let json = serde_json::to_string(&r).expect("serializes");
    assert!(json.contains("the question needs several datasources"));
    // Never checked, its model answer could name what the caller may not read: a cleaned
    // result withholds it.
    let dropped = |r: &nl2sql_core::engine::QueryResult| -> Vec<nl2sql_core::engine::LlmCall> {
        (r.trace.iter())
            .filter(|n| n.output.planner().is_some_and(|p| p.dropped.is_some()))
            .flat_map(|n| n.llm_calls.clone())
            .collect()
    };
    let cleaned = dropped(&r.cleaned());
    assert!(!cleaned.is_empty());
    assert!(
        (cleaned.iter())
            .all(|c| c.response.is_none()
                && c.error.as_deref() == Some(nl2sql_core::engine::WITHHELD)),
        "{cleaned:?}"
    );
}

/// Support's customer ids and first names: one part of the questions across databases below.
const SUPPORT_IDS_PLAN: &str = r#"{"tables": [{"name": "customers", "alias": "c"}], "select_items": [{"expr": {"kind": "column", "alias": "c", "column_name": "customer_id"}}, {"expr": {"kind": "column", "alias": "c", "column_name": "first_name"}}]}"#;

#[test]
fn a_decomposition_that_cannot_be_combined_stops_with_its_code() {
    let w = world();
    let e = engine(&w, "mock");
    let verdict = r#"{"datasources": ["chinook", "support"], "combine": true, "reason": "both"}"#;
    let part = |i: usize, ds: &str, key: &str| {
        serde_json::json!({"id": format!("q{i}"), "datasource": ds, "question": format!("part {i} of it"),
                           "columns": [key, "n"], "key": key})
    };
    let broad = "Seven things about customers at once, please?";
    let parts: Vec<serde_json::Value> = (1..=7).map(|i| part(i, "chinook", "email")).collect();
    let unconverted = "Customer ids from support next to Chinook emails?";
    w.mock.add([
        Fixture::new("answerability", broad, verdict),
        Fixture::new(
            "decomposition",
            broad,
            &serde_json::json!({"sub_queries": parts, "combine": "union", "order_by": [], "limit": null}).to_string(),
        ),
        Fixture::new("answerability", unconverted, verdict),
        Fixture::new(
            "decomposition",
            unconverted,
            &serde_json::json!({"sub_queries": [
                {"id": "q1", "datasource": "support", "question": "support customer ids and names", "columns": ["id", "name"], "key": "id"},
                {"id": "q2", "datasource": "chinook", "question": "chinook customer emails and names", "columns": ["id", "name"], "key": "id"}
            ], "combine": "join", "order_by": [], "limit": null}).to_string(),
        ),
        Fixture::new(
            "plan",
            "support customer ids and names",
            SUPPORT_IDS_PLAN,
        ),
        Fixture::new(
            "plan",
            "chinook customer emails and names",
            r#"{"tables": [{"name": "Customer", "alias": "c"}], "select_items": [{"expr": {"kind": "column", "alias": "c", "column_name": "Email"}}, {"expr": {"kind": "column", "alias": "c", "column_name": "FirstName"}}]}"#,
        ),
    ]);
    let r = pollster::block_on(e.ask(&Question::new(broad), Hooks::default()));
    assert_eq!(r.status, Status::Error);
    let codes: Vec<ErrorCode> = r.errors.iter().map(|e| e.error_code).collect();
    assert_eq!(codes, [ErrorCode::QuestionTooBroad]);
    // Keys that never convert join nothing: a warning the answer reports, the rows kept.
    let r = pollster::block_on(e.ask(&Question::new(unconverted), Hooks::default()));
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let warned: Vec<_> = r
        .warnings
        .iter()
        .filter(|w| w.code == ErrorCode::JoinKeyUnconverted)
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", r.warnings);
    assert!(
        warned[0].message.contains("of q2 (chinook)"),
        "{}",
        warned[0].message
    );
    assert!(r.sub_queries.iter().all(|s| !s.rows.is_empty()));
    assert!(r.combined.is_some());
}

#[test]
fn a_join_key_of_a_kind_that_never_converts_is_caught_before_it_runs_and_retried() {
    let w = world();
    let e = engine(&w, "mock");
    let question = "Support customers next to Chinook employees by id?";
    let verdict = r#"{"datasources": ["chinook", "support"], "combine": true, "reason": "both"}"#;
    let employees = r#"{"tables": [{"name": "Employee", "alias": "e"}], "select_items": [{"expr": {"kind": "column", "alias": "e", "column_name": "EmployeeId"}}, {"expr": {"kind": "column", "alias": "e", "column_name": "LastName"}}]}"#;
    w.mock.add([
        Fixture::new("answerability", question, verdict),
        Fixture::new(
            "decomposition",
            question,
            &serde_json::json!({"sub_queries": [
                {"id": "q1", "datasource": "support", "question": "support customer ids and names", "columns": ["id", "name"], "key": "id", "key_type": "number"},
                {"id": "q2", "datasource": "chinook", "question": "chinook employee ids and names", "columns": ["id", "name"], "key": "id", "key_type": "number"}
            ], "combine": "join", "order_by": [], "limit": null}).to_string(),
        ),
        Fixture::new(
            "plan",
            "support customer ids and names",
            SUPPORT_IDS_PLAN,
        ),
        Fixture::new(
            "plan",
            "chinook employee ids and names",
            r#"{"tables": [{"name": "Employee", "alias": "e"}], "select_items": [{"expr": {"kind": "column", "alias": "e", "column_name": "HireDate"}}, {"expr": {"kind": "column", "alias": "e", "column_name": "LastName"}}]}"#,
        ),
        Fixture::new("plan", "The join key id is declared a number", employees),
    ]);
    let r = pollster::block_on(e.ask(&Question::new(question), Hooks::default()));
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let recovered: Vec<_> = r.warnings.iter().filter(|w| w.recovered).collect();
    assert_eq!(recovered.len(), 1, "{:?}", r.warnings);
    assert_eq!(recovered[0].code, ErrorCode::JoinKeyTypeMismatch);
    assert_eq!(recovered[0].sub_query_id.as_deref(), Some("q2"));
    assert!(recovered[0].message.contains("e.HireDate is a date"));
    // The wrong plan never reached the database: one execution per part.
    let executed = r
        .trace
        .iter()
        .filter(|n| n.node() == Node::Executor && n.sub_query_id.as_deref() == Some("q2"))
        .count();
    assert_eq!(executed, 1);
    let q2 = r.sub_queries.iter().find(|s| s.id == "q2").expect("q2 ran");
    assert_eq!(q2.retry_count, 1);
}

fn demo_curated(w: &World) -> nl2sql_core::curated::Curated {
    let schemas: Vec<&nl2sql_core::SchemaSnapshot> = w.index.schemas().iter().collect();
    nl2sql_core::curated::Curated::from_json(nl2sql_core::demo::DEMO_VERIFIED, &schemas)
        .unwrap_or_else(|e| panic!("the demo's verified queries check: {e}"))
}

#[test]
fn a_verified_query_answers_with_no_model_call_when_code_can_decide() {
    let w = world();
    let curated = demo_curated(&w);
    let e = engine(&w, "mock").with_verified(&curated);
    let r = pollster::block_on(e.ask(
        &Question::new("Who are the top 3 customers by total spend?"),
        Hooks::default(),
    ));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.usage.calls, 0);
    assert_eq!(r.sequential_llm_calls, 0);
    let m = r.curated.as_ref().expect("the matcher ran");
    assert!(m.matched);
    assert_eq!(m.reason, MatchReason::Code);
    assert_eq!(
        r.source
            .as_ref()
            .map(|AnswerSource::Verified { id, .. }| id.as_str()),
        Some("top_customers_by_spend")
    );
    let sub = &r.sub_queries[0];
    assert_eq!(sub.id, "verified_top_customers_by_spend");
    assert_eq!(sub.rows.len(), 3);
    assert_eq!(sub.rows[0][0], nl2sql_core::Value::Text("Helena".into()));
    assert!(r.final_answer.is_some());
    // A value outside the declared choices is never run: the matcher falls back, saying why.
    let r = pollster::block_on(e.ask(
        &Question::new("Which tracks are in the Polka'); DROP TABLE Track; -- genre?"),
        Hooks::default(),
    ));
    let m = r.curated.as_ref().expect("the matcher ran");
    assert!(!m.matched);
    assert_eq!(m.reason, MatchReason::ParamInvalid, "{m:?}");
    // Text binds as a literal: the genre reaches SQL escaped, as a value.
    let r = pollster::block_on(e.ask(
        &Question::new("Which tracks are in the rock and roll genre?"),
        Hooks::default(),
    ));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.sub_queries[0].rows.len(), 12);
    assert!(r.sub_queries[0]
        .sql
        .as_deref()
        .is_some_and(|s| s.contains("'Rock And Roll'")));
}

#[test]
fn a_similar_question_asks_the_model_once_and_only_the_routed_datasources_are_searched() {
    let w = world();
    let curated = demo_curated(&w);
    let e = engine(&w, "mock").with_verified(&curated);
    let similar = "Which customers have spent the most money with us overall?";
    let unlike = "How many tracks are in each genre?";
    w.mock.add([
        Fixture::new(
            "verified_query_choice",
            similar,
            r#"{"query_id": "chinook.top_customers_by_spend", "params": [{"name": "n", "value": "4"}], "reason": "the same measure"}"#,
        ),
        Fixture::new(
            "verified_query_choice",
            unlike,
            r#"{"query_id": "none_of_these", "params": [], "reason": "a count per genre, not a list"}"#,
        ),
    ]);
    let r = pollster::block_on(e.ask(&Question::new(similar), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    let m = r.curated.as_ref().expect("the matcher ran");
    assert_eq!((m.matched, m.reason), (true, MatchReason::Model), "{m:?}");
    let routed = &r.routing.as_ref().expect("routing ran").ranked;
    assert!(!routed.contains(&"webanalytics".to_string()));
    assert!(
        m.candidates
            .iter()
            .all(|c| routed.contains(&c.datasource_id)),
        "{m:?}"
    );
    assert_eq!(r.sub_queries[0].rows.len(), 4);
    assert_eq!(r.sequential_llm_calls, 1);
    let r = pollster::block_on(e.ask(&Question::new(unlike), Hooks::default()));
    let m = r.curated.as_ref().expect("the matcher ran");
    assert_eq!((m.matched, m.reason), (false, MatchReason::NoneOfThese));
    // The run went on to the resolver after the fallback.
    assert!(r.trace.iter().any(|n| n.node() == Node::DatasourceResolver));
    assert_eq!(
        r.sequential_llm_calls, 2,
        "the matcher's call, then the check with the planning beside it"
    );
}

#[test]
fn the_refiner_option_turns_a_rejection_into_advice_before_the_retry() {
    let w = world();
    let q = "Which tracks run longest, refined?";
    let bad = TRACK_TITLES;
    let good = &longest_tracks(2);
    w.mock.add([
        Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["chinook"], "reason": "tracks"}"#,
        ),
        Fixture::new("plan", q, bad),
        Fixture::new("text", q, "Track has no Title; select Track.Name instead."),
        Fixture::new("plan", "select Track.Name instead", good),
    ]);
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let agent = Agent::new(provider, "mock");
    let mut settings = EngineSettings::new(agent.clone());
    settings.feedback = nl2sql_core::engine::Feedback::Refiner(agent);
    let r = pollster::block_on(
        engine_with(&w, &w.transport, settings).ask(&Question::new(q), Hooks::default()),
    );
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.sub_queries[0].retry_count, 1);
    assert_eq!(r.sub_queries[0].rows.len(), 2);
    let refiner: Vec<&nl2sql_core::engine::NodeRecord> = r
        .trace
        .iter()
        .filter(|n| n.node() == Node::Refiner)
        .collect();
    assert_eq!(refiner.len(), 1);
    assert_eq!(refiner[0].llm_calls.len(), 1);
    // As seed 003 asks: the schema in the (cacheable) system message; the question, the
    // failed plan and its errors as `[node] CODE: message` in the human one.
    let call = &refiner[0].llm_calls[0];
    assert!(call.system.contains("Track("), "{}", call.system);
    let human = &call.messages[0].content;
    assert!(
        human.contains(q) && human.contains("Failed plan: {"),
        "{human}"
    );
    assert!(
        human.contains("- [logical_validator] COLUMN_NOT_FOUND: "),
        "{human}"
    );
    assert!(r.warnings.iter().any(|w| w.code == ErrorCode::PlanFeedback));
    // check ∥ plan, refiner, plan: three calls one after another (direct feedback: two).
    assert_eq!(r.sequential_llm_calls, 3);

    // A refiner whose answer cannot be read: the planner retries with the rejection's
    // own words, and the run says so.
    let q2 = "Which tracks run longest, refined again?";
    w.mock.add([
        Fixture::new(
            "answerability",
            q2,
            r#"{"datasources": ["chinook"], "reason": "tracks"}"#,
        ),
        Fixture::new("plan", q2, bad),
        Fixture::new("plan", "Title", good),
    ]);
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let mut settings = EngineSettings::new(Agent::new(provider.clone(), "mock"));
    settings.feedback =
        nl2sql_core::engine::Feedback::Refiner(Agent::new(provider, "fault-malformed"));
    let r = pollster::block_on(
        engine_with(&w, &w.transport, settings).ask(&Question::new(q2), Hooks::default()),
    );
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.code == ErrorCode::RefinerFailed),
        "{:?}",
        r.warnings
    );
}

/// The database's words in a failed query's error go to the planner and the refiner (they
/// need them to fix the plan) and stay in the owner's trace, but a cleaned result (what a
/// server's or MCP's caller reads) withholds them wherever they were quoted (the prompts,
/// the errors), and the refiner's advice written from them with them.
#[test]
fn a_database_s_words_quoted_to_the_planner_are_withheld_from_a_cleaned_result() {
    use nl2sql_core::engine::QUOTE_WITHHELD;
    let w = world();
    let q = "Which tracks run longest, lenient?";
    // Lenient columns let the unknown column reach SQLite, which rejects it.
    let bad = TRACK_TITLES;
    let good = &longest_tracks(2);
    let words = "no such column: t.Title";
    w.mock.add([
        Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["chinook"], "reason": "tracks"}"#,
        ),
        Fixture::new("plan", q, bad),
        Fixture::new(
            "text",
            q,
            "SQLite said no such column: t.Title; select Track.Name instead.",
        ),
        Fixture::new("plan", "select Track.Name instead", good),
    ]);
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let agent = Agent::new(provider, "mock");
    let mut settings = EngineSettings::new(agent.clone());
    settings.feedback = nl2sql_core::engine::Feedback::Refiner(agent);
    settings.validator.strict_columns = false;
    let r = pollster::block_on(
        engine_with(&w, &w.transport, settings).ask(&Question::new(q), Hooks::default()),
    );
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.sub_queries[0].retry_count, 1);
    let owner = serde_json::to_string(&r).unwrap_or_default();
    assert!(owner.contains(words), "the owner's trace keeps them");
    let cleaned = serde_json::to_string(&r.cleaned()).unwrap_or_default();
    assert!(!cleaned.contains(words), "{cleaned}");
    assert!(cleaned.contains(QUOTE_WITHHELD), "{cleaned}");
    // So is the advice written from them, which may repeat them in other words; the rest
    // of the prompts is kept.
    assert!(!cleaned.contains("select Track.Name instead"), "{cleaned}");
    assert!(
        cleaned.contains("Write the whole corrected plan."),
        "{cleaned}"
    );
}

#[test]
fn a_cancel_at_the_matcher_decomposer_or_aggregator_ends_the_run_as_cancelled() {
    use nl2sql_core::engine::{CancelToken, Event, Events};
    use std::rc::Rc;
    let w = world();
    let curated = demo_curated(&w);
    for (q, at) in [
        (
            "Who are the top 3 customers by total spend?",
            Node::CuratedMatcher,
        ),
        (CROSS_QUESTION, Node::Decomposer),
        (CROSS_QUESTION, Node::Aggregator),
    ] {
        let token = CancelToken::new();
        let cancel = token.clone();
        let cancelled_at: Rc<std::cell::Cell<Option<Instant>>> = Rc::default();
        let mark = Rc::clone(&cancelled_at);
        let events = Events(Rc::new(move |e: &Event| {
            if matches!(e, Event::NodeStarted { node, .. } if *node == at) {
                mark.set(Some(Instant::now()));
                cancel.cancel();
            }
        }));
        let e = engine(&w, "mock").with_verified(&curated);
        let hooks = Hooks {
            cancel: Some(token),
            events: Some(events),
        };
        let r = pollster::block_on(e.ask(&Question::new(q), hooks));
        let after = cancelled_at.get().map(|t| t.elapsed());
        assert_eq!(
            r.errors.iter().map(|e| e.error_code).collect::<Vec<_>>(),
            [ErrorCode::Cancelled],
            "cancel at {at}"
        );
        assert!(
            r.final_answer.is_none() && r.combined.is_none(),
            "cancel at {at}"
        );
        println!("cancel at {at}: the run ended {after:?} after the cancel");
        assert!(
            after.is_some_and(|d| d.as_secs() < 2),
            "cancel at {at}: {after:?}"
        );
    }
}

#[test]
fn without_speculative_planning_a_refused_question_never_starts_planning() {
    use nl2sql_core::engine::{Event, Events};
    use std::cell::RefCell;
    use std::rc::Rc;
    let w = world();
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let mut settings = EngineSettings::new(Agent::new(provider, "mock"));
    settings.speculative_planning = false;
    let seen: Rc<RefCell<Vec<Node>>> = Rc::default();
    let sink = Rc::clone(&seen);
    let hooks = Hooks {
        events: Some(Events(Rc::new(move |e: &Event| {
            if let Event::NodeStarted { node, .. } = e {
                sink.borrow_mut().push(*node);
            }
        }))),
        ..Hooks::default()
    };
    let weather = "What will the weather be in Paris tomorrow?";
    let r = pollster::block_on(
        engine_with(&w, &w.transport, settings.clone()).ask(&Question::new(weather), hooks.clone()),
    );
    assert_eq!(r.errors[0].error_code, ErrorCode::QuestionNotAnswerable);
    assert_eq!(r.usage.calls, 1);
    assert!(
        !seen.borrow().contains(&Node::AstPlanner),
        "the planner was announced: {:?}",
        seen.borrow()
    );

    // An accepted question still plans, after the check.
    seen.borrow_mut().clear();
    let q = "How many customers do we have, by country?";
    let r =
        pollster::block_on(engine_with(&w, &w.transport, settings).ask(&Question::new(q), hooks));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    let started = seen.borrow();
    let at = |n: Node| started.iter().position(|s| *s == n);
    assert!(at(Node::DatasourceResolver) < at(Node::AstPlanner));
    assert!(at(Node::AstPlanner).is_some());
    assert_eq!(r.sequential_llm_calls, 2, "the check, then the plan");
}

#[test]
fn without_speculative_planning_the_plan_is_for_the_datasource_the_check_chose() {
    let w = world();
    let q = "Count the customers we have, please.";
    let tickets = r#"{"tables": [{"name": "tickets", "alias": "t"}], "select_items": [{"alias": "n", "expr": {"kind": "func", "func_name": "COUNT", "is_aggregate": true, "args": [{"kind": "column", "alias": "t", "column_name": "customer_id"}]}}]}"#;
    w.mock.add([
        Fixture::new(
            "answerability",
            q,
            r#"{"datasources": ["support"], "reason": "tickets name customers"}"#,
        ),
        Fixture::new("plan", q, tickets),
    ]);
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let mut settings = EngineSettings::new(Agent::new(provider, "mock"));
    settings.speculative_planning = false;
    let r = pollster::block_on(
        engine_with(&w, &w.transport, settings).ask(&Question::new(q), Hooks::default()),
    );
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    let ranked = r
        .routing
        .as_ref()
        .map(|x| x.ranked.clone())
        .unwrap_or_default();
    assert_ne!(
        ranked.first().map(String::as_str),
        Some("support"),
        "routing put another first"
    );
    assert_eq!(r.sub_queries[0].datasource_id, "support");
    let planners: Vec<_> = r
        .trace
        .iter()
        .filter(|n| n.node() == Node::AstPlanner)
        .collect();
    assert_eq!(planners.len(), 1, "one planning, for the chosen datasource");
    assert!(planners[0]
        .output
        .planner()
        .is_some_and(|o| o.dropped.is_none()));
    assert_eq!(r.usage.calls, 2, "the check and one plan");
    assert_eq!(r.sequential_llm_calls, 2);
}

/// How many times `code` is among the warnings and among the errors.
fn code_count(r: &nl2sql_core::engine::QueryResult, code: ErrorCode) -> (usize, usize) {
    (
        r.warnings.iter().filter(|w| w.code == code).count(),
        r.errors.iter().filter(|e| e.error_code == code).count(),
    )
}

#[test]
fn a_capped_result_is_warned_about_exactly_once_on_every_path() {
    let w = world();
    let provider = Provider::new(Wire::OpenAi, &w.mock.base_url(), ApiKey::new(KEY));
    let mut settings = EngineSettings::new(Agent::new(provider, "mock"));
    settings.validator.lower.row_cap = 3;
    let curated = demo_curated(&w);
    let e = engine_with(&w, &w.transport, settings).with_verified(&curated);
    let truncated = ErrorCode::ResultTruncated;

    let planned = "How many customers do we have, by country?";
    let r = pollster::block_on(e.ask(&Question::new(planned), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert_eq!(r.sub_queries[0].rows.len(), 3);
    assert_eq!(code_count(&r, truncated), (1, 0), "{:?}", r.warnings);

    let verified = "Which tracks are in the rock and roll genre?";
    let r = pollster::block_on(e.ask(&Question::new(verified), Hooks::default()));
    assert_eq!(r.status, Status::Success, "{:?}", r.errors);
    assert!(r.source.is_some(), "a verified query answered");
    assert_eq!(code_count(&r, truncated), (1, 0), "{:?}", r.warnings);

    // Across databases each capped part is warned about once, by its executor, and a join
    // over a cut part is refused once.
    let r = pollster::block_on(e.ask(&Question::new(CROSS_QUESTION), Hooks::default()));
    let capped = r.sub_queries.iter().filter(|q| q.truncated).count();
    assert!(capped > 0, "{:?}", r.sub_queries);
    assert_eq!(code_count(&r, truncated), (capped, 1), "{:?}", r.warnings);
}
