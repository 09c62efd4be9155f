// Starts Debian's Chromium through playwright-core (no browser download) with the flags
// this closed network needs, in a fresh profile.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "nl2sql-e2e-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Waits until the playground is ready and has blended in the semantic embedder (it fetches
// the weights once ready and indexes again): a test then routes as the page will from then on,
// and no re-indexing task runs inside what it measures.
export async function ready(page) {
  await page.locator('main[data-ready="true"]').waitFor({ timeout: 30_000 });
  await page.locator("body[data-embedder]").waitFor({ state: "attached", timeout: 30_000 });
}

// Opens a page and records every console error and uncaught exception on it.
export async function openPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return { page, problems };
}

// From now on, the longest main-thread task (the Long Tasks API reports those over 50 ms)
// is in `window.__longest`; `longestTask(page)` reads it.
export async function watchLongTasks(page) {
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: "longtask" });
  });
}

export const longestTask = (page) => page.evaluate(() => window.__longest);

// Notes (page clock) when Run is next clicked in SQL mode and when a QUERY_TIMEOUT error
// first shows; `limitTimings(page)` gives both and the longest task since.
export async function watchQueryTimeout(page) {
  await page.evaluate(() => {
    document.querySelector("#run-sql").addEventListener("click", () => (window.__clicked = performance.now()), { capture: true });
    new MutationObserver(() => {
      if (!window.__shown && document.querySelector('.sql-outcome .error-line[data-code="QUERY_TIMEOUT"]')) {
        window.__shown = performance.now();
      }
    }).observe(document.body, { childList: true, subtree: true });
    window.__longest = 0;
  });
}

export const limitTimings = (page) =>
  page.evaluate(() => ({ clicked: window.__clicked, shown: window.__shown, longest: window.__longest }));
