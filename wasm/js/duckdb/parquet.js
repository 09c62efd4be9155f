// Parquet files for DuckDB-WASM. DuckDB-WASM 1.32 reads Parquet only through an extension
// it would download from extensions.duckdb.org at the first `read_parquet`; the page fetches
// nothing from anywhere but its own origin, so Parquet is read here instead (hyparquet,
// every codec through hyparquet-compressors) and handed to DuckDB as an Arrow IPC stream
// with a type per column from the file's schema. The reading happens in a Web Worker — this
// very module, started as a module worker — so a large file never holds the page's thread.
import { parquetMetadata, parquetReadObjects, parquetSchema } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { Bool, DateDay, Float64, Int32, Int64, Table, TimestampMillisecond, Uint64, Utf8, tableToIPC, vectorFromArray } from "apache-arrow";

const READER = "#nl2sql-parquet-reader";

// In the reader worker: each message is a file's bytes, each answer its Arrow IPC stream
// (transferred) or the reason it could not be read.
if (typeof document === "undefined" && typeof postMessage === "function" && new URL(import.meta.url).hash === READER) {
  globalThis.onmessage = async ({ data }) => {
    try {
      const ipc = tableToIPC(await parquetTable(data), "stream");
      postMessage({ ipc }, [ipc.buffer]);
    } catch (e) {
      postMessage({ error: e?.message ?? String(e) });
    }
  };
}

// `bytes` (a Parquet file) as an Arrow IPC stream, read in a worker of its own.
export function parquetToArrow(bytes) {
  return new Promise((resolve, reject) => {
    const url = new URL(import.meta.url);
    url.hash = READER;
    // Started from a `blob:` module that imports this one, so this module may be on
    // another origin (a CDN that allows it), as a worker's own URL may not.
    const source = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};`], { type: "text/javascript" }));
    const worker = new Worker(source, { type: "module" });
    const done = (settle, value) => {
      worker.terminate();
      URL.revokeObjectURL(source);
      settle(value);
    };
    worker.onmessage = ({ data }) =>
      data.error === undefined
        ? done(resolve, data.ipc)
        : done(reject, new Error(`it could not be read as Parquet: the file is damaged, or uses a feature the page's reader lacks (${data.error})`));
    worker.onerror = (e) => {
      e.preventDefault?.();
      done(reject, new Error(`the Parquet reader did not start: ${e.message ?? "no reason given"}`));
    };
    worker.postMessage(bytes.slice());
  });
}

// `bytes` (a Parquet file) as an Arrow table; throws with the reader's reason when the file
// is not one it can read.
async function parquetTable(bytes) {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const metadata = parquetMetadata(buffer);
  const columns = parquetSchema(metadata).children;
  const rows = await parquetReadObjects({ file: buffer, metadata, compressors });
  const vectors = {};
  for (const column of columns) {
    const name = column.element.name;
    const { type, convert } = arrowType(column);
    const values = rows.map((row) => {
      const v = row[name];
      return v === null || v === undefined ? null : convert(v);
    });
    vectors[name] = vectorFromArray(values, type);
  }
  return new Table(vectors);
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const asText = (v) =>
  v instanceof Uint8Array
    ? hex(v)
    : typeof v === "object"
      ? JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x instanceof Uint8Array ? hex(x) : x))
      : String(v);
const same = (v) => v;
const epochMs = (v) => (v instanceof Date ? v.getTime() : Number(v));

// The Arrow type a column becomes, and how hyparquet's values become its values. Nested
// columns (lists, maps, structs) become their JSON text; decimals the reals hyparquet reads.
function arrowType(column) {
  if (column.children.length > 0) return { type: new Utf8(), convert: asText };
  const { type, converted_type: converted, logical_type: logical } = column.element;
  const kind = logical?.type;
  if (converted === "DECIMAL" || kind === "DECIMAL") return { type: new Float64(), convert: Number };
  if (converted === "DATE" || kind === "DATE") return { type: new DateDay(), convert: same };
  if (type === "INT96" || converted?.startsWith("TIMESTAMP") || kind === "TIMESTAMP") {
    return { type: new TimestampMillisecond(), convert: epochMs };
  }
  const unsigned = converted?.startsWith("UINT") || (kind === "INTEGER" && logical.isSigned === false);
  switch (type) {
    case "BOOLEAN":
      return { type: new Bool(), convert: Boolean };
    case "INT32":
      return unsigned ? { type: new Int64(), convert: BigInt } : { type: new Int32(), convert: Number };
    case "INT64":
      return unsigned ? { type: new Uint64(), convert: BigInt } : { type: new Int64(), convert: BigInt };
    case "FLOAT":
    case "DOUBLE":
      return { type: new Float64(), convert: Number };
    default:
      return { type: new Utf8(), convert: asText };
  }
}
