// The package's declarations as a TypeScript app meets them: the end-to-end test compiles
// this file with `tsc --strict` and no `skipLibCheck` against the installed tarball.
import init, { Engine } from "nl2sql";
import type {
  EngineError,
  EngineEvent,
  ErrorCodeName,
  QueryResult,
  SqlJsModule,
  SqlRun,
} from "nl2sql";

export async function example(sql_js: SqlJsModule, bytes: Uint8Array): Promise<string[]> {
  await init();
  const engine = await Engine.create({
    sql_js,
    datasources: [{ id: "chinook", description: "A music store", bytes }],
    provider: { kind: "compatible", model: "local", base_url: "http://127.0.0.1:11434/v1" },
    settings: { answer: "template", schema_mismatch: "fail" },
  });
  const seen: string[] = [];
  const on_event = (e: EngineEvent): void => {
    if (e.event === "node_finished") seen.push(`${e.node}:${e.status}`);
  };
  const result: QueryResult = await engine.ask("How many albums are there?", { role: "admin", on_event, trace: "cleaned" });
  const codes: ErrorCodeName[] = result.errors.map((e) => e.error_code);
  const writer: "template" | "llm" | undefined = result.final_answer?.written_by;
  if (result.source?.type === "verified") seen.push(result.source.id);
  const run: SqlRun = await engine.sql("SELECT COUNT(*) AS albums FROM Album");
  if (run.status === "ok") seen.push(String(run.rows[0]?.[0]));
  try {
    await engine.removeDatasource("nowhere");
  } catch (e) {
    seen.push((e as EngineError).code);
  }
  return [...seen, ...codes, writer ?? "none"];
}
