#!/usr/bin/env python3
"""TPC-H's 22 and TPC-DS's 99 queries through nl2sql, on DuckDB and on copies of the same
data in SQLite, PostgreSQL and MariaDB (issue 32).

    python3 corpus/tpc.py [--bin target/debug/nl2sql] [--engines duckdb,sqlite,postgres,mysql,spark]
                          [--spark sc://host:port] [--suites tpch,tpcds] [--sf 0.01] [--queries tpch:1,tpcds:5]
                          [--work DIR] [--json FILE] [--show SUITE:N] [--jobs N] [--top N]

Spark needs a server of its own (--spark, or NL2SQL_SPARK_URL as `cargo xtask servers` prints
it): the data goes there through `nl2sql copy` of the SQLite copy.

On every engine the queries run through a project of one datasource indexed once (its schema
and statistics cached by `nl2sql index`), as a user's project would: reading the statistics
again for every command cost a second or two each on SQLite and PostgreSQL, a job per table
and per text column on Spark.

Data and queries come from DuckDB's tpch and tpcds extensions (PyPI duckdb-extension-tpch
and duckdb-extension-tpcds, loaded from the package: DuckDB cannot download here), each
suite in its own DuckDB file (the two schemas share table names). DuckDB's own rows for
each query are the gold, on every engine: the copies hold the same data.

  DuckDB     `nl2sql sql "<query>"` on SUITE.duckdb: the query is imported as a plan (in
             DuckDB's dialect, which the queries are written in), validated, rendered and run.
  the others The plan that import produced (the report's `plan`) is handed to
             `nl2sql plan` on the engine's copy: importing DuckDB's SQL with another dialect's
             parser would measure the wrong thing. A query DuckDB could not import has no
             plan, so it counts as refused on every engine, for DuckDB's reason
             ("inherited" below).

Copies: SQLite is written from DuckDB's rows with INTEGER, REAL (for DECIMAL), TEXT and DATE
(ISO text) columns: REAL rather than NUMERIC, because SQLite stores a whole NUMERIC value as
an integer and would then divide it as one. Every copy has an index on each key column. PostgreSQL and MariaDB get DuckDB's own types
(numeric(p,s)/DECIMAL(p,s), date, bigint/integer, text/LONGTEXT with utf8mb4_bin), through
COPY and batched inserts. Their servers are check.py's (started under /tmp, or
PGHOST/MYSQL_HOST).

Comparison (harness.compare): as multisets, never in order. The queries' ORDER BYs are
often not total (TPC-DS's `ORDER BY a, b LIMIT 100` over ties), and nl2sql adds its own
tie-breakers, so tied rows may legitimately come in another order. An ok case records
whether the order agreed as well. A LIMIT that cuts through ties could still make a correct
rendering look different; every `different` is listed so that it can be checked with --show.
Numbers agree within 0.005 as in the project's suite; SQLite's REAL sums of DECIMAL columns
stay well within that at this scale.

Exit status: 0 when the measurement ran (whatever the numbers), 1 when the harness could
not do its job (the data could not be made, a gold query failed).
"""

import argparse
import collections
import datetime as dt
import decimal
import glob
import importlib
import json
import os
import re
import shutil
import sqlite3
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import check  # noqa: E402
import harness  # noqa: E402

SUITES = {
    # suite: (extension package, generator call, query table function)
    "tpch": ("duckdb_extension_tpch", "dbgen", "tpch_queries"),
    "tpcds": ("duckdb_extension_tpcds", "dsdgen", "tpcds_queries"),
}
SUITE_NAMES = {"tpch": "TPC-H", "tpcds": "TPC-DS"}
ENGINES = ("duckdb", "sqlite", "postgres", "mysql", "spark")


# ----------------------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------------------


def extension_file(package):
    """The extension binary inside its PyPI package."""
    try:
        mod = importlib.import_module(package)
    except ImportError:
        raise SystemExit(f"the Python package {package.replace('_', '-')} is missing (pip install {package.replace('_', '-')}==1.5.5)")
    found = glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions", "*", "*.duckdb_extension"))
    if not found:
        raise SystemExit(f"{package} holds no .duckdb_extension file")
    return found[0]


