// End-to-end: CSV and Parquet files made here, added in the page, become one DuckDB-WASM
// datasource (a table each, joinable), asked about and answered in the DuckDB dialect;
// DuckDB-WASM is fetched only then. Its queries stop at their time limit and on Cancel like
// sql.js's. Every kind of bad file gets its own clear message and leaves the other
// datasources working. The built playground (dist/) in headless Chromium, the mock
// provider over real HTTP.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { serve } from "./static-server.mjs";
import { launch, openPage, ready, watchLongTasks, watchQueryTimeout, limitTimings } from "./browser.mjs";
import { MOCK_URL, requireMock, addFixtures, callsAbout, col, eq } from "./mock.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.NL2SQL_DIST ?? path.join(here, "../../dist");
const SHOTS = path.join(here, "screenshots");
const WORK = fs.mkdtempSync(path.join(os.tmpdir(), "nl2sql-files-"));
const BIG = "9007199254740993";

const ORDERS_CSV =
  "order_id,product_id,quantity,ordered_on,reference\n" +
  `1,1,2,2026-01-05,${BIG}\n` +
  "2,2,1,2026-01-06,17\n" +
  "3,1,5,2026-02-01,18\n" +
  "4,3,1,2026-02-03,19\n";

// Parquet written by DuckDB itself: the library npm installs for the command line's
// DuckDB (the workspace's own dependency), through its Node binding.
const duckdb = createRequire(import.meta.url)("@duckdb/node-bindings-linux-x64/duckdb.node");

async function productsParquet() {
  const file = path.join(WORK, "products.parquet");
  const db = await duckdb.open(":memory:");
  const conn = await duckdb.connect(db);
  await duckdb.query(
    conn,
    `COPY (SELECT * FROM (VALUES (1, 'Lamp', 24.5), (2, 'Stool', 40.0), (3, 'Rug', 99.9)) p(product_id, name, price)) ` +
      `TO '${file}' (FORMAT parquet)`,
  );
  return fs.readFileSync(file);
}

// A DuckDB database file, as DuckDB 1.5 writes it (DuckDB-WASM 1.32 is DuckDB 1.4), with a
// table in its own schema and one in another.
async function warehouseDuckDb() {
  const file = path.join(WORK, "warehouse.duckdb");
  fs.rmSync(file, { force: true });
  const db = await duckdb.open(file);
  const conn = await duckdb.connect(db);
  await duckdb.query(conn, "CREATE TABLE stock AS SELECT * FROM (VALUES ('Lamp', 12), ('Stool', 3)) s(item, units)");
  await duckdb.query(conn, "CREATE SCHEMA sales");
  await duckdb.query(conn, "CREATE TABLE sales.orders AS SELECT * FROM (VALUES (1, 'Lamp', 2), (2, 'Stool', 1)) o(order_id, item, quantity)");
  duckdb.disconnect_sync(conn);
  duckdb.close_sync(db);
  return fs.readFileSync(file);
}

// One key shared by every row: a triple self-join pairs each row with every other twice
// over (8 billion rows), which DuckDB would work on for minutes.
const EVENTS_CSV = "event_id,k\n" + Array.from({ length: 2000 }, (_, i) => `${i + 1},1`).join("\n") + "\n";
const RUNAWAY_SQL =
  "SELECT COUNT(a.event_id) AS n FROM events a JOIN events b ON a.k = b.k JOIN events c ON b.k = c.k";

const UNITS = "How many units of each product were ordered?";
const FIXTURES = [
  { name: "answerability", question: UNITS, answer: { datasources: ["shop"], reason: "Orders and products are in the shop's files." } },
  {
    name: "plan",
    question: UNITS,
    answer: {
      tables: [{ name: "orders", alias: "o" }, { name: "products", alias: "p" }],
      joins: [{ left_alias: "o", right_alias: "p", condition: eq(col("o", "product_id"), col("p", "product_id")) }],
      select_items: [
        { expr: col("p", "name"), alias: "product" },
        { expr: { kind: "func", func_name: "SUM", is_aggregate: true, args: [col("o", "quantity")] }, alias: "units" },
      ],
      group_by: [{ expr: col("p", "name") }],
      order_by: [{ expr: { kind: "func", func_name: "SUM", is_aggregate: true, args: [col("o", "quantity")] }, direction: "desc" }],
    },
  },
];

