// What the package takes. Every object the package takes or gives — options, results,
// events, errors — names its fields in snake_case, exactly as the engine's JSON does
// everywhere (trace files, `nl2sql ask --json`, the HTTP API); method names are camelCase,
// as JavaScript's are. The result types (`QueryResult`, `SqlRun`, `EngineEvent`, …) are
// generated from the Rust types.

/** A file of a datasource: its name (a CSV or Parquet file's table is named after it, `Orders 2024.csv` → `orders_2024`) and its bytes. */
export interface FileInput {
  name: string;
  bytes: Uint8Array | ArrayBuffer;
}

/**
 * A datasource for the engine: its id, what it holds (routing reads this), and its data —
 * one SQLite or DuckDB database, or CSV and Parquet files (one table each, joinable).
 * Give either `bytes` (one file, `name` optional) or `files`. What each file is comes from
 * its bytes (and, for CSV, its name). Files up to 100 MB each.
 */
export type DatasourceInput = DatasourceFields & (
  | { /** One file's bytes: a SQLite or DuckDB database, a Parquet file, or a CSV file when `name` ends `.csv`. */ bytes: Uint8Array | ArrayBuffer; /** The file's name (default `${id}.sqlite`). */ name?: string; files?: never }
  | { /** CSV and Parquet files, one table each; or one database file. CSV, Parquet and DuckDB files need the `duckdb` option. */ files: FileInput[]; bytes?: never; name?: never }
);

export interface DatasourceFields {
  /** Letters, digits, `_` and `-`. */
  id: string;
  /** What it holds, in plain words. */
  description: string;
  /** Questions it answers, to help routing. */
  examples?: string[];
  /** What its tables, columns and values are called and mean, and its business terms: found by routing and retrieval, shown to the planner. */
  notes?: Notes;
  /** Its queries' own time limit in ms, when shorter than the run's `query_timeout_ms` (`engine.setQueryTimeout` changes it later). */
  query_timeout_ms?: number;
}

/** Where model calls go. The key stays in memory; it is never in a result or a trace. */
export interface ProviderOptions {
  kind: "openai" | "anthropic" | "compatible";
  /** The model every node uses unless `models` says otherwise. */
  model: string;
  api_key?: string;
  /** e.g. `http://localhost:11434/v1` for Ollama; the provider's own when absent. */
  base_url?: string;
  models?: { resolver?: string; planner?: string; decomposer?: string; answer?: string };
}

export interface Price { input: number; cached_input: number; cache_write: number; output: number }

/** A run's behaviour and limits. */
export interface RunSettings {
  /** `llm` (default): the model writes the answer, streamed; `template`: no model call. */
  answer?: "llm" | "template";
  max_llm_calls?: number;
  max_cost_usd?: number | null;
  timeout_ms?: number;
  /** Each query's time limit (default 10,000 ms): at it the query's Web Worker is stopped (and started again for the next query) and the query ends `QUERY_TIMEOUT`. A datasource's own `query_timeout_ms` may be shorter. */
  query_timeout_ms?: number;
  retries_max?: number;
  row_cap?: number;
  /** A refiner model turns rejections into advice before the planner retries. */
  refiner?: boolean;
  /** Plan while the answerability check runs (faster; a refused question may still spend one planning call). */
  speculative_planning?: boolean;
  /** When a datasource's structure changed since it was indexed: `warn` (default: a SCHEMA_CHANGED warning), `fail` (the run ends with INVALID_STATE) or `ignore` (not checked). */
  schema_mismatch?: "warn" | "fail" | "ignore";
  /** USD per million tokens, per model. */
  prices?: [string, Price][];
  /** Turns a conversation keeps for its follow-ups (default 5; a result's `thread` holds at most this many). */
  thread_turns?: number;
  /** Reuse the plan of a question asked before on the same datasource, schema, model and thread (default true); it is validated again for every caller. `engine.clearPlanCache()` empties it. */
  plan_cache?: boolean;
}

