// Generated from the Rust types by `cargo xtask typescript`; do not edit by hand.

/**
 * Everything a run produced.
 */
export type QueryResult = { 
/**
 * How it ended.
 */
status: Status, 
/**
 * The question as asked.
 */
question: string, 
/**
 * The roles it was asked with.
 */
roles: Array<string>, 
/**
 * The datasource it was asked of, when the caller chose one.
 */
datasource: string | null, 
/**
 * True in plan-only mode.
 */
plan_only: boolean, 
/**
 * The queries.
 */
sub_queries: Array<SubQuery>, 
/**
 * The answer, on success.
 */
final_answer: FinalAnswer | null, 
/**
 * What went wrong, as callers may see it (safe messages, no details).
 */
errors: Array<PipelineError>, 
/**
 * What the answer should mention.
 */
warnings: Array<RunWarning>, 
/**
 * Totals for the run.
 */
usage: UsageTotals, 
/**
 * Totals per node.
 */
usage_by_node: Array<[NodeName, UsageTotals]>, 
/**
 * Model calls on the longest chain of calls that waited for each other.
 */
sequential_llm_calls: number, 
/**
 * The routing decision, when routing ran.
 */
routing: Routing | null, 
/**
 * The schema the planner saw (single-datasource questions).
 */
retrieval: Retrieval | null, 
/**
 * How a question across datasources was split, when it was.
 */
decomposition: Decomposition | null, 
/**
 * The sub-results combined, when there were several.
 */
combined: CombinedRows | null, 
/**
 * What the curated matcher decided, when verified queries are configured.
 */
curated: CuratedMatch | null, 
/**
 * Where the answer came from when the planner did not write its query.
 */
source: AnswerSource | null, 
/**
 * Milliseconds the whole run took.
 */
duration_ms: number, 
/**
 * Every node's execution, in order.
 */
trace: Array<NodeRecord>, 
/**
 * When replayed: where the prompts differed from the recording (empty: nowhere).
 * Absent from traces written before replay existed.
 */
replay_divergences: Array<Divergence>, 
/**
 * The conversation to continue with the next question: the thread given (or a fresh
 * one) with this turn, when it answered or asked back.
 */
thread: Thread, 
/**
 * How the question related to the thread it was asked in (none: no thread given).
 */
follow_up: FollowUp | null, 
/**
 * What the engine asks back, when the status is `needs_clarification`.
 */
clarification: Clarification | null, };

/**
 * How a run ended.
 */
export type Status = "success" | "plan_only" | "error" | "stopped" | "needs_clarification";

/**
 * One query the run planned: `q1` alone, or one per part of a decomposed question.
 */
export type SubQuery = { 
/**
 * Stable id, `q1`.
 */
id: string, 
/**
 * Where it ran.
 */
datasource_id: string, 
/**
 * The last plan the planner wrote, when it wrote one that parsed.
 */
plan: Plan | null, 
/**
 * The SQL the engine rendered for it.
 */
sql: string | null, 
/**
 * The validator's named checks on the last plan.
 */
validation: Array<ValidationCheck>, 
/**
 * Result columns.
 */
columns: Array<string>, 
/**
 * Result rows, typed.
 */
rows: Array<Array<Cell>>, 
/**
 * True when the row cap cut the result.
 */
truncated: boolean, 
/**
 * Planner retries after a rejection.
 */
retry_count: number, 
/**
 * Who wrote its plan. Absent from traces written before the plan cache: the planner.
 */
plan_source: PlanSource, };

/**
 * The combined rows of a decomposed question and the query that combined them.
 */
export type CombinedRows = { 
/**
 * The query run on the scratch database.
 */
sql: string, 
/**
 * Result columns.
 */
columns: Array<string>, 
/**
 * Result rows.
 */
rows: Array<Array<Cell>>, 
/**
 * True when the row cap cut the result.
 */
truncated: boolean, };

/**
 * The written answer.
 */
export type FinalAnswer = { 
/**
 * The answer in a sentence or two.
 */
text: string, 
/**
 * Who wrote it.
 */
written_by: Writer, };

/**
 * Who wrote an answer.
 */
export type Writer = "template" | "llm";

/**
 * Where an answer came from when the planner did not write its query.
 */
export type AnswerSource = { "type": "verified", 
/**
 * The query's id.
 */
id: string, 
/**
 * Its datasource.
 */
datasource_id: string, 
/**
 * The values it ran with.
 */
params: { [key in string]: ParamValue }, };

/**
 * Token and call totals for a node or a run.
 */
export type UsageTotals = { 
/**
 * Model calls.
 */
calls: number, 
/**
 * Input tokens, `None` when some call did not report them.
 */
input_tokens: number | null, 
/**
 * Input tokens read from a prompt cache.
 */
cached_input_tokens: number | null, 
/**
 * Output tokens.
 */
output_tokens: number | null, 
/**
 * US dollars, `None` when a call's model has no price or did not report usage.
 */
cost_usd: number | null, };

/**
 * One node's execution, as the trace records it.
 */
