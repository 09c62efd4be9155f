// esbuild: the package's .wasm comes through the file loader (`--loader:.wasm=file`) and is
// handed to init(); the files loaded by URL (sql.js's, DuckDB-WASM's, the package's DuckDB
// host) are copied next to the bundle.
import init, { Engine } from "nl2sql";
import wasmUrl from "nl2sql/nl2sql_bg.wasm";
import { run } from "./app.js";

await init({ module_or_path: new URL(wasmUrl, import.meta.url) });
await run(Engine, {
  sql_js_url: "sql-wasm.js",
  sql_js_wasm_url: "sql-wasm.wasm",
  duckdb: { module_url: new URL("nl2sql-duckdb.js", location.href).href, worker_url: "duckdb-browser-eh.worker.js", wasm_url: "duckdb-eh.wasm" },
});
