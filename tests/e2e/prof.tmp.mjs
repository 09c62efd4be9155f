import { serve } from "./static-server.mjs";
import { launch, openPage } from "./browser.mjs";
const b = await launch();
const s = await serve("dist", "/");
for (let i = 0; i < 3; i++) {
  const { page } = await openPage(b.context);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  await page.goto(s.url);
  await page.locator('main[data-ready="true"]').waitFor({ timeout: 30000 });
  const { profile } = await cdp.send("Profiler.stop");
  const ready = await page.locator("body").getAttribute("data-ready-ms");
  const res = await page.evaluate(() => performance.getEntriesByType("resource").map((r) => [r.name.split("/").pop(), Math.round(r.startTime), Math.round(r.responseEnd)]));
  console.log("ready", ready, JSON.stringify(res));
  if (i === 2) {
    const self = new Map();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const dt = profile.timeDeltas; 
    profile.samples.forEach((id, k) => { const n = byId.get(id); const key = n.callFrame.functionName || n.callFrame.url.split("/").pop() || "(anon)"; self.set(key, (self.get(key) ?? 0) + (dt[k] ?? 0) / 1000); });
    console.log([...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v.toFixed(0)}ms ${k}`).join("\n"));
  }
  await page.close();
}
await b.close(); await s.close();
