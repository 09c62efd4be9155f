// A small web app using the nl2sql npm package: open a SQLite file, ask a question,
// show the answer, the SQL and the rows as they arrive. The model provider's address
// comes from the page's URL (`?mock=`), so the tests can point it at their mock.
import init, { Engine } from "nl2sql";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

// Every gap between two ticks of a 10 ms timer while `work` runs: how long the page's own
// thread was held.
async function longestGap(work) {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  try {
    return { result: await work(), longest };
  } finally {
    clearInterval(timer);
    longest = Math.max(longest, performance.now() - last);
  }
}

const RUNAWAY =
  "SELECT COUNT(a.TrackId) AS triples FROM Track a JOIN Track b ON a.MediaTypeId = b.MediaTypeId " +
  "JOIN Track c ON b.MediaTypeId = c.MediaTypeId";

async function main() {
  await init();
  const bytes = new Uint8Array(await (await fetch("chinook.sqlite")).arrayBuffer());
  // The databases run in Web Workers, which load sql.js from these URLs.
  const engine = await Engine.create({
    sql_js_url: "node_modules/sql.js/dist/sql-wasm.js",
    sql_js_wasm_url: "node_modules/sql.js/dist/sql-wasm.wasm",
    // CSV, Parquet and DuckDB files: DuckDB-WASM, fetched when the first is added.
    duckdb: {
      module_url: "node_modules/nl2sql/nl2sql-duckdb.js",
      worker_url: "node_modules/@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js",
      wasm_url: "node_modules/@duckdb/duckdb-wasm/dist/duckdb-eh.wasm",
    },
    datasources: [{ id: "chinook", description: "A music store: artists, albums, tracks and genres, customers and invoices.", bytes }],
    provider: { kind: "compatible", model: "mock-model", base_url: params.get("mock"), api_key: "sk-example-0123456789abcdef" },
    settings: { answer: "llm" },
    // Everyone reads everything, except that a viewer may not read the staff.
    policies: {
      default_role: "reader",
      refusal_names_tables: true,
      roles: { reader: { allow: ["chinook.*", "sales.*"] }, viewer: { allow: ["chinook.*"], deny: ["chinook.Employee"] } },
    },
  });

  const events = [];
  const result = await engine.ask(params.get("q") ?? "Which genres have the most tracks?", {
    on_event(e) {
      events.push(e.event);
      if (e.event === "rows") $("status").textContent = `${e.row_count} rows, writing the answer…`;
      if (e.event === "answer_delta") $("answer").textContent += e.text;
    },
  });
  const part = result.sub_queries[0];
  $("sql").textContent = part?.sql ?? "";
  for (const row of part?.rows ?? []) {
    const tr = $("rows").insertRow();
    for (const cell of row) tr.insertCell().textContent = String(cell);
  }
  $("events").textContent = [...new Set(events)].join(" ");

  // A cancel in the same tick as the ask stops that run before it starts.
  const stopping = engine.ask("How many albums are there?");
  engine.cancel();
  const stopped = await stopping;

  // A signal cancels its own run only; the run beside it answers.
  const controller = new AbortController();
  const aborted = engine.ask("How many albums are there?", { signal: controller.signal });
  const beside = engine.ask(params.get("q") ?? "Which genres have the most tracks?");
  controller.abort();
  const [abortedRun, besideRun] = await Promise.all([aborted, beside]);

  // An option under its old camelCase name is refused, never ignored.
  const renamed = await engine.ask("How many albums are there?", { planOnly: true }).then(
    () => "resolved",
    (e) => e.code,
  );

  // A caller across a trust boundary gets the cleaned form: the refused table, the role's
  // rule and the database's words are named nowhere in it, trace and model calls included.
  const PRIVATE = "Which employees were hired first, privately?";
  const leaks = (r) => ["Employee", "Role viewer", '"details"', '"rule"'].filter((w) => JSON.stringify(r).includes(w));
  const fullRun = await engine.ask(PRIVATE, { role: "viewer", trace: "full" });
  const cleanedRun = await engine.ask(PRIVATE, { role: "viewer", trace: "cleaned" });
  const badForm = await engine.ask(PRIVATE, { trace: "everything" }).then(() => "resolved", (e) => e.code);

  const routing = await engine.route("How many invoices were there?");
  const refused = await engine.sql("DELETE FROM Track");
  const counted = await engine.sql("SELECT COUNT(*) AS albums FROM Album");

  // An integer beyond 2^53 arrives exactly, as a bigint.
  const big = (await engine.sql("SELECT TrackId + 9007199254740992 AS big FROM Track WHERE TrackId = 1")).rows[0]?.[0];

  // A query that would run for minutes stops at its datasource's limit, and the page's
  // thread is free all the while; a signal stops one at once; the next query works.
  engine.setQueryTimeout("chinook", 800);
  const limited = await longestGap(() => engine.sql(RUNAWAY));
  engine.setQueryTimeout("chinook", null);
  const controller2 = new AbortController();
  setTimeout(() => controller2.abort(), 300);
  const t0 = performance.now();
  const stoppedSql = await engine.sql(RUNAWAY, { signal: controller2.signal });
  const stoppedAfter = performance.now() - t0;
  // cancel() stops SQL mode's query as well as the runs, at once.
  const cancelling = engine.sql(RUNAWAY);
  const t1 = performance.now();
  setTimeout(() => engine.cancel(), 300);
  const cancelledSql = await cancelling;
  const cancelledAfter = performance.now() - t1;
  const after = await engine.sql("SELECT COUNT(*) AS albums FROM Album");
  // A misspelt option is refused by name, never ignored; so is an empty question.
  const misspelt = await engine
    .sql("SELECT 1", { datasorce: "chinook" })
    .then(() => "resolved", (e) => [e.code, /`datasorce`/.test(e.message)]);
  const misspeltCreate = await Engine.create({ datasources: [], sql_js_ur: "sql-wasm.js" }).then(
    () => "created",
    (e) => [e.code, /`sql_js_ur`/.test(e.message)],
  );
  const empty = await engine.ask("  \n ");
  const badLimit = (() => {
    try {
      engine.setQueryTimeout("nowhere", 100);
      return "accepted";
    } catch (e) {
      return e.code;
    }
  })();
  // A CSV file becomes a datasource of its own, queried in DuckDB; a ragged one is refused.
  const csv = new TextEncoder().encode("sale_id,amount,reference\n1,10.5,9007199254740993\n2,4.5,3\n");
  await engine.addDatasource({ id: "sales", description: "Sales, one row each.", files: [{ name: "sales.csv", bytes: csv }] });
  const sales = await engine.sql("SELECT SUM(amount) AS total, MAX(reference) AS top FROM sales", { datasource: "sales" });
  const ragged = await engine
    .addDatasource({ id: "ragged", description: "Not regular.", name: "ragged.csv", bytes: new TextEncoder().encode("a,b\n1\n") })
    .then(() => "added", (e) => [e.code, /line 2 has 1 fields/.test(e.message)]);
  // DuckDB-WASM's worker at a wrong address: the file is refused in plain words, no hang.
  const misplaced = await Engine.create({
    sql_js_url: "node_modules/sql.js/dist/sql-wasm.js",
    sql_js_wasm_url: "node_modules/sql.js/dist/sql-wasm.wasm",
    duckdb: { module_url: "node_modules/nl2sql/nl2sql-duckdb.js", worker_url: "nowhere/duckdb.worker.js", wasm_url: "nowhere/duckdb.wasm" },
    datasources: [],
  });
  const noWorker = await misplaced
    .addDatasource({ id: "sales", description: "Sales.", name: "sales.csv", bytes: csv })
    .then(() => "added", (e) => [e.code, /did not load from .*nowhere\/duckdb\.worker\.js/.test(e.message)]);
  // An engine used after free() says so by code: a promise rejects, a plain call throws.
  misplaced.free();
  const freed = [
    await misplaced.sql("SELECT 1").then(() => "ran", (e) => e.code),
    (() => {
      try {
        misplaced.datasources();
        return "listed";
      } catch (e) {
        return e.code;
      }
    })(),
  ];
  // Right proposes a verified query; the reader's role may not approve it.
  const recorded = engine.feedback(result, "right", { by: "example" });
  const approval = await engine
    .approve(recorded.proposal?.datasource ?? "", recorded.proposal?.query.id ?? "", { role: "reader" })
    .then(() => "approved", (e) => e.code);
  const kept = engine.feedbackBook();
  await engine.loadFeedback(JSON.stringify(kept));
  const unreadable = await engine.loadFeedback("{ not a book").then(() => "loaded", (e) => e.code);

  window.exampleOutcome = {
    status: result.status,
    errors: result.errors.map((e) => e.error_code),
    cancelled: [stopped.status, ...stopped.errors.map((e) => e.error_code)],
    renamed,
    scoped: [abortedRun.status, ...abortedRun.errors.map((e) => e.error_code), besideRun.status],
    routed: routing.ranked,
    refused: refused.errors.map((e) => e.error_code),
    traced: { full: leaks(fullRun), cleaned: leaks(cleanedRun), codes: cleanedRun.errors.map((e) => e.error_code), badForm },
    albums: counted.rows[0]?.[0],
    big: [typeof big, String(big)],
    limited: [limited.result.errors.map((e) => e.error_code), /time limit of 800 ms/.test(limited.result.errors[0]?.message)],
    stoppedSql: [stoppedSql.errors.map((e) => e.error_code), stoppedAfter < 2000],
    cancelledSql: [cancelledSql.errors.map((e) => e.error_code), cancelledAfter < 2000],
    after: after.rows[0]?.[0],
    misspelt,
    misspeltCreate,
    empty: [empty.status, ...empty.errors.map((e) => e.error_code)],
    badLimit,
    csv: [sales.errors.map((e) => e.error_code), sales.rows[0]?.[0], typeof sales.rows[0]?.[1], String(sales.rows[0]?.[1])],
    ragged,
    noWorker,
    freed,
    datasources: engine.datasources().map((d) => d.id),
    feedback: [recorded.entry.verdict, recorded.proposal?.status, approval, kept.proposals.length, unreadable, result.thread.turns.length],
  };
  window.threadHeldMs = limited.longest;
  // The fields the engine emits, for the test to hold against the declarations.
  window.emittedFields = {
    QueryResult: Object.keys(result),
    SubQuery: Object.keys(part ?? {}),
    NodeRecord: Object.keys(result.trace[0] ?? {}),
    SqlRun: Object.keys(counted),
    PipelineError: Object.keys(refused.errors[0] ?? {}),
  };
  $("status").textContent = `Done: ${result.status}`;
  document.body.dataset.done = "true";
}

main().catch((e) => {
  $("status").textContent = `${e.code ?? "ERROR"}: ${e.message}`;
  document.body.dataset.done = "error";
});
