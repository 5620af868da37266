"""Validation at raw regex speed: our pattern validation against a hand-written query (issue 11).

Usage::

    python3 benchmarks/validate_speed.py [--rows N] [--repeat K] [--engines duckdb,spark] [--quick]

1. Generates (once, deterministically) a Parquet file of ``--rows`` rows (10
   million by default) under ``benchmarks/work/validate_speed/``: a timestamp
   column ``ts`` (``2021-03-04T12:34:56Z``, 1 % nulls) whose values all fit the
   pattern, and ``ts_dirty``, the same with one value in 100,000 written
   another way (``2021-03-04 12:34:56``), spread over the file.
2. On DuckDB, validates each column with :meth:`PatternConstraint.validate`
   (the public call: the counts and the examples in one scan) and with the
   hand-written
   ``SELECT count(*) FILTER (WHERE NOT regexp_full_match(col, re)) FROM read_parquet(...)``;
   on Spark ``local[2]``, with :func:`autovalidate.validate_spark` (the counts
   in one scan, examples in one more query only when a value fails) and with a
   hand-written ``df.where(~col.rlike(re)).count()``; and the constraint as a
   one-check suite, as ``autovalidate validate`` runs it. All in this process,
   after one warm-up run each, alternating; the time of a method is its
   fastest of ``--repeat`` runs, in wall-clock and in CPU seconds (this
   process's, plus the JVM's on Spark). Every run's count must equal the
   hand-written one.

Writes ``validate_speed.json`` (every run, the parameters, the commit, the
machine and its load average) and ``validate_speed.md`` to
``benchmarks/results/`` (``--quick``: 20,000 rows, written to
``benchmarks/work/quick-results/``). The target is a ratio (ours / hand-written)
of at most 1.2 on both engines.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from autovalidate.checks.spec import ConstraintSuite  # noqa: E402
from autovalidate.metrics.expressions import quote_identifier, sql_literal  # noqa: E402
from autovalidate.pattern_constraint import PatternConstraint  # noqa: E402
from autovalidate.patterns.render import pattern_regex  # noqa: E402
from autovalidate.spark import validate_spark  # noqa: E402
from benchmarks.avbench.report import commit, machine  # noqa: E402

WORK = ROOT / "benchmarks" / "work"
RESULTS = ROOT / "benchmarks" / "results"
PATTERN = "<digit>{4}-<digit>{2}-<digit>{2}T<digit>{2}:<digit>{2}:<digit>{2}Z"
COLUMNS = ("ts", "ts_dirty")
#: One value in this many is written another way in ``ts_dirty``; one in 100 is null.
DIRTY_EVERY = 100_000
NULL_EVERY = 100
SEED = 11


def generate(rows: int, directory: Path) -> Path:
    """Write the data file once (deterministic: the seed and ``rows`` fix every value)."""
    path = directory / f"timestamps_{rows}.parquet"
    if path.exists():
        return path
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    seconds = rng.integers(0, 4 * 365 * 86_400, rows)
    stamps = np.datetime64("2020-01-01T00:00:00") + seconds.astype("timedelta64[s]")
    text = np.char.add(np.datetime_as_string(stamps, unit="s"), "Z")
    nulls = rng.integers(0, NULL_EVERY, rows) == 0
    dirty = text.copy()
    bad = rng.choice(rows, size=max(1, rows // DIRTY_EVERY), replace=False)
    dirty[bad] = np.char.replace(np.char.rstrip(dirty[bad], "Z"), "T", " ")
    nulls[bad] = False  # every value written another way is there to be found
    table = pa.table(
        {
            "ts": pa.array(text, pa.string(), mask=nulls),
            "ts_dirty": pa.array(dirty, pa.string(), mask=nulls),
        }
    )
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp, row_group_size=1_000_000)
    tmp.rename(path)
    return path


def constraint(column: str) -> PatternConstraint:
    """The strict pattern constraint of the timestamps (what suggest_pattern gives for them)."""
    return PatternConstraint.from_dict(
        {
            "kind": "autovalidate-pattern",
            "version": 1,
            "regex": pattern_regex(PATTERN),
            "pattern": PATTERN,
            "segments": [],
            "fpr": 0.0,
            "method": "fmdv",
            "test": "strict",
            "alpha": 0.01,
            "train_n": 1000,
            "train_nonconforming": 0,
            "column": column,
        }
    )


def cpu_seconds(pid: int | None = None) -> float:
    """CPU time (user + system) of this process, plus process ``pid``'s (Spark's JVM) if given.

    On a shared machine the CPU time a query costs varies far less than its
    wall-clock time, so the report gives both.
    """
    usage = resource.getrusage(resource.RUSAGE_SELF)
    total = usage.ru_utime + usage.ru_stime
    if pid is not None:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _best_of(
    methods: dict[str, Callable[[], int]], repeat: int, cpu: Callable[[], float]
) -> dict[str, dict[str, Any]]:
    """Run each method once to warm up, then ``repeat`` times alternating; times and counts."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in methods}
    counts: dict[str, set[int]] = {name: set() for name in methods}
    for name, method in methods.items():
        counts[name].add(method())
    for _ in range(repeat):
        for name, method in methods.items():
            start, start_cpu = time.perf_counter(), cpu()
            counts[name].add(method())
            runs[name].append((time.perf_counter() - start, cpu() - start_cpu))
    return {
        name: {
            "seconds": min(wall for wall, _ in runs[name]),
            "cpu_seconds": min(used for _, used in runs[name]),
            "runs": [round(wall, 4) for wall, _ in runs[name]],
            "cpu_runs": [round(used, 4) for _, used in runs[name]],
            "counts": sorted(counts[name]),
        }
        for name in methods
    }


