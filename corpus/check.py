#!/usr/bin/env python3
"""Runs every gold query of the corpus on its own engine and checks it.

    python3 corpus/check.py [--data DIR] [--only DB[,DB...]] [--ids ID,...]
                            [--engines sqlite,duckdb,postgres,mysql] [--show ID]
                            [--results FILE] [--keep]

What it does:
  1. Generates the databases (corpus/generate.py) into --data (default: a temporary
     directory), unless they are already there.
  2. Loads each SQLite file into DuckDB, PostgreSQL and MariaDB/MySQL with the column types
     nl2sql's copier (native/src/copy) would create: INTEGER -> bigint, REAL -> double,
     NUMERIC(p,s) -> numeric(p,s)/DECIMAL(p,s), DATE -> date, DATETIME/TIMESTAMP ->
     timestamp/DATETIME, BOOLEAN -> boolean, text -> text/LONGTEXT (VARCHAR(768) in a
     MySQL key), and text columns whose values are all ISO dates -> DATE or DATETIME (the
     copier's settle_dates). MySQL databases use utf8mb4_bin, as the copier's do.
  3. Runs every question's gold SQL on the engine its dialect names: it must run and return
     at least one row (unless the case says expect_empty: true).
  4. Runs it again on a second copy of the same data whose rows were inserted in reverse
     order and whose tables have no primary key (so scans meet rows in another order). The
     two results must be equal: as lists when order_matters is true, as multisets
     otherwise. This catches ORDER BY without a total order, LIMIT on ties and
     ROW_NUMBER over ties.
  5. Checks the corpus files: ids, splits, dialects, difficulties, required fields.

Engines: SQLite (python's sqlite3) and DuckDB (the duckdb package) run in process.
PostgreSQL and MariaDB are reached through servers this script starts on loopback ports
under a temporary directory when their binaries are present (PostgreSQL 15 at
/usr/lib/postgresql/15/bin, mariadbd), or through PGHOST/PGPORT/PGUSER and
MYSQL_HOST/MYSQL_PORT/MYSQL_USER when set. An engine that cannot be reached is reported as
skipped, with its queries listed as not executed.

Python packages: duckdb (1.5.5 was used), psycopg (3), pymysql; PyYAML when present (a
small reader for this corpus's YAML subset is used otherwise).
"""

import argparse
import collections
import datetime as dt
import decimal
import glob
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# Scratch files and throwaway servers live under target/, as the project's other services do.
SCRATCH = os.path.join(os.path.dirname(HERE), "target", "coverage", "work")


def scratch(prefix):
    """A fresh directory under SCRATCH."""
    os.makedirs(SCRATCH, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=SCRATCH)


DIALECTS = ("postgres", "mysql", "sqlite", "duckdb")
DIFFICULTIES = ("simple", "medium", "hard")
SPLITS = ("dev", "holdout")

# ----------------------------------------------------------------------------------------
# YAML
# ----------------------------------------------------------------------------------------


def _scalar(text):
    text = text.strip()
    if text == "":
        return None
    if text[0] in "\"'":
        q = text[0]
        end = text.rfind(q)
        inner = text[1:end]
        if q == "'":
            return inner.replace("''", "'")
        return bytes(inner, "utf-8").decode("unicode_escape")
    if text.startswith("["):
        inner = text[1:text.rindex("]")].strip()
        return [_scalar(x) for x in inner.split(",")] if inner else []
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    if text in ("null", "~"):
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def mini_yaml(text):
    """Reads the subset of YAML the corpus files use: top-level scalars, a `cases:` list of
    flat mappings with scalar, flow-list and `|` block values."""
    top = {}
    cases = None
    cur = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        if not line.startswith(" ") and not line.startswith("-"):
            key, _, rest = line.partition(":")
            if key == "cases":
                cases = []
                top["cases"] = cases
            else:
                top[key] = _scalar(rest)
            i += 1
            continue
        m = re.match(r"^(- |  )(\w+):(.*)$", line)
        if not m:
            raise ValueError(f"cannot read line {i + 1}: {line!r}")
        if m.group(1) == "- ":
            cur = {}
            cases.append(cur)
        key, rest = m.group(2), m.group(3).strip()
        if rest in ("|", "|-", ">", ">-"):
            block = []
            i += 1
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            body = "\n".join(block)
            cur[key] = body + ("\n" if rest == "|" else "") if rest.startswith("|") else " ".join(b.strip() for b in block)
            continue
        cur[key] = _scalar(rest)
        i += 1
    return top


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        import yaml  # type: ignore

        doc = yaml.safe_load(text)
        mine = mini_yaml(text)
        if [c.get("id") for c in doc.get("cases", [])] != [c.get("id") for c in mine.get("cases", [])]:
            raise SystemExit(f"{path}: the built-in reader disagrees with PyYAML")
        return doc
    except ImportError:
        return mini_yaml(text)