/** Who may read what: `datasource.table` glob patterns per role. */
export interface Policies {
  default_role?: string;
  refusal_names_tables?: boolean;
  roles: Record<string, { description?: string; allow?: string[]; deny?: string[]; /** May approve, edit and delete verified queries proposed from feedback. */ approves?: boolean }>;
}

export interface EngineOptions {
  datasources: DatasourceInput[];
  /** Where the databases' Web Workers load sql.js's `sql-wasm.js` from (default `"sql-wasm.js"`, next to the page); any URL the page may fetch. */
  sql_js_url?: string;
  /** Where sql.js finds `sql-wasm.wasm` (default `"sql-wasm.wasm"`, next to the page). */
  sql_js_wasm_url?: string;
  /** DuckDB-WASM, for CSV, Parquet and DuckDB files: fetched only when the first such file is opened. Without it such files are refused (`DATASOURCE_UNREADABLE`). */
  duckdb?: DuckDbOptions;
  /** A started sql.js module (`await initSqlJs()`): the databases then run on the calling thread, where no query can be stopped (for Node, or a page without Web Workers). Without it and without Web Workers, the global `initSqlJs`. */
  sql_js?: SqlJsModule;
  provider?: ProviderOptions;
  settings?: RunSettings;
  /** None: one role, `reader`, that reads everything. */
  policies?: Policies;
  /** Verified queries in the curated format, per datasource id. */
  verified_queries?: { datasources: Record<string, unknown[]> };
}

/** Where DuckDB-WASM's three files are (any URLs the page may fetch, other origins included when they allow it; relative ones against the page). The page's Content-Security-Policy must allow `worker-src blob:`. */
export interface DuckDbOptions {
  /** This package's `nl2sql-duckdb.js` (DuckDB-WASM 1.32.0's API and Apache Arrow, bundled). */
  module_url: string;
  /** `@duckdb/duckdb-wasm@1.32.0`'s `dist/duckdb-browser-eh.worker.js`. */
  worker_url: string;
  /** `@duckdb/duckdb-wasm@1.32.0`'s `dist/duckdb-eh.wasm`. */
  wasm_url: string;
}

export interface AskOptions {
  role?: string | string[];
  /** Ask this datasource only, with no routing. */
  datasource?: string;
  /** Validate and render the SQL, but do not run it. */
  plan_only?: boolean;
  /** `full` (default): every error's details, every plan and model answer, for a caller who owns the data. `cleaned`: what a caller across a trust boundary may see — no refused table, role or rule named, no database's own words, a refused plan withheld. */
  trace?: "full" | "cleaned";
  /** The conversation this question continues: the previous result's `thread`. A follow-up ("and only for 2012?") is planned as an edit of the previous plan; a question with a subject of its own starts fresh. The model judges which, in any language (one small call per question asked with a thread). */
  thread?: Thread;
  /** Hears the run as it goes. */
  on_event?: (event: EngineEvent) => void;
  /** Aborting it cancels this run alone (`engine.cancel()` cancels every run). */
  signal?: AbortSignal;
}

export interface RouteOptions { role?: string | string[] }

/** Who gives feedback or approves: their role (it must approve, for `approve`, `editProposal` and `deleteProposal`), a name for the record, and a comment. */
export interface FeedbackOptions {
  role?: string | string[];
  by?: string;
  comment?: string;
}

export interface SqlOptions {
  /** The first datasource when absent. */
  datasource?: string;
  role?: string | string[];
  /** Aborting it stops the query in flight in its Web Worker (the run ends `CANCELLED`); a signal aborted already rejects with `CANCELLED`. Where the databases run on the calling thread (`sql_js`), a query cannot be stopped. */
  signal?: AbortSignal;
}

/** What every method of `Engine` rejects with: an `Error` with a stable `code`, one of the engine's one vocabulary. */
export interface EngineError extends Error {
  code: ErrorCodeName;
}

/** A started sql.js module, as `await initSqlJs()` gives it. */
export interface SqlJsModule {
  Database: new (data?: ArrayLike<number> | null) => unknown;
}
