// Loads the DuckDB host (DuckDB-WASM and Apache Arrow, bundled as `nl2sql-duckdb.js`) the
// first time a CSV, Parquet or DuckDB file is added, never before: the page's first load
// does not carry it. A failed load is tried again next time.
let loading = null;

export function loadDuckDb(url) {
  const absolute = new URL(url, globalThis.document ? document.baseURI : globalThis.location.href).href;
  loading ??= import(/* webpackIgnore: true */ /* @vite-ignore */ absolute).catch((e) => {
    loading = null;
    throw e;
  });
  return loading;
}

// Opens `files` ([{ name, table, kind, bytes }]) in a DuckDB-WASM worker of their own.
export async function openDuckDb(moduleUrl, workerUrl, wasmUrl, files) {
  const host = await loadDuckDb(moduleUrl);
  return host.openDuckDb(workerUrl, wasmUrl, files);
}
