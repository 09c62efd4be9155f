// End-to-end: the page never freezes. Queries that would run for minutes are stopped at
// their time limit or by Cancel in the databases' Web Workers, while the page keeps
// answering; the next query works. Integers beyond 2^53 reach the screen, the CSV and the
// answer exactly. The built playground (dist/) in headless Chromium, the mock provider
// over real HTTP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./static-server.mjs";
import { launch, openPage, ready, watchLongTasks, longestTask, watchQueryTimeout, limitTimings } from "./browser.mjs";
import { MOCK_URL, requireMock, addFixtures, col, eq } from "./mock.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.NL2SQL_DIST ?? path.join(here, "../../dist");
const SHOTS = path.join(here, "screenshots");

// Every track paired with every other of its media type, three times over: billions of
// rows from a query the validator rightly accepts.
const RUNAWAY_SQL =
  "SELECT COUNT(a.TrackId) AS triples FROM Track a JOIN Track b ON a.MediaTypeId = b.MediaTypeId " +
  "JOIN Track c ON b.MediaTypeId = c.MediaTypeId";
const BIG_SQL = "SELECT TrackId + 9007199254740992 AS big FROM Track WHERE TrackId = 1";
const BIG = "9007199254740993";

const same = (l, r) => eq(col(l, "MediaTypeId"), col(r, "MediaTypeId"));
const RUNAWAY_Q = "How many triples of tracks share a media type?";
const BIG_Q = "What is the first track's id plus two to the fifty-third?";
const FIXTURES = [
  { name: "answerability", question: RUNAWAY_Q, answer: { datasources: ["chinook"], reason: "Tracks are in the music store." } },
  {
    name: "plan",
    question: RUNAWAY_Q,
    answer: {
      tables: [{ name: "Track", alias: "a" }, { name: "Track", alias: "b" }, { name: "Track", alias: "c" }],
      joins: [
        { left_alias: "a", right_alias: "b", condition: same("a", "b") },
        { left_alias: "b", right_alias: "c", condition: same("b", "c") },
      ],
      select_items: [{ alias: "triples", expr: { kind: "func", func_name: "COUNT", is_aggregate: true, args: [col("a", "TrackId")] } }],
    },
  },
  { name: "answerability", question: BIG_Q, answer: { datasources: ["chinook"], reason: "Tracks are in the music store." } },
  {
    name: "plan",
    question: BIG_Q,
    answer: {
      tables: [{ name: "Track", alias: "t" }],
      select_items: [{ alias: "big", expr: { kind: "binary", op: "+", left: col("t", "TrackId"), right: { kind: "literal", value: 9007199254740992 } } }],
      where: { kind: "binary", op: "=", left: col("t", "TrackId"), right: { kind: "literal", value: 1 } },
    },
  },
];

