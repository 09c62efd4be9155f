// Vite: the package needs no configuration; the files loaded by URL come as `?url`.
import init, { Engine } from "nl2sql";
import sqlJsUrl from "sql.js/dist/sql-wasm.js?url";
import sqlJsWasmUrl from "sql.js/dist/sql-wasm.wasm?url";
import duckdbModule from "nl2sql/nl2sql-duckdb.js?url";
import duckdbWorker from "@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url";
import duckdbWasm from "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url";
import { run } from "./app.js";

await init();
await run(Engine, {
  sql_js_url: sqlJsUrl,
  sql_js_wasm_url: sqlJsWasmUrl,
  duckdb: { module_url: duckdbModule, worker_url: duckdbWorker, wasm_url: duckdbWasm },
});
