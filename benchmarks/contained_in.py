"""``is_contained_in`` with many allowed values: a suite's run against a hand-written query.

Usage::

    python3 benchmarks/contained_in.py [--sizes 1000,10000,100000,1000000]
        [--checkout DIR --label NAME] [--spark] [--quick]

Generates (once, deterministically) under ``benchmarks/work/contained_in/`` a
CSV file of 100,000 rows whose column ``code`` holds texts ``C0000000`` to
``C2000000``, and for each size N a suite of one check,
``is_contained_in("code", ["C0000000", ..., N values])``. Then, each in a fresh
interpreter (``PYTHONPATH`` at the checkout measured: this one, or
``--checkout DIR``, e.g. an older commit for a before/after):

* ``suite``: ``ConstraintSuite.load(path).run(csv)``, as ``autovalidate
  validate --constraints`` runs it (reading and checking the suite, then one
  scan);
* ``suite on Spark`` (``--spark``, up to :data:`SPARK_MOST` values): the
  same suite on the file read by Spark ``local[2]`` (``header=True``, all
  strings), the session's start not counted;
* ``hand-written``: DuckDB's ``SELECT count(*) FILTER (WHERE code IS NULL OR
  code IN (SELECT unnest($1)))`` over the same file, the allowed values passed
  as one list parameter: the least a query can cost.

Keeps each one's wall time (seconds) and the interpreter's peak resident
memory (bytes), and checks that both give the same share of rows. Writes
``contained_in.json`` and ``contained_in.md`` to ``benchmarks/results/``
(``--label NAME``: ``contained_in-NAME.*``; ``--quick``: sizes 1,000 and
10,000, to ``benchmarks/work/quick-results/``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.avbench.report import commit, machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
WORK = ROOT / "benchmarks" / "work" / "contained_in"
ROWS = 100_000
SIZES = (1_000, 10_000, 100_000, 1_000_000)
#: The most allowed values measured on Spark: at 1,000,000 the plan of one IN
#: list outgrows the driver's default 1 GB heap (OutOfMemoryError).
SPARK_MOST = 100_000

#: Run in a fresh interpreter: argv is the method, the data file and the suite file.
_CHILD = r"""
import json, resource, sys, time
method, data, suite = sys.argv[1:4]
started = time.perf_counter()
if method in ("suite", "suite on spark"):
    from autovalidate.checks.spec import ConstraintSuite
    if method == "suite on spark":
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
        spark = spark.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        data = spark.read.csv(data, header=True)
        started = time.perf_counter()  # the session and the reader are not the suite's
    result = ConstraintSuite.load(suite).run(data)
    (share,) = [r.metric.value for c in result.check_results for r in c.constraint_results]
else:
    import duckdb
    spec = json.load(open(suite))
    allowed = spec["checks"][0]["constraints"][0]["allowed_values"]
    con = duckdb.connect()
    sql = (
        "SELECT count(*) FILTER (WHERE code IS NULL OR code IN (SELECT unnest($1))) / count(*) "
        "FROM read_csv(?, all_varchar = true)"
    )
    (share,) = con.execute(sql, [allowed, data]).fetchone()
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
import autovalidate
print(json.dumps({"seconds": seconds, "peak_bytes": peak, "share": float(share),
                  "package": autovalidate.__file__}))
