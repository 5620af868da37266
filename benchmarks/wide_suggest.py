"""Benchmark: whole-table ``autovalidate suggest`` and ``validate`` on wide tables.

Usage::

    python3 benchmarks/wide_suggest.py [--columns 100,200,400,1000,5000] [--rows 100]
                                       [--timeout 240] [--no-validate]

For each width, writes (once, seeded) a CSV of ``--rows`` rows under
``benchmarks/work/wide/`` whose columns cycle through four kinds (integers,
decimals, three colours, ``ID-`` codes), and runs
``python -m autovalidate suggest FILE --json --out SUITE`` on it in a
subprocess with the packaged default index, stopping it after ``--timeout``
seconds. When suggest finished, it then runs ``python -m autovalidate validate
FILE -c ONE --json``, ``ONE`` holding one constraint per column: the last one
suggested for it (a uniqueness bound for the numbers, a pattern for the
colours and codes). Records wall and CPU seconds (``wait4``), milliseconds per
column, and the 1-minute load average before each run. Linear work has a flat
time per column.

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


def one_per_column(suite: Path) -> Path:
    """A copy of a suggested suite keeping the last constraint of each column's check."""
    spec = json.loads(suite.read_text())
    for check in spec["checks"]:
        check["constraints"] = check["constraints"][-1:]
    path = suite.with_name(suite.stem + "-one.json")
    path.write_text(json.dumps(spec))
    return path


def run(arguments: Sequence[str], timeout: float) -> dict:
    """One ``python -m autovalidate ARGUMENTS`` subprocess: wall, CPU and exit code, or timeout."""
    load = round(os.getloadavg()[0], 2)
    command = [sys.executable, "-m", "autovalidate", *arguments]
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


def _table(runs: list[dict], passed: tuple[int, ...]) -> list[str]:
    """Table rows of runs; an exit code in ``passed`` is an outcome ``done``."""
    lines = [
        "| columns | outcome | wall (s) | CPU (s) | wall per column (ms) | load before "
        "| CPU per column (ms) |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        per = 1000 * r["seconds"] / r["columns"]
        cpu = 1000 * r.get("cpu_seconds", float("nan")) / r["columns"]
        outcome = (
            "timeout"
            if not r["finished"]
            else "done"
            if r["exit_code"] in passed
            else f"error (exit {r['exit_code']})"
        )
        lines.append(
            f"| {r['columns']:,} | {outcome} | {r['seconds']:.1f} | "
            f"{r.get('cpu_seconds', float('nan')):.1f} | "
            f"{per:.0f}{'' if r['finished'] else ' (at least)'} | {r['load_before']} | "
            f"{cpu:.0f}{'' if r['finished'] else ' (at least)'} |"
        )
    return lines


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
        *_table(report["runs"], (0,)),
    ]
    if report.get("validate_runs"):
        lines += [
            "",
            "## Whole-table `autovalidate validate`, one constraint per column",
            "",
            "The suite suggested above, with the last constraint of each column: a uniqueness "
            "bound for the integers and decimals, a pattern for the colours and codes "
            "(exit 1, a failed check, would count as done too).",
            "",
            *_table(report["validate_runs"], (0, 1)),
        ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--columns", default="100,200,400,1000,5000")
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--label", default="", help="suffix of the result files")
    parser.add_argument("--no-validate", action="store_true", help="suggest only, no validate runs")
    args = parser.parse_args(argv)
    runs, validate_runs = [], []
    for n in (int(c) for c in args.columns.split(",")):
        path = wide_csv(n, args.rows)
        suite = path.with_name(path.stem + "-suite.json")
        suite.unlink(missing_ok=True)
        arguments = ["suggest", str(path), "--json", "--out", str(suite)]
        result = {"columns": n, **run(arguments, args.timeout)}
        print("suggest", result, flush=True)
        runs.append(result)
        if args.no_validate or result["exit_code"] != 0:
            continue
        arguments = ["validate", str(path), "-c", str(one_per_column(suite)), "--json"]
        result = {"columns": n, **run(arguments, args.timeout)}
        print("validate", result, flush=True)
        validate_runs.append(result)
    report = {
        "params": {
            "rows": args.rows,
            "timeout": args.timeout,
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        },
        "commit": _commit(),
        "machine": _machine(),
        "runs": runs,
        "validate_runs": validate_runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    name = "wide_suggest" + (f"-{args.label}" if args.label else "")
    (args.out / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{name}.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