# ----------------------------------------------------------------------------------------
# Types, as nl2sql's copier maps them
# ----------------------------------------------------------------------------------------


def kind_of(declared):
    t = declared.strip().upper()
    if "DATETIME" in t or "TIMESTAMP" in t:
        return "timestamp"
    if "DATE" in t:
        return "date"
    if "TIME" in t:
        return "time"
    if "BOOL" in t:
        return "boolean"
    if "INT" in t:
        return "integer"
    if "CHAR" in t or "CLOB" in t or "TEXT" in t:
        return "text"
    if "BLOB" in t:
        return "bytes"
    if "REAL" in t or "FLOA" in t or "DOUB" in t:
        return "float"
    if "NUMERIC" in t or "DECIMAL" in t:
        return "decimal"
    return "text"


def precision(declared):
    m = re.search(r"\(\s*(\d{1,4})\s*(?:,\s*(\d{1,4})\s*)?\)\s*$", declared)
    if not m:
        return None
    return f"({m.group(1)},{m.group(2)})" if m.group(2) else f"({m.group(1)})"


class Column:
    def __init__(self, name, declared, notnull, pk):
        self.name, self.declared, self.notnull, self.pk = name, declared, notnull, pk
        self.kind = kind_of(declared)


def introspect(path):
    con = sqlite3.connect(path)
    tables = []
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"):
        cols = []
        fk_cols = {r[3] for r in con.execute(f'PRAGMA foreign_key_list("{name}")')}
        for cid, cname, ctype, notnull, _default, pk in con.execute(f'PRAGMA table_info("{name}")'):
            c = Column(cname, ctype or "", bool(notnull), pk)
            c.in_key = pk > 0 or cname in fk_cols
            up = (ctype or "").upper()
            is_text_category = ("CHAR" in up or "CLOB" in up or "TEXT" in up) and not any(w in up for w in ("DATE", "TIME", "BOOL", "INT"))
            if is_text_category:
                q = f'"{cname}"'
                non_null, date_like, longer = con.execute(
                    f"SELECT COUNT({q}), SUM(CASE WHEN typeof({q}) = 'text' AND {q} LIKE '____-__-__%' AND date({q}) IS NOT NULL THEN 1 ELSE 0 END), "
                    f"SUM(CASE WHEN {q} IS NOT NULL AND length({q}) <> 10 THEN 1 ELSE 0 END) FROM \"{name}\""
                ).fetchone()
                if non_null and date_like == non_null:
                    c.kind = "date" if not longer else "timestamp"
                    c.settled = True
            cols.append(c)
        single_pk = sum(1 for c in cols if c.pk) == 1
        for c in cols:
            # SQLite lets a lone INTEGER PRIMARY KEY be NULL-free by rowid; the copier reads
            # a primary key column as NOT NULL.
            if c.pk:
                c.notnull = True
        tables.append((name, cols))
    con.close()
    return tables


