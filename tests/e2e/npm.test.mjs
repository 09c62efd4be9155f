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
import { MOCK_URL, requireMock, addFixtures, GENRES_FIXTURES } from "./mock.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(here, "../..");
const PKG = path.join(ROOT, "pkg");
const SHOTS = path.join(here, "screenshots");

let browser;
before(async () => {
  requireMock();
  assert.ok(fs.existsSync(path.join(PKG, "package.json")), "pkg/ has no package: run cargo xtask npm");
  await addFixtures(GENRES_FIXTURES);
  browser = await launch();
});
after(async () => browser?.close());

test("the packed npm package installs into a web app and answers a question", async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "nl2sql-npm-"));
  const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const tarball = npm(["pack", "--pack-destination", work, "--silent"], PKG).trim().split("\n").pop();
  const packed = npm(["pack", "--dry-run", "--json"], PKG);
  const files = JSON.parse(packed)[0].files.map((f) => f.path).sort();
  for (const f of ["README.md", "nl2sql.d.ts", "nl2sql.js", "nl2sql_bg.wasm", "package.json"]) {
    assert.ok(files.includes(f), `the tarball has ${f}: ${files}`);
  }
  const types = fs.readFileSync(path.join(PKG, "nl2sql.d.ts"), "utf8");
  for (const name of ["class Engine", "static create(options: EngineOptions): Promise<Engine>", "ask(question: string, options?: AskOptions | null): Promise<QueryResult>", "sql(sql: string, options?: SqlOptions | null): Promise<SqlRun>", "interface QueryResult", "testConnection(): Promise<Probe>"]) {
    assert.ok(types.includes(name), `nl2sql.d.ts declares ${name}`);
  }

  const app = path.join(work, "app");
  fs.cpSync(path.join(here, "npm-app"), app, { recursive: true });
  fs.copyFileSync(path.join(ROOT, "data/chinook.sqlite"), path.join(app, "chinook.sqlite"));
  const sqljs = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/sql.js/package.json"), "utf8")).version;
  npm(["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(work, tarball), `sql.js@${sqljs}`], app);

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
      routed: ["chinook"],
      refused: ["SECURITY_VIOLATION"],
      albums: 347,
      datasources: ["chinook"],
    });
    assert.match(await page.locator("#answer").textContent(), /Rock has by far the most tracks/);
    assert.equal(await page.locator("#rows tr").count(), 25);
    assert.match(await page.locator("#events").textContent(), /node_started.*rows.*answer_delta/);
    await page.screenshot({ path: path.join(SHOTS, "npm-example-app.png"), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    await server.close();
  }
});