export type NodeRecord = { 
/**
 * Order in the run, from 1.
 */
seq: number, 
/**
 * The sub-query it worked on, when it worked on one.
 */
sub_query_id: string | null, 
/**
 * Which try (planner retries count up from 0).
 */
attempt: number, 
/**
 * How it ended.
 */
status: NodeStatus, 
/**
 * Milliseconds from the run's start.
 */
started_ms: number, 
/**
 * How long it took.
 */
duration_ms: number, 
/**
 * Its errors.
 */
errors: Array<PipelineError>, 
/**
 * Its model calls.
 */
llm_calls: Array<LlmCall>, } & ({ "node": "datasource_resolver", "outputs": ResolverOutputs | null } | { "node": "curated_matcher", "outputs": CuratedMatch | null } | { "node": "schema_retriever", "outputs": RetrieverOutputs | null } | { "node": "ast_planner", "outputs": PlannerOutputs | null } | { "node": "refiner", "outputs": RefinerOutputs | null } | { "node": "logical_validator", "outputs": ValidatorOutputs | null } | { "node": "generator", "outputs": GeneratorOutputs | null } | { "node": "executor", "outputs": ExecutorOutputs | null } | { "node": "decomposer", "outputs": Decomposition | null } | { "node": "aggregator", "outputs": AggregatorOutputs | null } | { "node": "answer_synthesizer", "outputs": AnswerOutputs | null });

/**
 * What a node decided: the trace's `node` and its `outputs` (null when the node
 * failed before deciding anything).
 */
export type NodeOutput = { "node": "datasource_resolver", "outputs": ResolverOutputs | null } | { "node": "curated_matcher", "outputs": CuratedMatch | null } | { "node": "schema_retriever", "outputs": RetrieverOutputs | null } | { "node": "ast_planner", "outputs": PlannerOutputs | null } | { "node": "refiner", "outputs": RefinerOutputs | null } | { "node": "logical_validator", "outputs": ValidatorOutputs | null } | { "node": "generator", "outputs": GeneratorOutputs | null } | { "node": "executor", "outputs": ExecutorOutputs | null } | { "node": "decomposer", "outputs": Decomposition | null } | { "node": "aggregator", "outputs": AggregatorOutputs | null } | { "node": "answer_synthesizer", "outputs": AnswerOutputs | null };

/**
 * The resolver's record. Routing saw only what the caller's role may read, and the
 * answerability check's model only those datasources, so all of it may be shown.
 */
export type ResolverOutputs = { 
/**
 * The datasources routing ranked (or the caller chose), best first.
 */
candidates: Array<string>, 
/**
 * Why routing did not run, when it did not.
 */
routing_skipped?: string | null, 
/**
 * How the question relates to the thread it was asked in (none: no thread).
 */
thread?: ThreadNote | null, 
/**
 * What was asked back, when the question means two things.
 */
clarification?: Clarification | null, 
/**
 * A plan reused from the cache, and what that skipped.
 */
plan_cache?: CacheHit | null, 
/**
 * The answerability check's verdict (none when it failed or did not run).
 */
verdict?: VerdictNote | null, 
/**
 * The datasources the verdict accepted among the candidates.
 */
accepted?: Array<string> | null, };

/**
 * Whether a question continued its thread.
 */
export type ThreadNote = { 
/**
 * It continues the thread.
 */
continued: boolean, 
/**
 * Why it was judged so.
 */
reason: string, 
/**
 * The datasource of the turn it follows.
 */
previous_datasource: string | null, };

/**
 * A plan reused from the plan cache.
 */
export type CacheHit = { 
/**
 * Always true: the record exists only for a hit.
 */
hit: boolean, 
/**
 * What the hit skipped.
 */
skipped: string, };

/**
 * The answerability check's verdict.
 */
export type VerdictNote = { 
/**
 * The datasources it named.
 */
datasources: Array<string>, 
/**
 * Its reason, in the model's words.
 */
reason: string, };

/**
 * What the planner was shown (or, for planning begun beside the check and then not used,
 * why it was dropped). Retrieval searched only what the caller's role may read.
 */
export type RetrieverOutputs = { 
/**
 * The datasource searched.
 */
datasource?: string, 
/**
 * The tables shown.
 */
tables?: Array<string>, 
/**
 * The columns shown, `Table.Column`.
 */
columns?: Array<string>, 
/**
 * The values the question names, `Table.Column = 'value'`.
 */
values?: Array<string>, 
/**
 * The whole schema was shown (it fitted).
 */
full_snapshot?: boolean, 
/**
 * Why this retrieval was not used.
 */
dropped?: string | null, };

/**
 * The planner's plan, in its one-line form.
 */
export type PlannerOutputs = { 
/**
 * The plan (empty when the planning was dropped).
 */
plan?: string, 
/**
 * A follow-up's plan as an edit of the previous one.
 */
edit_of_previous?: PlanDiff | null, 
/**
 * When the plan came from the cache: the planner was not asked.
 */
plan_cache?: string | null, 
/**
 * Why this planning was not used.
 */
dropped?: string | null, };

/**
 * The refiner's advice to the planner.
 */
