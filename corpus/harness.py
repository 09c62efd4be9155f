"""What corpus/run.py and corpus/tpc.py share: calling the nl2sql command line, comparing
its rows with gold rows the way the project's suite does, classifying each case, and
printing the tallies.

Outcomes, from best to worst:
  ok         imported, validated, rendered and ran; the rows equal the gold rows.
  refused    nl2sql said no before running anything (the importer or the validator).
  failed     nl2sql produced SQL but the engine rejected it or ran out of time, or the
             command line itself crashed.
  different  it ran and returned rows, but not the gold rows. This is the worst: a
             person would be handed a wrong answer with no warning.
"""

import collections
import datetime as dt
import decimal
import json
import math
import os
import re
import subprocess

import check

OUTCOMES = ("ok", "refused", "different", "failed")

# Error codes that mean the database (not nl2sql) said no: the plan was accepted and
# rendered, so the case "failed" rather than being "refused".
ENGINE_CODES = {"EXECUTION_FAILED", "DB_EXECUTION_ERROR", "QUERY_TIMEOUT"}

# As suite/src/compare.rs: numbers are equal within 0.005.
TOLERANCE = 0.005 + 1e-9


# ----------------------------------------------------------------------------------------
# Running nl2sql
# ----------------------------------------------------------------------------------------


class Project(collections.namedtuple("Project", "folder datasource")):
    """A datasource of the project file in `folder`, run by its id there."""


class Nl2sql:
    """The command line, run once per query. Each call runs in an empty directory so that
    no nl2sql.toml or .nl2sql/ of the caller's changes what it does."""

    def __init__(self, binary, row_cap=100000, timeout_ms=60000):
        self.binary = os.path.abspath(binary)
        if not os.access(self.binary, os.X_OK):
            raise SystemExit(f"no nl2sql binary at {self.binary} (build it: cargo build -p nl2sql-cli, or pass --bin)")
        self.cwd = check.scratch("cwd-")
        # The engine's own time limit is raised from its 10 s default: a rendering that is
        # merely slower than the gold SQL should still count as a result.
        self.common = ["--json", "--row-cap", str(row_cap), "--timeout-ms", str(timeout_ms)]
        self.wall_limit = timeout_ms / 1000 * 3 + 60

    def sql(self, address, sql):
        """`nl2sql sql`: imports `sql` in the datasource's dialect; `address` a database's
        address or a Project."""
        where, cwd = self._where(address)
        return self._call(["sql", *self.common, *where, sql], None, cwd=cwd)

    def plan(self, address, plan):
        """`nl2sql plan -`: the plan JSON (a dict) on standard input; `address` a database's
        address or a Project."""
        where, cwd = self._where(address)
        return self._call(["plan", *self.common, *where, "-"], json.dumps(plan), cwd=cwd)

    @staticmethod
    def _where(address):
        """The arguments naming `address`, and the directory to run in (None: the empty one)."""
        if isinstance(address, Project):
            return ["--datasource", address.datasource], address.folder
        return ["--db", address], None

    def index(self, folder, datasource, address):
        """A project in `folder` of one datasource at `address`, indexed (its schema cached):
        None when it worked, else what `nl2sql index` said."""
        os.makedirs(folder, exist_ok=True)
        if os.path.exists(address):
            # A file's path, read from the project's folder.
            address = os.path.abspath(address)
        with open(os.path.join(folder, "nl2sql.toml"), "w") as f:
            f.write(f'[[datasources]]\nid = "{datasource}"\nconnection = "{address}"\n')
        p = subprocess.run([self.binary, "index"], capture_output=True, text=True, cwd=folder)
        return None if p.returncode == 0 else (p.stderr.strip() or p.stdout.strip())[-500:]

    def copy(self, source, target):
        """`nl2sql copy --replace`: None when it worked, else what it said."""
        p = subprocess.run([self.binary, "copy", "--replace", source, target], capture_output=True, text=True,
                           cwd=self.cwd)
        return None if p.returncode == 0 else (p.stderr.strip() or p.stdout.strip())[-500:]

    def _call(self, args, stdin, cwd=None):
        """The SqlRun report as a dict, or (None, why) when the command line did not give
        one (a crash, a usage error, a hang)."""
        try:
            p = subprocess.run([self.binary, *args], input=stdin, capture_output=True, text=True, cwd=cwd or self.cwd,
                               timeout=self.wall_limit)
        except subprocess.TimeoutExpired:
            return None, f"nl2sql did not finish within {self.wall_limit:.0f} s"
        try:
            return json.loads(p.stdout), None
        except ValueError:
            tail = (p.stderr.strip().splitlines() or ["(no output)"])
            # A panic's first line says where; later lines are the backtrace.
            first = next((line for line in tail if "panicked" in line or line.startswith("error")), tail[0])
            return None, f"nl2sql exited {p.returncode}: {first.strip()[:300]}"


