// End-to-end: the playground using a server as its engine (Settings → Engine → a server):
// asks stream through `nl2sql serve`'s API, SQL mode and the schemas come from it, and the
// page holds no model key and never calls the model provider itself.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve as serveStatic } from "./static-server.mjs";
import { launch, openPage, ready } from "./browser.mjs";
import { MOCK_URL, requireMock, addFixtures, GENRES, GENRES_FIXTURES } from "./mock.mjs";
import { startServe } from "./nl2sql.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.NL2SQL_DIST ?? path.join(here, "../../dist");
const SHOTS = path.join(here, "screenshots");
const VIEWER = "viewer-key-for-the-page-test-1";
const ADMIN = "admin-key-for-the-page-test-02";
const MODEL_KEY = "sk-proj-kept-by-the-server-0123";

let browser;
let site;
let api;
before(async () => {
  requireMock();
  fs.mkdirSync(SHOTS, { recursive: true });
  await addFixtures(GENRES_FIXTURES);
  browser = await launch();
  site = await serveStatic(DIST, "/");
  api = await startServer();
});
after(async () => {
  await browser?.close();
  await site?.close();
  await api?.stop();
});

const startServer = () =>
  startServe(
    ["--data", "data", "--base-url", MOCK_URL, "--model", "gpt-5.4-mini"],
    { PATH: process.env.PATH ?? "", OPENAI_API_KEY: MODEL_KEY, NL2SQL_API_KEYS: `viewer:${VIEWER},admin:${ADMIN}` },
  );

async function connect(page, key, base = api.base) {
  await page.locator('button.tab[data-page="settings"]').click();
  await page.locator("#engine-server").check();
  await page.locator("#server-url").fill(base);
  await page.locator("#server-key").fill(key);
  await page.locator("#server-connect").click();
  // Settled: connected, or refused with a code (said in the failure).
  const status = page.locator('#server-status[data-connected="true"], #server-status[data-code]:not([data-code=""])');
  await status.first().waitFor({ timeout: 15_000 });
  assert.equal(await page.locator("#server-status").getAttribute("data-connected"), "true", await page.locator("#server-status").textContent());
}

test("the page asks through a server: streamed timeline, the answer, no model key in the page", async () => {
  const { page, problems } = await openPage(browser.context);
  const seen = [];
  page.on("request", (r) => seen.push(r.url()));
  await page.goto(site.url);
  await ready(page);
  await connect(page, VIEWER);
  assert.match(await page.locator("#server-status").textContent(), /chinook/);
  // The server's datasources, as the viewer's key sees them.
  await page.locator('button.tab[data-page="ask"]').click();
  const options = await page.locator("#datasource option").allTextContents();
  assert.deepEqual(options, ["auto (routing)", "chinook", "webanalytics"]);
  assert.equal(await page.locator("#no-key").count(), 0, "no key banner with a server");

  // The key decides the role: the picker is off.
  assert.equal(await page.locator("#role").isDisabled(), true);
  await page.locator("#question").fill(GENRES);
  await page.locator("#ask").click();
  await page.locator('.answer-card:not([data-status="running"])').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator(".answer-card").getAttribute("data-status"), "success");
  assert.match(await page.locator(".answer-card").textContent(), /Rock/);
  const steps = await page.locator(".timeline .step").count();
  assert.ok(steps >= 4, `${steps} steps on the timeline`);
  await page.screenshot({ path: path.join(SHOTS, "server-ask.png"), fullPage: true });

  // SQL mode through the server: the viewer's key is refused on Customer.
  await page.locator('button.tab[data-page="sql"]').click();
  await page.locator("#sql-input").fill("SELECT c.Email FROM Customer c");
  await page.locator("#sql-datasource").selectOption("chinook");
  await page.locator("#run-sql").click();
  await page.locator(".sql-outcome").waitFor({ timeout: 15_000 });
  assert.match(await page.locator(".sql-outcome").textContent(), /SECURITY_VIOLATION/);

  // The page never spoke to the model provider, and holds no model key.
  assert.ok(!seen.some((u) => u.startsWith(MOCK_URL)), "the page called the model provider");
  assert.ok(seen.some((u) => u.startsWith(`${api.base}/api/v1/ask/stream`)));
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assert.ok(!stored.includes(MODEL_KEY) && !stored.includes(VIEWER), "a key was stored");
  assert.ok(!(await page.content()).includes(MODEL_KEY));
  assert.deepEqual(problems, []);
});