"""


def prepare(sizes: Sequence[int]) -> tuple[Path, dict[int, Path]]:
    """The data file and a suite file per size (written once)."""
    WORK.mkdir(parents=True, exist_ok=True)
    data = WORK / "codes.csv"
    if not data.exists():
        r = random.Random(0)
        lines = ["code"] + [f"C{r.randint(0, 2_000_000):07d}" for _ in range(ROWS)]
        data.write_text("\n".join(lines) + "\n")
    suites = {}
    for n in sizes:
        path = WORK / f"suite-{n}.json"
        if not path.exists():
            constraint = {
                "kind": "deequ",
                "constraint": "is_contained_in",
                "column": "code",
                "allowed_values": [f"C{i:07d}" for i in range(n)],
                "assertion": {"op": ">=", "value": 0.0},
            }
            suite = {
                "format": "autovalidate-suite",
                "version": 2,
                "checks": [{"description": "codes", "level": "Error", "constraints": [constraint]}],
            }
            path.write_text(json.dumps(suite))
        suites[n] = path
    return data, suites


def run_child(checkout: Path, method: str, data: Path, suite: Path) -> dict[str, Any]:
    """One measurement in a fresh interpreter with ``PYTHONPATH`` at ``checkout``."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, method, str(data), str(suite)],
        env=env,
        cwd=WORK,  # not the checkout running this script: ``-c`` puts the cwd first on sys.path
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def measure(checkout: Path, sizes: Sequence[int], spark: bool) -> list[dict[str, Any]]:
    """Every method at every size; raises if they disagree on the share."""
    data, suites = prepare(sizes)
    rows = []
    for n in sizes:
        ours = run_child(checkout, "suite", data, suites[n])
        hand = run_child(checkout, "hand-written", data, suites[n])
        row = {"allowed_values": n, "suite": ours, "hand_written": hand}
        if spark and n <= SPARK_MOST:
            row["suite_on_spark"] = run_child(checkout, "suite on spark", data, suites[n])
        for name, got in row.items():
            if name == "suite" and not got["package"].startswith(str(checkout)):
                raise AssertionError(f"measured {got['package']}, not the checkout {checkout}")
            if name != "allowed_values" and abs(got["share"] - hand["share"]) > 1e-12:
                raise AssertionError(f"{n} values: {name} {got['share']} != {hand['share']}")
        rows.append(row)
        print(
            f"{n:>9,} values: suite {ours['seconds']:.2f} s, {ours['peak_bytes'] / 2**20:.0f} MiB;"
            f" hand-written {hand['seconds']:.2f} s, {hand['peak_bytes'] / 2**20:.0f} MiB",
            file=sys.stderr,
        )
    return rows


def markdown(report: dict[str, Any]) -> str:
    """The results as a table."""
    sha = (report["commit"]["sha"] or "?")[:12]
    dirty = ", with uncommitted changes" if report["commit"]["dirty"] else ""
    lines = [
        "# is_contained_in with many allowed values",
        "",
        f"`{report['command']}`, at `{report['checkout']}` (commit `{sha}`{dirty}); "
        f"{ROWS:,} rows of CSV; {report['machine']['cores']} cores, load average "
        f"{report['machine']['load_average_1min']:.2f} at the start. A fresh interpreter per "
        "measurement; wall time from the call to the answer, the interpreter's peak resident "
        "memory. `suite`: `ConstraintSuite.load(path).run(csv)`; `hand-written`: DuckDB's "
        "`code IN (SELECT unnest($1))`, the values one list parameter. Both give the same share.",
        "",
        "| allowed values | suite (s) | suite peak (MiB) | hand-written (s) "
        "| hand-written peak (MiB) | suite on Spark local[2] (s) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["rows"]:
        ours, hand = row["suite"], row["hand_written"]
        spark = row.get("suite_on_spark")
        lines.append(
            f"| {row['allowed_values']:,} | {ours['seconds']:.2f} | "
            f"{ours['peak_bytes'] / 2**20:.0f} | {hand['seconds']:.2f} | "
            f"{hand['peak_bytes'] / 2**20:.0f} | "
            + ("–" if spark is None else f"{spark['seconds']:.1f}")
            + " |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--label", default="")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--spark", action="store_true", help="also the suite on Spark local[2]")
    args = parser.parse_args(argv)
    sizes = (1_000, 10_000) if args.quick else tuple(int(s) for s in args.sizes.split(","))
    report = {
        "command": "python3 benchmarks/contained_in.py " + " ".join(argv or sys.argv[1:]),
        "commit": commit(args.checkout.resolve()),
        "checkout": str(args.checkout),
        "machine": machine(),
        "rows": measure(args.checkout.resolve(), sizes, args.spark),
    }
    out = ROOT / "benchmarks" / "work" / "quick-results" if args.quick else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    name = f"contained_in-{args.label}" if args.label else "contained_in"
    (out / f"{name}.json").write_text(json.dumps(report, indent=2))
    (out / f"{name}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
