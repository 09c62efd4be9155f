// End-to-end: the npm package as a developer gets it. `npm pack` the built pkg/, install
// the tarball into the example app (tests/e2e/npm-app) next to sql.js, serve the app and
// let it answer a question through the mock provider.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./static-server.mjs";
import { launch, openPage } from "./browser.mjs";
import { MOCK_URL, requireMock, addFixtures, GENRES_FIXTURES, PRIVATE_FIXTURES } from "./mock.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(here, "../..");
const PKG = path.join(ROOT, "pkg");
const SHOTS = path.join(here, "screenshots");

let browser;
before(async () => {
  requireMock();
  assert.ok(fs.existsSync(path.join(PKG, "package.json")), "pkg/ has no package: run cargo xtask npm");
  await addFixtures([...GENRES_FIXTURES, ...PRIVATE_FIXTURES]);
  browser = await launch();
});
after(async () => browser?.close());

test("the packed npm package installs into a web app and answers a question", async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "nl2sql-npm-"));
  const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const tarball = npm(["pack", "--pack-destination", work, "--silent"], PKG).trim().split("\n").pop();
  const packed = npm(["pack", "--dry-run", "--json"], PKG);
  const files = JSON.parse(packed)[0].files.map((f) => f.path).sort();
  for (const f of ["README.md", "nl2sql.d.ts", "nl2sql.js", "nl2sql_bg.wasm", "nl2sql-duckdb.js", "package.json"]) {
    assert.ok(files.includes(f), `the tarball has ${f}: ${files}`);
  }
  const types = fs.readFileSync(path.join(PKG, "nl2sql.d.ts"), "utf8");
  for (const name of ["class Engine", "static create(options: EngineOptions): Promise<Engine>", "ask(question: string, options?: AskOptions | null): Promise<QueryResult>", "sql(sql: string, options?: SqlOptions | null): Promise<SqlRun>", "type QueryResult = ", "testConnection(): Promise<Probe>"]) {
    assert.ok(types.includes(name), `nl2sql.d.ts declares ${name}`);
  }

  const app = path.join(work, "app");
  fs.cpSync(path.join(here, "npm-app"), app, { recursive: true });
  fs.copyFileSync(path.join(ROOT, "data/chinook.sqlite"), path.join(app, "chinook.sqlite"));
  const sqljs = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/sql.js/package.json"), "utf8")).version;
  const duckdbWasm = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/@duckdb/duckdb-wasm/package.json"), "utf8")).version;
  npm(["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(work, tarball), `sql.js@${sqljs}`, `@duckdb/duckdb-wasm@${duckdbWasm}`], app);

  // A TypeScript app compiles against the installed declarations: strict, indexed access
  // possibly undefined, no skipLibCheck.
  const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "--strict", "--noUncheckedIndexedAccess", "--noEmit", "--target", "es2022", "--module", "esnext", "--moduleResolution", "bundler", "typecheck.ts"], { cwd: app, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  const server = await serve(app, "/");
  const { page, problems } = await openPage(browser.context);
  try {
    await page.goto(`${server.url}?mock=${encodeURIComponent(MOCK_URL)}`);
    await page.locator("body[data-done]").waitFor({ timeout: 60_000 });
    assert.equal(await page.locator("body").getAttribute("data-done"), "true", await page.locator("#status").textContent());
    const outcome = await page.evaluate(() => window.exampleOutcome);
    assert.deepEqual(outcome, {
      status: "success",
      errors: [],
      cancelled: ["error", "CANCELLED"],
      renamed: "CONFIG_INVALID",
      scoped: ["error", "CANCELLED", "success"],
      routed: ["chinook"],
      refused: ["SECURITY_VIOLATION"],
      // The full form names the refused table and rule; the cleaned one nothing of them.
      traced: {
        full: ["Employee", "Role viewer", '"details"', '"rule"'],
        cleaned: [],
        codes: ["SECURITY_VIOLATION"],
        badForm: "CONFIG_INVALID",
      },
      albums: 347,
      big: ["bigint", "9007199254740993"],
      limited: [["QUERY_TIMEOUT"], true],
      stoppedSql: [["CANCELLED"], true],
      cancelledSql: [["CANCELLED"], true],
      after: 347,
      misspelt: ["CONFIG_INVALID", true],
      misspeltCreate: ["CONFIG_INVALID", true],
      empty: ["error", "QUESTION_EMPTY"],
      badLimit: "CONFIG_INVALID",
      csv: [[], 15, "bigint", "9007199254740993"],
      ragged: ["DATASOURCE_UNREADABLE", true],
      noWorker: ["DATASOURCE_UNREADABLE", true],
      freed: ["ENGINE_FREED", "ENGINE_FREED"],
      datasources: ["chinook", "sales"],
      feedback: ["right", "proposed", "APPROVAL_NOT_ALLOWED", 1, "FEEDBACK_UNREADABLE", 1],
    });
    const held = await page.evaluate(() => window.threadHeldMs);
    console.log(`npm package, a query stopped at its 800 ms limit: the page's thread was held at most ${held.toFixed(0)} ms at a time`);
    assert.ok(held < 200, `the page's thread was held ${held} ms while the query ran`);
    // Every field the engine emits is declared, and every field declared as always there
    // is emitted.
    const emitted = await page.evaluate(() => window.emittedFields);
    for (const [name, keys] of Object.entries(emitted)) {
      const declared = declaredFields(types, name);
      assert.ok(keys.length > 0, `the app read a ${name}`);
      assert.deepEqual(keys.filter((k) => !(k in declared)), [], `${name}: emitted but not declared`);
      const required = Object.keys(declared).filter((k) => !declared[k]);
      assert.deepEqual(required.filter((k) => !keys.includes(k)), [], `${name}: declared but not emitted`);
    }
    assert.match(await page.locator("#answer").textContent(), /Rock has by far the most tracks/);
    assert.equal(await page.locator("#rows tr").count(), 25);
    assert.match(await page.locator("#events").textContent(), /node_started.*rows.*answer_delta/);
    await page.screenshot({ path: path.join(SHOTS, "npm-example-app.png"), fullPage: true });
    // DuckDB-WASM logs its worker's failure to load itself (the app's misplaced worker).
    const expected = (p) => p === "console: ErrorEvent" || /error in duckdb worker: .*nowhere\/duckdb\.worker\.js/.test(p);
    assert.deepEqual(problems.filter((p) => !expected(p)), []);
  } finally {
    await page.close();
    await server.close();
  }
});