def _suite(data: Any, column: str) -> Callable[[], int]:
    """The pattern constraint as a one-check suite, run as ``autovalidate validate`` runs it."""
    suite = ConstraintSuite.from_dict(constraint(column).to_dict())

    def run() -> int:
        outcome = suite.run(data).check_results[0].constraint_results[0]
        assert outcome.details is not None
        return int(outcome.details["n_nonconforming"])

    return run


def duckdb_methods(path: Path, column: str) -> dict[str, Callable[[], int]]:
    """Ours (PatternConstraint.validate, and a suite run) and the hand-written DuckDB count."""
    import duckdb

    c = constraint(column)
    con = duckdb.connect()
    hand_sql = (
        f"SELECT count(*) FILTER (WHERE NOT regexp_full_match({quote_identifier(column)}, "
        f"{sql_literal(c.regex)})) FROM read_parquet({sql_literal(str(path))})"
    )

    def ours() -> int:
        return c.validate(str(path)).n_nonconforming

    def hand() -> int:
        row = con.execute(hand_sql).fetchone()
        assert row is not None
        return int(row[0])

    return {"ours": ours, "suite": _suite(str(path), column), "hand-written": hand}


def spark_methods(spark: Any, path: Path, column: str) -> dict[str, Callable[[], int]]:
    """Ours (validate_spark, and a suite run) and the hand-written ``rlike`` count."""
    from pyspark.sql import functions as F

    c = constraint(column)
    frame = spark.read.parquet(str(path))

    def ours() -> int:
        return validate_spark(frame, c).n_nonconforming

    def hand() -> int:
        return int(frame.where(~F.col(column).rlike(c.regex)).count())

    return {"ours": ours, "suite": _suite(frame, column), "hand-written": hand}


