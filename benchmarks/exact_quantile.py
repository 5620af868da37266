"""The exact quantile's cost against the approximate one, by the column's distinct values.

Usage::

    python3 benchmarks/exact_quantile.py [--rows 10000000] [--quick]

Writes (once, deterministically, seed 0) a Parquet file under
``benchmarks/work/exact_quantile/`` of ``--rows`` rows and two columns:
``x``, normal doubles (every value distinct), and ``k``, integers in
[0, 1000). Then, each in a fresh interpreter (its peak resident memory is
the check's): ``autovalidate.validate`` of one check, ``has_exact_quantile``
or ``has_approx_quantile`` at 0.5, on each column. The exact quantile's
state is the column's frequencies (one row per distinct value), so its cost
follows the distinct values; the approximate one keeps a fixed-size summary.
The exact value is checked against numpy's ``percentile``.

Writes ``exact_quantile.json`` and ``exact_quantile.md`` to
``benchmarks/results/`` (``--quick``: 100,000 rows, to
``benchmarks/work/quick-results/``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.avbench.report import commit, machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
WORK = ROOT / "benchmarks" / "work" / "exact_quantile"
METHODS = ("has_exact_quantile", "has_approx_quantile")

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[4])
import autovalidate as av
method, data, column = sys.argv[1:4]
check = getattr(av.Check(av.CheckLevel.ERROR, "q"), method)(column, 0.5, lambda v: True)
started = time.perf_counter()
result = av.validate(data, check)
seconds = time.perf_counter() - started
(row,) = result.to_dict()["results"]
print(json.dumps({"seconds": seconds, "value": row["value"], "package": av.__file__,
                  "peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def prepare(rows: int) -> Path:
    """The data file of ``rows`` rows (written once)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / f"values-{rows}.parquet"
    if not path.exists():
        rng = np.random.default_rng(0)
        table = pa.table({"x": rng.normal(size=rows), "k": rng.integers(0, 1000, size=rows)})
        pq.write_table(table, path)
    return path


def measure(rows: int) -> dict[str, Any]:
    """Both methods on both columns, each in a fresh interpreter."""
    import numpy as np
    import pyarrow.parquet as pq

    data = prepare(rows)
    out: dict[str, Any] = {"rows": rows, "columns": {}}
    for column, distinct in (("x", rows), ("k", 1000)):
        runs = {}
        for method in METHODS:
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, method, str(data), column, str(ROOT)],
                cwd=WORK,  # not a checkout: ``-c`` puts the cwd first on sys.path
                capture_output=True,
                text=True,
                check=True,
            )
            runs[method] = json.loads(done.stdout.strip().splitlines()[-1])
        out["columns"][column] = {"distinct": distinct, **runs}
    # read only now: a child's peak memory counts its parent's at the fork (Linux keeps the
    # high-water mark across exec), and the table would be 160 MB of every child's peak
    table = pq.read_table(data)
    for column, found in out["columns"].items():
        found["numpy"] = truth = float(np.percentile(table[column].to_numpy(), 50))
        exact = found["has_exact_quantile"]["value"]
        if exact != truth:
            raise AssertionError(f"{column}: the exact quantile {exact} is not numpy's {truth}")
    return out


def markdown(report: dict[str, Any]) -> str:
    """The report as a table."""
    lines = [
        f"# The exact quantile against the approximate one ({report['rows']:,} rows)",
        "",
        f"`python3 benchmarks/exact_quantile.py`; commit `{report['commit']['sha']}`"
        f"{' (with changes)' if report['commit']['dirty'] else ''}, {report['machine']['cores']} "
        "cores. One check, the median, through `autovalidate.validate` on a Parquet file, each "
        "in a fresh interpreter (peak resident memory of the process).",
        "",
        "| column | distinct values | method | seconds | peak MB | value |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for column, found in report["columns"].items():
        for method in METHODS:
            run = found[method]
            lines.append(
                f"| `{column}` | {found['distinct']:,} | `{method}` | {run['seconds']:.1f} | "
                f"{run['peak_bytes'] / 2**20:.0f} | {run['value']:.6g} |"
            )
    lines += ["", "The exact values equal numpy's `percentile` (linear interpolation)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run and write the report; 0 on success."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--quick", action="store_true", help="100,000 rows, to work/")
    args = parser.parse_args(argv)
    rows = 100_000 if args.quick else args.rows
    out = ROOT / "benchmarks" / "work" / "quick-results" if args.quick else RESULTS
    report = {"commit": commit(ROOT), "machine": machine(), **measure(rows)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "exact_quantile.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "exact_quantile.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