// The fields `export type NAME = { … }` declares, each mapped to whether it is optional.
function declaredFields(dts, name) {
  const at = dts.indexOf(`export type ${name} = {`);
  assert.ok(at >= 0, `nl2sql.d.ts declares ${name}`);
  const fields = {};
  let depth = 1;
  let segment = "";
  let i = dts.indexOf("{", at) + 1;
  for (; i < dts.length && depth > 0; i++) {
    const c = dts[i];
    if ("{[(".includes(c)) depth++;
    if ("}])".includes(c)) depth--;
    // A member ends at `;` or a line's end, outside any nested type.
    if (depth <= 1 && (c === ";" || c === "\n" || depth === 0)) {
      const m = segment.match(/^\s*(\w+)(\?)?:/);
      if (m) fields[m[1]] = m[2] === "?";
      segment = "";
    } else {
      segment += c;
    }
  }
  // A Rust enum flattened into the type is declared as an intersection with a union of
  // objects (`{…} & ({ "node": …, "outputs": … } | …)`): its members are those of the first
  // alternative, which every alternative shares.
  const flattened = dts.slice(i).match(/^\s*&\s*\(\s*\{([^{}]*)\}/);
  if (flattened) {
    for (const m of flattened[1].matchAll(/"?(\w+)"?(\?)?:/g)) fields[m[1]] = m[2] === "?";
  }
  return fields;
}