def pg_type(c):
    return {"timestamp": "timestamp", "date": "date", "time": "time", "boolean": "boolean", "integer": "bigint", "text": "text",
            "bytes": "bytea", "float": "double precision"}.get(c.kind) or f"numeric{precision(c.declared) or ''}"


def my_type(c):
    if c.kind == "text":
        return "VARCHAR(768)" if c.in_key else "LONGTEXT"
    if c.kind == "decimal":
        p = precision(c.declared)
        return f"DECIMAL{p}" if p else "DOUBLE"
    return {"timestamp": "DATETIME", "date": "DATE", "time": "TIME", "boolean": "BOOLEAN", "integer": "BIGINT", "bytes": "LONGBLOB", "float": "DOUBLE"}[c.kind]


def duck_type(c):
    if c.kind == "decimal":
        p = precision(c.declared)
        return f"DECIMAL{p}" if p else "DOUBLE"
    return {"timestamp": "TIMESTAMP", "date": "DATE", "time": "TIME", "boolean": "BOOLEAN", "integer": "BIGINT", "text": "VARCHAR", "bytes": "BLOB", "float": "DOUBLE"}[c.kind]


def create_sql(name, cols, type_of, quote, with_pk, options=""):
    """CREATE TABLE as the copier writes it. Without with_pk (the reordered copy), the
    primary key becomes a plain UNIQUE constraint: the key's index still serves joins, but
    rows are no longer clustered by it (InnoDB then keeps them in insertion order)."""
    parts = [f"{quote(c.name)} {type_of(c)}{' NOT NULL' if c.notnull else ''}" for c in cols]
    pk = [quote(c.name) for c in sorted((c for c in cols if c.pk), key=lambda c: c.pk)]
    if pk:
        parts.append(f"{'PRIMARY KEY' if with_pk else 'UNIQUE'} ({', '.join(pk)})")
    return f"CREATE TABLE {quote(name)} ({', '.join(parts)}){options}"


def dq(name):
    return '"' + name.replace('"', '""') + '"'


def bq(name):
    return "`" + name.replace("`", "``") + "`"


def read_rows(path, name, cols):
    con = sqlite3.connect(path)
    rows = con.execute(f'SELECT {", ".join(dq(c.name) for c in cols)} FROM {dq(name)}').fetchall()
    con.close()
    return rows


# ----------------------------------------------------------------------------------------
# Engines
# ----------------------------------------------------------------------------------------


class SqliteEngine:
    name = "sqlite"

    def __init__(self, workdir, reordered=True):
        self.workdir = workdir
        self.reordered = reordered
        self.cons = {}
        self.paths = {}

    def address(self, db):
        """The database as nl2sql's --db names it: the generated file itself."""
        return self.paths[db]

    def load(self, db, path, tables):
        self.paths[db] = path
        if not self.reordered:
            self.cons[db] = (sqlite3.connect(f"file:{path}?mode=ro", uri=True),)
            return
        rev = os.path.join(self.workdir, f"{db}__rev.sqlite")
        if os.path.exists(rev):
            os.remove(rev)
        con = sqlite3.connect(rev)
        for name, cols in tables:
            # declared types kept; no primary key, so rowid order is the reversed insert order
            pk = [dq(c.name) for c in sorted((c for c in cols if c.pk), key=lambda c: c.pk)]
            unique = f", UNIQUE ({', '.join(pk)})" if pk else ""
            con.execute(f"CREATE TABLE {dq(name)} ({', '.join(f'{dq(c.name)} {c.declared}' for c in cols)}{unique})")
            rows = read_rows(path, name, cols)
            rows.reverse()
            if rows:
                con.executemany(f"INSERT INTO {dq(name)} VALUES ({','.join('?' * len(cols))})", rows)
        con.commit()
        con.close()
        self.cons[db] = (sqlite3.connect(f"file:{path}?mode=ro", uri=True), sqlite3.connect(f"file:{rev}?mode=ro", uri=True))

    def run(self, db, sql, rev=False):
        con = self.cons[db][1 if rev else 0]
        cur = con.execute(sql)
        cols = [d[0] for d in cur.description] if cur.description else []
        return cols, cur.fetchall()