export type RefinerOutputs = { 
/**
 * The advice, in the model's words.
 */
advice: string, 
/**
 * The database's words the refiner was shown (see [`LlmCall::quoted`]) and, with them,
 * the advice itself (written from them, it may repeat them in other words): a cleaned
 * trace withholds the advice.
 */
quoted?: Array<string>, };

/**
 * The validator's checks.
 */
export type ValidatorOutputs = { 
/**
 * The three named checks, in order.
 */
checks: Array<ValidationCheck>, };

/**
 * The SQL the generator wrote.
 */
export type GeneratorOutputs = { 
/**
 * The SQL (none when the plan could not be rendered).
 */
sql: string | null, 
/**
 * The dialect it is written in.
 */
dialect: Dialect, };

/**
 * What the executor ran and how many rows came back.
 */
export type ExecutorOutputs = { 
/**
 * The SQL run.
 */
sql: string, 
/**
 * Rows returned (none when it failed).
 */
rows: number | null, };

/**
 * The combination of several datasources' rows.
 */
export type AggregatorOutputs = { 
/**
 * The combining SQL, run on the scratch database.
 */
sql: string, 
/**
 * Rows in the combination.
 */
rows: number, 
/**
 * Whether the row cap cut it.
 */
truncated: boolean, };

/**
 * The written answer.
 */
export type AnswerOutputs = { 
/**
 * The answer.
 */
text: string, 
/**
 * Who wrote it.
 */
written_by: Writer, };

/**
 * How a node's execution ended.
 */
export type NodeStatus = "ok" | "error";

/**
 * One model call, as the trace keeps it (and replay reads it back).
 */
export type LlmCall = { 
/**
 * The node that made it.
 */
node: NodeName, 
/**
 * The model.
 */
model: string, 
/**
 * The system prompt's hash (FNV-1a, hex): equal hashes, equal stable prefix.
 */
system_hash: string, 
/**
 * The system prompt.
 */
system: string, 
/**
 * The conversation sent.
 */
messages: Array<Message>, 
/**
 * The model's answer as it came, when one came.
 */
response: string | null, 
/**
 * Why the answer was not used, if it was not.
 */
error: string | null, 
/**
 * The provider failure's code, when the call failed that way.
 */
error_code?: ErrorCodeName | null, 
/**
 * What the prompts quote that a cleaned trace withholds: a database's own words (an
 * error's message the planner is asked to fix), which a cleaned error withholds too.
 */
quoted?: Array<string>, 
/**
 * Tokens as reported.
 */
usage: Usage, 
/**
 * Milliseconds from sending to the whole answer.
 */
latency_ms: number, };

/**
 * One turn of the conversation.
 */
export type Message = { 
/**
 * Who said it.
 */
role: Role, 
/**
 * What was said.
 */
content: string, };

/**
 * Who said a message.
 */
export type Role = "user" | "assistant";

/**
 * Tokens as the provider reported them; `None` when it did not say (never a made-up 0).
 */
export type Usage = { 
/**
 * Input tokens, cached ones included.
 */
input: number | null, 
/**
 * Input tokens read from the provider's prompt cache.
 */
cached: number | null, 
/**
 * Input tokens written to the prompt cache (Anthropic).
 */
cache_write: number | null, 
/**
 * Output tokens.
 */
output: number | null, };

/**
 * One failure, as every caller (trace, UI, command line) receives it.
 */
export type PipelineError = { 
/**
 * Where it happened.
 */
node: NodeName, 
/**
 * One plain sentence (or a few) saying what is wrong and, where possible, how to fix it.
 */
message: string, 
/**
 * How bad it is.
 */
severity: Severity, 
/**
 * The stable code.
 */
error_code: ErrorCodeName, 
/**
 * The model provider as a person names it, on provider failures only.
 */
provider?: string | null, 
/**
 * The provider's own words, keys redacted, on provider failures only.
 */
provider_response?: string | null, 
/**
 * Structured facts for the trace (never shown as the message).
 */
details?: JsonValue | null, };

/**
 * Something the answer should mention although the run went on.
 */
export type RunWarning = { 
/**
 * The stable code.
 */
code: ErrorCodeName, 
/**
 * Where it was found.
 */
node: NodeName, 
/**
 * One plain sentence.
 */
message: string, 
/**
 * The sub-query it concerns, in multi-part runs.
 */
sub_query_id?: string | null, 
/**
 * Structured facts for the trace.
 */
detail?: JsonValue | null, 
/**
 * An earlier attempt's error that a retry got past: the answer stands, the trace
 * says what it took.
 */
recovered?: boolean, };

/**
 * How bad an error is. Decides, with the code, whether a retry may help.
 */
export type Severity = "INFO" | "WARNING" | "ERROR" | "CRITICAL";

/**
 * The stable codes: one vocabulary for the engine, the HTTP API and MCP, the
 * workspace, feedback, the npm package and a page that uses a server. Every member
 * is produced by something (`tests/tests/error_codes.rs` names each producer).
 */
