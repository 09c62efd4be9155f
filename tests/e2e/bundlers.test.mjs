// End-to-end: the packed npm package in the apps web developers build — Vite (its dev
// server and a production build), webpack 5 and esbuild — each written as the package's
// README says, installed from the tarball, built by the bundler's own command line and run
// in Chromium: SQL with no model, a question through the mock provider, a cancelled run,
// a CSV file through DuckDB-WASM.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "./static-server.mjs";
import { launch, openPage } from "./browser.mjs";
import { MOCK_URL, requireMock, addFixtures, GENRES_FIXTURES } from "./mock.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(here, "../..");
const PKG = path.join(ROOT, "pkg");
// Under the workspace, so each bundler (from the workspace's node_modules) is found the
// way an app finds its own; each app installs the package and sql.js itself.
const WORK = path.join(ROOT, "target/e2e-bundlers");
const bin = (name) => path.join(ROOT, "node_modules/.bin", name);
// A command run to its end, its output returned; bounded, since a hung one would block the
// event loop and with it every timeout and clean-up of this file.
const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], timeout: 300_000 });
const npm = (args, cwd) => run("npm", args, cwd);

let browser;
let tarball;
before(async () => {
  requireMock();
  assert.ok(fs.existsSync(path.join(PKG, "package.json")), "pkg/ has no package: run cargo xtask npm");
  await addFixtures(GENRES_FIXTURES);
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(WORK, { recursive: true });
  tarball = path.join(WORK, npm(["pack", "--pack-destination", WORK, "--silent"], PKG).trim().split("\n").pop());
  browser = await launch();
});
after(async () => browser?.close());

