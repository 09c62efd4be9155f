// Node: no Web Workers, so sql.js comes started and the wasm as bytes (the README's way).
import { readFile } from "node:fs/promises";
import initSqlJs from "sql.js";
import init, { Engine } from "nl2sql";

await init({ module_or_path: await readFile(new URL(import.meta.resolve("nl2sql/nl2sql_bg.wasm"))) });
const bytes = new Uint8Array(await readFile("chinook.sqlite"));
const engine = await Engine.create({
  sql_js: await initSqlJs(),
  datasources: [{ id: "chinook", description: "A music store: artists, albums, tracks and genres.", bytes }],
  provider: { kind: "compatible", model: "mock-model", base_url: process.argv[2], api_key: "sk-node-0123456789abcdef" },
});
const albums = (await engine.sql("SELECT COUNT(*) AS albums FROM Album")).rows[0]?.[0];
const routed = (await engine.route("Which genres have the most tracks?")).ranked[0] ?? null;
const result = await engine.ask("Which genres have the most tracks?");
console.log(JSON.stringify({ albums, routed, status: result.status, top: result.sub_queries[0]?.rows?.[0]?.[0] ?? null }));
