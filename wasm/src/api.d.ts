/** A SQLite database for the engine: its id, what it holds (routing reads this), and the file. */
export interface DatasourceInput {
  /** Letters, digits, `_` and `-`. */
  id: string;
  /** What it holds, in plain words. */
  description: string;
  /** The SQLite file's bytes. */
  bytes: Uint8Array | ArrayBuffer;
  /** Questions it answers, to help routing. */
  examples?: string[];
}

/** Where model calls go. The key stays in memory; it is never in a result or a trace. */
export interface ProviderOptions {
  kind: "openai" | "anthropic" | "compatible";
  /** The model every node uses unless `models` says otherwise. */
  model: string;
  apiKey?: string;
  /** e.g. `http://localhost:11434/v1` for Ollama; the provider's own when absent. */
  baseUrl?: string;
  models?: { resolver?: string; planner?: string; decomposer?: string; answer?: string };
}

export interface Price { input: number; cached_input: number; cache_write: number; output: number }

/** A run's behaviour and limits. */
export interface RunSettings {
  /** `llm` (default): the model writes the answer, streamed; `template`: no model call. */
  answer?: "llm" | "template";
  maxLlmCalls?: number;
  maxCostUsd?: number | null;
  timeoutMs?: number;
  retriesMax?: number;
  rowCap?: number;
  /** A refiner model turns rejections into advice before the planner retries. */
  refiner?: boolean;
  /** USD per million tokens, per model. */
  prices?: [string, Price][];
}

/** Who may read what: `datasource.table` glob patterns per role. */
export interface Policies {
  default_role?: string;
  refusal_names_tables?: boolean;
  roles: Record<string, { description?: string; allow?: string[]; deny?: string[] }>;
}

export interface EngineOptions {
  datasources: DatasourceInput[];
  /** A started sql.js module (`await initSqlJs()`); otherwise the page's global `initSqlJs`. */
  sqlJs?: SqlJsModule;
  /** Where the global `initSqlJs` finds `sql-wasm.wasm` (default: next to the page). */
  sqlJsWasmUrl?: string;
  provider?: ProviderOptions;
  settings?: RunSettings;
  /** None: one role, `reader`, that reads everything. */
  policies?: Policies;
  /** Verified queries in the curated format, per datasource id. */
  verifiedQueries?: { datasources: Record<string, unknown[]> };
}

export interface AskOptions {
  role?: string | string[];
  /** Ask this datasource only, with no routing. */
  datasource?: string;
  /** Validate and render the SQL, but do not run it. */
  planOnly?: boolean;
  /** Hears the run as it goes. */
  onEvent?: (event: EngineEvent) => void;
}

export interface RouteOptions { role?: string | string[] }

export interface SqlOptions {
  /** The first datasource when absent. */
  datasource?: string;
  role?: string | string[];
}

export type NodeName =
  | "sql_import" | "logical_validator" | "generator" | "executor" | "curated_matcher"
  | "datasource_resolver" | "schema_retriever" | "ast_planner" | "decomposer"
  | "aggregator" | "refiner" | "answer_synthesizer";

export type Cell = null | number | string | number[];

/** The engine's stable error codes (`ErrorCode` in Rust; a test keeps this list equal to it). */
export type ErrorCodeName =
  | "MISSING_PLAN" | "INVALID_PLAN_STRUCTURE" | "UNSUPPORTED_FUNCTION" | "TABLE_NOT_FOUND"
  | "COLUMN_NOT_FOUND" | "JOIN_TABLE_NOT_IN_PLAN" | "JOIN_KEY_TYPE_MISMATCH"
  | "UNDECLARED_JOIN" | "SECURITY_VIOLATION" | "SQL_IMPORT_FAILED" | "EXECUTION_FAILED"
  | "DB_EXECUTION_ERROR" | "RESULT_TRUNCATED" | "INVALID_STATE" | "SCHEMA_CHANGED"
  | "SCHEMA_RETRIEVAL_FAILED" | "PROVIDER_AUTH_FAILED" | "PROVIDER_RATE_LIMITED"
  | "PROVIDER_QUOTA_EXCEEDED" | "PROVIDER_TIMEOUT" | "PROVIDER_UNAVAILABLE"
  | "PROVIDER_MODEL_UNAVAILABLE" | "CANCELLED" | "MODEL_OUTPUT_INVALID"
  | "QUESTION_NOT_ANSWERABLE" | "RUN_LIMIT_REACHED" | "PIPELINE_TIMEOUT"
  | "ANSWER_NOT_GROUNDED" | "VALUE_NOT_FOUND" | "ALL_NULL_COLUMN" | "QUESTION_TOO_BROAD"
  | "JOIN_KEY_UNCONVERTED" | "JOIN_FAN_OUT" | "CONFIG_INVALID" | "DATASOURCE_NOT_FOUND";

/** Codes only adding, removing or reading a datasource can fail with. */
export type DatasourceErrorCode =
  | "DATASOURCE_ID_INVALID" | "DATASOURCE_ID_TAKEN" | "DATASOURCE_UNREADABLE" | "DATASOURCE_EMPTY"
  | "INDEX_BUILD_FAILED";

