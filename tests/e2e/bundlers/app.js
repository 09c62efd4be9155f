// What every bundler app does with the package, once the bundler has given it the files
// it loads by URL (sql.js's two, DuckDB-WASM's worker and module, the package's DuckDB
// host): open a SQLite file, run SQL (no model), ask a question (the model is the tests'
// mock, named in the page's URL) and cancel one, add a CSV file (DuckDB-WASM) and query
// it, then report on the page.
export async function run(Engine, files) {
  const params = new URLSearchParams(location.search);
  const out = {};
  try {
    const bytes = new Uint8Array(await (await fetch("chinook.sqlite")).arrayBuffer());
    const engine = await Engine.create({
      ...files,
      datasources: [{ id: "chinook", description: "A music store: artists, albums, tracks and genres.", bytes }],
      provider: { kind: "compatible", model: "mock-model", base_url: params.get("mock"), api_key: "sk-bundler-0123456789abcdef" },
    });
    out.albums = (await engine.sql("SELECT COUNT(*) AS albums FROM Album")).rows[0]?.[0];
    const result = await engine.ask("Which genres have the most tracks?");
    out.status = result.status;
    out.top = result.sub_queries[0]?.rows?.[0]?.[0] ?? null;
    const stop = new AbortController();
    const asked = engine.ask("Which genres have the most tracks?", { signal: stop.signal });
    stop.abort();
    const cancelled = await asked;
    out.cancelled = [cancelled.status, ...cancelled.errors.map((e) => e.error_code)];
    const csv = new TextEncoder().encode("region,amount\nnorth,3\nsouth,4\n");
    await engine.addDatasource({ id: "sales", description: "Sales by region.", files: [{ name: "sales.csv", bytes: csv }] });
    out.csv = Number((await engine.sql("SELECT SUM(amount) AS total FROM sales", { datasource: "sales" })).rows[0]?.[0]);
    document.body.dataset.done = "true";
  } catch (e) {
    out.error = String(e?.message ?? e);
    document.body.dataset.done = "false";
  }
  window.outcome = out;
  document.getElementById("out").textContent = JSON.stringify(out);
}
