// Thin glue between Rust and sql.js. Rust owns the logic; this file only does what must
// happen in JavaScript: start sql.js, open a database, step through a statement — and run
// those same functions in a Web Worker per database (`DbWorker`).

// Starts sql.js from the page's global `initSqlJs` (sql-wasm.js loaded by a <script> tag),
// or takes the start the page already made (`globalThis.sqlJsReady`, a promise of it).
export async function initFromGlobal(wasmUrl) {
  if (globalThis.sqlJsReady && typeof globalThis.sqlJsReady.then === "function") {
    return globalThis.sqlJsReady;
  }
  if (typeof globalThis.initSqlJs !== "function") {
    throw new Error("sql.js is not loaded: the page must include sql-wasm.js before the app");
  }
  return globalThis.initSqlJs({ locateFile: () => wasmUrl });
}

// Starts sql.js from its UMD source text and wasm bytes, for pages that cannot add a
// <script> tag (tests, bundlers that inline assets).
export async function initFromSource(source, wasmBytes) {
  const module = { exports: {} };
  const init = new Function("module", "exports", source + "\n;return module.exports;")(
    module,
    module.exports,
  );
  return init({ wasmBinary: wasmBytes });
}

// The functions a database's worker runs, made by one self-contained function: the worker
// is given that function's own text, so it runs exactly what the page would, and a
// bundler's minifier, which renames what it likes inside, cannot break a name one of them
// uses for another.
function databaseFunctions() {
  // Opens a database from file bytes and switches it to query-only.
  function openDatabase(SQL, bytes) {
    const db = new SQL.Database(bytes);
    try {
      db.run("PRAGMA query_only = ON");
      db.exec("SELECT count(*) FROM sqlite_master");
    } catch (e) {
      db.close();
      throw e;
    }
    return db;
  }

  // Runs `sql`, reading at most `maxRows` rows. The Rust guard has already admitted exactly one
  // read-only query; SQLite must agree that the text holds one statement, because
  // `prepare` alone would silently ignore anything after the first. Integers come back as
  // BigInt so that no integer loses precision and an integer is never confused with a real.
  function query(db, sql, maxRows) {
    const statements = db.iterateStatements(sql);
    const first = statements.next();
    if (first.done) throw new Error("refused: there is no statement to run");
    const stmt = first.value;
    try {
      // Advancing `statements` would close `stmt`, so the rest is read by its own iterator.
      const rest = statements.getRemainingSQL();
      const extra = rest.trim() === "" ? { done: true } : db.iterateStatements(rest).next();
      if (!extra.done) {
        extra.value.free();
        throw new Error("refused: SQLite reads more than one statement in this text");
      }
      // query_only does not stop ATTACH, and sql.js offers no limit to switch it off; SQLite's
      // own normalised text (comments gone, keywords upper-cased) names the statement.
      if (/^\s*(ATTACH|DETACH)\b/.test(stmt.getNormalizedSQL())) {
        throw new Error("refused: attaching databases is not allowed");
      }
      const columns = stmt.getColumnNames();
      const rows = [];
      let truncated = false;
      while (stmt.step()) {
        if (rows.length === maxRows) {
          truncated = true;
          break;
        }
        rows.push(stmt.get(null, { useBigInt: true }));
      }
      return { columns, rows, truncated };
    } finally {
      stmt.free();
    }
  }


  // The aggregator's scratch database: a fresh in-memory database holding `tables`
  // ({create, insert, rows}, every value bound as a parameter), switched to query-only, then
  // `sql` through `query` above, then closed.
  function scratchQuery(SQL, tables, sql, maxRows) {
    const db = new SQL.Database();
    try {
      db.run("BEGIN");
      for (const table of tables) {
        db.run(table.create);
        const insert = db.prepare(table.insert);
        try {
          for (const row of table.rows) insert.run(row);
        } finally {
          insert.free();
        }
      }
      db.run("COMMIT");
      db.run("PRAGMA query_only = ON");
      return query(db, sql, maxRows);
    } finally {
      db.close();
    }
  }

  return { openDatabase, query, scratchQuery };
}

export const { openDatabase, query, scratchQuery } = databaseFunctions();

export function closeDatabase(db) {
  db.close();
}

// sql.js's wasm, compiled once per page and URL for every database's worker: a compiled
// module crosses to a worker as it is, where each worker compiling its own copy made every
// worker pay for the compile (and its optimising tier) on the page's two or four cores.
const compiledSqlJs = new Map();

function compileSqlJs(wasmUrl) {
  let compiled = compiledSqlJs.get(wasmUrl);
  if (!compiled) {
    compiled = (async () => {
      const response = await fetch(wasmUrl);
      if (!response.ok) {
        throw new Error(`the workers' sql.js wasm could not be loaded from ${wasmUrl}: HTTP ${response.status}`);
      }
      const type = response.headers.get("content-type") || "";
      return type.startsWith("application/wasm")
        ? WebAssembly.compileStreaming(response)
        : WebAssembly.compile(await response.arrayBuffer());
    })();
    compiledSqlJs.set(wasmUrl, compiled);
    // A failure is not kept: the next worker tries again.
    compiled.catch(() => compiledSqlJs.delete(wasmUrl));
  }
  return compiled;
}

