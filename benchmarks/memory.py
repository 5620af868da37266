"""Peak memory and wall time of suggest and validate on a 20M-row CSV (issue 35, item 4).

Usage::

    python3 benchmarks/memory.py --label before|after [--rows 20000000] [--work /tmp/DIR]
                                 [--only NAME,...]

1. Makes the inputs under ``--work`` (default ``/tmp/autovalidate-memory``), once:

   * ``orders.csv``: ``--rows`` rows (20M: about 0.55 GB) of mixed columns,
     written by DuckDB from seeded hashes of the row number: ``id`` (1..N),
     ``placed_on`` (a date of 2023), ``state`` (one of 50 US state codes, 2 %
     empty) and ``amount`` (a decimal with two digits, 3 % empty).
   * ``wide.csv``: 1,000 columns of 10,000 rows, the four columns of
     ``orders.csv`` repeated (``c0000`` .. ``c0999``).
   * ``suite.json``: a suite of 10,000 constraints on ``wide.csv``, 10 per
     column in one check per column: completeness, type, range, containment
     (50 categories) and an Auto-Validate pattern constraint (inferred once
     from 1,000 values of the column's kind, then renamed per column).

2. Runs each command in a child process under ``/usr/bin/time -v`` (peak RSS
   of the process, wall time): whole-table ``suggest orders.csv``,
   ``suggest orders.csv --column placed_on``, ``validate orders.csv`` with the suite
   ``suggest`` wrote for it, ``validate wide.csv`` with the 10,000-constraint
   suite, and loading that suite alone (parse + build the checks).

Appends the runs under ``--label`` to ``benchmarks/results/memory.json`` (with
the commit, the machine and the load average before and after each run) and
rewrites ``benchmarks/results/memory.md`` from it. The machine is shared (2
cores): timings are noisy; peak RSS is not.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.avbench.report import commit, machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
WORK = Path("/tmp/autovalidate-memory")
ROWS = 20_000_000
WIDE_COLUMNS = 1_000
WIDE_ROWS = 10_000
PER_COLUMN = 10
TIME = "/usr/bin/time"
STATES = (
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
    "NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
).split()


def make_orders(path: Path, rows: int) -> None:
    """Write the big CSV with DuckDB (seeded: the same file every time)."""
    states = "[" + ", ".join(f"'{s}'" for s in STATES) + "]"
    sql = f"""
    COPY (
      SELECT i AS id,
        strftime(DATE '2023-01-01' + CAST(hash(i, 1) % 365 AS INTEGER), '%Y-%m-%d') AS placed_on,
        CASE WHEN hash(i, 2) % 50 = 0 THEN NULL
             ELSE {states}[CAST(1 + hash(i, 3) % 50 AS BIGINT)] END AS state,
        CASE WHEN hash(i, 4) % 33 = 0 THEN NULL
             ELSE printf('%.2f', (hash(i, 5) % 10000) / 100.0) END AS amount
      FROM range(1, {rows} + 1) t(i)
    ) TO '{path}' (HEADER, DELIMITER ',')
    """
    with duckdb.connect() as con:
        con.execute(sql)


def make_wide(orders: Path, path: Path) -> list[str]:
    """The first rows of ``orders`` with its five columns repeated; returns each column's kind."""
    kinds = ["id", "placed_on", "state", "amount"]
    cols = [f"{kinds[i % len(kinds)]} AS c{i:04d}" for i in range(WIDE_COLUMNS)]
    with duckdb.connect() as con:
        con.execute(
            f"COPY (SELECT {', '.join(cols)} FROM read_csv('{orders}', all_varchar=true) "
            f"LIMIT {WIDE_ROWS}) TO '{path}' (HEADER, DELIMITER ',')"
        )
    return [kinds[i % len(kinds)] for i in range(WIDE_COLUMNS)]