class DuckEngine:
    name = "duckdb"

    def __init__(self, workdir, reordered=True):
        import duckdb  # noqa: F401

        self.workdir = workdir
        self.copies = (False, True) if reordered else (False,)
        self.cons = {}

    def address(self, db):
        return os.path.join(self.workdir, f"{db}.duckdb")

    def load(self, db, path, tables):
        import duckdb

        pair = []
        for rev in self.copies:
            f = os.path.join(self.workdir, f"{db}{'__rev' if rev else ''}.duckdb")
            if os.path.exists(f):
                os.remove(f)
            con = duckdb.connect(f)
            for name, cols in tables:
                con.execute(create_sql(name, cols, duck_type, dq, with_pk=not rev))
                rows = read_rows(path, name, cols)
                if rev:
                    rows.reverse()
                if not rows:
                    continue
                # through a CSV file: executemany is slow in DuckDB
                csv_path = os.path.join(self.workdir, "load.csv")
                write_csv(csv_path, rows)
                con.execute(f"COPY {dq(name)} FROM '{csv_path}' (FORMAT csv, HEADER false, NULL '\\N', QUOTE '\"', ESCAPE '\"')")
            con.execute("CHECKPOINT")
            # Reopened read-only: another process (nl2sql, which opens files read-only)
            # may then open the file too; DuckDB allows that only among read-only holders.
            con.close()
            pair.append(duckdb.connect(f, read_only=True))
        self.cons[db] = tuple(pair)

    def run(self, db, sql, rev=False):
        con = self.cons[db][1 if rev else 0]
        cur = con.execute(sql)
        cols = [d[0] for d in cur.description] if cur.description else []
        return cols, cur.fetchall()


def write_csv(path, rows):
    import csv

    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        for r in rows:
            w.writerow(["\\N" if v is None else v for v in r])