// The source of a database's worker: the functions above (their own text, so the worker
// runs exactly what the page would), sql.js loaded from `sqlJsUrl` and started from the
// compiled module its first message brings, and one message loop. Each later message is
// `{id, op, ...}`; each answer `{id, result}` or `{id, error}`.
function workerSource(sqlJsUrl) {
  return `"use strict";
const { openDatabase, query, scratchQuery } = (${databaseFunctions.toString()})();
importScripts(${JSON.stringify(sqlJsUrl)});
let ready = null;
let db = null;
self.onmessage = async (event) => {
  const { id, op } = event.data;
  if (op === "module") {
    const compiled = event.data.module;
    ready = new Promise((resolve, reject) => {
      initSqlJs({
        instantiateWasm(imports, receive) {
          WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance, compiled), reject);
          return {};
        },
      }).then(resolve, reject);
    });
    return;
  }
  try {
    const SQL = await ready;
    let result = null;
    if (op === "open") {
      // Without bytes this only says sql.js started (the scratch databases' worker).
      if (event.data.bytes) db = openDatabase(SQL, event.data.bytes);
    } else if (op === "query") {
      result = query(db, event.data.sql, event.data.maxRows);
    } else if (op === "scratch") {
      result = scratchQuery(SQL, event.data.tables, event.data.sql, event.data.maxRows);
    }
    self.postMessage({ id, result });
  } catch (e) {
    self.postMessage({ id, error: String((e && e.message) || e) });
  }
};`;
}

// One database in a worker of its own, so a query never holds the page's thread. A query
// past its time limit, or interrupted (Cancel), stops the worker at once; the next query
// starts a new one and opens the database again from the bytes kept here. A failure
// rejects with an Error whose `kind` is "timed_out", "cancelled", "stopped" or "sqlite".
export class DbWorker {
  constructor(sqlJsUrl, wasmUrl, bytes) {
    const base = globalThis.document ? document.baseURI : globalThis.location.href;
    // A URL that does not parse is kept as given: the worker's start then says so.
    const resolve = (url) => {
      try {
        return new URL(url, base).href;
      } catch {
        return url;
      }
    };
    this.sqlJsUrl = resolve(sqlJsUrl);
    this.wasmUrl = resolve(wasmUrl);
    this.bytes = bytes || null;
    this.worker = null;
    this.opened = null;
    this.pending = new Map();
    this.next = 1;
  }

  // Starts the worker and opens the database in it (or only starts sql.js, without
  // bytes), unless that is done.
  start() {
    if (this.opened) return this.opened;
    const url = URL.createObjectURL(
      new Blob([workerSource(this.sqlJsUrl)], { type: "text/javascript" }),
    );
    this.url = url;
    try {
      this.worker = new Worker(url);
    } catch (e) {
      // A Content-Security-Policy without `worker-src blob:`, or no workers at all.
      URL.revokeObjectURL(url);
      return Promise.reject(Object.assign(new Error(`a Web Worker could not be started: ${e.message}`), { kind: "stopped" }));
    }
    this.worker.onmessage = (event) => this.answer(event.data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.stop("stopped", `the database's worker failed: ${event.message || "it could not start"}`);
    };
    // A database that would not open is tried again by the next query.
    const worker = this.worker;
    this.opened = compileSqlJs(this.wasmUrl)
      .catch((e) => {
        throw Object.assign(new Error(`sql.js could not start in a worker: ${e.message}`), { kind: "stopped" });
      })
      .then((module) => {
        if (this.worker !== worker) {
          throw Object.assign(new Error(this.stoppedBecause || "the database's worker was stopped"), { kind: "stopped" });
        }
        worker.postMessage({ op: "module", module });
        return this.send("open", { bytes: this.bytes }, 0);
      })
      .catch((e) => {
        this.stop("stopped", e.message);
        throw e;
      });
    return this.opened;
  }

  answer({ id, result, error }) {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    if (error === undefined) {
      waiting.resolve(result);
    } else {
      waiting.reject(Object.assign(new Error(error), { kind: "sqlite" }));
    }
  }

  send(op, message, timeoutMs) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(
              () => this.stop("timed_out", `it ran past its time limit of ${timeoutMs} ms`),
              timeoutMs,
            )
          : undefined;
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, op, ...message });
    });
  }

  async query(sql, maxRows, timeoutMs) {
    await this.start();
    return this.send("query", { sql, maxRows }, timeoutMs);
  }

  async scratch(tables, sql, maxRows, timeoutMs) {
    await this.start();
    return this.send("scratch", { tables, sql, maxRows }, timeoutMs);
  }

  // Stops the worker and fails whatever waits on it with `kind`.
  stop(kind, message) {
    if (!this.worker) return;
    this.stoppedBecause = message;
    this.worker.terminate();
    URL.revokeObjectURL(this.url);
    this.worker = null;
    this.opened = null;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) {
      clearTimeout(w.timer);
      w.reject(Object.assign(new Error(message), { kind }));
    }
  }

  // Cancel: stops a query in flight at once (nothing happens when none is).
  interrupt() {
    if (this.pending.size > 0) this.stop("cancelled", "the query was cancelled");
  }

  close() {
    this.stop("stopped", "the database was closed");
  }
}