def make_suite(orders: Path, kinds: list[str], path: Path) -> int:
    """10 constraints per column of the wide table, by the column's kind; returns the count."""
    from autovalidate import suggest_pattern
    from autovalidate.engines.io import column_values

    with duckdb.connect() as con:
        sample = con.read_csv(str(orders), all_varchar=True).limit(1000)
        patterns = {
            k: suggest_pattern(column_values(sample, k), column=k) for k in sorted(set(kinds))
        }

    def deequ(constraint: str, column: str | None = None, **args: Any) -> dict[str, Any]:
        named = {} if column is None else {"column": column}
        return {"kind": "deequ", "constraint": constraint, **named, **args}

    def at_least(value: float) -> dict[str, Any]:
        return {"op": ">=", "value": value}

    checks = []
    for i, kind in enumerate(kinds):
        c = f"c{i:04d}"
        constraints = [
            deequ("has_completeness", c, assertion=at_least(0.9)),
            deequ("has_approx_count_distinct", c, assertion=at_least(1)),
            deequ("has_max_length", c, assertion={"op": "<=", "value": 64}),
            deequ("has_min_length", c, assertion=at_least(1)),
            deequ("has_entropy", c, assertion=at_least(0.0)),
        ]
        if kind in ("id", "amount"):
            constraints += [
                deequ("is_non_negative", c),
                deequ("has_data_type", c, data_type="Fractional", assertion=at_least(0.9)),
                deequ("has_min", c, assertion=at_least(0)),
                deequ("has_max", c, assertion={"op": "<=", "value": 1e9}),
            ]
        elif kind == "state":
            constraints += [
                deequ("is_contained_in", c, allowed_values=STATES),
                deequ("has_uniqueness", columns=[c], assertion={"op": "<=", "value": 1.0}),
                deequ("has_data_type", c, data_type="String", assertion=at_least(0.9)),
                deequ("has_pattern", c, pattern="^[A-Z]{2}$", assertion=at_least(0.9)),
            ]
        else:
            constraints += [
                deequ("is_complete", c),
                deequ("has_data_type", c, data_type="String", assertion=at_least(0.9)),
                deequ("has_distinctness", columns=[c], assertion=at_least(0.0)),
                deequ("has_max_length", c, assertion={"op": "<=", "value": 32}),
            ]
        pattern = patterns[kind]
        if pattern is not None:
            constraints.append({**pattern.to_dict(), "column": c})
        else:
            constraints.append(deequ("is_complete", c))
        assert len(constraints) == PER_COLUMN, (kind, len(constraints))
        checks.append({"description": f"column {c}", "level": "Error", "constraints": constraints})
    doc = {"format": "autovalidate-suite", "version": 2, "checks": checks}
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return sum(len(c["constraints"]) for c in checks)


_LOAD = """
import sys, time
from autovalidate.checks.spec import ConstraintSuite
t = time.perf_counter()
suite = ConstraintSuite.load(sys.argv[1])
parsed = time.perf_counter()
checks = suite.to_checks()
built = time.perf_counter()
print(f"{len(suite.constraints)} constraints: parse {parsed - t:.2f} s, "
      f"checks {built - parsed:.2f} s")
"""