def classify(report, crash, gold_rows, ordered):
    """(outcome, code, message) for one run. `gold_rows` are the driver's values."""
    if report is None:
        return "failed", "CLI_CRASH", crash
    errors = report.get("errors") or []
    if report.get("status") != "ok":
        first = errors[0] if errors else {"error_code": "UNKNOWN", "message": "status error with no error"}
        code, message = first.get("error_code", "UNKNOWN"), first.get("message", "")
        engine_side = next((e for e in errors if e.get("error_code") in ENGINE_CODES), None)
        if engine_side is not None:
            return "failed", engine_side["error_code"], engine_side.get("message", "")
        return "refused", code, message
    if report.get("truncated"):
        return "different", "TRUNCATED", f"the row cap cut the result at {len(report.get('rows') or [])} rows"
    why = compare(report.get("rows") or [], gold_rows, ordered)
    if why is None:
        return "ok", None, None
    return "different", "ROWS_DIFFER", why


# ----------------------------------------------------------------------------------------
# Comparing rows (a port of suite/src/compare.rs's strict comparison)
# ----------------------------------------------------------------------------------------
#
# The gold side holds what the Python drivers return (int, float, Decimal, str, bool, date,
# datetime, time, timedelta, None, ...); the other side holds nl2sql's JSON cells, which are
# SQLite's storage classes: null, integer, real, text (and blobs as byte lists). As in the
# project's comparator, column names are ignored, column order is kept, numbers are equal
# within 0.005, a number equals text that spells it, and row order counts only when asked.
#
# Two additions, for values whose type the driver knows but JSON cannot carry:
#   - a gold date, timestamp or time equals nl2sql text naming the same instant, whatever
#     its spelling ('T' or ' ', trailing zero fractions, a UTC offset of zero): how nl2sql
#     words a typed value is its own choice, not the query's;
#   - a gold boolean equals 1/0 or true/false.
# Gold *text* is compared exactly: there the spelling is the query's result.


def _number(v):
    """A float for a number or text that spells one (as Rust's str::parse::<f64>), else None."""
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float, decimal.Decimal)):
        return float(v)
    if isinstance(v, str):
        t = v.strip()
        if t and "_" not in t:
            try:
                return float(t)
            except ValueError:
                return None
    return None


_TEMPORAL = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?(Z|[+-]\d{2}(?::?\d{2})?)?$")
_CLOCK = re.compile(r"^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$")


def _canon_clock(t):
    """HH:MM:SS with the fraction's trailing zeros dropped."""
    if t.count(":") == 1:
        t += ":00"
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return t


def canon_temporal(text):
    """A date/timestamp/time text in one spelling, or None when it is none of these.
    A zero offset is dropped; another offset is kept (then only the same spelling matches)."""
    if _CLOCK.match(text):
        return _canon_clock(text)
    m = _TEMPORAL.match(text)
    if not m:
        return None
    day, clock, zone = m.groups()
    if zone in ("Z", "+00", "+0000", "+00:00", "-00", "-00:00"):
        zone = None
    out = day if clock is None else f"{day} {_canon_clock(clock)}"
    # A midnight timestamp and its date are not told apart: engines disagree on whether a
    # date plus an interval, or a truncated date, is a date or a timestamp.
    if out.endswith(" 00:00:00"):
        out = day
    return out + (zone or "")