export type ErrorCodeName = "MISSING_PLAN" | "INVALID_PLAN_STRUCTURE" | "UNSUPPORTED_FUNCTION" | "TABLE_NOT_FOUND" | "COLUMN_NOT_FOUND" | "JOIN_TABLE_NOT_IN_PLAN" | "JOIN_KEY_TYPE_MISMATCH" | "UNDECLARED_JOIN" | "SECURITY_VIOLATION" | "SQL_IMPORT_FAILED" | "EXECUTION_FAILED" | "DB_EXECUTION_ERROR" | "QUERY_TIMEOUT" | "RESULT_TRUNCATED" | "VALUE_NOT_FOUND" | "ALL_NULL_COLUMN" | "JOIN_KEY_UNCONVERTED" | "JOIN_FAN_OUT" | "INVALID_STATE" | "SCHEMA_CHANGED" | "STATISTICS_INCOMPLETE" | "ROUTING_CLOSE_CALL" | "SCHEMA_RETRIEVAL_FAILED" | "INDEX_BUILD_FAILED" | "PROVIDER_AUTH_FAILED" | "PROVIDER_RATE_LIMITED" | "PROVIDER_QUOTA_EXCEEDED" | "PROVIDER_TIMEOUT" | "PROVIDER_UNAVAILABLE" | "PROVIDER_MODEL_UNAVAILABLE" | "MODEL_OUTPUT_INVALID" | "CANCELLED" | "QUESTION_EMPTY" | "QUESTION_NOT_ANSWERABLE" | "QUESTION_TOO_BROAD" | "RUN_LIMIT_REACHED" | "PIPELINE_TIMEOUT" | "ANSWER_NOT_GROUNDED" | "PLAN_FEEDBACK" | "REFINER_FAILED" | "CONFIG_INVALID" | "DATASOURCE_NOT_FOUND" | "DATASOURCE_ID_INVALID" | "DATASOURCE_ID_TAKEN" | "DATASOURCE_UNREADABLE" | "DATASOURCE_UNREACHABLE" | "DATASOURCE_AUTH_FAILED" | "DATASOURCE_EMPTY" | "FEEDBACK_NOT_FOUND" | "APPROVAL_NOT_ALLOWED" | "VERIFIED_QUERY_INVALID" | "FEEDBACK_UNREADABLE" | "UNAUTHORIZED" | "ROLE_NOT_ALLOWED" | "TOO_MANY_RUNS" | "BAD_REQUEST" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "UNAVAILABLE" | "MODEL_UNAVAILABLE" | "INTERNAL" | "SERVER_UNREACHABLE" | "SERVER_TIMEOUT" | "SERVER_RESPONSE_UNREADABLE" | "ENGINE_FREED" | "COPY_FAILED";

/**
 * The pipeline step that raised an error or a warning.
 */
export type NodeName = "sql_import" | "logical_validator" | "generator" | "executor" | "curated_matcher" | "datasource_resolver" | "schema_retriever" | "ast_planner" | "decomposer" | "aggregator" | "refiner" | "answer_synthesizer";

/**
 * One named check and how it went.
 */
export type ValidationCheck = { 
/**
 * Which check.
 */
name: CheckName, 
/**
 * Whether it passed.
 */
passed: boolean, 
/**
 * On failure, the first error's message; empty on success.
 */
message: string, };

/**
 * The validator's checks, in the order they run.
 */
export type CheckName = "plan_present" | "structure_and_schema" | "policy";

/**
 * Routing's decision and how it was reached.
 */
export type Routing = { 
/**
 * The datasources kept, best first.
 */
ranked: Array<string>, 
/**
 * Those left out, with why.
 */
dropped: Array<Dropped>, 
/**
 * Each signal that ranked something.
 */
signals: Array<SignalRecord>, 
/**
 * Every reachable datasource's fused score, best first.
 */
fused: Array<[string, number]>, 
/**
 * When the first two were about equally good matches.
 */
close_call?: CloseCall | null, };

/**
 * Routing's first two datasources when the second matched about as well: it came first
 * in as many signals as the first did, or in at least one and one fewer, and fusion chose
 * between them on lower places.
 */
export type CloseCall = { 
/**
 * The datasource ranked first.
 */
chosen: string, 
/**
 * The one ranked second.
 */
runner_up: string, 
/**
 * The signals that ranked the first one first.
 */
chosen_led: Array<string>, 
/**
 * The signals that ranked the second one first.
 */
runner_up_led: Array<string>, };

/**
 * A datasource routing did not keep, and why.
 */
export type Dropped = { 
/**
 * The datasource.
 */
id: string, 
/**
 * `floor` (too far below the best) or `limit` (past the candidate count).
 */
reason: string, };

/**
 * One signal's search, as the trace records it.
 */
export type SignalRecord = { 
/**
 * `description`, `examples`, `verified`, `tables`, `columns` or `values`.
 */
name: string, 
/**
 * The entries it looked at, most similar first.
 */
pool: Array<PoolEntry>, 
/**
 * Datasources by their best entry, best first; equally similar ones by id, as fusion
 * breaks its ties.
 */
ranking: Array<string>, };

/**
 * One entry of a signal's pool, for the trace.
 */
export type PoolEntry = { 
/**
 * The datasource.
 */
datasource: string, 
/**
 * The entry, as `kind: text` (table and column entries name themselves).
 */
entry: string, 
/**
 * Its similarity to the question.
 */
similarity: number, };

