// `nl2sql mcp` and `nl2sql serve` as agents and services meet them: the official MCP
// TypeScript SDK's client over stdio and over streamable HTTP, and the OpenAPI document
// checked by an OpenAPI 3.1 validator.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { validate } from "@readme/openapi-parser";
import { MOCK_URL, requireMock, addFixtures, col, GENRES, GENRES_FIXTURES } from "./mock.mjs";
import { BIN, startServe } from "./nl2sql.mjs";

const ADMIN = "admin-key-for-the-e2e-tests-01";
const VIEWER = "viewer-key-for-the-e2e-tests-2";
const MODEL_KEY = "sk-proj-e2e-server-side-key-0123";
const TOOLS = ["ask", "describe_datasource", "feedback", "list_datasources", "route", "run_sql"];

// What the server may read from its environment: the model's key and the mock's address.
const serverEnv = () => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "",
  OPENAI_API_KEY: MODEL_KEY,
  NL2SQL_API_KEYS: `admin:${ADMIN},viewer:${VIEWER}`,
});
const modelArgs = () => ["--base-url", MOCK_URL, "--model", "gpt-5.4-mini", "--answer", "template"];

// A tool's text answer, parsed when it is JSON.
const text = (result) => result.content.map((c) => c.text).join("\n");
const parsed = (result) => JSON.parse(text(result));

// Each server in a working directory of its own: feedback is kept there.
const workdir = () => fs.mkdtempSync(path.join(os.tmpdir(), "nl2sql-mcp-"));
const DATA = path.resolve("data");

async function stdioClient(extra = []) {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp", "--data", DATA, ...modelArgs(), ...extra],
    env: serverEnv(),
    cwd: workdir(),
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk) => (log += chunk));
  const client = new Client({ name: "nl2sql-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, log: () => log };
}

test("nl2sql mcp over stdio: every tool, refusals as tool errors, schemas as resources", async () => {
  requireMock();
  await addFixtures(GENRES_FIXTURES);
  const { client, log } = await stdioClient();
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
    const runSql = tools.find((t) => t.name === "run_sql");
    assert.equal(runSql.inputSchema.type, "object");
    assert.deepEqual(runSql.inputSchema.required, ["sql"]);

    const ran = await client.callTool({ name: "run_sql", arguments: { sql: "SELECT COUNT(*) AS n FROM Album a", datasource: "chinook" } });
    assert.notEqual(ran.isError, true, text(ran));
    assert.deepEqual(parsed(ran).rows, [[347]]);

    const write = await client.callTool({ name: "run_sql", arguments: { sql: "DELETE FROM Album" } });
    assert.equal(write.isError, true);
    assert.match(text(write), /SECURITY_VIOLATION/);
    const nowhere = await client.callTool({ name: "run_sql", arguments: { sql: "SELECT 1", datasource: "nowhere" } });
    assert.equal(nowhere.isError, true);
    assert.match(text(nowhere), /DATASOURCE_NOT_FOUND/);
    const described = await client.callTool({ name: "describe_datasource", arguments: { datasource: "nowhere" } });
    assert.equal(described.isError, true);
    // Arguments that do not fit the tool's schema are an error the client sees, not a crash.
    const malformed = await client.callTool({ name: "run_sql", arguments: { sql: 42 } }).catch((e) => ({ isError: true, content: [{ text: String(e) }] }));
    assert.equal(malformed.isError, true);

    const listed = parsed(await client.callTool({ name: "list_datasources", arguments: {} }));
    assert.deepEqual(listed.map((d) => d.id), ["chinook", "support", "webanalytics"]);
    const chinook = parsed(await client.callTool({ name: "describe_datasource", arguments: { datasource: "chinook" } }));
    const track = chinook.schema.tables.find((t) => t.name === "Track");
    assert.ok(track.columns.some((c) => c.name === "GenreId"));
    assert.ok(track.foreign_keys.length > 0);
    assert.ok(track.row_count > 3000);
    const routed = parsed(await client.callTool({ name: "route", arguments: { question: GENRES } }));
    assert.equal(routed.ranked[0], "chinook");

    const asked = await client.callTool({ name: "ask", arguments: { question: GENRES } });
    assert.notEqual(asked.isError, true, text(asked));
    const answer = parsed(asked);
    assert.equal(answer.status, "success");
    assert.equal(answer.rows[0][0], "Rock");
    assert.match(answer.sql[0], /GROUP BY/);
    assert.ok(answer.checks.every((c) => c.includes("passed")), answer.checks.join("; "));
    assert.equal(answer.thread.turns.length, 1, "the thread to follow up with");
    // Right on that answer proposes a verified query on the server.
    const judged = await client.callTool({ name: "feedback", arguments: { question: GENRES, datasource: "chinook", sql: answer.sql[0], verdict: "right" } });
    assert.notEqual(judged.isError, true, text(judged));
    const recorded = parsed(judged);
    assert.equal(recorded.entry.verdict, "right");
    assert.equal(recorded.proposal.status, "proposed");
    const wrongSql = await client.callTool({ name: "feedback", arguments: { question: "q", datasource: "chinook", sql: "DROP TABLE Album", verdict: "right" } });
    assert.equal(wrongSql.isError, true);
    assert.match(text(wrongSql), /VERIFIED_QUERY_INVALID/);

    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), [
      "nl2sql://datasources/chinook/schema",
      "nl2sql://datasources/support/schema",
      "nl2sql://datasources/webanalytics/schema",
    ]);
    const read = await client.readResource({ uri: "nl2sql://datasources/support/schema" });
    assert.equal(JSON.parse(read.contents[0].text).id, "support");
  } finally {
    await client.close();
  }
  assert.ok(!log().includes(MODEL_KEY), "the model key is in the log");
});

