#!/usr/bin/env python3
"""How much of the corpus's analyst SQL nl2sql's plan language holds (issue 32).

    python3 corpus/run.py [--bin target/debug/nl2sql] [--data DIR] [--only DB[,DB...]]
                          [--ids ID,...] [--engines sqlite,duckdb,postgres,mysql]
                          [--json FILE] [--show ID] [--jobs N] [--top N]

For every question, on the engine its dialect names:
  1. the gold SQL runs on the engine directly: its rows are the gold;
  2. `nl2sql sql --json --db <that database> "<gold SQL>"` imports the same SQL as a plan,
     validates it, renders it back for the engine and runs it;
  3. the two row sets are compared as the project's suite compares results (harness.py).
Each case ends ok, refused, different or failed (harness.py says what each means).

The data and the engines are check.py's: the same generated SQLite files, loaded into
DuckDB, PostgreSQL and MariaDB with the types nl2sql's copier would give them, on servers
started under /tmp (or PGHOST/MYSQL_HOST). Only the plain copy is loaded here; check.py's
reordered copy is what proves the gold deterministic, and it is check.py's job.

The holdout split stays unseen: its cases count towards one line of totals and nothing
else. No holdout id, SQL, message or row is printed or written, and --show and --ids take
dev cases only.

Exit status: 0 when the measurement ran (whatever the numbers), 1 when the harness could
not do its job (a gold query failed, the binary is missing).
"""

import argparse
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import check  # noqa: E402
import harness  # noqa: E402
from harness import OUTCOMES  # noqa: E402


def load_corpus():
    """Every case as (database, case), in file order."""
    corpus = []
    for path in sorted(glob.glob(os.path.join(HERE, "questions", "*.yaml"))):
        doc = check.load_yaml(path)
        corpus.extend((doc["database"], case) for case in doc["cases"])
    return corpus


def select(corpus, args):
    """The cases to run. Holdout ids are never echoed back, even to say they were dropped."""
    only = set(args.only.split(",")) if args.only else None
    chosen = [(db, c) for db, c in corpus if only is None or db in only]
    wanted = set(args.ids.split(",")) if args.ids else None
    if args.show:
        wanted = {args.show}
    if wanted is not None:
        dev_ids = {c["id"] for _, c in chosen if c["split"] == "dev"}
        unknown = wanted - dev_ids
        if unknown:
            raise SystemExit(f"{len(unknown)} of the ids given are not dev cases of the databases selected "
                             "(holdout cases cannot be picked out)")
        chosen = [(db, c) for db, c in chosen if c["id"] in wanted]
    engines = set(args.engines.split(","))
    return [(db, c) for db, c in chosen if c["dialect"] in engines]


def start_engines(dialects, workdir):
    engines, unavailable = {}, {}
    for e in dialects:
        try:
            engines[e] = check.ENGINES[e](workdir, reordered=False)
        except Exception as ex:  # noqa: BLE001  (any reason an engine cannot start is reported)
            unavailable[e] = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__
    return engines, unavailable