/**
 * What the planner gets for one datasource.
 */
export type Retrieval = { 
/**
 * The datasource.
 */
datasource: string, 
/**
 * Tables, in schema order.
 */
tables: Array<string>, 
/**
 * Columns, as `Table.Column`.
 */
columns: Array<string>, 
/**
 * Values the question names, as hints.
 */
values: Array<ValueHint>, 
/**
 * True when the whole (readable) schema was sent without searching.
 */
full_snapshot: boolean, 
/**
 * What the datasource's notes say about the tables and columns shown, and the terms
 * about them: the lines the planner reads under the schema.
 */
notes?: Array<string>, };

/**
 * A value the question names.
 */
export type ValueHint = { 
/**
 * The datasource.
 */
datasource: string, 
/**
 * The table.
 */
table: string, 
/**
 * The column.
 */
column: string, 
/**
 * The value as stored.
 */
value: string, 
/**
 * The words of the question that named it.
 */
span: string, 
/**
 * How they matched.
 */
matched: MatchKind, 
/**
 * 1 for exact matches; the trigram similarity for fuzzy ones.
 */
score: number, };

/**
 * How a question's words matched a value.
 */
export type MatchKind = "exact" | "case_insensitive" | "synonym" | "fuzzy" | "word";

/**
 * The decomposer's answer.
 */
export type Decomposition = { 
/**
 * The parts, one or more per datasource.
 */
sub_queries: Array<SubQuestion>, 
/**
 * How their results combine.
 */
combine: CombineKind, 
/**
 * Ordering of the combined rows.
 */
order_by: Array<PostOrder>, 
/**
 * At most this many combined rows.
 */
limit: number | null, };

/**
 * One part of the question, for one datasource.
 */
export type SubQuestion = { 
/**
 * Stable id: `q1`, `q2`, …
 */
id: string, 
/**
 * The datasource that answers it.
 */
datasource: string, 
/**
 * The part of the question this datasource answers, as a question.
 */
question: string, 
/**
 * The result columns, named and ordered as the combination needs them.
 */
columns: Array<string>, 
/**
 * The column among `columns` that joins it to the others (join and compare).
 */
key: string | null, 
/**
 * What the key holds, the same in every part. Absent in decompositions recorded
 * before it was asked for; the aggregator then infers it from the values.
 */
key_type: KeyKind | null, };

/**
 * How the sub-results are put together.
 */
export type CombineKind = "join" | "union" | "compare";

/**
 * What a join key holds, as the decomposer declares it for every part.
 */
export type KeyKind = "number" | "text" | "date";

/**
 * One ordering applied after the combination.
 */
export type PostOrder = { 
/**
 * A column of the combined result.
 */
column: string, 
/**
 * Largest first.
 */
descending: boolean, };

/**
 * What the matcher decided, as the result records it.
 */
export type CuratedMatch = { 
/**
 * True when a verified query answered.
 */
matched: boolean, 
/**
 * How it matched, or why it fell back.
 */
reason: MatchReason, 
/**
 * The candidates by similarity (empty when code decided).
 */
candidates: Array<Candidate>, 
/**
 * The chosen query, `datasource.query`.
 */
choice: string | null, 
/**
 * Its parameters, typed.
 */
params: { [key in string]: ParamValue }, 
/**
 * More on a fallback.
 */
detail: string | null, };

/**
 * A verified query the matcher considered.
 */
export type Candidate = { 
/**
 * Its datasource.
 */
datasource_id: string, 
/**
 * Its id.
 */
query_id: string, 
/**
 * The best similarity of its phrasings to the question.
 */
similarity: number, };

/**
 * How the matcher decided: a match (`code`, `model`) or the reason it fell back.
 */
export type MatchReason = "code" | "model" | "no_candidates" | "below_floor" | "none_of_these" | "model_failed" | "unknown_query" | "param_invalid" | "param_missing" | "policy_denied" | "execution_failed";

/**
 * A parameter's value, checked and typed.
 */
export type ParamValue = number | bigint | number | string;

/**
 * Where a replayed run's prompt differed from the recorded one.
 */
export type Divergence = { 
/**
 * The node making the call.
 */
node: NodeName, 
/**
 * Which of that node's calls (from 0).
 */
call: number, 
/**
 * What differed: `system prompt`, `message N`, `message count`, or `no recorded call`.
 */
what: string, };

/**
 * What a run reports as it goes.
 */
export type EngineEvent = { "event": "node_started", 
/**
 * Which.
 */
node: NodeName, 
/**
 * Its try.
 */
attempt: number, } | { "event": "node_finished", 
/**
 * Which.
 */
node: NodeName, 
/**
 * Its try.
 */
attempt: number, 
/**
 * How it ended.
 */
status: NodeStatus, 
/**
 * How long it took.
 */
duration_ms: number, } | { "event": "routed", 
/**
 * The datasources kept, best first.
 */
candidates: Array<string>, 
/**
 * The ranking with its signals.
 */
routing: Routing | null, } | { "event": "llm_call", 
/**
 * The node that made it.
 */
node: NodeName, 
/**
 * The model.
 */
model: string, 
/**
 * How long it took.
 */
latency_ms: number, } | { "event": "rows", 
/**
 * The sub-query.
 */
sub_query_id: string, 
/**
 * The SQL that produced them.
 */
sql: string | null, 
/**
 * Result columns.
 */
columns: Array<string>, 
/**
 * The first rows (at most 50).
 */
preview: Array<Array<Cell>>, 
/**
 * How many rows in all.
 */
row_count: number, } | { "event": "answer_delta", 
/**
 * The new text.
 */
text: string, };