class PgEngine:
    name = "postgres"

    def __init__(self, workdir, reordered=True):
        import psycopg  # noqa: F401

        self.workdir = workdir
        self.copies = (False, True) if reordered else (False,)
        self.proc = None
        self.datadir = None
        host = os.environ.get("PGHOST")
        if host:
            self.host, self.port, self.user = host, int(os.environ.get("PGPORT", "5432")), os.environ.get("PGUSER", "postgres")
        else:
            self.start()
        self.cons = {}

    def start(self):
        bindir = "/usr/lib/postgresql/15/bin"
        if not os.path.exists(os.path.join(bindir, "initdb")):
            raise RuntimeError("no PostgreSQL binaries at /usr/lib/postgresql/15/bin and PGHOST not set")
        self.datadir = scratch("pg-")
        self.port = 54000 + os.getpid() % 900
        as_postgres = []
        if os.geteuid() == 0:
            shutil.chown(self.datadir, "postgres", "postgres")
            as_postgres = ["runuser", "-u", "postgres", "--"]
        subprocess.run(as_postgres + [f"{bindir}/initdb", "-D", self.datadir, "-A", "trust", "-U", "postgres", "--no-sync"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(as_postgres + [f"{bindir}/pg_ctl", "-D", self.datadir, "-l", os.path.join(self.datadir, "log"), "-w", "-o",
                                      f"-k {self.datadir} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off -c TimeZone=UTC", "start"],
                       check=True, stdout=subprocess.DEVNULL)
        self.host, self.user = "127.0.0.1", "postgres"
        self.as_postgres = as_postgres
        self.bindir = bindir

    def stop(self):
        for pair in self.cons.values():
            for c in pair:
                c.close()
        if self.datadir:
            subprocess.run(self.as_postgres + [f"{self.bindir}/pg_ctl", "-D", self.datadir, "-m", "fast", "-w", "stop"], stdout=subprocess.DEVNULL)
            shutil.rmtree(self.datadir, ignore_errors=True)

    def address(self, db):
        """nl2sql's --db URL (a password, if any, comes from PGPASSWORD)."""
        return f"postgres://{self.user}@{self.host}:{self.port}/{db}"

    def connect(self, dbname):
        import psycopg

        return psycopg.connect(host=self.host, port=self.port, user=self.user, dbname=dbname, autocommit=True)

    def load(self, db, path, tables):
        admin = self.connect("postgres")
        pair = []
        for rev in self.copies:
            name_db = f"{db}__rev" if rev else db
            admin.execute(f"DROP DATABASE IF EXISTS {dq(name_db)}")
            admin.execute(f"CREATE DATABASE {dq(name_db)}")
            con = self.connect(name_db)
            for name, cols in tables:
                con.execute(create_sql(name, cols, pg_type, dq, with_pk=not rev))
                rows = read_rows(path, name, cols)
                if rev:
                    rows.reverse()
                with con.cursor() as cur:
                    with cur.copy(f"COPY {dq(name)} FROM STDIN") as copy:
                        for r in rows:
                            copy.write_row(r)
            con.execute("ANALYZE")
            con.execute("SET statement_timeout = '60s'")
            pair.append(con)
        admin.close()
        self.cons[db] = tuple(pair)

    def run(self, db, sql, rev=False):
        con = self.cons[db][1 if rev else 0]
        with con.cursor() as cur:
            try:
                cur.execute(sql)
            except Exception:
                con.rollback() if not con.autocommit else None
                raise
            cols = [d.name for d in cur.description] if cur.description else []
            return cols, cur.fetchall()


class MyEngine:
    name = "mysql"

    def __init__(self, workdir, reordered=True):
        import pymysql  # noqa: F401

        self.workdir = workdir
        self.copies = (False, True) if reordered else (False,)
        self.proc = None
        self.datadir = None
        host = os.environ.get("MYSQL_HOST")
        if host:
            self.host, self.port, self.user, self.password = host, int(os.environ.get("MYSQL_PORT", "3306")), os.environ.get("MYSQL_USER", "root"), os.environ.get("MYSQL_PASSWORD", "")
            self.socket = None
        else:
            self.start()
        self.cons = {}

    def start(self):
        server = shutil.which("mariadbd") or ("/usr/sbin/mariadbd" if os.path.exists("/usr/sbin/mariadbd") else None)
        install = shutil.which("mariadb-install-db")
        if not server or not install:
            raise RuntimeError("no mariadbd / mariadb-install-db and MYSQL_HOST not set")
        self.datadir = scratch("mdb-")
        self.socket = os.path.join(self.datadir, "mysqld.sock")
        self.port = 33000 + os.getpid() % 900
        user = ["--user=root"] if os.geteuid() == 0 else []
        subprocess.run([install, f"--datadir={self.datadir}", "--auth-root-authentication-method=normal", "--skip-test-db"] + user,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.proc = subprocess.Popen([server, "--no-defaults", f"--datadir={self.datadir}", f"--socket={self.socket}", f"--port={self.port}",
                                      "--bind-address=127.0.0.1", "--skip-log-bin", "--innodb-flush-log-at-trx-commit=0",
                                      "--max-allowed-packet=64M"] + user,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.host, self.user, self.password = "127.0.0.1", "root", ""
        for _ in range(120):
            if os.path.exists(self.socket):
                try:
                    self.connect(None).close()
                    return
                except Exception:
                    pass
            time.sleep(0.25)
        raise RuntimeError("mariadbd did not start")

    def stop(self):
        for pair in self.cons.values():
            for c in pair:
                c.close()
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.datadir, ignore_errors=True)

    def address(self, db):
        """nl2sql's --db URL, over TCP (a password, if any, comes from MYSQL_PWD)."""
        return f"mysql://{self.user}@{self.host}:{self.port}/{db}"

    def connect(self, dbname):
        import pymysql

        kw = dict(user=self.user, password=self.password, database=dbname, autocommit=True, charset="utf8mb4")
        if self.socket:
            kw["unix_socket"] = self.socket
        else:
            kw.update(host=self.host, port=self.port)
        return pymysql.connect(**kw)

    def load(self, db, path, tables):
        admin = self.connect(None)
        pair = []
        with admin.cursor() as cur:
            for rev in self.copies:
                name_db = f"{db}__rev" if rev else db
                cur.execute(f"DROP DATABASE IF EXISTS {bq(name_db)}")
                cur.execute(f"CREATE DATABASE {bq(name_db)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
                con = self.connect(name_db)
                with con.cursor() as c2:
                    c2.execute("SET time_zone = '+00:00'")
                    for name, cols in tables:
                        c2.execute(create_sql(name, cols, my_type, bq, with_pk=not rev, options=" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"))
                        rows = read_rows(path, name, cols)
                        if rev:
                            rows.reverse()
                        sql = f"INSERT INTO {bq(name)} VALUES ({', '.join(['%s'] * len(cols))})"
                        for i in range(0, len(rows), 2000):
                            c2.executemany(sql, rows[i:i + 2000])
                    c2.execute("SET SESSION max_statement_time = 60")
                pair.append(con)
        admin.close()
        self.cons[db] = tuple(pair)

    def run(self, db, sql, rev=False):
        con = self.cons[db][1 if rev else 0]
        with con.cursor() as cur:
            cur.execute(sql)
            cols = [d[0] for d in cur.description] if cur.description else []
            return cols, list(cur.fetchall())


ENGINES = {"sqlite": SqliteEngine, "duckdb": DuckEngine, "postgres": PgEngine, "mysql": MyEngine}

# ----------------------------------------------------------------------------------------
# Comparing results
# ----------------------------------------------------------------------------------------


def norm(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (decimal.Decimal, float)):
        f = float(v)
        if f == int(f) and abs(f) < 1e15:
            return int(f)
        return float(f"{f:.6g}")
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v.isoformat()
    if isinstance(v, dt.timedelta):
        return v.total_seconds()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    return v


def norm_rows(rows):
    return [tuple(norm(v) for v in r) for r in rows]


def sort_key(row):
    return tuple((0, "") if v is None else (1, str(type(v).__name__), v) if not isinstance(v, (int, float)) else (1, "num", v) for v in row)


# ----------------------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------------------


def check_case_fields(db, case, problems):
    need = ["id", "split", "dialect", "difficulty", "tags", "question", "paraphrase", "order_matters", "sql"]
    for k in need:
        if k not in case or case[k] in (None, ""):
            problems.append(f"{db}: {case.get('id')}: missing {k}")
    if case.get("dialect") not in DIALECTS:
        problems.append(f"{db}: {case.get('id')}: dialect {case.get('dialect')!r}")
    if case.get("difficulty") not in DIFFICULTIES:
        problems.append(f"{db}: {case.get('id')}: difficulty {case.get('difficulty')!r}")
    if case.get("split") not in SPLITS:
        problems.append(f"{db}: {case.get('id')}: split {case.get('split')!r}")
    if not isinstance(case.get("order_matters"), bool):
        problems.append(f"{db}: {case.get('id')}: order_matters must be true or false")


STOPWORDS = {"a", "an", "and", "at", "by", "for", "from", "id", "in", "is", "of", "on", "or", "per", "the", "to", "with", "no", "not"}
# Parts of compound names (first_name, ordered_at, is_active) that are everyday words: a
# paraphrase may use them. A whole table or column name always counts.
GENERIC_PARTS = STOPWORDS | {"first", "last", "date", "time", "new", "total", "count", "number", "has", "was", "key", "utc", "ms",
                             "year", "month", "week", "day", "hour", "minute", "start", "end"}


def identifier_words(tables):
    words = set()
    for name, cols in tables:
        for ident in [name] + [c.name for c in cols]:
            parts = [p.lower() for p in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", ident) if p and not p.isdigit()]
            if len(parts) == 1:
                words.add(parts[0])
            else:
                words.update(p for p in parts if p not in GENERIC_PARTS and stem(p) not in GENERIC_PARTS)
    return words


def stem(word):
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def paraphrase_clashes(text, words):
    """The schema words (table or column names, and the telling parts of compound ones)
    that a paraphrase uses, singular and plural alike."""
    stems = {stem(w) for w in words} | words
    found = []
    for token in re.findall(r"[A-Za-z]+", text):
        t = token.lower()
        if t in STOPWORDS:
            continue
        if t in words or t in stems or stem(t) in stems:
            found.append(t)
    return sorted(set(found))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data")
    ap.add_argument("--only")
    ap.add_argument("--ids")
    ap.add_argument("--engines", default="sqlite,duckdb,postgres,mysql")
    ap.add_argument("--show")
    ap.add_argument("--results")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()

    workdir = scratch("check-")
    data = args.data or os.path.join(workdir, "data")
    only = set(args.only.split(",")) if args.only else None
    ids = set(args.ids.split(",")) if args.ids else None
    if args.show:
        ids = {args.show}
    problems = []

    files = sorted(glob.glob(os.path.join(HERE, "questions", "*.yaml")))
    corpus = []
    seen_ids = set()
    for f in files:
        doc = load_yaml(f)
        db = doc["database"]
        if os.path.basename(f) != f"{db}.yaml":
            problems.append(f"{f}: database {db} does not match the file name")
        for case in doc["cases"]:
            check_case_fields(db, case, problems)
            if case.get("id") in seen_ids:
                problems.append(f"duplicate id {case.get('id')}")
            seen_ids.add(case.get("id"))
            corpus.append((db, case))
    catalogue = {}
    cat_path = os.path.join(HERE, "databases.yaml")
    if os.path.exists(cat_path):
        with open(cat_path, encoding="utf-8") as f:
            text = f.read()
        try:
            import yaml  # type: ignore

            catalogue = {d["id"]: d for d in yaml.safe_load(text)["databases"]}
        except ImportError:
            current = None
            for line in text.splitlines():
                m = re.match(r"^- id: (\w+)", line)
                if m:
                    current = {"id": m.group(1)}
                    catalogue[current["id"]] = current
                m = re.match(r"^  tables: \[(.*)\]", line)
                if m and current is not None:
                    current["tables"] = [t.strip() for t in m.group(1).split(",")]
    for db in sorted({db for db, _ in corpus}):
        if db not in catalogue:
            problems.append(f"{db}: not described in databases.yaml")
    dbs = sorted({db for db, _ in corpus})
    if only:
        dbs = [d for d in dbs if d in only]
    selected = [(db, c) for db, c in corpus if db in dbs and (ids is None or c["id"] in ids)]
    dbs = sorted({db for db, _ in selected})

    missing = [d for d in dbs if not os.path.exists(os.path.join(data, f"{d}.sqlite"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), data] + missing, check=True, stdout=subprocess.DEVNULL)

    wanted = [e for e in args.engines.split(",") if e]
    need = {c["dialect"] for _, c in selected}
    engines, unavailable = {}, {}
    for e in wanted:
        if e not in need:
            continue
        try:
            engines[e] = ENGINES[e](workdir)
        except Exception as ex:  # noqa: BLE001
            unavailable[e] = str(ex).splitlines()[0]
    stats = collections.Counter()
    failures = []
    not_run = []
    results = {}
    try:
        for db in dbs:
            path = os.path.join(data, f"{db}.sqlite")
            tables = introspect(path)
            cases = [c for d, c in selected if d == db]
            if db in catalogue and catalogue[db].get("tables") != [name for name, _ in tables]:
                problems.append(f"{db}: databases.yaml lists tables {catalogue[db].get('tables')}, the file has {[n for n, _ in tables]}")
            words = identifier_words(tables)
            for case in cases:
                clash = paraphrase_clashes(case.get("paraphrase") or "", words)
                if clash:
                    problems.append(f"{case['id']}: paraphrase uses schema words {clash}")
            for e in sorted({c["dialect"] for c in cases}):
                if e in engines:
                    t0 = time.time()
                    engines[e].load(db, path, tables)
                    stats[f"load_seconds_{e}"] += time.time() - t0
            for case in cases:
                e = case["dialect"]
                cid = case["id"]
                if e not in engines:
                    not_run.append(cid)
                    continue
                sql = case["sql"].strip().rstrip(";")
                try:
                    cols, rows = engines[e].run(db, sql)
                except Exception as ex:  # noqa: BLE001
                    failures.append(f"{cid} [{e}] error: {str(ex).strip().splitlines()[0][:300]}")
                    stats[f"error_{e}"] += 1
                    continue
                rows_n = norm_rows(rows)
                results[cid] = {"columns": cols, "row_count": len(rows), "first_rows": [list(map(str, r)) for r in rows_n[:5]]}
                if args.show:
                    print(" | ".join(cols))
                    for r in rows_n[:200]:
                        print(" | ".join("NULL" if v is None else str(v) for v in r))
                    print(f"({len(rows)} rows)")
                expect_empty = bool(case.get("expect_empty"))
                if (len(rows) == 0) != expect_empty:
                    failures.append(f"{cid} [{e}] returned {len(rows)} rows" + (" (expect_empty)" if expect_empty else ""))
                    stats[f"empty_{e}"] += 1
                    continue
                try:
                    _, rrows = engines[e].run(db, sql, rev=True)
                except Exception as ex:  # noqa: BLE001
                    failures.append(f"{cid} [{e}] error on the reordered copy: {str(ex).strip().splitlines()[0][:300]}")
                    continue
                rrows_n = norm_rows(rrows)
                if case.get("order_matters"):
                    if rows_n != rrows_n:
                        same_bag = sorted(rows_n, key=sort_key) == sorted(rrows_n, key=sort_key)
                        failures.append(f"{cid} [{e}] " + ("order differs on reordered data (ORDER BY not total)" if same_bag else "rows differ on reordered data (nondeterministic)"))
                        stats[f"unstable_{e}"] += 1
                        continue
                else:
                    if sorted(rows_n, key=sort_key) != sorted(rrows_n, key=sort_key):
                        failures.append(f"{cid} [{e}] rows differ on reordered data (nondeterministic)")
                        stats[f"unstable_{e}"] += 1
                        continue
                stats[f"ok_{e}"] += 1
    finally:
        for eng in engines.values():
            if hasattr(eng, "stop"):
                eng.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    if args.results:
        import json

        with open(args.results, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    by_dialect = collections.Counter(c["dialect"] for _, c in selected)
    print(f"cases: {len(selected)} over {len(dbs)} databases")
    for e in DIALECTS:
        if by_dialect[e]:
            state = f"skipped ({unavailable[e]})" if e in unavailable else f"{stats[f'ok_{e}']} ok"
            print(f"  {e:9s} {by_dialect[e]:4d} cases: {state}")
    for p in problems:
        print("PROBLEM", p)
    for f in failures:
        print("FAIL", f)
    if not_run:
        print(f"NOT RUN on their own engine ({len(not_run)}): {', '.join(not_run)}")
    for e in DIALECTS:
        if stats[f"load_seconds_{e}"]:
            print(f"  loading into {e}: {stats[f'load_seconds_{e}']:.1f}s")
    ok = sum(stats[f"ok_{e}"] for e in DIALECTS)
    print(f"{ok} passed, {len(failures) + len(problems)} failed" + (f", {len(not_run)} skipped" if not_run else ""))
    return 1 if failures or problems else 0


if __name__ == "__main__":
    sys.exit(main())
