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

// Opens a page and records every console error and uncaught exception on it.
export async function openPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  return { page, problems };
}
