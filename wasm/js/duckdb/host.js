// DuckDB-WASM for the page's CSV, Parquet and DuckDB files. Bundled with DuckDB-WASM's
// JavaScript API, Apache Arrow and the Parquet reader (`parquet.js`) into one module
// (`nl2sql-duckdb.js`), which the engine
// imports only when such a file is first added, so the page's first load does not carry it.
//
// DuckDB-WASM runs in a Web Worker of its own. Every query has a time limit: at it (or on
// an interrupt) the worker is terminated and the query fails at once; the next query starts
// a new worker and loads the files again from the bytes kept here. Rows come back as
// sql.js's do — integers as BigInt, reals as numbers, text, bytes as Uint8Array — with
// dates and times as the text SQLite and PostgreSQL write, so one Rust reader takes both.
import { AsyncDuckDB, VoidLogger } from "@duckdb/duckdb-wasm";
import { Type } from "apache-arrow";
import { parquetToArrow } from "./parquet.js";

// A failure the engine sorts by `kind`: "timed_out", "cancelled", "stopped" (the worker
// failed or was closed), "file" (a file that would not load) or "duckdb" (the query).
function failure(kind, message) {
  return Object.assign(new Error(message), { kind });
}

const literal = (s) => `'${s.replaceAll("'", "''")}'`;
const ident = (s) => `"${s.replaceAll('"', '""')}"`;

// `files`: [{ name, table, kind: "csv" | "parquet" | "duckdb", bytes }]. A DuckDB file is
// the datasource on its own; CSV and Parquet files are one table each.
export async function openDuckDb(workerUrl, wasmUrl, files) {
  const host = new DuckDbHost(workerUrl, wasmUrl, files);
  await host.start();
  return host;
}

class DuckDbHost {
  constructor(workerUrl, wasmUrl, files) {
    const base = globalThis.document ? document.baseURI : globalThis.location.href;
    this.workerUrl = new URL(workerUrl, base).href;
    this.wasmUrl = new URL(wasmUrl, base).href;
    this.files = files;
    this.started = null;
    // Which start is current: a start that a stop overtook must neither install its
    // database nor stop a later one.
    this.generation = 0;
    this.db = null;
    this.conn = null;
    this.pending = new Set();
  }

  start() {
    if (!this.started) {
      const generation = ++this.generation;
      this.started = this.load(generation).catch((e) => {
        if (this.generation === generation) this.stop("stopped", e.message);
        // A failure of DuckDB itself, not of a file or the query.
        throw e.kind ? e : failure("stopped", `DuckDB-WASM did not start: ${e.message}`);
      });
    }
    return this.started;
  }

  async load(generation) {
    // DuckDB-WASM's worker is started from a `blob:` script that imports it, so the worker
    // file may be on another origin (a CDN), as a worker's own URL may not.
    const source = URL.createObjectURL(new Blob([`importScripts(${JSON.stringify(this.workerUrl)});`], { type: "text/javascript" }));
    const worker = new Worker(source);
    // A worker script that does not load fails the start; DuckDB-WASM would wait forever.
    const broken = new Promise((_, reject) => {
      worker.addEventListener("error", (e) => {
        e.preventDefault();
        reject(failure("stopped", `DuckDB-WASM's worker did not load from ${this.workerUrl}: ${e.message || "no reason given"}`));
      });
    });
    broken.catch(() => {});
    const db = new AsyncDuckDB(new VoidLogger(), worker);
    this.db = db;
    const step = (work) => Promise.race([broken, work]);
    try {
      await step(db.instantiate(this.wasmUrl));
    } finally {
      URL.revokeObjectURL(source);
    }
    await step(db.open({ query: { castBigIntToDouble: false, castDecimalToDouble: false } }));
    const conn = await step(db.connect());
    for (const [i, file] of this.files.entries()) {
      try {
        if (file.kind === "parquet") {
          // Read once, kept as Arrow: a restart inserts the table again without reading.
          // DuckDB takes the buffer it is given over, so a copy goes.
          file.arrow ??= await parquetToArrow(file.bytes);
          await step(conn.insertArrowFromIPCStream(file.arrow.slice(), { name: file.table, create: true }));
          continue;
        }
        const registered = `nl2sql_${i}.${file.kind}`;
        // DuckDB takes the buffer over (it is transferred to its worker): a copy goes, so
        // the bytes here can load the file again after a restart.
        await step(db.registerFileBuffer(registered, file.bytes.slice()));
        if (file.kind === "duckdb") {
          await step(conn.query(`ATTACH ${literal(registered)} AS ${ident(file.table)} (READ_ONLY)`));
          await step(conn.query(`USE ${ident(file.table)}`));
        } else {
          await step(conn.query(`CREATE TABLE ${ident(file.table)} AS SELECT * FROM read_csv(${literal(registered)})`));
          await step(db.dropFile(registered));
        }
      } catch (e) {
        if (e.kind) throw e;
        throw failure("file", `${file.name}: ${e.message}`);
      }
    }
    // Nothing outside what was loaded is reachable, and a query cannot change that.
    for (const setting of [
      "SET enable_external_access = false",
      "SET autoinstall_known_extensions = false",
      "SET autoload_known_extensions = false",
      "SET lock_configuration = true",
    ]) {
      await step(conn.query(setting));
    }
    if (this.generation !== generation) {
      db.terminate().catch(() => {});
      throw failure("stopped", "the database was stopped while it started");
    }
    this.conn = conn;
  }

