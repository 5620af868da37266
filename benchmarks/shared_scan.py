"""Benchmark: one shared scan vs one query per analyzer vs a hand-written query.

Usage::

    python3 benchmarks/shared_scan.py [--rows N] [--parts K] [--repeat R] [--label NAME]
                                      [--engine duckdb|spark] [--format parquet|csv]

The scan-shareable analyzers of ``deequ_bench.py``'s suite (18 of them) on its
orders table as Parquet (generated once under ``benchmarks/work/``) or its CSV
copy (read with the Parquet file's types, as ``deequ_bench.py`` reads it: no
sniffing, the same typed table), on DuckDB or Spark (``local[2]``), three ways:

- ``shared``: the analysis runner with scan sharing, one ``SELECT`` for all;
- ``separate``: the runner with one query per analyzer;
- ``hand-written``: one ``SELECT`` written by hand that computes the same
  numbers the same way (the same MD5 HyperLogLog codes, the same quantile
  points: those the median reads, as the runner asks without a state store),
  the floor for the shared scan; and ``hand-written, native HLL``: the same
  with DuckDB's own ``approx_count_distinct``, which gives other numbers.
  DuckDB only: on Spark the two runner modes are compared.

The modes alternate ``--repeat`` times (ABCD ABCD ...); each keeps its fastest
wall time and its least process CPU time (other work on the shared machine only
ever adds to either), and the 1-minute load average is recorded before each run.
Writes ``shared_scan[-LABEL].json`` and ``.md`` to ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from autovalidate.analysis import AnalysisRunner  # noqa: E402
from autovalidate.engines.duckdb import render  # noqa: E402
from autovalidate.metrics import ApproxQuantile  # noqa: E402
from autovalidate.metrics import expressions as E  # noqa: E402
from autovalidate.metrics.base import FrequencyBasedAnalyzer  # noqa: E402
from benchmarks.deequ_bench import (  # noqa: E402
    RESULTS,
    STATUSES,
    WORK,
    Engine,
    _commit,
    _machine,
    analyzers_of,
    as_csv,
    generate,
    suite,
)

#: ``has_data_type``'s regex of a fractional number, as the analyzer renders it.
_FRACTIONAL = r"(-|\+)? ?[0-9]+((\.[0-9]+)|((?:\.[0-9]+)?[Ee][-+]?[0-9]+))"
#: The quantile points the runner asks for the suite's median when it keeps no state.
_GRID = render(
    E.quantile_grid(
        E.col("price"), 100, 10_000, sorted(ApproxQuantile("price", 0.5).grid_points() or ())
    )
).replace('"price"', "price")


def hand_written(native_hll: bool) -> str:
    """One SELECT computing the numbers of the scan-shareable analyzers."""
    statuses = ", ".join(f"'{s}'" for s in STATUSES)
    if native_hll:
        distinct = "approx_count_distinct(customer_id)"
    else:
        codes = render(E.hll_code(E.col("customer_id"), 12))
        distinct = f"bitstring_agg({codes}, 0, {(1 << 12) * 64 - 1})"
    return f"""
    SELECT count(*), count(order_id), {distinct},
           count(price), count_if(coalesce(price, 0) >= 0),
           count_if(discount IS NULL OR discount BETWEEN 0 AND 0.5),
           count_if(status IS NULL OR status IN ({statuses})),
           min(quantity), max(quantity), sum(price), avg(price), var_pop(price),
           {_GRID},
           corr(price, quantity), count_if(discount < price),
           count_if(regexp_full_match(sku, 'SKU-[0-9]{{5}}')),
           count_if(zip IS NULL),
           count_if(regexp_full_match(zip, '{_FRACTIONAL}')),
           count_if(regexp_full_match(zip, '(-|\\+)? ?[0-9]+')),
           count_if(regexp_full_match(zip, '(true|false)')),
           min(length(zip)), max(length(zip))
    FROM _av_data"""


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(modes: dict[str, Callable[[], Any]], repeat: int) -> dict[str, dict]:
    """Alternate the modes ``repeat`` times; wall and CPU seconds and the load of each run."""
    results: dict[str, dict] = {m: {"wall": [], "cpu": [], "load_before": []} for m in modes}
    for _ in range(repeat):
        for mode, run in modes.items():
            load, cpu, start = _load(), _cpu(), time.perf_counter()
            run()
            entry = results[mode]
            entry["wall"].append(round(time.perf_counter() - start, 3))
            entry["cpu"].append(round(_cpu() - cpu, 3))
            entry["load_before"].append(load)
            print(
                f"  {mode}: {entry['wall'][-1]:.2f} s wall, {entry['cpu'][-1]:.2f} s CPU, "
                f"load {load}",
                flush=True,
            )
    for entry in results.values():
        entry["best_wall"], entry["best_cpu"] = min(entry["wall"]), min(entry["cpu"])
    return results


def markdown(report: dict) -> str:
    """The report as a Markdown table."""
    p = report["params"]
    engine, fmt = p.get("engine", "duckdb"), p.get("format", "parquet")
    floor = report["modes"].get("hand-written") or report["modes"]["shared"]
    versus = "hand-written" if "hand-written" in report["modes"] else "shared"
    files = "Parquet files" if fmt == "parquet" else "CSV files (read with the Parquet types)"
    version = report["machine"].get("pyspark" if engine == "spark" else "duckdb", "")
    lines = [
        f"# Shared scan vs separate queries on {fmt.capitalize() if fmt == 'parquet' else 'CSV'}, "
        f"{'DuckDB' if engine == 'duckdb' else 'Spark local[2]'} ({report['label']})",
        "",
        f"{p['rows']:,} rows in {p['parts']} {files}, the {p['analyzers']} scan-shareable "
        f"analyzers of `deequ_bench.py`; commit `{report['commit'][:12]}`, {engine} "
        f"{version}, {report['machine']['cores']} cores shared with other "
        f"work (1-minute load average before the runs: {report['load_range']}). Best of "
        f"{p['repeat']} alternating runs. Command: `{p['command']}`.",
        "",
        f"| mode | wall (s) | CPU (s) | wall / {versus} | CPU / {versus} |",
        "|---|---:|---:|---:|---:|",
    ]
    for mode, r in report["modes"].items():
        lines.append(
            f"| {mode} | {r['best_wall']:.2f} | {r['best_cpu']:.2f} | "
            f"{r['best_wall'] / floor['best_wall']:.2f}x | "
            f"{r['best_cpu'] / floor['best_cpu']:.2f}x |"
        )
    if engine == "spark":
        lines += ["", "CPU: this Python process only (the JVM's work is not in it)."]
    s, sep = report["modes"]["shared"], report["modes"]["separate"]
    lines += [
        "",
        f"Speedup of the shared scan over separate queries: "
        f"{sep['best_wall'] / s['best_wall']:.2f}x wall, "
        f"{sep['best_cpu'] / s['best_cpu']:.2f}x CPU.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--parts", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--label", default="", help="suffix of the result files")
    parser.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb")
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    paths = generate(args.rows, args.parts, WORK / f"orders-{args.rows}-{args.parts}")
    if args.format == "csv":
        paths = as_csv(paths)
    spark = None
    if args.engine == "spark":
        from autovalidate.engines.spark_session import local_session

        spark = local_session("shared-scan", master="local[2]")
    reader = Engine(args.engine, spark)
    analyzers = [a for a in analyzers_of(suite()) if not isinstance(a, FrequencyBasedAnalyzer)]

    def runner(share: bool) -> Callable[[], Any]:
        def run() -> Any:
            data = reader.data(paths)
            return AnalysisRunner.on_data(data).add_analyzers(analyzers).share_scans(share).run()

        return run

    def query(sql: str) -> Callable[[], Any]:
        return lambda: reader.data(paths).query("_av_data", sql).fetchall()

    modes = {"shared": runner(True), "separate": runner(False)}
    if args.engine == "duckdb":
        modes["hand-written"] = query(hand_written(native_hll=False))
        modes["hand-written, native HLL"] = query(hand_written(native_hll=True))
    runner(True)()  # warm-up: file cache, imports
    results = measure(modes, args.repeat)
    loads = [x for r in results.values() for x in r["load_before"]]
    name = "shared_scan" + (f"-{args.label}" if args.label else "")
    report = {
        "label": args.label or "current",
        "params": {
            "rows": args.rows,
            "parts": args.parts,
            "repeat": args.repeat,
            "analyzers": len(analyzers),
            "engine": args.engine,
            "format": args.format,
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        },
        "commit": _commit(),
        "machine": _machine(),
        "load_range": f"{min(loads)}-{max(loads)}",
        "modes": results,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{name}.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
