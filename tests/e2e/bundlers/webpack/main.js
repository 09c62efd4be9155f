// webpack 5: `new URL(…, import.meta.url)` makes each file loaded by URL (and the
// package's own .wasm) an asset of the build.
import init, { Engine } from "nl2sql";
import { run } from "./app.js";

await init();
await run(Engine, {
  sql_js_url: new URL("sql.js/dist/sql-wasm.js", import.meta.url).href,
  sql_js_wasm_url: new URL("sql.js/dist/sql-wasm.wasm", import.meta.url).href,
  duckdb: {
    module_url: new URL("nl2sql/nl2sql-duckdb.js", import.meta.url).href,
    worker_url: new URL("@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js", import.meta.url).href,
    wasm_url: new URL("@duckdb/duckdb-wasm/dist/duckdb-eh.wasm", import.meta.url).href,
  },
});