def markdown(report: dict[str, Any]) -> str:
    """The report as a Markdown table."""
    p = report["params"]
    sha = report["commit"]["sha"] or "unknown"
    lines = [
        "# Validation at raw regex speed",
        "",
        f"{p['rows']:,} rows of Parquet (`{p['file']}`), pattern `{p['pattern']}`; the fastest "
        f"of {p['repeat']} alternating runs after a warm-up, in one process; commit "
        f"`{sha[:12]}`{' (with changes)' if report['commit']['dirty'] else ''}, "
        f"{report['machine']['cores']} cores, load average "
        f"{report['load_before'][0]:.1f} before and {report['load_after'][0]:.1f} after "
        f"(the machine was shared: the ratios, measured side by side, are what to read). "
        f"Command: `{p['command']}`. Target: ours / hand-written <= 1.2.",
        "",
        "| engine | column | non-conforming | hand-written (s) | ours (s) | ratio | CPU ratio "
        "| suite (s) | ratio | CPU ratio |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["results"]:
        hand, hand_cpu = r["hand-written"]["seconds"], r["hand-written"]["cpu_seconds"]
        lines.append(
            f"| {r['engine']} | {r['column']} | {r['nonconforming']:,} | {hand:.3f} | "
            f"{r['ours']['seconds']:.3f} | {r['ratio']:.2f}x | {r['cpu_ratio']:.2f}x | "
            f"{r['suite']['seconds']:.3f} | {r['suite']['seconds'] / hand:.2f}x | "
            f"{r['suite']['cpu_seconds'] / hand_cpu:.2f}x |"
        )
    lines += [
        "",
        "Ours is the public call: on DuckDB `PatternConstraint.validate(path)` (the counts and "
        "the five smallest non-conforming values in one scan), on Spark "
        "`validate_spark(df, constraint)` (the counts in one scan, five examples in one more "
        "query only when a value fails; that query stops at the fifth example, so it reads "
        "the whole file again only when the failures are few and late). Suite: the constraint "
        "as a one-check `ConstraintSuite` run on the same data, as `autovalidate validate` runs "
        "it (a VerificationSuite scan, examples of a failure in one more query). Hand-written: "
        "`SELECT count(*) FILTER (WHERE NOT regexp_full_match(col, re)) FROM "
        "read_parquet(...)` and `df.where(~col.rlike(re)).count()`. A ratio divides the "
        "fastest wall-clock times; a CPU ratio the smallest CPU times (user + system, of this "
        "process and, on Spark, of its JVM), which a shared machine disturbs much less.",
    ]
    return "\n".join(lines) + "\n"


def run_benchmark(
    rows: int,
    engines: Sequence[str],
    out: Path,
    *,
    data_dir: Path,
    repeat: int,
    command: str,
    spark: Any = None,
) -> dict[str, Any]:
    """Run every engine on both columns; write ``validate_speed.{json,md}`` to ``out``."""
    import duckdb
    import pyspark

    path = generate(rows, data_dir)
    load_before = os.getloadavg()
    results = []
    for engine in engines:
        jvm = None
        if engine == "spark":
            if spark is None:
                from autovalidate.engines.spark_session import local_session

                spark = local_session("validate-speed", master="local[2]")
            jvm = int(spark._jvm.java.lang.ProcessHandle.current().pid())
        for column in COLUMNS:
            methods = (
                duckdb_methods(path, column)
                if engine == "duckdb"
                else spark_methods(spark, path, column)
            )
            timed = _best_of(methods, repeat, functools.partial(cpu_seconds, jvm))
            ours, hand = timed["ours"], timed["hand-written"]
            if len({tuple(t["counts"]) for t in timed.values()}) != 1 or len(hand["counts"]) != 1:
                raise AssertionError(f"{engine} {column}: counts differ: {timed}")
            results.append(
                {
                    "engine": engine,
                    "column": column,
                    "nonconforming": hand["counts"][0],
                    **timed,
                    "ratio": ours["seconds"] / hand["seconds"],
                    "cpu_ratio": ours["cpu_seconds"] / hand["cpu_seconds"],
                }
            )
            print(
                f"{engine} {column}: ours {ours['seconds']:.3f} s, hand-written "
                f"{hand['seconds']:.3f} s, {results[-1]['ratio']:.2f}x "
                f"(CPU {results[-1]['cpu_ratio']:.2f}x)",
                flush=True,
            )
    report = {
        "params": {
            "rows": rows,
            "repeat": repeat,
            "engines": list(engines),
            "pattern": PATTERN,
            "regex": constraint("ts").regex,
            "file": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
            "file_bytes": path.stat().st_size,
            "command": command,
        },
        "commit": commit(ROOT),
        "machine": {**machine(), "duckdb": duckdb.__version__, "pyspark": pyspark.__version__},
        "load_before": list(load_before),
        "load_after": list(os.getloadavg()),
        "results": results,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "validate_speed.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "validate_speed.md").write_text(markdown(report))
    return report


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--engines", default="duckdb,spark")
    parser.add_argument("--quick", action="store_true", help="20,000 rows, results in work/")
    args = parser.parse_args(argv)
    rows = 20_000 if args.quick else args.rows
    out = WORK / "quick-results" if args.quick else RESULTS
    command = "python3 benchmarks/validate_speed.py " + " ".join(argv or sys.argv[1:])
    run_benchmark(
        rows,
        [e.strip() for e in args.engines.split(",") if e.strip()],
        out,
        data_dir=WORK / "validate_speed",
        repeat=1 if args.quick else args.repeat,
        command=command.strip(),
    )


if __name__ == "__main__":
    main()