let browser;
let server;
let parquet;
before(async () => {
  requireMock();
  assert.ok(fs.existsSync(path.join(DIST, "index.html")), `${DIST} has no build: run cargo xtask dist`);
  fs.mkdirSync(SHOTS, { recursive: true });
  parquet = await productsParquet();
  await addFixtures(FIXTURES);
  browser = await launch();
  server = await serve(DIST, "/");
});
after(async () => {
  await browser?.close();
  await server?.close();
  fs.rmSync(WORK, { recursive: true, force: true });
});

// DuckDB-WASM's worker logs each failed statement to the console itself; the page's own
// problems are what remain.
const pageProblems = (problems) => problems.filter((p) => !/duckdb|Catalog Error|Parser Error|Invalid Input Error/i.test(p));

async function openReady() {
  const { page, problems } = await openPage(browser.context);
  const requested = [];
  page.on("request", (r) => requested.push(new URL(r.url()).pathname));
  const saved = { kind: "compatible", model: "mock-model", base_url: MOCK_URL, run: { row_cap: 10000, answer: "template" } };
  await page.addInitScript((settings) => localStorage.setItem("nl2sql.settings", settings), JSON.stringify(saved));
  await page.goto(server.url);
  await ready(page);
  await watchLongTasks(page);
  await page.locator('button.tab[data-page="datasources"]').click();
  return { page, problems, requested };
}

// Adds `files` ([{ name, text | buffer }]) as datasource `id`; the message shown.
async function addFiles(page, id, files) {
  await page.locator("#upload-file").setInputFiles(
    files.map((f) => ({ name: f.name, mimeType: "application/octet-stream", buffer: f.buffer ?? Buffer.from(f.text) })),
  );
  await page.locator("#upload-id").fill(id);
  await page.locator("#upload-id").dispatchEvent("input");
  await page.locator("#upload-add").click();
  const message = page.locator("#datasource-message");
  await page.waitForFunction(() => document.querySelector("#upload-add") && !document.querySelector("#upload-add").disabled);
  await message.waitFor();
  return { ok: (await message.getAttribute("class")) === "notice", text: await message.textContent() };
}

async function runSql(page, datasource, sql) {
  await page.locator('button.tab[data-page="sql"]').click();
  await page.locator("#sql-datasource").selectOption(datasource);
  await page.locator("#sql-input").fill(sql);
  await page.locator("#run-sql").click();
}

const shot = (page, name) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