// A fresh app folder from its template, with the package and sql.js installed from npm.
function app(bundler) {
  const dir = path.join(WORK, bundler);
  fs.cpSync(path.join(here, "bundlers", bundler), dir, { recursive: true });
  fs.copyFileSync(path.join(here, "bundlers/app.js"), path.join(dir, "app.js"));
  // Vite reads the page from the app's root; webpack and esbuild get it beside their output.
  const page = fs.readFileSync(path.join(here, "bundlers/index.html"), "utf8")
    .replace("%BUNDLER%", bundler)
    .replace("%ENTRY%", bundler === "vite" ? "/main.js" : "main.js");
  fs.writeFileSync(path.join(dir, "index.html"), page);
  const version = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `nl2sql-${bundler}-app`, private: true, type: "module" }));
  npm(["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, `sql.js@${version("sql.js")}`, `@duckdb/duckdb-wasm@${version("@duckdb/duckdb-wasm")}`], dir);
  return dir;
}

const chinook = (into) => {
  fs.mkdirSync(into, { recursive: true });
  fs.copyFileSync(path.join(ROOT, "data/chinook.sqlite"), path.join(into, "chinook.sqlite"));
};

async function outcomeAt(url, shot) {
  const { page, problems } = await openPage(browser.context);
  try {
    await page.goto(`${url}?mock=${encodeURIComponent(MOCK_URL)}`);
    await page.locator("body[data-done]").waitFor({ timeout: 60_000 });
    const outcome = await page.evaluate(() => window.outcome);
    await page.screenshot({ path: path.join(here, "screenshots", shot) });
    return { outcome, problems };
  } finally {
    await page.close();
  }
}

function assertAnswered({ outcome, problems }, bundler) {
  assert.deepEqual(
    outcome,
    { albums: 347, status: "success", top: "Rock", cancelled: ["error", "CANCELLED"], csv: 7 },
    `${bundler}: ${JSON.stringify(outcome)}`,
  );
  assert.deepEqual(problems, [], bundler);
  console.log(`${bundler}: SQL (347 albums), a question answered ("Rock"), a cancelled run, a CSV file in DuckDB-WASM`);
}

async function served(dir, bundler, shot) {
  const server = await serve(dir, "/");
  try {
    assertAnswered(await outcomeAt(server.url, shot), bundler);
  } finally {
    await server.close();
  }
}

test("Vite: the dev server and a production build", async () => {
  const dir = app("vite");
  chinook(path.join(dir, "public"));
  // The dev server, as `npx vite` starts it, on a port it reports.
  const dev = spawn(bin("vite"), ["--host", "127.0.0.1", "--port", "0", "--strictPort", "--clearScreen", "false"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await new Promise((resolve, reject) => {
      let seen = "";
      const timer = setTimeout(() => reject(new Error(`vite did not start: ${seen}`)), 60_000);
      const read = (chunk) => {
        seen += chunk;
        const found = seen.replace(/\x1b\[[0-9;]*m/g, "").match(/http:\/\/127\.0\.0\.1:\d+\//);
        if (found) {
          clearTimeout(timer);
          resolve(found[0]);
        }
      };
      dev.stdout.on("data", read);
      dev.stderr.on("data", read);
      dev.on("exit", (code) => reject(new Error(`vite exited ${code}: ${seen}`)));
    });
    assertAnswered(await outcomeAt(url, "bundler-vite-dev.png"), "Vite dev server");
  } finally {
    dev.kill();
    if (dev.exitCode === null && dev.signalCode === null) await once(dev, "exit");
  }
  run(bin("vite"), ["build", "--logLevel", "warn"], dir);
  await served(path.join(dir, "dist"), "Vite build", "bundler-vite-build.png");
});

test("the README's example, verbatim, in a Vite build, when the provider refuses the connection", async () => {
  const dir = app("vite");
  chinook(path.join(dir, "public"));
  // The package README's first example, exactly as written, is the app's main.js.
  const readme = fs.readFileSync(path.join(PKG, "README.md"), "utf8");
  const example = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((code) => code.startsWith("// main.js"));
  assert.ok(example, "the README has its // main.js example");
  fs.writeFileSync(path.join(dir, "main.js"), example);
  // The page the example reads its key from; the key is no provider's.
  fs.writeFileSync(
    path.join(dir, "index.html"),
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8" /><title>README example</title>' +
      '<link rel="icon" href="data:," /></head><body><input id="openai-key" value="sk-readme-example-0000" />' +
      '<script type="module" src="/main.js"></script></body></html>',
  );
  run(bin("vite"), ["build", "--logLevel", "warn"], dir);
  const server = await serve(path.join(dir, "dist"), "/");
  const { page, problems } = await openPage(browser.context);
  try {
    const warned = [];
    page.on("console", (m) => m.type() === "warning" && warned.push(m.text()));
    // The provider fails, the same way on every network: its connection is refused.
    await page.route("https://api.openai.com/**", (route) => route.abort("connectionrefused"));
    await page.goto(server.url);
    // The question fails, and the example's own line prints why, by code; nothing throws.
    const until = Date.now() + 60_000;
    while (!warned.some((w) => /^PROVIDER_/.test(w)) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    assert.ok(warned.some((w) => /^PROVIDER_UNAVAILABLE /.test(w)), JSON.stringify({ warned, problems }));
    // The browser's own line for the request it could not send is not the example's.
    assert.deepEqual(problems.filter((p) => !/net::ERR_|Failed to load resource/.test(p)), []);
    console.log(`the README's example: the question failed with ${warned.find((w) => /^PROVIDER_/.test(w))?.split(" ")[0]}, said by its own line; no error thrown`);
  } finally {
    await page.close();
    await server.close();
  }
});

test("webpack 5: a production build", async () => {
  const dir = app("webpack");
  run(bin("webpack"), ["--config", "webpack.config.js"], dir);
  const dist = path.join(dir, "dist");
  fs.copyFileSync(path.join(dir, "index.html"), path.join(dist, "index.html"));
  chinook(dist);
  await served(dist, "webpack", "bundler-webpack.png");
});

test("esbuild: a bundle", async () => {
  const dir = app("esbuild");
  const dist = path.join(dir, "dist");
  run(bin("esbuild"), ["main.js", "--bundle", "--format=esm", "--minify", "--loader:.wasm=file", "--log-level=warning", "--outdir=dist"], dir);
  for (const f of ["sql.js/dist/sql-wasm.js", "sql.js/dist/sql-wasm.wasm", "nl2sql/nl2sql-duckdb.js", "@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js", "@duckdb/duckdb-wasm/dist/duckdb-eh.wasm"]) {
    fs.copyFileSync(path.join(dir, "node_modules", f), path.join(dist, path.basename(f)));
  }
  fs.copyFileSync(path.join(dir, "index.html"), path.join(dist, "index.html"));
  chinook(dist);
  await served(dist, "esbuild", "bundler-esbuild.png");
});

test("Node: the package without a browser (sql.js started on the calling thread)", () => {
  const dir = app("node");
  chinook(dir);
  const out = run(process.execPath, ["main.mjs", MOCK_URL], dir);
  assert.deepEqual(JSON.parse(out.trim().split("\n").pop()), { albums: 347, routed: "chinook", status: "success", top: "Rock" });
  console.log("Node: SQL (347 albums), routing, a question answered");
});