def generate(suite, sf, work):
    """SUITE.duckdb at scale `sf` (reused when a previous run made it at the same scale) and
    the suite's queries as [(number, sql)]."""
    import duckdb

    package, generator, queries = SUITES[suite]
    path = os.path.join(work, f"{suite}.duckdb")
    stamp = path + ".sf"
    reuse = os.path.exists(path) and os.path.exists(stamp) and open(stamp).read() == str(sf)
    if not reuse:
        for f in (path, stamp):
            if os.path.exists(f):
                os.remove(f)
    con = duckdb.connect(path)
    con.execute(f"LOAD '{extension_file(package)}'")
    if not reuse:
        con.execute(f"CALL {generator}(sf={sf})")
        con.execute("CHECKPOINT")
        with open(stamp, "w") as f:
            f.write(str(sf))
    found = [(int(n), q) for n, q in con.execute(f"SELECT query_nr, query FROM {queries}() ORDER BY query_nr").fetchall()]
    con.close()
    return path, found


def duck_tables(con):
    """[(table, [(column, DuckDB type)])] in the file's order."""
    tables = []
    for (name,) in con.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name").fetchall():
        cols = con.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' AND table_name = ? "
                           "ORDER BY ordinal_position", [name]).fetchall()
        tables.append((name, cols))
    return tables


def map_type(duck, engine):
    """DuckDB's column type as `engine` should hold it."""
    t = duck.upper()
    dec = re.match(r"DECIMAL\((\d+),\s*(\d+)\)", t)
    if engine == "sqlite":
        if "INT" in t:
            return "INTEGER"
        if dec or t in ("DOUBLE", "FLOAT", "REAL"):
            return "REAL"
        return "DATE" if t == "DATE" else "TEXT"
    if engine == "postgres":
        if dec:
            return f"numeric({dec.group(1)},{dec.group(2)})"
        return {"BIGINT": "bigint", "INTEGER": "integer", "DATE": "date", "DOUBLE": "double precision"}.get(t, "text")
    if dec:
        return f"DECIMAL({dec.group(1)},{dec.group(2)})"
    return {"BIGINT": "BIGINT", "INTEGER": "INT", "DATE": "DATE", "DOUBLE": "DOUBLE"}.get(t, "LONGTEXT")


def create_table(name, cols, engine, quote):
    columns = ", ".join(f"{quote(c)} {map_type(t, engine)}" for c, t in cols)
    return f"CREATE TABLE {quote(name)} ({columns})"


def key_indexes(name, cols, quote):
    """An index on each key column (TPC-H's `…key`, TPC-DS's `…_sk`), as a database holding
    this data would have: without them, the correlated subqueries of TPC-H 20 and 21 scan
    `lineitem` once per outer row (tens of seconds at sf 0.01 on PostgreSQL and SQLite) while
    DuckDB decorrelates them."""
    return [f"CREATE INDEX {quote(f'{name}_{c}')} ON {quote(name)} ({quote(c)})"
            for c, _ in cols if c.endswith("key") or c.endswith("_sk")]


def sqlite_value(v):
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return v


def copy_to_sqlite(duck_con, tables, path):
    if os.path.exists(path):
        os.remove(path)
    out = sqlite3.connect(path)
    for name, cols in tables:
        out.execute(create_table(name, cols, "sqlite", check.dq))
        rows = duck_con.execute(f"SELECT * FROM {check.dq(name)}").fetchall()
        out.executemany(f"INSERT INTO {check.dq(name)} VALUES ({','.join('?' * len(cols))})",
                        ([sqlite_value(v) for v in r] for r in rows))
        for index in key_indexes(name, cols, check.dq):
            out.execute(index)
    out.commit()
    out.close()


def copy_to_postgres(duck_con, tables, pg, db):
    admin = pg.connect("postgres")
    admin.execute(f"DROP DATABASE IF EXISTS {check.dq(db)}")
    admin.execute(f"CREATE DATABASE {check.dq(db)}")
    admin.close()
    con = pg.connect(db)
    for name, cols in tables:
        con.execute(create_table(name, cols, "postgres", check.dq))
        with con.cursor() as cur, cur.copy(f"COPY {check.dq(name)} FROM STDIN") as copy:
            for r in duck_con.execute(f"SELECT * FROM {check.dq(name)}").fetchall():
                copy.write_row(r)
        for index in key_indexes(name, cols, check.dq):
            con.execute(index)
    con.execute("ANALYZE")
    con.close()


