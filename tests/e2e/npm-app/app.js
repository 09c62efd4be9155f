// A small web app using the nl2sql npm package: open a SQLite file, ask a question,
// show the answer, the SQL and the rows as they arrive. The model provider's address
// comes from the page's URL (`?mock=`), so the tests can point it at their mock.
import init, { Engine } from "nl2sql";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

async function main() {
  await init();
  const SQL = await initSqlJs({ locateFile: (file) => `node_modules/sql.js/dist/${file}` });
  const bytes = new Uint8Array(await (await fetch("chinook.sqlite")).arrayBuffer());
  const engine = await Engine.create({
    sql_js: SQL,
    datasources: [{ id: "chinook", description: "A music store: artists, albums, tracks and genres, customers and invoices.", bytes }],
    provider: { kind: "compatible", model: "mock-model", base_url: params.get("mock"), api_key: "sk-example-0123456789abcdef" },
    settings: { answer: "llm" },
    // Everyone reads everything, except that a viewer may not read the staff.
    policies: {
      default_role: "reader",
      refusal_names_tables: true,
      roles: { reader: { allow: ["chinook.*"] }, viewer: { allow: ["chinook.*"], deny: ["chinook.Employee"] } },
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
    datasources: engine.datasources().map((d) => d.id),
  };
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
