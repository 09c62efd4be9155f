// Thin glue between Rust and sql.js. Rust owns the logic; this file only does what must
// happen in JavaScript: start sql.js, open a database, and step through a statement.

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

// Opens a database from file bytes and switches it to query-only.
export function openDatabase(SQL, bytes) {
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
export function query(db, sql, maxRows) {
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

export function closeDatabase(db) {
  db.close();
}

// The aggregator's scratch database: a fresh in-memory database holding `tables`
// ({create, insert, rows}, every value bound as a parameter), switched to query-only, then
// `sql` through `query` above, then closed.
export function scratchQuery(SQL, tables, sql, maxRows) {
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