/**
 * One cell of a result. The variants are SQLite's five storage classes, so a value
 * keeps the type the database gave it (an integer never turns into a float on the way).
 *
 * In JSON a value is written plainly: `null`, a number, a string, or, for a blob, an
 * array of byte values (the only JSON array a value ever becomes, so it reads back
 * unambiguously).
 */
export type Cell = null | number | bigint | number | string | Array<number>;

/**
 * A read-only query, as a tree of plain data the engine can check and render.
 */
export type Plan = { [field: string]: unknown };

/**
 * What SQL mode (`nl2sql sql`, `nl2sql plan`, the npm package's `engine.sql`, the page's
 * SQL tab) did with one statement or plan: the one report every front end shows.
 */
export type SqlRun = { 
/**
 * How it ended.
 */
status: SqlStatus, 
/**
 * Where it ran.
 */
datasource: string, 
/**
 * The SQL (or plan) as given.
 */
input: string, 
/**
 * The plan it imported as.
 */
plan: Plan | null, 
/**
 * The SQL the engine rendered from that plan (and ran, in the datasource's dialect).
 */
sql: string | null, 
/**
 * The validator's checks.
 */
checks: Array<ValidationCheck>, 
/**
 * Why it was refused or failed, as callers may see it.
 */
errors: Array<PipelineError>, 
/**
 * What is worth knowing about the result.
 */
warnings: Array<RunWarning>, 
/**
 * Result columns.
 */
columns: Array<string>, 
/**
 * Result rows, up to the row cap.
 */
rows: Array<Array<Cell>>, 
/**
 * True when the row cap cut the result.
 */
truncated: boolean, };

/**
 * How SQL mode ended.
 */
export type SqlStatus = "ok" | "error";

/**
 * A datasource as a front end lists it.
 */
export type DatasourceInfo = { 
/**
 * Its id.
 */
id: string, 
/**
 * What it holds, in plain words.
 */
description: string, 
/**
 * Its schema as read.
 */
schema: SchemaSnapshot, };

/**
 * Everything the engine knows about one datasource's structure and data distribution.
 */
export type SchemaSnapshot = { 
/**
 * The datasource id.
 */
datasource_id: string, 
/**
 * The SQL dialect.
 */
dialect: Dialect, 
/**
 * Tables sorted by name.
 */
tables: Array<Table>, 
/**
 * A hash of the structure (tables, columns, declared types, nullability, keys), never
 * of the data: the same schema with other rows has the same fingerprint.
 */
fingerprint: string, 
/**
 * A short version label derived from the fingerprint, for people and traces.
 */
version: string, 
/**
 * The connection's own schema (PostgreSQL's current schema, DuckDB's, MySQL's
 * database), whose tables have bare names, when the engine has schemas.
 */
schema?: string | null, };

/**
 * One table.
 */
export type Table = { 
/**
 * The table name as declared; `schema.table` for a table outside the connection's
 * own schema (so a policy, a note or a verified query naming it keeps meaning that one
 * table, whatever other schemas hold).
 */
name: string, 
/**
 * The schema it lives in, when that is not the connection's own (PostgreSQL's current
 * schema, DuckDB's `main`); SQL names it `schema.table`.
 */
schema?: string | null, 
/**
 * Columns in declaration order.
 */
columns: Array<Column>, 
/**
 * Foreign keys declared on this table, each possibly over several columns.
 */
foreign_keys: Array<ForeignKey>, 
/**
 * How many rows the table held when the snapshot was taken.
 */
row_count: number, 
/**
 * A view (or a materialized view): read like a table, with no keys of its own.
 */
view?: boolean, 
/**
 * Why its statistics (row count, column statistics, sample values) or the text values
 * value linking reads are missing, when they are: reading them ran past the time
 * limit. Its structure is complete, and questions about it still run.
 */
unread?: string | null, };

/**
 * One column.
 */
export type Column = { 
/**
 * The column name as declared.
 */
name: string, 
/**
 * The declared type exactly as written, e.g. `NVARCHAR(160)`; may be empty.
 */
declared_type: string, 
/**
 * What kind of values the column holds, from the declared type and, for text
 * columns, the values themselves.
 */
category: TypeCategory, 
/**
 * Whether the column may hold NULL.
 */
nullable: boolean, 
/**
 * 1-based position in the primary key, when the column is part of it.
 */
primary_key_position: number | null, 
/**
 * How the column's data is distributed.
 */
stats: ColumnStats, };

/**
 * How a column's data is distributed.
 */
