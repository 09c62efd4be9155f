// A tiny static file server for the end-to-end tests: serves a folder under a URL prefix
// on a free loopback port, with the content types browsers insist on (application/wasm).
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
};

export async function serve(root, prefix = "/") {
  const base = path.resolve(root);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://localhost");
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404).end("outside the served prefix");
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(prefix.length));
    if (rel === "" || rel.endsWith("/")) rel += "index.html";
    const file = path.resolve(base, rel);
    if (!file.startsWith(base + path.sep)) {
      res.writeHead(403).end("forbidden");
      return;
    }
    try {
      const body = await fs.readFile(file);
      const type = TYPES[path.extname(file)] ?? "application/octet-stream";
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${prefix}`, close: () => {
    // Browsers keep connections alive; without this, close() waits for them to time out.
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  } };
}