/** What every method of `Engine` rejects with: an `Error` with a stable `code`. */
export interface EngineError extends Error {
  code: ErrorCodeName | DatasourceErrorCode;
}

/** A started sql.js module, as `await initSqlJs()` gives it. */
export interface SqlJsModule {
  Database: new (data?: ArrayLike<number> | null) => unknown;
}

export type EngineEvent =
  | { event: "node_started"; node: NodeName; attempt: number }
  | { event: "node_finished"; node: NodeName; attempt: number; status: NodeStatus; duration_ms: number }
  | { event: "llm_call"; node: NodeName; model: string; latency_ms: number }
  | { event: "rows"; sub_query_id: string; sql: string | null; columns: string[]; preview: Cell[][]; row_count: number }
  | { event: "answer_delta"; text: string };

export interface PipelineError {
  node: NodeName;
  message: string;
  severity: "INFO" | "WARNING" | "ERROR" | "CRITICAL";
  /** Stable, e.g. `SECURITY_VIOLATION`, `PROVIDER_AUTH_FAILED`. */
  error_code: ErrorCodeName;
  provider?: string;
  provider_response?: string;
  details?: unknown;
}

export interface RunWarning { code: ErrorCodeName; node: NodeName; message: string; sub_query_id?: string; detail?: unknown }

export interface ValidationCheck { name: string; passed: boolean; message: string }

export interface Usage { input: number | null; cached: number | null; cache_write: number | null; output: number | null }

export interface LlmCall {
  node: NodeName; model: string; system_hash: string; system: string;
  messages: { role: "user" | "assistant"; content: string }[];
  response: string | null; error: string | null; error_code?: ErrorCodeName;
  usage: Usage; latency_ms: number;
}

export interface NodeRecord {
  seq: number; node: NodeName; sub_query_id: string | null; attempt: number;
  status: NodeStatus; started_ms: number; duration_ms: number;
  outputs: unknown; errors: PipelineError[]; llm_calls: LlmCall[];
}

export interface SubQuery {
  id: string; datasource_id: string; plan: unknown | null; sql: string | null;
  validation: ValidationCheck[]; columns: string[]; rows: Cell[][]; truncated: boolean;
  retry_count: number;
}

export interface UsageTotals {
  calls: number; input_tokens: number | null; cached_input_tokens: number | null;
  output_tokens: number | null; cost_usd: number | null;
}

export interface Routing {
  ranked: string[];
  dropped: { id: string; reason: string }[];
  signals: { name: string; pool: { datasource: string; entry: string; similarity: number }[]; ranking: string[] }[];
  fused: [string, number][];
}

export interface Retrieval {
  datasource: string; tables: string[]; columns: string[];
  values: { datasource: string; table: string; column: string; value: string; span: string; matched: string; score: number }[];
  full_snapshot: boolean;
}

export interface QueryResult {
  status: "success" | "plan_only" | "error" | "stopped";
  question: string; roles: string[]; datasource: string | null; plan_only: boolean;
  sub_queries: SubQuery[];
  final_answer: { text: string; written_by: "template" | "llm" } | null;
  errors: PipelineError[]; warnings: RunWarning[];
  usage: UsageTotals; usage_by_node: [NodeName, UsageTotals][];
  sequential_llm_calls: number;
  routing: Routing | null; retrieval: Retrieval | null;
  decomposition: unknown | null;
  combined: { sql: string; columns: string[]; rows: Cell[][]; truncated: boolean } | null;
  curated: { matched: boolean; reason: MatchReason; choice: string | null; candidates: unknown[]; params: Record<string, unknown>; detail: string | null } | null;
  source: { type: "verified"; id: string; datasource_id: string; params: Record<string, number | string> } | null;
  duration_ms: number;
  trace: NodeRecord[];
  replay_divergences: unknown[];
}

/** How a node's execution ended. */
export type NodeStatus = "ok" | "error";

/** How the curated matcher decided: a match (`code`, `model`) or why it fell back. */
export type MatchReason =
  | "code" | "model" | "no_candidates" | "below_floor" | "none_of_these" | "model_failed"
  | "unknown_query" | "param_invalid" | "param_missing" | "policy_denied" | "execution_failed";

export interface SqlRun {
  status: "ok" | "error";
  datasource: string; input: string; plan: unknown | null; sql: string | null;
  checks: ValidationCheck[]; errors: PipelineError[]; warnings: RunWarning[];
  columns: string[]; rows: Cell[][]; truncated: boolean;
}

export interface DatasourceInfo { id: string; description: string; schema: SchemaSnapshot }

export interface SchemaSnapshot {
  datasource_id: string; dialect: string; fingerprint: string; version: string;
  tables: {
    name: string; row_count: number;
    columns: { name: string; declared_type: string; category: string; nullable: boolean; primary_key_position: number | null; stats: unknown }[];
    foreign_keys: { columns: string[]; referenced_table: string; referenced_columns: string[] }[];
  }[];
}

export interface Probe { provider: string; model: string; reply: string }