export type ColumnStats = { 
/**
 * The share of rows where the column is NULL, from 0 to 1 (0 for an empty table).
 */
null_fraction: number, 
/**
 * How many distinct non-null values the column holds.
 */
distinct_count: number, 
/**
 * The smallest value, for number and temporal columns.
 */
min: Cell | null, 
/**
 * The largest value, for number and temporal columns.
 */
max: Cell | null, 
/**
 * For text columns: every distinct value when there are at most
 * [`SAMPLE_ALL_MAX`], otherwise the [`SAMPLE_TOP`] most frequent; most frequent first.
 */
sample_values: Array<string>, };

/**
 * A foreign key from this table's columns to another table's columns.
 */
export type ForeignKey = { 
/**
 * The referencing columns on this table, in key order.
 */
columns: Array<string>, 
/**
 * The referenced table.
 */
referenced_table: string, 
/**
 * The referenced columns, paired with `columns` by position.
 */
referenced_columns: Array<string>, 
/**
 * Who says so: the database (a declared key), the project file, or the engine's
 * inference, with its evidence.
 */
source?: KeySource, };

/**
 * Where a relationship between tables comes from.
 */
export type KeySource = { "kind": "database" } | { "kind": "configured" } | { "kind": "inferred", 
/**
 * The names, types and values that agree, in words.
 */
evidence: string, };

/**
 * A datasource's notes, as its configuration gives them.
 */
export type Notes = { 
/**
 * Per table name.
 */
tables: { [key in string]: TableNotes }, 
/**
 * Business terms.
 */
terms: Array<Term>, 
/**
 * Joins the owner declares where the database does not, or rejects where the engine
 * would infer them.
 */
relationships: Array<Relationship>, };

/**
 * What a table is, in words.
 */
export type TableNotes = { 
/**
 * What one row is.
 */
description: string, 
/**
 * Other names people give it ("visit" for `sessions`).
 */
synonyms: Array<string>, 
/**
 * Per column name.
 */
columns: { [key in string]: ColumnNotes }, };

/**
 * What a column holds, in words.
 */
export type ColumnNotes = { 
/**
 * What it holds.
 */
description: string, 
/**
 * Other names people give it.
 */
synonyms: Array<string>, 
/**
 * Per stored value, the words people use for it.
 */
values: { [key in string]: Array<string> }, };

/**
 * A term of the business and what it means in this data.
 */
export type Term = { 
/**
 * The word or phrase ("bounce").
 */
term: string, 
/**
 * What it means, in the data's terms ("a session with exactly one page view").
 */
means: string, 
/**
 * The tables it is about: it is found through them, and shown only to callers who
 * may read them all.
 */
tables: Array<string>, };

/**
 * A join the owner declares (`from` refers to `to`) or rejects (`reject`: the engine never
 * infers one from `from`).
 */
export type Relationship = { 
/**
 * The referring column, `table.column` (`schema.table.column` outside the
 * connection's own schema).
 */
from: string, 
/**
 * The column it refers to, `table.column`; none when rejecting.
 */
to: string | null, 
/**
 * Never infer a relationship from `from` (and drop one inferred already).
 */
reject: boolean, };

/**
 * The broad kind of a column's values; what the validator and the planner reason with.
 */
export type TypeCategory = "number" | "text" | "temporal" | "boolean" | "other";

/**
 * The SQL dialect a datasource speaks. The generator renders for it.
 */
export type Dialect = "sqlite" | "postgres" | "mysql" | "duckdb" | "sqlserver" | "spark";

/**
 * A provider that answered.
 */
export type Probe = { 
/**
 * The provider as a person names it.
 */
provider: string, 
/**
 * The model that answered.
 */
model: string, 
/**
 * Its reply, cut to 80 characters.
 */
reply: string, };

/**
 * Who wrote a sub-query's plan.
 */
export type PlanSource = "planner" | "cache" | "verified";

/**
 * A conversation as its caller holds it: the last turns, oldest first.
 */
export type Thread = { 
/**
 * The turns, oldest first.
 */
turns: Array<Turn>, };

/**
 * One question of a thread and what answered it.
 */
export type Turn = { 
/**
 * The question as asked.
 */
question: string, 
/**
 * Where it was answered (none when it was not).
 */
datasource: string | null, 
/**
 * The plan that answered it, when one datasource did.
 */
plan: Plan | null, 
/**
 * The answer's columns.
 */
columns: Array<string>, 
/**
 * What the engine asked back instead of answering, when it did.
 */
clarification: Clarification | null, };

/**
 * How a question related to the thread it was asked in, as the result records it.
 */
export type FollowUp = { 
/**
 * True when it continued the thread; false when it started fresh.
 */
continued: boolean, 
/**
 * Why, in words.
 */
reason: string, 
/**
 * The datasource of the turn it followed, when it continued one.
 */
previous_datasource: string | null, 
/**
 * What the new plan changed in the previous one (same datasource, both plans known).
 */
diff: PlanDiff | null, };

/**
 * What changed from one plan to the next; empty when nothing did.
 */
export type PlanDiff = { 
/**
 * The differences, in the plan's order of parts.
 */
changes: Array<PlanChange>, };