test("nl2sql mcp --role viewer asks as the viewer", async () => {
  const { client } = await stdioClient(["--role", "viewer"]);
  try {
    const refused = await client.callTool({ name: "run_sql", arguments: { sql: "SELECT c.Email FROM Customer c", datasource: "chinook" } });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /SECURITY_VIOLATION/);
    assert.doesNotMatch(text(refused), /Customer/);
    const listed = parsed(await client.callTool({ name: "list_datasources", arguments: {} }));
    assert.deepEqual(listed.map((d) => d.id), ["chinook", "webanalytics"]);
    const widened = await client.callTool({ name: "run_sql", arguments: { sql: "SELECT c.Email FROM Customer c", role: "admin" } });
    assert.equal(widened.isError, true);
    assert.match(text(widened), /ROLE_NOT_ALLOWED/);
  } finally {
    await client.close();
  }
});

// Whether `text` names `word` as a whole identifier.
const names = (text, word) => new RegExp(`(^|[^\\p{L}\\p{N}_])${word}($|[^\\p{L}\\p{N}_])`, "u").test(text);

test("nothing a role reads over MCP names a table it may not read or a datasource it may not reach", async () => {
  requireMock();
  const STAFF = "Who works in the store's staff, by MCP?";
  await addFixtures([
    ...GENRES_FIXTURES,
    { name: "answerability", question: STAFF, answer: { datasources: ["chinook"], reason: "staff" } },
    { name: "plan", question: STAFF, answer: { tables: [{ name: "Employee", alias: "e" }], select_items: [{ expr: col("e", "LastName") }] } },
  ]);
  const { client: admin } = await stdioClient();
  const all = parsed(await admin.callTool({ name: "list_datasources", arguments: {} }));
  await admin.close();
  assert.equal(all.length, 3);
  let scanned = 0;
  for (const role of ["analyst", "viewer"]) {
    const { client } = await stdioClient(["--role", role]);
    try {
      const reached = parsed(await client.callTool({ name: "list_datasources", arguments: {} }));
      const ids = reached.map((d) => d.id);
      const readable = new Map(reached.map((d) => [d.id, new Set(d.tables)]));
      // Every table the admin lists that this role's list leaves out, and every datasource.
      const hidden = all.flatMap((d) => d.tables.filter((t) => !readable.get(d.id)?.has(t)));
      assert.ok(hidden.includes("Employee"), `${role}: ${hidden}`);
      const unreached = all.map((d) => d.id).filter((id) => !ids.includes(id));
      const read = [["the list", JSON.stringify(reached)]];
      for (const id of ids) {
        const described = await client.callTool({ name: "describe_datasource", arguments: { datasource: id } });
        read.push([`${id} described`, text(described)]);
        const resource = await client.readResource({ uri: `nl2sql://datasources/${id}/schema` });
        read.push([`${id}'s schema resource`, resource.contents.map((c) => c.text).join("\n")]);
      }
      const { resources } = await client.listResources();
      read.push(["the resources", JSON.stringify(resources)]);
      for (const question of [GENRES, STAFF]) {
        read.push([`ask ${question}`, text(await client.callTool({ name: "ask", arguments: { question } }))]);
        read.push([`route ${question}`, text(await client.callTool({ name: "route", arguments: { question } }))]);
      }
      // The owner's descriptions of what the role reaches are the owner's words.
      const owners = all.filter((d) => ids.includes(d.id)).map((d) => d.description);
      for (const [what, said] of read) {
        const scan = owners.reduce((t, words) => t.split(words).join(""), said);
        for (const name of hidden) assert.ok(!names(scan, name), `${role} read ${name} in ${what}: ${scan}`);
        for (const id of unreached) assert.ok(!scan.includes(`"${id}"`), `${role} read ${id} in ${what}: ${scan}`);
        scanned += scan.length;
      }
    } finally {
      await client.close();
    }
  }
  assert.ok(scanned > 5000, `${scanned} characters scanned`);
});