test("a CSV and a Parquet file become one datasource, loaded on first use, asked about and answered in DuckDB's dialect", async () => {
  const { page, problems, requested } = await openReady();
  try {
    assert.deepEqual(requested.filter((p) => p.includes("/duckdb/")), [], "the first load fetched DuckDB-WASM");
    const t0 = Date.now();
    const added = await addFiles(page, "shop", [
      { name: "orders.csv", text: ORDERS_CSV },
      { name: "products.parquet", buffer: parquet },
    ]);
    const addMs = Date.now() - t0;
    assert.ok(added.ok, added.text);
    assert.match(added.text, /Added shop: 2 tables/);
    assert.match(await page.locator('li.source[data-id="shop"]').textContent(), /2 tables · 7 rows/);
    const fetched = [...new Set(requested.filter((p) => p.includes("/duckdb/")))];
    const sizes = fetched.map((p) => {
      const file = path.join(DIST, decodeURIComponent(p));
      return `${path.basename(p)} ${fs.existsSync(file) ? fs.statSync(file).size : "?"} B raw`;
    });
    console.log(`first CSV + Parquet added in ${addMs} ms (DuckDB-WASM fetched, started, files loaded): ${sizes.join(", ")}`);
    for (const name of ["nl2sql-duckdb.js", "duckdb-browser-eh.worker.js"]) {
      assert.ok(fetched.some((p) => p.endsWith(`/duckdb/${name}`)), `${name} was not fetched: ${fetched.join(" ")}`);
    }
    await shot(page, "datasources-csv-parquet");

    // SQL mode: types as DuckDB inferred them, the big integer exact.
    await runSql(page, "shop", "SELECT order_id, ordered_on, reference FROM orders ORDER BY order_id");
    await page.locator('.sql-outcome[data-ok="true"] .row-note[data-rows="4"]').waitFor();
    const first = await page.locator(".sql-outcome table.grid tbody tr").first().locator("td").allTextContents();
    assert.deepEqual(first, ["1", "2026-01-05", BIG]);

    // Ask: routed to the files, planned, rendered for DuckDB, run, answered.
    await page.locator('button.tab[data-page="ask"]').click();
    await page.locator("#question").fill(UNITS);
    await page.locator("#ask").click();
    await page.locator('.answer-card:not([data-status="running"])').waitFor({ timeout: 30_000 });
    assert.equal(await page.locator(".answer-card").getAttribute("data-status"), "success");
    assert.match(await page.locator('.fact[data-fact="answered from"] dd').textContent(), /shop/);
    const sql = await page.locator(".part pre.sql").first().textContent();
    assert.match(sql, /FROM orders AS o JOIN products AS p ON o\.product_id = p\.product_id GROUP BY p\.name/);
    const rows = await page.locator(".part table.grid tbody tr").evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
    );
    // Lamp first (7 units); Stool and Rug tie at one.
    assert.deepEqual(rows[0], ["Lamp", "7"]);
    assert.deepEqual(rows.slice(1).sort(), [["Rug", "1"], ["Stool", "1"]]);
    const calls = await callsAbout(UNITS);
    assert.ok(calls.includes("answerability") && calls.includes("plan"), calls.join(" "));
    await shot(page, "ask-csv-parquet");
    assert.deepEqual(pageProblems(problems), []);
  } finally {
    await page.close();
  }
});