/**
 * One difference.
 */
export type PlanChange = { 
/**
 * Which part.
 */
part: PlanPart, 
/**
 * How it changed.
 */
change: ChangeKind, 
/**
 * The part in the one-line form (`before → after` when changed).
 */
text: string, };

/**
 * A part of a plan.
 */
export type PlanPart = "table" | "join" | "select" | "filter" | "group_by" | "having" | "order_by" | "limit" | "offset" | "distinct" | "with" | "set_operation";

/**
 * Added, removed or changed.
 */
export type ChangeKind = "added" | "removed" | "changed";

/**
 * What the engine asks back, with the answers it offers.
 */
export type Clarification = { 
/**
 * The question asked back, in a sentence.
 */
question: string, 
/**
 * Two to four answers to choose from.
 */
options: Array<ClarifyOption>, };

/**
 * One answer to a question asked back.
 */
export type ClarifyOption = { 
/**
 * What a button says.
 */
label: string, 
/**
 * The question to ask next, in the same thread, when this is chosen: the original
 * question with the meaning spelt out.
 */
question: string, };

/**
 * Every piece of feedback and every proposal, as stored.
 */
export type FeedbackBook = { 
/**
 * The format's version ([`VERSION`]).
 */
version: number, 
/**
 * Right and Wrong, in the order given.
 */
entries: Array<FeedbackEntry>, 
/**
 * Verified queries proposed from "Right", in the order proposed.
 */
proposals: Array<Proposal>, };

/**
 * One Right or Wrong on an answer.
 */
export type FeedbackEntry = { 
/**
 * `fb_1`, `fb_2`, … in the order given.
 */
id: string, 
/**
 * Right or wrong.
 */
verdict: Verdict, 
/**
 * The question answered.
 */
question: string, 
/**
 * Where it was answered (a single datasource's answer).
 */
datasource: string | null, 
/**
 * The SQL that answered it.
 */
sql: string | null, 
/**
 * What the person added.
 */
comment: string | null, 
/**
 * Who gave it (a role or a name, as the front end knows the caller).
 */
by: string, 
/**
 * When (the front end's clock, RFC 3339).
 */
at: string, 
/**
 * The verified query it proposed, when "Right" proposed one.
 */
proposal: string | null, 
/**
 * Why "Right" proposed nothing, when it did not.
 */
not_proposed: string | null, };

/**
 * Right or wrong.
 */
export type Verdict = "right" | "wrong";

/**
 * A verified query proposed from feedback.
 */
export type Proposal = { 
/**
 * Its datasource.
 */
datasource: string, 
/**
 * The query (its id is the proposal's id).
 */
query: VerifiedQuery, 
/**
 * Proposed or approved.
 */
status: ProposalStatus, 
/**
 * Who proposed it.
 */
proposed_by: string, 
/**
 * When.
 */
proposed_at: string, 
/**
 * Who approved it.
 */
approved_by: string | null, 
/**
 * When.
 */
approved_at: string | null, 
/**
 * The question as first asked and the SQL that answered it, values in place: the eval
 * case it becomes.
 */
example: Example, };

/**
 * Where a proposed verified query stands.
 */
export type ProposalStatus = "proposed" | "approved";

/**
 * A question and the SQL that answered it, for an eval case.
 */
export type Example = { 
/**
 * The question.
 */
question: string, 
/**
 * The SQL, as it ran.
 */
sql: string, 
/**
 * Whether the answer's row order matters (the plan ordered it).
 */
order_matters: boolean, 
/**
 * The role it was asked with.
 */
role: string | null, };

/**
 * What recording feedback did.
 */
export type Recorded = { 
/**
 * The entry as kept.
 */
entry: FeedbackEntry, 
/**
 * The verified query "Right" proposed (or the existing one it added a phrasing to).
 */
proposal: Proposal | null, };

/**
 * One verified query.
 */
export type VerifiedQuery = { 
/**
 * Unique per datasource, `^[a-z][a-z0-9_]*$`.
 */
id: string, 
/**
 * What it answers, shown to the model and embedded.
 */
description: string, 
/**
 * Phrasings that ask for it, with `{param}` placeholders.
 */
questions: Array<string>, 
/**
 * Its parameters by name.
 */
params: { [key in string]: ParamSpec }, 
/**
 * One read-only statement with `:param` placeholders.
 */
sql: string, };

/**
 * One declared parameter.
 */
export type ParamSpec = { 
/**
 * Its type.
 */
type: ParamType, 
/**
 * The value when the question gives none; without one the parameter is required.
 */
default: JsonValue | null, 
/**
 * Smallest allowed (numbers and dates).
 */
min: JsonValue | null, 
/**
 * Largest allowed (numbers and dates).
 */
max: JsonValue | null, 
/**
 * The allowed values (text only), matched without regard to case.
 */
choices: Array<string>, 
/**
 * A value for the index's phrasings and the checks.
 */
example: JsonValue | null, };

/**
 * A parameter's type.
 */
export type ParamType = "int" | "float" | "string" | "date";
export type JsonValue = number | bigint | string | boolean | JsonValue[] | { [key: string]: JsonValue } | null;
