"""Benchmark: where the seconds of autovalidate-spark's peers run go, phase by phase.

Usage::

    python3 benchmarks/spark_phases.py [--rows N] [--format parquet|csv] [--label NAME]

The 16 checks of ``peers.py`` on its orders table, as ``peer_runners/autovalidate_run.py``
runs them on Spark ``local[2]``, timed by phase in one process: starting the
session (JVM included), opening the file (Spark reads the Parquet footer or
infers the CSV schema: one job), each query of the verification (the shared
aggregation, one grouping per uniqueness check), and the whole verification
once more on the warm JVM (its queries compiled and the JIT warm). Writes
``spark_phases[-LABEL].json`` and ``.md`` to ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from autovalidate import VerificationSuite  # noqa: E402
from autovalidate.engines import spark as spark_engine  # noqa: E402
from autovalidate.engines.spark_session import local_session  # noqa: E402
from benchmarks.deequ_bench import RESULTS, WORK, _commit, _machine, as_csv, generate  # noqa: E402
from benchmarks.peers import CHECKS  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks" / "peer_runners"))
from autovalidate_run import check_of  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    (parquet,) = generate(args.rows, 1, WORK / f"orders-{args.rows}-1")
    path = str(parquet if args.format == "parquet" else as_csv([parquet])[0])
    checks = [check_of(c) for c in CHECKS]
    phases: list[tuple[str, float]] = []
    queries: list[tuple[str, float]] = []

    def timed(name: str, method: Any) -> Any:
        def run(*a: Any, **k: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*a, **k)
            finally:
                queries.append((name, time.perf_counter() - start))

        return run

    engine = spark_engine.SparkEngine
    engine.aggregate = timed("shared aggregation", engine.aggregate)  # type: ignore[method-assign]
    table = spark_engine.SparkFrequencyTable
    table.aggregate = timed("grouping (uniqueness)", table.aggregate)  # type: ignore[method-assign]
    load = round(os.getloadavg()[0], 2)
    start = time.perf_counter()
    spark = local_session("spark-phases", master="local[2]")
    phases.append(("start the session (JVM)", time.perf_counter() - start))
    start = time.perf_counter()
    reader = spark.read
    frame = (
        reader.parquet(path)
        if args.format == "parquet"
        else reader.csv(path, header=True, inferSchema=True)
    )
    phases.append(("open the file (schema)", time.perf_counter() - start))
    start = time.perf_counter()
    VerificationSuite().on_data(frame).add_checks(checks).run()
    verification = time.perf_counter() - start
    cold = list(queries)
    queries.clear()
    start = time.perf_counter()
    VerificationSuite().on_data(frame).add_checks(checks).run()
    warm = time.perf_counter() - start
    report = {
        "params": {"rows": args.rows, "format": args.format, "command": " ".join(sys.argv)},
        "commit": _commit(),
        "machine": _machine(),
        "load_before": load,
        "load_after": round(os.getloadavg()[0], 2),
        "phases": phases + [("verification (first, cold JVM)", verification)],
        "cold_queries": cold,
        "warm_verification": warm,
        "warm_queries": list(queries),
    }
    lines = [
        f"# Where autovalidate-spark's seconds go ({args.rows:,} rows, {args.format})",
        "",
        f"The 16 checks of `peers.py` on Spark local[2], one process; commit "
        f"`{report['commit'][:12]}`, PySpark {report['machine']['pyspark']}, "
        f"{report['machine']['cores']} cores shared with other work (1-minute load average "
        f"{load} before, {report['load_after']} after). Command: "
        f"`spark_phases.py {' '.join(sys.argv[1:])}`.",
        "",
        "| phase | seconds |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {s:.2f} |" for name, s in report["phases"]]
    lines += [f"| - of which {name} | {s:.2f} |" for name, s in cold]
    lines += [f"| the same verification again, warm JVM | {warm:.2f} |"]
    lines += [f"| - of which {name} | {s:.2f} |" for name, s in queries]
    name = "spark_phases" + (f"-{args.label}" if args.label else "")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
