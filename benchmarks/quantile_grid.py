"""What the approximate quantile's exact grid costs a DuckDB validation (issue 35).

Usage::

    python3 benchmarks/quantile_grid.py [--rows N] [--repeat R] [--label NAME]

``has_approx_quantile`` keeps a mergeable state: the lower quantiles at the
``K + 1`` probabilities ``i / K`` (``K = 100`` for Deequ's default relative
error 0.01; :class:`~autovalidate.metrics.sketches.QuantileSummary`), which
DuckDB computes exactly with ``quantile_disc(x, [...])``, inside the shared
scan; a run that keeps no state (these) asks only for the points its metrics
read (:func:`~autovalidate.metrics.sketches.narrowed_quantile_grids`), 4 for
a median. Two measurements:

* the peers' suite (``benchmarks/peers.py``'s 16 checks) on its ``--rows``
  orders table, Parquet and CSV, run as ``peers.py`` runs autovalidate on
  DuckDB (``peers.run_tool``, one subprocess per run), with and without its
  one quantile check (``price_median``): the difference is what the grid
  costs the whole validation;
* the aggregate alone on an in-memory table of ``--rows`` uniform doubles:
  ``count`` (the floor of an aggregate over the column), the exact median,
  the 4 points a median check reads, the exact grid of 101 probabilities
  (what a run that keeps states asks), and DuckDB's
  ``approx_quantile`` (t-digest, no rank bound) at the same probabilities.

Runs alternate and each keeps its fastest of ``--repeat``. Writes
``quantile_grid[-NAME].json`` and ``.md`` to ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from autovalidate.engines.duckdb import new_connection, render  # noqa: E402
from autovalidate.metrics import ApproxQuantile  # noqa: E402
from autovalidate.metrics import expressions as E  # noqa: E402
from autovalidate.metrics.expressions import quantile_grid_probabilities  # noqa: E402
from benchmarks.avbench.report import commit, machine  # noqa: E402
from benchmarks.deequ_bench import RESULTS, WORK, as_csv, generate  # noqa: E402
from benchmarks.peers import CHECKS, run_tool  # noqa: E402

#: The grid of the default relative error 0.01.
GRID = 100


def suite_runs(rows: int, repeat: int) -> list[dict[str, Any]]:
    """The peers' suite with and without its quantile check, Parquet and CSV, best of ``repeat``."""
    (parquet,) = generate(rows, 1, WORK / f"orders-{rows}-1")
    files = {"parquet": parquet, "csv": as_csv([parquet])[0]}
    with tempfile.TemporaryDirectory(prefix="quantile-grid-") as tmp:
        suites = {
            "all 16 checks": CHECKS,
            "without price_median": [c for c in CHECKS if c["kind"] != "median_between"],
        }
        paths = {}
        for name, checks in suites.items():
            paths[name] = Path(tmp) / f"{len(checks)}.json"
            paths[name].write_text(json.dumps(checks))
        best: dict[tuple[str, str], float] = {}
        for _ in range(repeat):
            for fmt, path in files.items():
                for name, checks_file in paths.items():
                    run = run_tool("autovalidate-duckdb", fmt, path, checks_file)
                    if "error" in run:
                        raise RuntimeError(f"{name}, {fmt}: {run['error']}")
                    s = float(run["seconds"])
                    best[(fmt, name)] = min(best.get((fmt, name), float("inf")), s)
    return [{"format": f, "suite": n, "seconds": round(s, 3)} for (f, n), s in best.items()]


def aggregate_runs(rows: int, repeat: int) -> list[dict[str, Any]]:
    """One aggregate over ``rows`` in-memory doubles, fastest of ``repeat`` each."""
    probabilities = quantile_grid_probabilities(GRID)
    grid = "[" + ", ".join(repr(p) for p in probabilities) + "]"
    median_points = E.quantile_grid(
        E.col("x"), GRID, 1, sorted(ApproxQuantile("x", 0.5).grid_points() or ())
    )
    aggregates = {
        "count(x)": "count(x)",
        "median(x) (exact)": "median(x)",
        "quantile_disc(x, the 4 probabilities a median check reads)": render(median_points),
        f"quantile_disc(x, {GRID + 1} probabilities) (exact; the engine's)": (
            f"quantile_disc(x, {grid})"
        ),
        f"approx_quantile(x, {GRID + 1} probabilities) (t-digest)": f"approx_quantile(x, {grid})",
    }
    con = new_connection()
    con.execute(f"CREATE TABLE t AS SELECT random() * 100 AS x FROM range({rows})")
    best: dict[str, float] = {}
    for _ in range(repeat):
        for name, sql in aggregates.items():
            started = time.perf_counter()
            con.execute(f"SELECT {sql} FROM t").fetchall()
            seconds = time.perf_counter() - started
            best[name] = min(best.get(name, float("inf")), seconds)
    con.close()
    return [{"aggregate": n, "seconds": round(s, 3)} for n, s in best.items()]


def _markdown(report: dict[str, Any]) -> str:
    lines = [
        "# What the approximate quantile's exact grid costs a DuckDB validation",
        "",
        f"{report['rows']:,} rows; commit `{(report['commit']['sha'] or 'unknown')[:12]}`"
        f"{' (dirty)' if report['commit']['dirty'] else ''}; {report['machine']['cores']} cores "
        f"shared with other work (1-minute load average before/after: "
        f"{report['load'][0]:.2f} / {report['load'][1]:.2f}). Fastest of {report['repeat']} "
        f"alternating runs. Command: `{report['command']}`.",
        "",
        "## The peers' suite (`peers.py`'s checks), autovalidate on DuckDB",
        "",
        "Seconds from reading the file to the verdicts, inside the runner's process.",
        "",
        "| format | suite | seconds |",
        "|---|---|---:|",
    ]
    for r in report["suite"]:
        lines.append(f"| {r['format']} | {r['suite']} | {r['seconds']:.2f} |")
    lines += [
        "",
        "## One aggregate over an in-memory column of doubles",
        "",
        "| aggregate | seconds |",
        "|---|---:|",
    ]
    for r in report["aggregates"]:
        lines.append(f"| `{r['aggregate']}` | {r['seconds']:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--label", default="", help="suffix of the result files")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    suite = suite_runs(args.rows, args.repeat)
    aggregates = aggregate_runs(args.rows, args.repeat)
    report = {
        "rows": args.rows,
        "repeat": args.repeat,
        "commit": commit(ROOT),
        "machine": machine(),
        "load": [load_before, os.getloadavg()[0]],
        "command": "quantile_grid.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "suite": suite,
        "aggregates": aggregates,
    }
    stem = "quantile_grid" + (f"-{args.label}" if args.label else "")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{stem}.md").write_text(_markdown(report))
    print(_markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