test("a wrong key is said plainly, and the page's own engine comes back", async () => {
  const { page } = await openPage(browser.context);
  await page.goto(site.url);
  await ready(page);
  await page.locator('button.tab[data-page="settings"]').click();
  await page.locator("#engine-server").check();
  await page.locator("#server-url").fill(api.base);
  await page.locator("#server-key").fill("not-a-key-of-this-server");
  await page.locator("#server-connect").click();
  await page.locator('#server-status[data-code="UNAUTHORIZED"]').waitFor({ timeout: 15_000 });
  await page.locator("#engine-page").check();
  await page.locator('button.tab[data-page="ask"]').click();
  const options = await page.locator("#datasource option").allTextContents();
  assert.ok(options.includes("support"), options.join(", "));
});

test("a datasource the server left out is listed with its code, the others answer, and one that comes back is listed", async () => {
  // A project with one database that reads, one whose server is not there, and one whose
  // file appears while the page is connected.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "nl2sql-left-out-"));
  const config = path.join(dir, "nl2sql.toml");
  const later = path.join(dir, "later.sqlite");
  fs.writeFileSync(
    config,
    `[[datasources]]\nid = "chinook"\nconnection = ${JSON.stringify(path.resolve("data/chinook.sqlite"))}\n\n` +
      `[[datasources]]\nid = "later"\nconnection = ${JSON.stringify(later)}\n\n` +
      `[[datasources]]\nid = "warehouse"\nconnection = "postgres://nobody@127.0.0.1:1/warehouse"\n`,
  );
  const partial = await startServe(
    ["--config", config, "--base-url", MOCK_URL, "--model", "gpt-5.4-mini", "--retry-ms", "300"],
    { PATH: process.env.PATH ?? "", OPENAI_API_KEY: MODEL_KEY, NL2SQL_API_KEYS: `admin:${ADMIN}` },
  );
  const { page, problems } = await openPage(browser.context);
  try {
    await page.goto(site.url);
    await ready(page);
    await connect(page, ADMIN, partial.base);
    const status = await page.locator("#server-status").textContent();
    assert.match(status, /Connected to .*: chinook\. Left out for now: /);
    assert.match(status, /later \(DATASOURCE_UNREADABLE\)/);
    assert.match(status, /warehouse \(DATASOURCE_UNREACHABLE\)/);
    await page.locator('button.tab[data-page="datasources"]').click();
    const left = page.locator('li.source.left-out[data-id="warehouse"]');
    assert.equal(await left.getAttribute("data-unavailable"), "DATASOURCE_UNREACHABLE");
    assert.match(await left.textContent(), /DATASOURCE_UNREACHABLE/);
    assert.ok(!(await left.textContent()).includes("127.0.0.1:1"), "the address was shown");
    assert.equal(await page.locator('li.source.left-out[data-id="later"]').count(), 1);
    await page.locator('button.tab[data-page="ask"]').click();
    assert.deepEqual(await page.locator("#datasource option").allTextContents(), ["auto (routing)", "chinook"]);
    await page.locator('button.tab[data-page="sql"]').click();
    await page.locator("#sql-datasource").selectOption("chinook");
    await page.locator("#sql-input").fill("SELECT COUNT(*) AS albums FROM Album");
    await page.locator("#run-sql").click();
    await page.locator('.sql-outcome[data-ok="true"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator(".sql-outcome table.grid tbody td").first().textContent(), "347");
    await page.locator('button.tab[data-page="datasources"]').click();
    await page.screenshot({ path: path.join(SHOTS, "server-left-out.png"), fullPage: true });
    // The file appears: the server reads it on its next try, and the page, which reads the
    // list again while something is left out, lists it without connecting again.
    fs.copyFileSync(path.resolve("data/chinook.sqlite"), later);
    await page.locator('li.source.left-out[data-id="later"]').waitFor({ state: "detached", timeout: 30_000 });
    assert.equal(await page.locator('li.source.left-out[data-id="warehouse"]').count(), 1);
    await page.locator('button.tab[data-page="ask"]').click();
    assert.deepEqual(await page.locator("#datasource option").allTextContents(), [
      "auto (routing)",
      "chinook",
      "later",
    ]);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    await partial.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