test("a DuckDB query stops at its datasource's time limit and on Cancel; the files are loaded again for the next", async () => {
  const { page, problems } = await openReady();
  try {
    const added = await addFiles(page, "events", [{ name: "events.csv", text: EVENTS_CSV }]);
    assert.ok(added.ok, added.text);
    const limit = page.locator('li.source[data-id="events"] input.limit');
    await limit.fill("1500");
    await limit.dispatchEvent("change");

    await page.locator('button.tab[data-page="sql"]').click();
    // When the error appears, against when Run was clicked (page clock).
    await watchQueryTimeout(page);
    await runSql(page, "events", RUNAWAY_SQL);
    const error = page.locator('.sql-outcome[data-ok="false"] .error-line[data-code="QUERY_TIMEOUT"]');
    await error.waitFor({ timeout: 15_000 });
    assert.match(await error.textContent(), /time limit of 1500 ms/);
    const { clicked, shown, longest } = await limitTimings(page);
    const limitToError = shown - clicked - 1500;
    console.log(
      `DuckDB runaway query, 1,500 ms limit: the error was on screen ${limitToError.toFixed(0)} ms after the limit; ` +
        `longest main-thread task ${longest.toFixed(0)} ms`,
    );
    assert.ok(limitToError >= 0, "the query was stopped at its limit, not before");
    assert.equal(longest, 0, `a main-thread task took ${longest} ms while the query ran`);

    // DuckDB is started again, the CSV loaded again.
    await runSql(page, "events", "SELECT COUNT(*) AS n FROM events");
    await page.locator('.sql-outcome[data-ok="true"] .row-note[data-rows="1"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator(".sql-outcome table.grid tbody td").first().textContent(), "2000");

    await runSql(page, "events", RUNAWAY_SQL);
    await page.locator("#sql-running").waitFor();
    await page.waitForTimeout(300);
    const t1 = Date.now();
    await page.locator("#cancel-sql").click();
    await page.locator('.sql-outcome .error-line[data-code="CANCELLED"]').waitFor();
    const cancelMs = Date.now() - t1;
    console.log(`Cancel during a DuckDB query: stopped ${cancelMs} ms after the click`);
    assert.ok(cancelMs < 1_000, `stopped ${cancelMs} ms after Cancel (the limit is 1.5 s)`);
    assert.deepEqual(pageProblems(problems), []);
  } finally {
    await page.close();
  }
});

test("each bad file gets its own clear message; the other datasources keep working", async () => {
  const { page, problems } = await openReady();
  try {
    const corrupt = Buffer.from(parquet);
    corrupt.fill(0x41, 16, corrupt.length - 16);
    const cases = [
      ["not CSV", [{ name: "photo.csv", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) }], /photo\.csv is not a CSV file: it holds binary data/],
      ["ragged rows", [{ name: "ragged.csv", text: "a,b,c\n1,2,3\n4,5\n7,8,9\n" }], /ragged\.csv is not a regular CSV file: line 3 has 2 fields where the header \(line 1\) has 3/],
      ["corrupt Parquet", [{ name: "broken.parquet", buffer: corrupt }], /broken\.parquet: it could not be read as Parquet: the file is damaged/],
      ["0 bytes", [{ name: "empty.csv", text: "" }], /empty\.csv is empty \(0 bytes\)/],
      ["a database among CSV files", [{ name: "a.csv", text: "x\n1\n" }, { name: "shop.sqlite", text: "SQLite format 3\0" + "x".repeat(100) }], /shop\.sqlite is a database of its own/],
    ];
    const seen = [];
    for (const [what, files, expected] of cases) {
      const outcome = await addFiles(page, "bad", files);
      assert.equal(outcome.ok, false, `${what}: ${outcome.text}`);
      assert.match(outcome.text, expected, what);
      assert.match(outcome.text, /DATASOURCE_UNREADABLE/, what);
      seen.push(`${what}: ${outcome.text}`);
    }
    // 200 MB, dropped: refused before it is read.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(200 * 1024 * 1024)], "huge.csv", { type: "text/csv" }));
      document.querySelector(".drop-zone").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    assert.equal(await page.locator("#upload-id").inputValue(), "huge");
    await page.locator("#upload-add").click();
    const huge = page.locator("#datasource-message.error", { hasText: "huge.csv" });
    await huge.waitFor();
    assert.match(await huge.textContent(), /huge\.csv is 200 MB; the page opens files up to 100 MB/);
    seen.push(`200 MB: ${await huge.textContent()}`);
    console.log(`bad files:\n  ${seen.join("\n  ")}`);
    assert.equal(await page.locator('li.source[data-id="bad"]').count(), 0);
    await shot(page, "datasources-bad-file");

    // Everything else still answers: a demo database, and a DuckDB file added after.
    await runSql(page, "chinook", "SELECT COUNT(*) AS albums FROM Album");
    await page.locator('.sql-outcome[data-ok="true"] .row-note[data-rows="1"]').waitFor();
    assert.equal(await page.locator(".sql-outcome table.grid tbody td").first().textContent(), "347");
    await page.locator('button.tab[data-page="datasources"]').click();
    const good = await addFiles(page, "warehouse", [{ name: "warehouse.duckdb", buffer: await warehouseDuckDb() }]);
    assert.ok(good.ok, good.text);
    assert.match(good.text, /Added warehouse: 2 tables/);
    await runSql(page, "warehouse", "SELECT SUM(units) AS units FROM stock");
    await page.locator('.sql-outcome[data-ok="true"] .row-note[data-rows="1"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator(".sql-outcome table.grid tbody td").first().textContent(), "15");
    // Its two schemas are shown as a tree: its own (bare names) first, then sales.
    await page.locator('button.datasource[data-id="warehouse"]').click();
    await page.locator('article.schema[data-datasource="warehouse"]').waitFor();
    const groups = await page.locator('article.schema[data-datasource="warehouse"] li.schema-group').evaluateAll((gs) =>
      gs.map((g) => [g.dataset.schema, [...g.querySelectorAll("li.table")].map((t) => t.dataset.table)]),
    );
    assert.deepEqual(groups, [["main", ["stock"]], ["sales", ["sales.orders"]]]);
    await runSql(page, "warehouse", "SELECT SUM(quantity) AS quantity FROM sales.orders");
    await page.locator('.sql-outcome[data-ok="true"] .row-note[data-rows="1"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator(".sql-outcome table.grid tbody td").first().textContent(), "3");
    assert.deepEqual(pageProblems(problems), []);
  } finally {
    await page.close();
  }
});
