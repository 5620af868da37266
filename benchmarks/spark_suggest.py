"""Benchmark: whole-table suggest on a PySpark DataFrame, its time and its Spark jobs.

Usage::

    python3 benchmarks/spark_suggest.py [--columns 40] [--rows 2000] [--partitions 4]
                                        [--repeat 3] [--out DIR] [--tag NAME]

Takes ``benchmarks/wide_suggest.py``'s CSV of ``--columns`` columns and
``--rows`` rows (seeded; its columns cycle through integers, decimals, three
colours and ``ID-`` codes), reads it with a local Spark session
(``local[2]``) as text, repartitions it into ``--partitions`` and caches it,
so that every run reads the same partitions from memory, and
runs ``ConstraintSuggestionRunner.on_data(frame).run()`` with the packaged
default index ``--repeat`` times. Per run: wall seconds, the Spark jobs the
run started (the session's status tracker), and the engine's scans and
queries (``result.stats``). A small table's suggestion on Spark costs its
jobs, not its rows.

Writes ``spark_suggest.json`` and ``spark_suggest.md`` to
``benchmarks/results/`` (``--tag NAME``: ``spark_suggest-NAME.*``, a run of
another revision kept beside).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.deequ_bench import RESULTS, _commit, _machine  # noqa: E402
from benchmarks.wide_suggest import wide_csv  # noqa: E402


def markdown(report: dict) -> str:
    """The report as a Markdown page."""
    runs = report["runs"]
    lines = [
        "# Whole-table suggest on a PySpark DataFrame",
        "",
        f"`python3 benchmarks/spark_suggest.py --columns {report['columns']} "
        f"--rows {report['rows']} --partitions {report['partitions']} "
        f"--repeat {len(runs)}` at `{report['commit'][:12]}`, local[2], "
        f"{report['machine']['cores']} cores, pyspark {report['machine'].get('pyspark')}.",
        f"A cached DataFrame of {report['rows']} rows and {report['columns']} text columns "
        f"(`wide_suggest.py`'s CSV) in {report['partitions']} partitions; "
        f"the packaged default index; {report['suggestions']} suggestions.",
        "",
        "| run | seconds | Spark jobs | scans | queries |",
        "|---:|---:|---:|---:|---:|",
    ]
    for k, r in enumerate(runs, 1):
        lines.append(f"| {k} | {r['seconds']:.1f} | {r['jobs']} | {r['scans']} | {r['queries']} |")
    lines += [
        "",
        f"Median {report['median_seconds']:.1f} s. Load average before the runs: "
        f"{report['load_before']:.2f}.",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--columns", type=int, default=40)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--tag", default="")
    args = parser.parse_args(argv)

    from autovalidate.engines.spark_session import local_session
    from autovalidate.suggest import ConstraintSuggestionRunner

    path = wide_csv(args.columns, args.rows)
    spark = local_session("autovalidate-spark-suggest", master="local[2]")
    frame = spark.read.csv(str(path), header=True).repartition(args.partitions).cache()
    frame.count()
    tracker = spark.sparkContext.statusTracker()
    load = os.getloadavg()[0]
    runs, suggestions = [], 0
    for _ in range(args.repeat):
        before = len(tracker.getJobIdsForGroup())
        start = time.perf_counter()
        result = ConstraintSuggestionRunner.on_data(frame).run()
        seconds = time.perf_counter() - start
        jobs = len(tracker.getJobIdsForGroup()) - before
        suggestions = len(result.suggestions)
        runs.append(
            {
                "seconds": seconds,
                "jobs": jobs,
                "scans": result.stats.scans,
                "queries": result.stats.queries,
            }
        )
        print(f"{seconds:.1f} s, {jobs} Spark jobs, {result.stats.scans} scans", flush=True)
    report = {
        "columns": args.columns,
        "rows": args.rows,
        "partitions": args.partitions,
        "suggestions": suggestions,
        "runs": runs,
        "median_seconds": statistics.median(r["seconds"] for r in runs),
        "load_before": load,
        "commit": _commit(),
        "machine": _machine(),
    }
    stem = "spark_suggest" + (f"-{args.tag}" if args.tag else "")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{stem}.md").write_text(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