def gold_cell(v):
    """A driver value as ('null'|'num'|'text'|'time'|'bool', payload)."""
    if v is None:
        return ("null", None)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float, decimal.Decimal)):
        f = float(v)
        return ("text", str(v)) if math.isnan(f) else ("num", f)
    if isinstance(v, dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return ("time", canon_temporal(v.isoformat(sep=" ")))
    if isinstance(v, (dt.date, dt.time)):
        return ("time", canon_temporal(v.isoformat()))
    if isinstance(v, dt.timedelta):
        # Intervals have no common spelling across engines; seconds are compared.
        return ("num", v.total_seconds())
    if isinstance(v, (bytes, bytearray, memoryview)):
        return ("bytes", bytes(v))
    return ("text", v if isinstance(v, str) else str(v))


def cell_matches(got, want):
    kind, w = want
    if kind == "null":
        return got is None
    if kind == "num":
        g = _number(got) if not isinstance(got, (list, type(None))) else None
        return g is not None and abs(g - w) <= TOLERANCE
    if kind == "text":
        if isinstance(got, str):
            return got == w
        if isinstance(got, (int, float)) and not isinstance(got, bool):
            n = _number(w)
            return n is not None and abs(float(got) - n) <= TOLERANCE
        return False
    if kind == "time":
        return isinstance(got, str) and canon_temporal(got.strip()) == w
    if kind == "bool":
        if isinstance(got, (int, float)) and not isinstance(got, bool):
            return (got != 0) == w
        return isinstance(got, str) and got.strip().lower() in (("true", "t", "1") if w else ("false", "f", "0"))
    if kind == "bytes":
        return isinstance(got, list) and bytes(got) == w
    return False


def _row_matches(got, want):
    return len(got) == len(want) and all(cell_matches(g, w) for g, w in zip(got, want))


def _sort_key_got(row):
    return tuple(_key(("null", None)) if v is None else _key_of_json(v) for v in row)


def _key_of_json(v):
    n = _number(v) if isinstance(v, (int, float, str)) else None
    if n is not None:
        return (1, n, "")
    if isinstance(v, str):
        t = canon_temporal(v.strip())
        return (2, 0.0, t if t is not None else v)
    return (3, 0.0, json.dumps(v))


def _key(cell):
    kind, w = cell
    if kind == "null":
        return (0, 0.0, "")
    if kind == "num":
        return (1, w, "")
    if kind == "bool":
        return (1, float(w), "")
    if kind == "text":
        n = _number(w)
        # Keys only bring likely pairs together (cell_matches decides), so temporal text is
        # keyed in the same spelling as the other side's.
        return (1, n, "") if n is not None else (2, 0.0, canon_temporal(w.strip()) or w)
    if kind == "time":
        return (2, 0.0, w)
    return (3, 0.0, w.hex())


def _sortable(key):
    # NaN never sorts; it only turns up in text cells here, so a plain guard suffices.
    return tuple((a, 0.0 if isinstance(b, float) and math.isnan(b) else b, c) for a, b, c in key)


# Above this many rows the quadratic matching is not tried (see compare()).
GREEDY_LIMIT = 3000


def compare(got_rows, gold_rows, ordered):
    """None when they match, else a short reason."""
    want = [tuple(gold_cell(v) for v in r) for r in gold_rows]
    got = [list(r) for r in got_rows]
    if len(got) != len(want):
        return f"{len(got)} rows, gold has {len(want)}"
    if got and want and len(got[0]) != len(want[0]):
        return f"{len(got[0])} columns, gold has {len(want[0])}"
    if ordered:
        for i, (g, w) in enumerate(zip(got, want)):
            if not _row_matches(g, w):
                return f"row {i}: got {_show(g)}, gold {_show_gold(w)}"
        return None
    # As multisets. Sorting both sides by a key that puts equal cells together finds the
    # pairing in n log n; numbers within the tolerance of each other can sort apart, so
    # when that fails, compare.rs's greedy pairing decides (on results of moderate size).
    g_sorted = sorted(got, key=lambda r: _sortable(_sort_key_got(r)))
    w_sorted = sorted(want, key=lambda r: _sortable(tuple(_key(c) for c in r)))
    first_bad = next((i for i, (g, w) in enumerate(zip(g_sorted, w_sorted)) if not _row_matches(g, w)), None)
    if first_bad is None:
        return None
    if len(want) <= GREEDY_LIMIT:
        used = [False] * len(got)
        for w in want:
            i = next((i for i, g in enumerate(got) if not used[i] and _row_matches(g, w)), None)
            if i is None:
                return f"no result row matches gold row {_show_gold(w)}"
            used[i] = True
        return None
    return f"(sorted) row {first_bad}: got {_show(g_sorted[first_bad])}, gold {_show_gold(w_sorted[first_bad])}"


def _show(row):
    return json.dumps(row, default=str)[:200]


def _show_gold(row):
    return json.dumps([v for _, v in row], default=str)[:200]


# ----------------------------------------------------------------------------------------
# Refusal reasons
# ----------------------------------------------------------------------------------------

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|“[^”]*”|‘[^’]*’")
_NUMBER = re.compile(r"\b\d+(\.\d+)?\b")
_SNIPPET = re.compile(r"`([^`]*)`")
_KEYWORDS = re.compile(r"\b[A-Z][A-Z_]+(?: [A-Z][A-Z_]+)*\b(?!\()")


def _keywords_of(m):
    call = re.match(r"^([A-Za-z_]+)\(", m.group(1))
    if call:
        return f"{call.group(1).upper()}(…)"
    k = _KEYWORDS.search(m.group(1))
    return f"{k.group(0)} …" if k else "…"


_FUNCTIONS = re.compile(r'^Unsupported function\(s\) ((?:"[^"]*"(?:, )?)+)')


def reason_keys(code, message, width=90):
    """The reasons one refusal counts under: usually one, but a missing function is its own
    reason (it is what would have to be added), so a query lacking two counts under both."""
    m = _FUNCTIONS.match((message or "").strip())
    if code == "UNSUPPORTED_FUNCTION" and m:
        return [f"{code}: {name}" for name in sorted(set(re.findall(r'"([^"]*)"', m.group(1))))]
    return [reason_key(code, message, width)]


def reason_key(code, message, width=90):
    """Groups refusals that have the same cause: quoted names, literals and numbers become
    placeholders, and only the message's opening is kept (what follows is usually advice
    naming the particular query's columns)."""
    text = (message or "").strip().splitlines()[0] if message else ""
    # A construct quoted from the query keeps its first keywords (`INTERVAL '90 days'`
    # becomes INTERVAL …, `(t.x AT TIME ZONE…` AT TIME ZONE …); names and literals go.
    text = _SNIPPET.sub(_keywords_of, text)
    text = _QUOTED.sub("…", text)
    text = _NUMBER.sub("N", text)
    text = re.sub(r"\s+", " ", text)
    # The first sentence or clause carries the reason.
    for stop in (". ", "; "):
        if stop in text:
            text = text.split(stop, 1)[0]
    if len(text) > width:
        text = text[:width].rsplit(" ", 1)[0] + " …"
    return f"{code}: {text}"


# ----------------------------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------------------------


def pct(n, total):
    return f"{n:4d} ({100.0 * n / total:5.1f}%)" if total else f"{n:4d}        "


def print_table(title, groups):
    """`groups`: (label, Counter of outcomes) pairs, one table row each."""
    print(title)
    print(f"  {'':24s} {'cases':>5s}  " + "  ".join(f"{o:>13s}" for o in OUTCOMES))
    for label, counts in groups:
        total = sum(counts[o] for o in OUTCOMES)
        print(f"  {label:24s} {total:5d}  " + "  ".join(f"{pct(counts[o], total):>13s}" for o in OUTCOMES))


def print_histogram(title, records, top=None, examples=3):
    """`records`: (code, message, case label) triples for refused (and failed) cases."""
    groups = collections.defaultdict(list)
    for code, message, label in records:
        for key in reason_keys(code, message):
            groups[key].append(label)
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    print(f"{title}: {len(records)} cases, {len(ranked)} distinct reasons "
          "(a case lacking several functions counts under each)")
    for key, labels in ranked[:top]:
        shown = ", ".join(labels[:examples]) + (", …" if len(labels) > examples else "")
        print(f"  {len(labels):4d}  {key}  [{shown}]")
    if top is not None and len(ranked) > top:
        rest = sum(len(v) for _, v in ranked[top:])
        print(f"  ({len(ranked) - top} more reasons, {rest} cases)")
    return ranked


# ----------------------------------------------------------------------------------------
# The floors `cargo xtask test` holds the measurement to
# ----------------------------------------------------------------------------------------


def check_floors(path, section, counts):
    """Problems with `counts` ({group: Counter of outcomes}) against the floors in `path`'s
    `section` ({group: least "ok"}): fewer ok than the floor, any "different" (an answer that
    looks right and is not), or a group the file names and the run did not measure. A count
    above its floor is reported too, so that the floor is raised and a later loss is seen."""
    with open(path, encoding="utf-8") as f:
        floors = json.load(f)[section]
    problems, raised = [], []
    for group, floor in sorted(floors.items()):
        got = counts.get(group)
        if got is None:
            problems.append(f"{group}: not measured (its floor is {floor} ok)")
            continue
        if got["different"]:
            problems.append(f"{group}: {got['different']} different (none may be)")
        if got["ok"] < floor:
            problems.append(f"{group}: {got['ok']} ok, below its floor of {floor}")
        elif got["ok"] > floor:
            raised.append(f"{group}: {got['ok']} ok (floor {floor})")
    for group, got in sorted(counts.items()):
        if group not in floors and got["different"]:
            problems.append(f"{group}: {got['different']} different (none may be)")
    print()
    if raised:
        print(f"above the floors in {os.path.relpath(path)} (raise them): " + "; ".join(raised))
    for p in problems:
        print(f"FLOOR {section} {p}")
    if not problems:
        print(f"floors of {os.path.relpath(path)} [{section}]: held")
    return problems
