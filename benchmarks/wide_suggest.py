"""Benchmark: whole-table ``autovalidate suggest`` on wide tables (100 rows, many columns).

Usage::

    python3 benchmarks/wide_suggest.py [--columns 100,200,400,1000,5000] [--rows 100]
                                       [--timeout 240]

For each width, writes (once, seeded) a CSV of ``--rows`` rows under
``benchmarks/work/wide/`` whose columns cycle through four kinds (integers,
decimals, three colours, ``ID-`` codes), and runs
``python -m autovalidate suggest FILE --json`` on it in a subprocess with the
packaged default index, stopping it after ``--timeout`` seconds. Records wall
and CPU seconds (``wait4``), seconds per column, and the 1-minute load average
before each run. Linear work has a flat time per column.

Writes ``wide_suggest.json`` and ``wide_suggest.md`` to ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.deequ_bench import RESULTS, WORK, _commit, _machine  # noqa: E402

SEED = 35


def wide_csv(columns: int, rows: int) -> Path:
    """The CSV of ``columns`` columns and ``rows`` rows (written once)."""
    path = WORK / "wide" / f"wide-{columns}x{rows}.csv"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([SEED, columns, rows])
    colours = np.array(["red", "green", "blue"])
    cells = []
    for i in range(columns):
        kind = i % 4
        if kind == 0:
            cells.append(rng.integers(0, 1000, rows).astype(str))
        elif kind == 1:
            cells.append(np.round(rng.normal(size=rows), 3).astype(str))
        elif kind == 2:
            cells.append(colours[rng.integers(0, 3, rows)])
        else:
            cells.append(
                np.char.add("ID-", np.char.zfill(rng.integers(0, 99999, rows).astype(str), 5))
            )
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow([f"c{i}" for i in range(columns)])
        writer.writerows(zip(*cells, strict=True))
    tmp.rename(path)
    return path


def run(path: Path, timeout: float) -> dict:
    """One ``autovalidate suggest --json`` subprocess: wall, CPU, peak memory, or a timeout."""
    load = round(os.getloadavg()[0], 2)
    command = [sys.executable, "-m", "autovalidate", "suggest", str(path), "--json"]
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    finished = timer.is_alive()
    timer.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)
    result = {
        "finished": finished,
        "exit_code": process.returncode,
        "seconds": round(wall, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "load_before": load,
    }
    return result


def markdown(report: dict) -> str:
    """The report as Markdown."""
    p = report["params"]
    lines = [
        "# Whole-table `autovalidate suggest` on wide tables",
        "",
        f"{p['rows']} rows, CSV, columns cycling through integers, decimals, three colours and "
        f"`ID-` codes; the packaged default index; commit `{report['commit'][:12]}`, "
        f"{report['machine']['cores']} cores shared with other work (load average before each "
        f"run in the table). Timeout {p['timeout']} s. Command: `{p['command']}`.",
        "",
        "| columns | outcome | wall (s) | CPU (s) | wall per column (ms) | load before |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for r in report["runs"]:
        per = 1000 * r["seconds"] / r["columns"]
        outcome = (
            "done"
            if r["exit_code"] == 0
            else "timeout"
            if not r["finished"]
            else f"error (exit {r['exit_code']})"
        )
        lines.append(
            f"| {r['columns']:,} | {outcome} | {r['seconds']:.1f} | "
            f"{r.get('cpu_seconds', float('nan')):.1f} | "
            f"{per:.0f}{'' if r['finished'] else ' (at least)'} | {r['load_before']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--columns", default="100,200,400,1000,5000")
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--label", default="", help="suffix of the result files")
    args = parser.parse_args(argv)
    runs = []
    for n in (int(c) for c in args.columns.split(",")):
        result = {"columns": n, **run(wide_csv(n, args.rows), args.timeout)}
        print(result, flush=True)
        runs.append(result)
    report = {
        "params": {
            "rows": args.rows,
            "timeout": args.timeout,
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        },
        "commit": _commit(),
        "machine": _machine(),
        "runs": runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    name = "wide_suggest" + (f"-{args.label}" if args.label else "")
    (args.out / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{name}.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
