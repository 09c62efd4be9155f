// The package's declarations as a TypeScript app meets them: the end-to-end test compiles
// this file with `tsc --strict --noUncheckedIndexedAccess` and no `skipLibCheck` against the
// installed tarball.
import init, { Engine } from "nl2sql";
import type {
  EngineError,
  EngineEvent,
  ErrorCodeName,
  FeedbackBook,
  Proposal,
  QueryResult,
  Recorded,
  SqlJsModule,
  SqlRun,
} from "nl2sql";

export async function example(sql_js: SqlJsModule, bytes: Uint8Array): Promise<string[]> {
  await init();
  const engine = await Engine.create({
    sql_js,
    datasources: [{ id: "chinook", description: "A music store", bytes }],
    provider: { kind: "compatible", model: "local", base_url: "http://127.0.0.1:11434/v1" },
    settings: { answer: "template", schema_mismatch: "fail" },
  });
  const seen: string[] = [];
  const on_event = (e: EngineEvent): void => {
    if (e.event === "node_finished") seen.push(`${e.node}:${e.status}`);
  };
  const result: QueryResult = await engine.ask("How many albums are there?", { role: "admin", on_event, trace: "cleaned" });
  const codes: ErrorCodeName[] = result.errors.map((e) => e.error_code);
  const writer: "template" | "llm" | undefined = result.final_answer?.written_by;
  if (result.source?.type === "verified") seen.push(result.source.id);
  const run: SqlRun = await engine.sql("SELECT COUNT(*) AS albums FROM Album");
  if (run.status === "ok") seen.push(String(run.rows[0]?.[0]));
  // A cell may be a bigint (an integer beyond ±2^53), and the types say so.
  const cell = run.rows[0]?.[0];
  if (typeof cell === "bigint") seen.push((cell + 1n).toString());
  // A follow-up continues the thread; feedback proposes a verified query to approve.
  const next: QueryResult = await engine.ask("and only for 2012?", { thread: result.thread });
  if (next.follow_up?.continued) seen.push(next.follow_up.reason);
  for (const c of next.follow_up?.diff?.changes ?? []) seen.push(`${c.part}:${c.change}:${c.text}`);
  if (next.status === "needs_clarification") seen.push(...(next.clarification?.options ?? []).map((o) => o.question));
  const recorded: Recorded = engine.feedback(next, "right", { role: "admin", comment: "good" });
  if (recorded.proposal) {
    const approved: Proposal = await engine.approve(recorded.proposal.datasource, recorded.proposal.query.id, { role: "admin" });
    seen.push(approved.status, ...approved.query.questions);
  }
  const book: FeedbackBook = engine.feedbackBook();
  await engine.loadFeedback(book);
  engine.clearPlanCache();
  const stopper = new AbortController();
  await engine.sql("SELECT 1", { signal: stopper.signal });
  engine.setQueryTimeout("chinook", 5_000);
  const workers = await Engine.create({
    sql_js_url: "/sql-wasm.js",
    sql_js_wasm_url: "/sql-wasm.wasm",
    datasources: [{ id: "shop", description: "A shop", bytes, query_timeout_ms: 2_000 }],
    duckdb: { module_url: "/nl2sql-duckdb.js", worker_url: "/duckdb.worker.js", wasm_url: "/duckdb.wasm" },
  });
  // CSV and Parquet files as one datasource; one file with its name.
  await workers.addDatasource({ id: "files", description: "Files", files: [{ name: "a.csv", bytes }, { name: "b.parquet", bytes: new ArrayBuffer(8) }] });
  await workers.addDatasource({ id: "one", description: "One CSV", name: "one.csv", bytes });
  seen.push(...workers.datasources().map((d) => d.id));
  try {
    await engine.removeDatasource("nowhere");
  } catch (e) {
    seen.push((e as EngineError).code);
  }
  return [...seen, ...codes, writer ?? "none"];
}

// The README's example, past its bundler-specific lines: a question that fails (no
// provider answers) prints its errors, and no line reads a sub-query that is not there.
export async function readme(engine: Engine): Promise<void> {
  const result = await engine.ask("Which genres have the most tracks?", {
    on_event: (e) => console.log(e.event, e),
  });
  console.log(result.final_answer?.text);
  for (const e of result.errors) console.warn(e.error_code, e.message);
  const first = result.sub_queries[0];
  if (first) console.log(first.sql, first.rows);
}