  // Runs `sql`, reading at most `maxRows` rows, within `timeoutMs` (0: no limit). Cancel
  // reaches it from the start, while a stopped database is loaded again too; the time
  // limit counts from when the database is ready, so a slow reload never uses it up.
  async query(sql, maxRows, timeoutMs) {
    let settle;
    const stopped = new Promise((_, reject) => (settle = reject));
    stopped.catch(() => {});
    const waiting = { reject: settle };
    this.pending.add(waiting);
    let timer;
    try {
      const run = this.start().then(() => {
        if (timeoutMs > 0) {
          timer = setTimeout(() => this.stop("timed_out", `it ran past its time limit of ${timeoutMs} ms`), timeoutMs);
        }
        return read(this.conn, sql, maxRows);
      });
      run.catch(() => {});
      return await Promise.race([stopped, run]);
    } finally {
      clearTimeout(timer);
      this.pending.delete(waiting);
    }
  }

  // Cancel: stops a query in flight at once (nothing happens when none is).
  interrupt() {
    if (this.pending.size > 0) this.stop("cancelled", "the query was cancelled");
  }

  close() {
    this.stop("stopped", "the database was closed");
  }

  // Terminates the worker and fails whatever waits on it with `kind`.
  stop(kind, message) {
    const db = this.db;
    this.db = null;
    this.conn = null;
    this.started = null;
    this.generation += 1;
    if (db) db.terminate().catch(() => {});
    const waiting = [...this.pending];
    this.pending.clear();
    for (const w of waiting) w.reject(failure(kind, message));
  }
}

// The query's rows, streamed so that the row cap stops the work too.
async function read(conn, sql, maxRows) {
  let reader;
  try {
    reader = await conn.send(sql);
    // The schema is known once the stream's first message is read.
    if (!reader.schema) await reader.open();
  } catch (e) {
    throw failure("duckdb", e.message);
  }
  const columns = reader.schema.fields.map((f) => f.name);
  const convert = reader.schema.fields.map((f) => converter(f.type));
  const rows = [];
  let truncated = false;
  try {
    for await (const batch of reader) {
      const vectors = columns.map((_, i) => batch.getChildAt(i));
      for (let r = 0; r < batch.numRows; r++) {
        if (rows.length === maxRows) {
          truncated = true;
          break;
        }
        rows.push(vectors.map((v, i) => {
          let value;
          try {
            value = v.get(r);
          } catch (e) {
            return beyondNumbers(v, r, e);
          }
          return value === null || value === undefined ? null : convert[i](value);
        }));
      }
      if (truncated) break;
    }
  } catch (e) {
    throw failure("duckdb", e.message);
  }
  if (truncated) await conn.cancelSent().catch(() => false);
  return { columns, rows, truncated };
}

// A value Arrow will not turn into a JavaScript number: a timestamp's `infinity` or
// `-infinity` (the 64-bit extremes), said in those words; anything else fails the query.
function beyondNumbers(vector, row, error) {
  const raw = vector.type.typeId === Type.Timestamp && vector.data.length === 1 ? vector.data[0].values[row] : undefined;
  if (typeof raw !== "bigint") throw failure("duckdb", `a value JavaScript cannot hold: ${error.message}`);
  return raw < 0n ? "-infinity" : "infinity";
}

// How one column's values become what sql.js would give.
function converter(type) {
  switch (type.typeId) {
    case Type.Int:
      // An unsigned 64-bit integer past the signed range is a real, as natively.
      return (v) => (BigInt(v) < 2n ** 63n ? BigInt(v) : Number(v));
    case Type.Bool:
      return (v) => (v ? 1n : 0n);
    case Type.Float:
      return (v) => Number(v);
    case Type.Decimal:
      return (v) => decimal(v, type.scale);
    case Type.Utf8:
    case Type.LargeUtf8:
      return (v) => v;
    case Type.Binary:
    case Type.LargeBinary:
    case Type.FixedSizeBinary:
      return (v) => new Uint8Array(v);
    case Type.Date:
      return (v) => isoDate(v).slice(0, 10);
    case Type.Timestamp:
      return (v) => isoDate(v);
    case Type.Time:
      // Seconds, milliseconds, microseconds or nanoseconds since midnight, by the unit.
      return (v) => clock(Number(v) / [1, 1e3, 1e6, 1e9][type.unit]);
    case Type.Dictionary:
      return converter(type.dictionary);
    default:
      return (v) => (typeof v === "object" ? JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x)) : String(v));
  }
}

// A decimal (four 32-bit words, least significant first, two's complement) as sql.js
// would hold it: whole without a scale when it fits 64 bits, else a real.
function decimal(words, scale) {
  let big = 0n;
  for (let i = words.length - 1; i >= 0; i--) big = (big << 32n) | BigInt(words[i] >>> 0);
  const bits = BigInt(words.length * 32);
  if (big >> (bits - 1n)) big -= 1n << bits;
  if (scale === 0 && big >= -(2n ** 63n) && big < 2n ** 63n) return big;
  return Number(big) / 10 ** scale;
}

// Milliseconds since the epoch (or a Date) as `YYYY-MM-DD HH:MM:SS[.fff]`, in UTC.
// DuckDB's `infinity` and `-infinity` (and dates past JavaScript's range) as those words.
function isoDate(v) {
  const ms = Number(typeof v === "object" ? v.valueOf() : v);
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return ms < 0 ? "-infinity" : "infinity";
  const [day, time] = date.toISOString().split("T");
  return `${day} ${time.replace("Z", "").replace(/\.000$/, "")}`;
}

// Seconds since midnight as `HH:MM:SS[.ffffff]`.
function clock(seconds) {
  const whole = Math.floor(seconds);
  const two = (n) => String(n).padStart(2, "0");
  const text = `${two(Math.floor(whole / 3600))}:${two(Math.floor(whole / 60) % 60)}:${two(whole % 60)}`;
  const fraction = Math.round((seconds - whole) * 1e6);
  return fraction > 0 ? `${text}.${String(fraction).padStart(6, "0").replace(/0+$/, "")}` : text;
}