def copy_to_mysql(duck_con, tables, my, db):
    admin = my.connect(None)
    with admin.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {check.bq(db)}")
        cur.execute(f"CREATE DATABASE {check.bq(db)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    admin.close()
    con = my.connect(db)
    with con.cursor() as cur:
        for name, cols in tables:
            cur.execute(create_table(name, cols, "mysql", check.bq) + " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin")
            rows = duck_con.execute(f"SELECT * FROM {check.dq(name)}").fetchall()
            sql = f"INSERT INTO {check.bq(name)} VALUES ({', '.join(['%s'] * len(cols))})"
            for i in range(0, len(rows), 5000):
                cur.executemany(sql, rows[i:i + 5000])
            for index in key_indexes(name, cols, check.bq):
                cur.execute(index)
    con.close()


class Servers:
    """PostgreSQL and MariaDB, through check.py's engines (their start, stop and connect);
    the TPC data is loaded by this file's own copiers."""

    def __init__(self, wanted, work, spark=None):
        self.engines, self.unavailable = {}, {}
        # Spark's server is not started here: cargo xtask servers starts one (or name yours).
        self.spark = spark
        if "spark" in wanted and not spark:
            self.unavailable["spark"] = "no Spark Connect server: pass --spark sc://host:port or set NL2SQL_SPARK_URL (cargo xtask servers prints it)"
        for e in wanted:
            if e in ("postgres", "mysql"):
                try:
                    self.engines[e] = check.ENGINES[e](work, reordered=False)
                except Exception as ex:  # noqa: BLE001  (any reason a server cannot start is reported)
                    self.unavailable[e] = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__

    def stop(self):
        for eng in self.engines.values():
            eng.stop()


# ----------------------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------------------


def run_suite(suite, args, work, servers, cli, timings):
    import duckdb

    t0 = time.time()
    duck_path, queries = generate(suite, args.sf, work)
    timings[f"generate {suite}"] += time.time() - t0
    picked = args.picked.get(suite)
    if picked is not None:
        queries = [(n, q) for n, q in queries if n in picked]

    # Copies first, while DuckDB's file is open for reading only (nl2sql opens it so too).
    gold_con = duckdb.connect(duck_path, read_only=True)
    tables = duck_tables(gold_con)
    addresses = {"duckdb": duck_path}
    if "sqlite" in args.engines or "spark" in args.engines:
        t0 = time.time()
        sqlite_path = os.path.join(work, f"{suite}.sqlite")
        copy_to_sqlite(gold_con, tables, sqlite_path)
        if "sqlite" in args.engines:
            addresses["sqlite"] = sqlite_path
        timings["load sqlite"] += time.time() - t0
    if "spark" in args.engines:
        # Spark's copy is nl2sql's own, from the SQLite copy (REAL for DECIMAL, as there).
        t0 = time.time()
        target = f"{servers.spark.rstrip('/')}/{suite}"
        copied = cli.copy(sqlite_path, target)
        if copied:
            raise SystemExit(f"cannot copy {suite} into Spark: {copied}")
        addresses["spark"] = target
        timings["load spark"] += time.time() - t0
    for e, copier in (("postgres", copy_to_postgres), ("mysql", copy_to_mysql)):
        if e in servers.engines:
            t0 = time.time()
            copier(gold_con, tables, servers.engines[e], suite)
            addresses[e] = servers.engines[e].address(suite)
            timings[f"load {e}"] += time.time() - t0
    for e in [e for e in args.engines if e in addresses]:
        t0 = time.time()
        project = os.path.join(work, f"{e}-{suite}")
        indexed = cli.index(project, suite, addresses[e])
        if indexed:
            raise SystemExit(f"cannot index {suite} on {e}: {indexed}")
        addresses[e] = harness.Project(project, suite)
        timings[f"index {e}"] += time.time() - t0

    cases = []
    t0 = time.time()
    for n, sql in queries:
        sql = sql.strip().rstrip(";").strip()
        case = {"suite": suite, "query": n, "label": f"{suite}:{n}", "sql": sql, "runs": {}}
        try:
            cur = gold_con.execute(sql)
            case["gold_columns"] = [d[0] for d in cur.description]
            case["gold_rows"] = cur.fetchall()
        except Exception as ex:  # noqa: BLE001
            case["gold_error"] = str(ex).strip().splitlines()[0][:300]
        cases.append(case)
    timings["gold duckdb"] += time.time() - t0
    gold_con.close()

    def on_duckdb(case):
        t = time.time()
        report, crash = cli.sql(addresses["duckdb"], case["sql"])
        case["runs"]["duckdb"] = record(report, crash, case, time.time() - t)

    def on_other(case, engine):
        plan = (case["runs"]["duckdb"].get("report") or {}).get("plan")
        if plan is None:
            first = case["runs"]["duckdb"]
            case["runs"][engine] = {"outcome": "refused", "code": first["code"], "message": first["message"], "inherited": True}
            return
        t = time.time()
        report, crash = cli.plan(addresses[engine], plan)
        case["runs"][engine] = record(report, crash, case, time.time() - t)

    runnable = [c for c in cases if "gold_error" not in c]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        t0 = time.time()
        list(pool.map(on_duckdb, runnable))
        timings["nl2sql duckdb"] += time.time() - t0
        for e in [e for e in args.engines if e != "duckdb" and e in addresses]:
            t0 = time.time()
            list(pool.map(lambda c: on_other(c, e), runnable))
            timings[f"nl2sql {e}"] += time.time() - t0
    return cases


def record(report, crash, case, seconds):
    outcome, code, message = harness.classify(report, crash, case["gold_rows"], ordered=False)
    r = {"outcome": outcome, "code": code, "message": message, "seconds": round(seconds, 2), "report": report}
    if outcome == "ok":
        r["same_order"] = harness.compare(report.get("rows") or [], case["gold_rows"], ordered=True) is None
    return r


# ----------------------------------------------------------------------------------------
# Reporting
# ----------------------------------------------------------------------------------------


def show(case, engines):
    print(f"{case['label']}\n\n-- the query\n{case['sql']}")
    if "gold_error" in case:
        print(f"\nDuckDB could not run it: {case['gold_error']}")
        return
    print(f"\n-- gold (DuckDB): {len(case['gold_rows'])} rows")
    print(" | ".join(case["gold_columns"]))
    for row in case["gold_rows"][:50]:
        print(" | ".join("NULL" if v is None else str(v) for v in row))
    for e in engines:
        r = case["runs"].get(e)
        if r is None:
            continue
        report = r.get("report") or {}
        print(f"\n== {e}: {r['outcome']}" + (f" {r['code']}: {r['message']}" if r.get("code") else "")
              + (" (inherited from DuckDB's import)" if r.get("inherited") else ""))
        if report.get("sql"):
            print(report["sql"])
        if report.get("status") == "ok":
            rows = report.get("rows") or []
            print(f"-- {len(rows)} rows")
            for row in rows[:50]:
                print(" | ".join("NULL" if v is None else str(v) for v in row))


def summarise(cases, args, elapsed, timings, unavailable):
    engines = [e for e in args.engines if any(e in c["runs"] for c in cases)]
    print()
    for suite in [s for s in args.suites if any(c["suite"] == s for c in cases)]:
        mine = [c for c in cases if c["suite"] == suite and "gold_error" not in c]
        groups = [(e, collections.Counter(c["runs"][e]["outcome"] for c in mine if e in c["runs"])) for e in engines]
        harness.print_table(f"{SUITE_NAMES[suite]} ({len(mine)} queries, sf {args.sf})", groups)
        for e in engines:
            runs = [c["runs"][e] for c in mine if e in c["runs"]]
            inherited = sum(1 for r in runs if r.get("inherited"))
            ok = [r for r in runs if r["outcome"] == "ok"]
            notes = [f"{sum(1 for r in ok if r.get('same_order'))} of {len(ok)} ok also in the same order"]
            if inherited:
                notes.append(f"{inherited} refusals inherited (no plan from DuckDB)")
            print(f"  {e:24s} " + "; ".join(notes))
        empty = [c["label"] for c in mine if not c["gold_rows"]]
        if empty:
            print(f"  empty gold at this scale ({len(empty)}; ok there says little): {', '.join(empty)}")
        print()
    for e in engines:
        own = [(c["runs"][e]["code"], c["runs"][e]["message"], c["label"]) for c in cases
               if e in c["runs"] and c["runs"][e]["outcome"] == "refused" and not c["runs"][e].get("inherited")]
        if own:
            title = "refusals by reason" if e == "duckdb" else f"{e}: refusals of DuckDB's plans, by reason"
            harness.print_histogram(f"{title} ({e})" if e == "duckdb" else title, own, top=args.top)
            print()
    for e in engines:
        bad = [(c["runs"][e]["code"], c["runs"][e]["message"], c["label"]) for c in cases
               if e in c["runs"] and c["runs"][e]["outcome"] == "failed"]
        if bad:
            harness.print_histogram(f"{e}: failures by reason", bad, top=args.top)
            print()
    different = [(c["label"], e, c["runs"][e]["message"]) for c in cases for e in engines
                 if e in c["runs"] and c["runs"][e]["outcome"] == "different"]
    if different:
        print(f"different rows ({len(different)}; --show SUITE:N for details):")
        for label, e, why in different:
            print(f"  {label:10s} {e:9s} {why}")
        print()
    gold_errors = [c for c in cases if "gold_error" in c]
    for c in gold_errors:
        print(f"GOLD ERROR {c['label']}: {c['gold_error']}")
    for e, why in unavailable.items():
        print(f"engine {e} unavailable: {why}")
    print(f"time: {elapsed:.0f}s in all; " + ", ".join(f"{k} {v:.1f}s" for k, v in sorted(timings.items())))

    if args.json:
        out = {
            "binary": os.path.abspath(args.bin),
            "sf": args.sf,
            "engines_unavailable": unavailable,
            "cases": [{"suite": c["suite"], "query": c["query"], "gold_rows": len(c.get("gold_rows") or []),
                       "gold_error": c.get("gold_error"),
                       "runs": {e: {k: v for k, v in r.items() if k != "report"} | {"sql": (r.get("report") or {}).get("sql")}
                                for e, r in c["runs"].items()}} for c in cases],
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
        print(f"results: {args.json}")
    problems = []
    if args.floors:
        counts = {f"{suite} {e}": collections.Counter(c["runs"][e]["outcome"] for c in cases
                                                      if c["suite"] == suite and e in c["runs"] and "gold_error" not in c)
                  for suite in args.suites for e in engines}
        problems = harness.check_floors(args.floors, args.floors_section, counts)
    return 1 if gold_errors or problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "nl2sql"), help="the nl2sql binary")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--suites", default="tpch,tpcds")
    ap.add_argument("--sf", type=float, default=0.01, help="scale factor")
    ap.add_argument("--queries", help="SUITE:N,... to run only these")
    ap.add_argument("--work", help="keep the generated files here (reused by the next run)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--show", metavar="SUITE:N", help="print one query's SQL, each engine's rendering and rows")
    ap.add_argument("--jobs", type=int, default=2, help="nl2sql processes at once")
    ap.add_argument("--top", type=int, default=40, help="reasons to print per histogram")
    ap.add_argument("--spark", default=os.environ.get("NL2SQL_SPARK_URL"),
                    help="a Spark Connect server (sc://host:port) for the spark engine")
    ap.add_argument("--floors", help="fail below the least ok counts in this file's --floors-section (or on any different rows)")
    ap.add_argument("--floors-section", default="tpc", help="the floors' section (tpc-spark: Spark's run beside the servers)")
    args = ap.parse_args()
    args.engines = [e for e in args.engines.split(",") if e]
    args.suites = [s for s in args.suites.split(",") if s]
    for e in args.engines:
        if e not in ENGINES:
            raise SystemExit(f"unknown engine {e}; the engines are {', '.join(ENGINES)}")
    if "duckdb" not in args.engines:
        # The other engines run the plans DuckDB's import made.
        args.engines.insert(0, "duckdb")
    picks = args.show or args.queries
    args.picked = {}
    if picks:
        for item in picks.split(","):
            suite, _, n = item.partition(":")
            args.picked.setdefault(suite, set()).add(int(n))
        args.suites = [s for s in args.suites if s in args.picked]

    started = time.time()
    cli = harness.Nl2sql(args.bin)
    work = args.work or check.scratch("tpc-")
    os.makedirs(work, exist_ok=True)
    timings = collections.Counter()
    servers = Servers(args.engines, work, args.spark)
    args.engines = [e for e in args.engines if e not in servers.unavailable]
    cases = []
    try:
        for suite in args.suites:
            t0 = time.time()
            cases += run_suite(suite, args, work, servers, cli, timings)
            print(f"  {suite:6s} {time.time() - t0:5.1f}s", flush=True)
    finally:
        servers.stop()
        shutil.rmtree(cli.cwd, ignore_errors=True)
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if args.show:
        show(cases[0], args.engines)
        return 0
    return summarise(cases, args, time.time() - started, timings, servers.unavailable)


if __name__ == "__main__":
    sys.exit(main())