let browser;
let server;
before(async () => {
  requireMock();
  assert.ok(fs.existsSync(path.join(DIST, "index.html")), `${DIST} has no build: run cargo xtask dist`);
  fs.mkdirSync(SHOTS, { recursive: true });
  // 2^53 itself is exact as a JavaScript number; SQLite adds 1 in 64-bit integers.
  await addFixtures(FIXTURES);
  browser = await launch();
  server = await serve(DIST, "/");
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function openReady(run = {}) {
  const { page, problems } = await openPage(browser.context);
  const saved = { kind: "compatible", model: "mock-model", base_url: MOCK_URL, run: { row_cap: 10000, answer: "template", ...run } };
  await page.addInitScript((settings) => localStorage.setItem("nl2sql.settings", settings), JSON.stringify(saved));
  await page.goto(server.url);
  await ready(page);
  // Every main-thread task over 50 ms from here on (the Long Tasks API).
  await watchLongTasks(page);
  return { page, problems };
}

const shot = (page, name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

// While `running` is on the page, the page answers: every evaluate returns within 200 ms.
async function answersWhile(page, running) {
  let slowest = 0;
  let probes = 0;
  while ((await page.locator(running).count()) > 0) {
    const t0 = Date.now();
    await page.evaluate(() => document.querySelectorAll("button").length);
    slowest = Math.max(slowest, Date.now() - t0);
    probes += 1;
    await page.waitForTimeout(50);
  }
  return { slowest, probes };
}

async function runSql(page, sql) {
  await page.locator("#sql-input").fill(sql);
  await page.locator("#run-sql").click();
}

test("a query that would run for minutes stops at its datasource's time limit; the page answers throughout; the next query works", async () => {
  const { page, problems } = await openReady();
  try {
    // The person gives Chinook a limit of its own on the Datasources page.
    await page.locator('button.tab[data-page="datasources"]').click();
    const limit = page.locator('li.source[data-id="chinook"] input.limit');
    assert.equal(await limit.getAttribute("placeholder"), "10000");
    await limit.fill("1500");
    await limit.dispatchEvent("change");

    await page.locator('button.tab[data-page="sql"]').click();
    // When the error appears, against when Run was clicked (page clock).
    await watchQueryTimeout(page);
    const t0 = Date.now();
    await runSql(page, RUNAWAY_SQL);
    const clickMs = Date.now() - t0;
    await page.locator("#sql-running").waitFor();
    assert.equal(await page.locator("#cancel-sql").isEnabled(), true);
    const { slowest, probes } = await answersWhile(page, "#sql-running");
    const error = page.locator('.sql-outcome[data-ok="false"] .error-line[data-code="QUERY_TIMEOUT"]');
    await error.waitFor();
    assert.match(await error.textContent(), /time limit of 1500 ms/);
    const { clicked, shown, longest } = await limitTimings(page);
    const limitToError = shown - clicked - 1500;
    console.log(
      `runaway query, 1,500 ms limit: click returned in ${clickMs} ms; the error was on screen ${limitToError.toFixed(0)} ms ` +
        `after the limit; ${probes} evaluates while it ran, the slowest ${slowest} ms; longest main-thread task ${longest.toFixed(0)} ms`,
    );
    assert.ok(limitToError >= 0, "the query was stopped at its limit, not before");
    assert.ok(slowest < 200, `an evaluate took ${slowest} ms while the query ran`);
    assert.ok(probes >= 3, `the page was probed ${probes} times while the query ran`);
    // The Long Tasks API reports tasks over 50 ms: none while the query ran.
    assert.equal(longest, 0, `a main-thread task took ${longest} ms while the query ran`);
    // The instrument itself works: a task the page makes long is seen (a task of the
    // page's own; what the test evaluates is not one).
    await page.evaluate(() =>
      setTimeout(() => {
        const end = performance.now() + 120;
        while (performance.now() < end);
      }, 0),
    );
    await page.waitForFunction(() => window.__longest >= 100);
    await shot(page, "sql-query-timeout");

    // The worker was stopped; the next query opens the database again and works.
    await runSql(page, "SELECT COUNT(*) AS albums FROM Album");
    await page.locator('.sql-outcome[data-ok="true"] .row-note[data-rows="1"]').waitFor();
    assert.equal(await page.locator(".sql-outcome table.grid tbody td").first().textContent(), "347");
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("Cancel stops a long query at once, in SQL mode and in Ask; the trace ends with it", async () => {
  const { page, problems } = await openReady();
  try {
    await page.locator('button.tab[data-page="sql"]').click();
    await runSql(page, RUNAWAY_SQL);
    await page.locator("#sql-running").waitFor();
    await page.waitForTimeout(300);
    const t0 = Date.now();
    await page.locator("#cancel-sql").click();
    await page.locator('.sql-outcome .error-line[data-code="CANCELLED"]').waitFor();
    const sqlMs = Date.now() - t0;

    await page.locator('button.tab[data-page="ask"]').click();
    await page.locator("#question").fill(RUNAWAY_Q);
    await page.locator("#ask").click();
    await page.locator('li.step[data-node="executor"][data-status="running"]').waitFor();
    await page.waitForTimeout(300);
    const t1 = Date.now();
    await page.locator("#cancel").click();
    await page.locator('.answer-card:not([data-status="running"])').waitFor();
    const askMs = Date.now() - t1;
    console.log(`Cancel during a long query: stopped ${sqlMs} ms after the click in SQL mode, ${askMs} ms in Ask`);
    assert.ok(sqlMs < 2_000 && askMs < 2_000, `stopped ${sqlMs} / ${askMs} ms after Cancel (the limit is 10 s)`);
    assert.equal(await page.locator(".headline-error").getAttribute("data-code"), "CANCELLED");
    const steps = await page.locator("li.step").evaluateAll((s) => s.map((e) => `${e.dataset.node}:${e.dataset.status}`));
    assert.ok(steps.includes("executor:error"), steps.join(" "));
    await shot(page, "ask-cancelled-query");

    // The next question is answered.
    await page.locator("#question").fill(BIG_Q);
    await page.locator("#ask").click();
    await page.locator('.answer-card:not([data-status="running"])').waitFor();
    assert.equal(await page.locator(".answer-card").getAttribute("data-status"), "success");
    assert.deepEqual(problems.filter((p) => !/abort/i.test(p)), []);
  } finally {
    await page.close();
  }
});

test("Ask: a plan that runs past the run's query time limit (Settings) ends QUERY_TIMEOUT with its trace", async () => {
  const { page, problems } = await openReady();
  try {
    await page.locator('button.tab[data-page="settings"]').click();
    await page.locator("#query-timeout").fill("1000");
    await page.locator("#query-timeout").dispatchEvent("change");
    await page.locator('button.tab[data-page="ask"]').click();
    await page.locator("#question").fill(RUNAWAY_Q);
    await page.locator("#ask").click();
    await page.locator('.answer-card:not([data-status="running"])').waitFor({ timeout: 20_000 });
    assert.equal(await page.locator(".headline-error").getAttribute("data-code"), "QUERY_TIMEOUT");
    assert.match(await page.locator(".headline-error").textContent(), /time limit of 1000 ms/);
    const steps = await page.locator("li.step").evaluateAll((s) => s.map((e) => `${e.dataset.node}:${e.dataset.status}`));
    assert.ok(steps.includes("executor:error"), steps.join(" "));
    const longest = await longestTask(page);
    console.log(`Ask with a runaway plan: longest main-thread task ${longest.toFixed(0)} ms`);
    await shot(page, "ask-query-timeout");
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test(`${BIG} round-trips exactly through SQL mode, its CSV and Ask`, async () => {
  const { page, problems } = await openReady();
  try {
    await page.locator('button.tab[data-page="sql"]').click();
    await runSql(page, BIG_SQL);
    await page.locator('.sql-outcome[data-ok="true"] .row-note[data-rows="1"]').waitFor();
    assert.equal(await page.locator(".sql-outcome table.grid tbody td").first().textContent(), BIG);
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator(".sql-outcome .download-csv").click()]);
    assert.equal(fs.readFileSync(await download.path(), "utf8"), `big\n${BIG}\n`);

    await page.locator('button.tab[data-page="ask"]').click();
    await page.locator("#question").fill(BIG_Q);
    await page.locator("#ask").click();
    await page.locator('.answer-card:not([data-status="running"])').waitFor();
    assert.equal(await page.locator(".answer-card").getAttribute("data-status"), "success");
    assert.equal(await page.locator(".part table.grid tbody td").first().textContent(), BIG);
    assert.match(await page.locator(".answer-card").textContent(), new RegExp(BIG));
    const [askCsv] = await Promise.all([page.waitForEvent("download"), page.locator(".part .download-csv").first().click()]);
    assert.equal(fs.readFileSync(await askCsv.path(), "utf8"), `big\n${BIG}\n`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
