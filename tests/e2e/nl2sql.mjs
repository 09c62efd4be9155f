// The `nl2sql` binary as the end-to-end tests run it (`cargo xtask test` names the build
// in NL2SQL_BIN), and `nl2sql serve` started on a free port.
import { spawn } from "node:child_process";
import { once } from "node:events";

export const BIN = process.env.NL2SQL_BIN ?? "target/debug/nl2sql";

// `nl2sql serve --listen 127.0.0.1:0 …args` with exactly `env`; resolves once it listens,
// with its base URL, its log so far, and a way to stop it.
export async function startServe(args, env) {
  const child = spawn(BIN, ["serve", "--listen", "127.0.0.1:0", ...args], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const base = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      log += chunk;
      // The whole line: stderr may arrive cut anywhere, the address included.
      const found = /serving on (http:\/\/\S+) \(/.exec(log);
      if (found) resolve(found[1]);
    });
    child.on("exit", (code) => reject(new Error(`nl2sql serve exited (${code}): ${log}`)));
  });
  return {
    base,
    log: () => log,
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}
