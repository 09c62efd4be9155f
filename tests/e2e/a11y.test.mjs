// End-to-end: the playground for everyone. axe-core (from npm) audits every page state at
// a phone's width and a desktop's, in the light and the dark scheme; nothing may overflow
// sideways; every control is reached by Tab with a visible focus; the timeline and the
// answer are live regions; each chart kind is drawn (screenshots at 390 px) and chosen by
// the result's shape.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./static-server.mjs";
import { launch, openPage, ready } from "./browser.mjs";
import { MOCK_URL, requireMock, addFixtures, GENRES, GENRES_FIXTURES } from "./mock.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(here, "../..");
const DIST = process.env.NL2SQL_DIST ?? path.join(ROOT, "dist");
const SHOTS = path.join(here, "screenshots");
const AXE = fs.readFileSync(path.join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
const WIDTHS = [390, 1280];

let browser;
let server;
before(async () => {
  requireMock();
  await addFixtures(GENRES_FIXTURES);
  fs.mkdirSync(SHOTS, { recursive: true });
  browser = await launch();
  server = await serve(DIST, "/");
});
after(async () => {
  await server?.close();
  await browser?.close();
});

// The page with its settings pointing at the mock, as a person would type them in Settings.
async function open(width) {
  const { page, problems } = await openPage(browser.context);
  await page.setViewportSize({ width, height: 900 });
  const saved = { kind: "compatible", model: "mock-model", base_url: MOCK_URL, run: {} };
  await page.addInitScript(([settings]) => {
    localStorage.setItem("nl2sql.settings", settings);
    sessionStorage.setItem("nl2sql.key", "sk-a11y-0123456789abcdef");
  }, [JSON.stringify(saved)]);
  await page.goto(server.url);
  await ready(page);
  return { page, problems };
}

// The serious and critical violations axe finds in the page as it stands.
async function audit(page, state) {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) {
    await page.addScriptTag({ content: AXE });
  }
  const found = await page.evaluate(async () => {
    const { violations } = await window.axe.run(document, { resultTypes: ["violations"] });
    return violations.map((v) => ({ id: v.id, impact: v.impact, where: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  });
  return found.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({ state, ...v }));
}

// How far the page scrolls sideways (0: not at all), and the widest culprit.
const overflow = (page) =>
  page.evaluate(() => {
    const over = document.documentElement.scrollWidth - window.innerWidth;
    let culprit = null;
    if (over > 0) {
      for (const e of document.querySelectorAll("body *")) {
        if (e.getBoundingClientRect().right > window.innerWidth + 1) culprit = e.tagName + "." + e.className;
      }
    }
    return { over, culprit };
  });

async function runSql(page, sql) {
  await page.locator('button.tab[data-page="sql"]').click();
  await page.locator("#sql-datasource").selectOption("chinook");
  await page.locator("#sql-input").fill(sql);
  await page.locator("#run-sql").click();
  await page.locator(".sql-outcome").waitFor();
}

const CHARTS = {
  bar: "SELECT g.Name AS genre, COUNT(t.TrackId) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY tracks DESC LIMIT 5",
  line: "SELECT substr(InvoiceDate, 1, 7) AS month, SUM(Total) AS revenue FROM Invoice GROUP BY substr(InvoiceDate, 1, 7) ORDER BY month",
  "grouped-bar":
    "SELECT m.Name AS media, g.Name AS genre, COUNT(t.TrackId) AS tracks FROM Track t JOIN MediaType m ON m.MediaTypeId = t.MediaTypeId " +
    "JOIN Genre g ON g.GenreId = t.GenreId WHERE g.GenreId IN (1, 2, 3, 4) GROUP BY m.Name, g.Name",
  scatter:
    "SELECT g.Name AS genre, COUNT(t.TrackId) AS tracks, AVG(t.Milliseconds) / 1000.0 AS seconds FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name",
};

test("every page state has no serious or critical axe violation and nothing overflows, at 390 and 1280 px, light and dark", async () => {
  const violations = [];
  const overflows = [];
  let audited = 0;
  for (const scheme of ["light", "dark"]) {
    for (const width of WIDTHS) {
      const { page, problems } = await open(width);
      await page.emulateMedia({ colorScheme: scheme });
      const check = async (state) => {
        violations.push(...(await audit(page, `${state} @${width} ${scheme}`)));
        audited += 1;
        const o = await overflow(page);
        if (o.over > 0) overflows.push(`${state} @${width} ${scheme}: ${o.over} px (${o.culprit})`);
      };
      try {
        for (const tab of ["ask", "sql", "inspect", "datasources", "verified", "settings", "traces"]) {
          await page.locator(`button.tab[data-page="${tab}"]`).click();
          await check(tab);
        }
        // An expanded schema table with long sample values (Track's names, composers).
        await page.locator('button.tab[data-page="ask"]').click();
        for (const table of ["Track", "Customer"]) {
          await page.locator(`li.table[data-table="${table}"] summary`).click();
          await page.locator(`li.table[data-table="${table}"] table.columns`).waitFor();
        }
        await check("schema expanded");
        if (scheme === "light") await page.screenshot({ path: path.join(SHOTS, `a11y-schema-${width}.png`), fullPage: true });
        // An answered question: timeline, answer, chart and rows.
        await page.locator("#question").fill(GENRES);
        await page.locator("#ask").click();
        await page.locator('.answer-card:not([data-status="running"])').waitFor({ timeout: 30_000 });
        await check("answered");
        await page.locator(".view-switch button", { hasText: "Table" }).first().click();
        await check("answered, as a table");
        // SQL mode, each chart kind.
        for (const [kind, sql] of Object.entries(CHARTS)) {
          await runSql(page, sql);
          await page.locator(`.sql-outcome .chart[data-kind="${kind}"]`).waitFor();
          await check(`sql ${kind}`);
        }
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    }
  }
  console.log(`axe-core: ${violations.length} serious or critical violations in ${audited} page states (7 pages, the schema expanded, an answer, its table and 4 chart kinds; at 390 and 1280 px, light and dark)`);
  const distinct = [...new Set(violations.map((v) => `${v.id} (${v.impact}) at ${v.where.join(", ")}`))];
  assert.deepEqual(overflows, []);
  assert.deepEqual(distinct, [], JSON.stringify(violations.slice(0, 5)));
});

test("each chart kind is chosen by the result's shape, readable at 390 px, with a switch to the table", async () => {
  const { page, problems } = await open(390);
  try {
    for (const [kind, sql] of Object.entries(CHARTS)) {
      await runSql(page, sql);
      const chart = page.locator(`.sql-outcome .chart[data-kind="${kind}"]`);
      await chart.waitFor();
      // Every label and value lies inside the drawing: nothing is cut at its edge.
      const outside = await chart.locator("svg").evaluate((svg) => {
        const width = svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll("text")].filter((t) => {
          const b = t.getBBox();
          // A glyph may reach a unit past its origin (a J's tail).
          return b.x < -1.5 || b.x + b.width > width + 1.5;
        }).map((t) => t.textContent);
      });
      assert.deepEqual(outside, [], `${kind}: text outside the chart`);
      // Text is drawn at 9 px or more on a phone.
      const heights = await chart.locator("svg text").evaluateAll((ts) => ts.map((t) => t.getBoundingClientRect().height));
      assert.ok(heights.length > 0, `${kind}: a chart with no text`);
      const smallest = Math.min(...heights);
      assert.ok(smallest >= 9, `${kind}: text ${smallest.toFixed(1)} px high`);
      await chart.screenshot({ path: path.join(SHOTS, `chart-${kind}-390.png`) });
      // The switch shows the table instead, and back.
      const grid = page.locator(".sql-outcome .grid-wrap");
      assert.equal(await grid.isVisible(), false);
      await page.locator(".sql-outcome .view-switch button", { hasText: "Table" }).click();
      assert.equal(await grid.isVisible(), true);
      assert.equal(await chart.isVisible(), false);
      await page.locator(".sql-outcome .view-switch button", { hasText: "Chart" }).click();
      assert.equal(await chart.isVisible(), true);
    }
    // The largest bar's value is written whole.
    await runSql(page, CHARTS.bar);
    assert.equal(await page.locator('.sql-outcome .chart[data-kind="bar"] .chart-value').first().textContent(), "1297");

    // No chart where one would mislead: one row, too many bars, three measures.
    for (const [sql, reason] of [
      ["SELECT COUNT(TrackId) AS tracks FROM Track", null],
      ["SELECT Name, Milliseconds FROM Track ORDER BY TrackId LIMIT 100", "No chart: 100 bars: too many to chart."],
      ["SELECT COUNT(TrackId) AS tracks, SUM(Milliseconds) AS ms, AVG(UnitPrice) AS price FROM Track GROUP BY GenreId", "No chart: three or more number columns, whose units may differ."],
    ]) {
      await runSql(page, sql);
      await page.locator(".sql-outcome table.grid").waitFor();
      assert.equal(await page.locator(".sql-outcome .chart").count(), 0, sql);
      assert.equal(await page.locator(".sql-outcome .grid-wrap").isVisible(), true, sql);
      const said = await page.locator(".sql-outcome .no-chart").allTextContents();
      assert.deepEqual(said, reason ? [reason] : [], sql);
    }
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("every control is reached by Tab with a visible focus, and the timeline and answer are live regions", async () => {
  const { page, problems } = await open(1280);
  try {
    await runSql(page, CHARTS.bar);
    await page.locator("body").click({ position: { x: 1, y: 1 } });
    const seen = [];
    const unmarked = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press("Tab");
      const focus = await page.evaluate(() => {
        const e = document.activeElement;
        if (!e || e === document.body) return null;
        const s = getComputedStyle(e);
        const marked = (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none";
        return { name: e.id || e.dataset.page || e.textContent.trim().slice(0, 30) || e.tagName, marked };
      });
      if (!focus) continue;
      seen.push(focus.name);
      if (!focus.marked) unmarked.push(focus.name);
    }
    for (const name of ["ask", "sql", "settings", "role", "sql-input", "run-sql", "Chart", "Table"]) {
      assert.ok(seen.includes(name), `Tab reaches ${name}: ${seen.join(", ")}`);
    }
    assert.deepEqual(unmarked, [], "every focused control shows its focus");
    // The chart switch works from the keyboard.
    await page.locator(".sql-outcome .view-switch button", { hasText: "Table" }).focus();
    await page.keyboard.press("Enter");
    assert.equal(await page.locator(".sql-outcome .grid-wrap").isVisible(), true);

    await page.locator('button.tab[data-page="ask"]').click();
    assert.equal(await page.locator(".timeline .steps").getAttribute("aria-live"), "polite");
    await page.locator("#question").fill(GENRES);
    await page.locator("#ask").focus();
    await page.keyboard.press("Enter");
    await page.locator(".answer-card").waitFor({ timeout: 30_000 });
    assert.equal(await page.locator(".answer-card").getAttribute("aria-live"), "polite");
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