def run_database(db, cases, data, engines, cli, jobs, timings):
    """Results for one database's cases, as dicts."""
    path = os.path.join(data, f"{db}.sqlite")
    tables = check.introspect(path)
    results = []
    runnable = []
    for e in sorted({c["dialect"] for c in cases} & engines.keys()):
        t0 = time.time()
        engines[e].load(db, path, tables)
        timings[f"load {e}"] += time.time() - t0
    for case in cases:
        e = case["dialect"]
        r = {"id": case["id"], "database": db, "split": case["split"], "dialect": e,
             "difficulty": case.get("difficulty"), "order_matters": bool(case.get("order_matters"))}
        if e not in engines:
            r.update(outcome="not run", code=None, message=f"{e} unavailable")
            results.append(r)
            continue
        sql = case["sql"].strip().rstrip(";").strip()
        t0 = time.time()
        try:
            r["gold_columns"], r["gold_rows"] = engines[e].run(db, sql)
        except Exception as ex:  # noqa: BLE001
            r.update(outcome="gold error", code=None, message=str(ex).strip().splitlines()[0][:300])
            results.append(r)
            continue
        finally:
            timings[f"gold {e}"] += time.time() - t0
        r["gold_sql"] = sql
        runnable.append(r)
        results.append(r)

    # One project per engine, indexed once, as a user's would be: reading the statistics
    # again for every command was most of each command's time.
    projects = {}
    for e in sorted({r["dialect"] for r in runnable}):
        t0 = time.time()
        folder = check.scratch(f"project-{db}-{e}-")
        indexed = cli.index(folder, db, engines[e].address(db))
        if indexed:
            raise SystemExit(f"cannot index {db} on {e}: {indexed}")
        projects[e] = harness.Project(folder, db)
        timings[f"index {e}"] += time.time() - t0

    def through_nl2sql(r):
        t0 = time.time()
        report, crash = cli.sql(projects[r["dialect"]], r["gold_sql"])
        r["seconds"] = time.time() - t0
        outcome, code, message = harness.classify(report, crash, r["gold_rows"], r["order_matters"])
        r.update(outcome=outcome, code=code, message=message, report=report)

    t0 = time.time()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(through_nl2sql, runnable))
    timings["nl2sql"] += time.time() - t0
    return results