def measure(name: str, argv: list[str]) -> dict[str, Any]:
    """Run ``argv`` under ``/usr/bin/time -v``; its peak RSS (bytes), wall (s) and exit code."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(
        [TIME, "-v", *argv], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    wall = time.perf_counter() - started
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    tail = [line for line in done.stdout.splitlines() if line.strip()][-3:]
    run = {
        "name": name,
        "argv": [Path(a).name if a.startswith("/tmp") else a for a in argv[1:]],
        "exit_code": done.returncode,
        "peak_rss_bytes": int(rss.group(1)) * 1024 if rss else None,
        "wall_s": round(wall, 2),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "output_tail": tail,
    }
    print(
        f"{name}: exit {run['exit_code']}, peak RSS {run['peak_rss_bytes'] / 2**20:.0f} MiB, "
        f"wall {wall:.1f} s, load {load_before:.2f} -> {run['load_after']:.2f}",
        flush=True,
    )
    if done.returncode not in (0, 1):
        print(done.stderr[-2000:], file=sys.stderr)
    return run


def commands(work: Path) -> dict[str, list[str]]:
    """The measured commands, by name."""
    av = [sys.executable, "-m", "autovalidate"]
    orders, wide = work / "orders.csv", work / "wide.csv"
    return {
        "suggest": [*av, "suggest", str(orders), "--out", str(work / "orders-suite.json")],
        "suggest --column placed_on": [*av, "suggest", str(orders), "--column", "placed_on"],
        "validate orders": [
            *av,
            "validate",
            str(orders),
            "--constraints",
            str(work / "orders-suite.json"),
        ],
        "load suite": [sys.executable, "-c", _LOAD, str(work / "suite.json")],
        "validate wide": [*av, "validate", str(wide), "--constraints", str(work / "suite.json")],
    }


def write_markdown(doc: dict[str, Any]) -> None:
    """``memory.md``: one table of every label's runs."""
    lines = [
        "# Peak memory of suggest and validate (issue 35, item 4)",
        "",
        "`python3 benchmarks/memory.py --label LABEL`: each command in its own process under "
        "`/usr/bin/time -v` (peak RSS of the process). Inputs (seeded, under /tmp): "
        f"`orders.csv`, {doc['inputs']['rows']:,} rows, "
        f"{doc['inputs']['orders_bytes'] / 1e6:.0f} MB "
        "(id, date, state code, decimal); `wide.csv`, "
        f"{WIDE_COLUMNS:,} columns x {WIDE_ROWS:,} rows; `suite.json`, "
        f"{doc['inputs']['suite_constraints']:,} constraints on `wide.csv`, "
        f"{doc['inputs']['suite_bytes'] / 1e6:.1f} MB. Target: suggest on the 20M-row CSV "
        "under 1 GB. A shared 2-core machine: wall times move with the load average.",
        "",
        "| label | commit | command | exit | peak RSS (MiB) | wall (s) | load before/after |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for label, entry in doc["labels"].items():
        sha = (entry["commit"]["sha"] or "?")[:12] + (
            " (dirty)" if entry["commit"]["dirty"] else ""
        )
        for run in entry["runs"]:
            rss = run["peak_rss_bytes"]
            lines.append(
                f"| {label} | `{sha}` | {run['name']} | {run['exit_code']} | "
                f"{'?' if rss is None else f'{rss / 2**20:,.0f}'} | {run['wall_s']:.1f} | "
                f"{run['load_before']:.2f} / {run['load_after']:.2f} |"
            )
    lines += ["", *doc.get("notes", []), "", "Command outputs (last lines):", ""]
    for label, entry in doc["labels"].items():
        for run in entry["runs"]:
            tail = " / ".join(t.strip() for t in run["output_tail"])
            lines.append(f"- {label}, {run['name']}: {tail}")
    (RESULTS / "memory.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--label", required=True)
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument(
        "--only",
        default=None,
        help="comma-separated command names (default: all but 'validate wide')",
    )
    args = parser.parse_args(argv)
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    orders, wide, suite = work / "orders.csv", work / "wide.csv", work / "suite.json"
    if not orders.exists():
        print(f"writing {orders} ...", flush=True)
        make_orders(orders, args.rows)
    if not suite.exists():
        kinds = make_wide(orders, wide)
        print(f"{make_suite(orders, kinds, suite):,} constraints in {suite}", flush=True)
    # validating wide.csv (10,000 constraints, 35 s here) is measured on demand
    wanted = set(args.only.split(",")) if args.only else set(commands(work)) - {"validate wide"}
    runs = [measure(name, cmd) for name, cmd in commands(work).items() if name in wanted]
    path = RESULTS / "memory.json"
    doc = json.loads(path.read_text()) if path.exists() else {"labels": {}}
    with duckdb.connect() as con:
        (rows,) = con.execute(f"SELECT count(*) FROM read_csv('{orders}')").fetchone() or (0,)
    doc["inputs"] = {
        "rows": rows,
        "orders_bytes": orders.stat().st_size,
        "suite_bytes": suite.stat().st_size,
        "suite_constraints": WIDE_COLUMNS * PER_COLUMN,
    }
    doc["machine"] = machine()
    doc.setdefault("notes", [])
    previous = doc["labels"].get(args.label, {}).get("runs", [])
    kept = [r for r in previous if r["name"] not in {r["name"] for r in runs}]
    doc["labels"][args.label] = {"commit": commit(ROOT), "runs": kept + runs}
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    write_markdown(doc)


if __name__ == "__main__":
    main()