// `nl2sql serve` over the demo data, asking the mock.
const serve = () => startServe(["--data", "data", ...modelArgs()], serverEnv());

test("MCP over streamable HTTP at /mcp, authenticated like the API", async () => {
  requireMock();
  const server = await serve();
  try {
    const connect = async (key) => {
      const headers = key ? { Authorization: `Bearer ${key}` } : {};
      const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { requestInit: { headers } });
      const client = new Client({ name: "nl2sql-e2e-http", version: "1.0.0" });
      await client.connect(transport);
      return client;
    };
    await assert.rejects(connect(null), /401|Unauthorized|API key/i);
    await assert.rejects(connect("not-a-key-of-this-server"), /401|Unauthorized|API key/i);

    const viewer = await connect(VIEWER);
    try {
      const { tools } = await viewer.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      const refused = await viewer.callTool({ name: "run_sql", arguments: { sql: "SELECT c.Email FROM Customer c", datasource: "chinook" } });
      assert.equal(refused.isError, true);
      assert.match(text(refused), /SECURITY_VIOLATION/);
    } finally {
      await viewer.close();
    }
    // The runs of SQL the server logged, oldest first.
    const sqlRuns = () =>
      server
        .log()
        .split("\n")
        .filter((l) => l.includes('"target":"nl2sql::run"') && l.includes('"work":"sql"'))
        .map((l) => JSON.parse(l).fields);
    const admin = await connect(ADMIN);
    try {
      const ran = await admin.callTool({ name: "run_sql", arguments: { sql: "SELECT COUNT(*) AS n FROM Customer c", datasource: "chinook" } });
      assert.notEqual(ran.isError, true, text(ran));
      assert.deepEqual(parsed(ran).rows, [[59]]);
      // A call the client gives up (its signal aborted) stops its query in the database:
      // the server logs the run as cancelled, well before the query could have ended.
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 300);
      const before = sqlRuns().length;
      const endless = "SELECT COUNT(*) AS n FROM Track a JOIN Track b ON a.GenreId = b.GenreId JOIN Track c ON b.GenreId = c.GenreId";
      await assert.rejects(
        admin.callTool({ name: "run_sql", arguments: { sql: endless, datasource: "chinook" } }, undefined, { signal: stop.signal }),
        /abort/i,
      );
      const until = Date.now() + 10_000;
      while (sqlRuns().length <= before && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const cancelled = sqlRuns()[before];
      assert.equal(cancelled?.outcome, "CANCELLED", JSON.stringify(sqlRuns()));
      assert.ok(cancelled.duration_ms < 2_000, `the query ran ${cancelled.duration_ms} ms`);
    } finally {
      await admin.close();
    }

    // The OpenAPI document is valid OpenAPI 3.1.
    const doc = await (await fetch(`${server.base}/api/v1/openapi.json`)).json();
    assert.equal(doc.openapi, "3.1.0");
    const verdict = await validate(structuredClone(doc));
    assert.equal(verdict.valid, true, JSON.stringify(verdict.errors ?? verdict, null, 1).slice(0, 2000));
  } finally {
    await server.stop();
  }
  for (const secret of [MODEL_KEY, ADMIN, VIEWER]) {
    assert.ok(!server.log().includes(secret), "a secret is in the server's log");
  }
});