def show(r):
    """--show: everything about one dev case."""
    report = r.get("report") or {}
    print(f"{r['id']} ({r['database']}, {r['dialect']}, order_matters={r['order_matters']}): {r['outcome']}"
          + (f" {r['code']}: {r['message']}" if r.get("code") else ""))
    print("\n-- gold SQL\n" + r.get("gold_sql", ""))
    print("\n-- nl2sql's SQL\n" + (report.get("sql") or "(none)"))
    for e in report.get("errors") or []:
        print(f"error {e.get('error_code')}: {e.get('message')}")
    for w in report.get("warnings") or []:
        print(f"warning {w.get('code')}: {w.get('message')}")

    def table(title, columns, rows):
        print(f"\n-- {title}: {len(rows)} rows")
        print(" | ".join(columns))
        for row in rows[:100]:
            print(" | ".join("NULL" if v is None else str(v) for v in row))
        if len(rows) > 100:
            print(f"… {len(rows) - 100} more")

    table("gold rows", r.get("gold_columns") or [], r.get("gold_rows") or [])
    if report.get("status") == "ok":
        table("nl2sql's rows", report.get("columns") or [], report.get("rows") or [])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "nl2sql"), help="the nl2sql binary")
    ap.add_argument("--data", help="the generated SQLite files (generated there when missing)")
    ap.add_argument("--only", help="databases, comma-separated")
    ap.add_argument("--ids", help="dev case ids, comma-separated")
    ap.add_argument("--engines", default="sqlite,duckdb,postgres,mysql")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--show", metavar="ID", help="print one dev case's gold SQL, nl2sql's SQL and both row sets")
    ap.add_argument("--jobs", type=int, default=2, help="nl2sql processes at once")
    ap.add_argument("--top", type=int, default=40, help="refusal reasons to print")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--floors", help="fail below the least ok counts in this file's \"corpus\" (or on any different rows)")
    args = ap.parse_args()

    started = time.time()
    cli = harness.Nl2sql(args.bin)
    selected = select(load_corpus(), args)
    if not selected:
        raise SystemExit("no cases selected")
    workdir = check.scratch("run-")
    data = args.data or os.path.join(workdir, "data")
    dbs = sorted({db for db, _ in selected})
    missing = [d for d in dbs if not os.path.exists(os.path.join(data, f"{d}.sqlite"))]
    if missing:
        t0 = time.time()
        subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), data] + missing, check=True, stdout=subprocess.DEVNULL)
        print(f"generated {len(missing)} databases in {time.time() - t0:.1f}s", flush=True)

    timings = collections.Counter()
    engines, unavailable = start_engines(sorted({c["dialect"] for _, c in selected}), workdir)
    for e, why in unavailable.items():
        print(f"engine {e} unavailable: {why}", flush=True)
    results = []
    try:
        for db in dbs:
            cases = [c for d, c in selected if d == db]
            t0 = time.time()
            results += run_database(db, cases, data, engines, cli, args.jobs, timings)
            print(f"  {db:18s} {len(cases):3d} cases  {time.time() - t0:5.1f}s", flush=True)
    finally:
        for eng in engines.values():
            if hasattr(eng, "stop"):
                eng.stop()
        shutil.rmtree(cli.cwd, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    if args.show:
        show(results[0])
        return 0
    return report(results, args, time.time() - started, timings, unavailable)


def report(results, args, elapsed, timings, unavailable):
    dev = [r for r in results if r["split"] == "dev"]
    holdout = [r for r in results if r["split"] == "holdout"]

    def measured(rs):
        """Outcome counts; cases not run (no engine, a failed gold query) are reported apart."""
        return collections.Counter(r["outcome"] for r in rs if r["outcome"] in OUTCOMES)

    print()
    groups = [(f"{d} dev", measured(r for r in dev if r["dialect"] == d)) for d in check.DIALECTS
              if any(r["dialect"] == d for r in dev)]
    groups += [("dev, all dialects", measured(dev)), ("holdout, all dialects", measured(holdout)),
               ("all", measured(results))]
    harness.print_table(f"corpus: {len(results)} cases ({len(dev)} dev, {len(holdout)} holdout)", groups)
    not_run = [r for r in results if r["outcome"] == "not run"]
    if not_run:
        print(f"  not run ({len(not_run)}): no engine for " + ", ".join(sorted(unavailable)))

    print()
    refusals = [(r["code"], r["message"], r["id"]) for r in dev if r["outcome"] == "refused"]
    harness.print_histogram("dev refusals by reason", refusals, top=args.top)
    failures = [(r["code"], r["message"], r["id"]) for r in dev if r["outcome"] == "failed"]
    if failures:
        print()
        harness.print_histogram("dev failures by reason", failures, top=args.top)
    different = [r for r in dev if r["outcome"] == "different"]
    if different:
        print(f"\ndev cases with different rows ({len(different)}; --show ID for details):")
        for r in different:
            print(f"  {r['id']:24s} {r['dialect']:8s} {r['message']}")

    gold_errors = [r for r in results if r["outcome"] == "gold error"]
    for r in gold_errors:
        if r["split"] == "dev":
            print(f"GOLD ERROR {r['id']} [{r['dialect']}]: {r['message']}")
    hidden = sum(1 for r in gold_errors if r["split"] != "dev")
    if hidden:
        print(f"GOLD ERROR in {hidden} holdout cases")

    print(f"\ntime: {elapsed:.0f}s in all; " + ", ".join(f"{k} {v:.1f}s" for k, v in sorted(timings.items())))

    if args.json:
        out = {
            "binary": os.path.abspath(args.bin),
            "engines_unavailable": unavailable,
            "summary": {
                "dev": {d: dict(measured(r for r in dev if r["dialect"] == d)) for d in check.DIALECTS},
                "dev_total": dict(measured(dev)),
                "holdout_total": dict(measured(holdout)),
                "not_run": len(not_run),
            },
            # Dev cases only: the holdout's are kept aside.
            "cases": [{k: r.get(k) for k in ("id", "database", "split", "dialect", "difficulty", "outcome", "code", "message")}
                      | {"sql": (r.get("report") or {}).get("sql")} for r in dev],
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
        print(f"results: {args.json}")
    problems = []
    if args.floors:
        counts = {f"dev {d}": measured(r for r in dev if r["dialect"] == d) for d in check.DIALECTS}
        counts["holdout"] = measured(holdout)
        problems = harness.check_floors(args.floors, "corpus", counts)
    return 1 if gold_errors or problems else 0


if __name__ == "__main__":
    sys.exit(main())
