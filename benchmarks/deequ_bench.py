"""Benchmark of the Deequ metric checks: scan sharing, and incremental verification.

Usage::

    python3 benchmarks/deequ_bench.py [--rows N] [--deltas K] [--engines duckdb,spark] [--quick]

1. Generates (once, deterministically) an orders table of ``--rows`` rows
   (10 million by default) as ``--deltas`` Parquet files under
   ``benchmarks/work/``; the files are the deltas of the incremental study.
2. Scan sharing: runs a suite of about 20 constraints on the whole table with
   scan sharing (ICDE 2019, Algorithm 1) and with one query per analyzer, on
   DuckDB and on Spark ``local[2]``, and checks that both give the same metrics;
   on the Parquet files (the fastest of ``--repeat`` runs) and on CSV copies of
   them, a row format where every scan parses every field.
   The same for the scan-shareable analyzers alone (the groupings run the
   same queries either way).
3. Incremental verification (PVLDB 2018, Fig. 5 style): after each delta,
   verifies the table so far by recomputing from all its files, and
   incrementally from the stored states of the previous deltas plus the new
   delta; for the whole suite and for its scan-only part (no grouping).

Writes ``deequ_bench.json`` (every number, the parameters, the commit and the
machine) and ``deequ_bench.md`` to ``benchmarks/results/`` (``--quick``: a
small run for smoke tests, written to ``benchmarks/work/quick-results/``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from autovalidate.analysis import (  # noqa: E402
    AnalysisRunner,
    AnalyzerContext,
    LocalDirectoryStateProvider,
)
from autovalidate.checks import Check, CheckLevel, ConstrainableDataType  # noqa: E402
from autovalidate.engines.duckdb import new_connection  # noqa: E402
from autovalidate.metrics import Analyzer  # noqa: E402
from autovalidate.metrics.base import FrequencyBasedAnalyzer  # noqa: E402

WORK = ROOT / "benchmarks" / "work"
RESULTS = ROOT / "benchmarks" / "results"
SEED = 20180801
COUNTRIES = np.array(["US", "DE", "FR", "GB", "JP", "BR", "IN", "CN", "CA", "AU", "ES", "IT"])
CATEGORIES = np.array([f"category-{i:02d}" for i in range(20)])
STATUSES = np.array(["new", "paid", "shipped", "delivered", "returned"])


def generate_part(index: int, start: int, rows: int) -> pa.Table:
    """Rows ``start .. start + rows`` of the orders table, from a seed per part."""
    rng = np.random.default_rng([SEED, index])
    order_id = np.arange(start, start + rows, dtype=np.int64)
    customer = rng.integers(1, 1_000_000, rows)
    country = COUNTRIES[np.minimum(rng.geometric(0.25, rows) - 1, len(COUNTRIES) - 1)]
    category = CATEGORIES[rng.integers(0, len(CATEGORIES), rows)]
    price = np.round(rng.lognormal(3.0, 1.0, rows), 2)
    quantity = rng.integers(0, 11, rows)
    discount = np.round(rng.uniform(0.0, 0.5, rows), 3)
    status = STATUSES[rng.integers(0, len(STATUSES), rows)]
    sku_number = pc.utf8_lpad(
        pc.cast(pa.array(rng.integers(0, 100_000, rows)), pa.string()), 5, "0"
    )
    sku = pc.binary_join_element_wise("SKU-", sku_number, "")
    zip_code = pc.utf8_lpad(
        pc.cast(pa.array(rng.integers(500, 100_000, rows)), pa.string()), 5, "0"
    )
    # real-world noise: missing prices and discounts, malformed SKUs and zip codes
    broken_sku = rng.random(rows) < 0.001
    sku = pc.if_else(pa.array(broken_sku), pc.utf8_lower(sku), sku)
    short_zip = rng.random(rows) < 0.002
    zip_code = pc.if_else(pa.array(short_zip), pc.utf8_slice_codeunits(zip_code, 1), zip_code)
    return pa.table(
        {
            "order_id": order_id,
            "customer_id": customer,
            "country": country,
            "category": category,
            "price": pa.array(price, mask=rng.random(rows) < 0.01),
            "quantity": quantity,
            "discount": pa.array(discount, mask=rng.random(rows) < 0.05),
            "status": status,
            "sku": sku,
            "zip": zip_code,
        }
    )


def generate(rows: int, parts: int, directory: Path) -> list[Path]:
    """Write the table as ``parts`` Parquet files once; reuse them when already complete."""
    manifest = directory / "manifest.json"
    wanted = {"rows": rows, "parts": parts, "seed": SEED, "version": 1}
    paths = [directory / f"part-{i:03d}.parquet" for i in range(parts)]
    if manifest.exists() and json.loads(manifest.read_text()) == wanted:
        return paths
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    bounds = np.linspace(0, rows, parts + 1).astype(int)
    for i, path in enumerate(paths):
        table = generate_part(i, int(bounds[i]), int(bounds[i + 1] - bounds[i]))
        pq.write_table(table, path, row_group_size=1 << 20)
    manifest.write_text(json.dumps(wanted))
    return paths


def suite() -> list[Check]:
    """About 20 constraints of every kind (all but the pattern rule, which needs an index)."""
    return [
        Check(CheckLevel.ERROR, "orders: keys and size")
        .has_size(lambda n: n > 0)
        .is_complete("order_id")
        .is_unique("order_id")
        .has_distinctness("customer_id", lambda d: d > 0.0)
        .has_approx_count_distinct("customer_id", lambda n: n > 0),
        Check(CheckLevel.WARNING, "orders: values")
        .has_completeness("price", lambda c: c >= 0.98)
        .is_non_negative("price")
        .is_in_range("discount", 0.0, 0.5)
        .is_contained_in("status", STATUSES.tolist())
        .has_min("quantity", lambda v: v >= 0)
        .has_max("quantity", lambda v: v <= 10)
        .has_mean("price", lambda v: v > 0)
        .has_standard_deviation("price", lambda v: v > 0)
        .has_approx_quantile("price", 0.5, lambda v: v > 0)
        .has_correlation("price", "quantity", lambda c: abs(c) < 0.1)
        .is_less_than("discount", "price", lambda f: f > 0.9)
        .has_entropy("country", lambda h: h > 1)
        .has_mutual_information("country", "category", lambda mi: mi < 0.01)
        .has_pattern("sku", r"SKU-[0-9]{5}", lambda f: f > 0.99)
        .has_data_type("zip", ConstrainableDataType.INTEGRAL)
        .has_min_length("zip", lambda n: n == 5)
        .has_max_length("zip", lambda n: n == 5),
    ]


def analyzers_of(checks: Sequence[Check]) -> list[Analyzer]:
    """The analyzers a suite needs, without repeats."""
    return list(dict.fromkeys(a for c in checks for a in c.required_analyzers()))


def as_csv(paths: Sequence[Path]) -> list[Path]:
    """CSV copies of the Parquet parts (written once, beside them in ``csv/``)."""
    copies = []
    for path in paths:
        target = path.parent / "csv" / path.with_suffix(".csv").name
        if not target.exists():
            target.parent.mkdir(exist_ok=True)
            tmp = target.with_suffix(".tmp")
            new_connection().execute(
                f"COPY (SELECT * FROM read_parquet('{path}')) TO '{tmp}' (HEADER, DELIMITER ',')"
            )
            tmp.rename(target)
        copies.append(target)
    return copies


_DUCKDB_TYPES = {pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.string(): "VARCHAR"}
_SPARK_TYPES = {pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.string(): "STRING"}


class Engine:
    """How to open the data of one engine: the whole table, or some of its files.

    Parquet parts are read as they are; CSV parts with the Parquet schema
    (no type sniffing), so both formats give the same typed table.
    """

    def __init__(self, name: str, spark: Any = None) -> None:
        self.name = name
        self.spark = spark
        self.schema = generate_part(0, 0, 1).schema

    def data(self, paths: Sequence[Path]) -> Any:
        """The table made of ``paths``, as the engine reads it."""
        files = [str(p) for p in paths]
        csv = paths[0].suffix == ".csv"
        if self.name == "spark":
            if csv:
                ddl = ", ".join(f"`{f.name}` {_SPARK_TYPES[f.type]}" for f in self.schema)
                return self.spark.read.schema(ddl).csv(files, header=True)
            return self.spark.read.parquet(*files)
        if csv:
            columns = {f.name: _DUCKDB_TYPES[f.type] for f in self.schema}
            return new_connection().read_csv(files, header=True, columns=columns)  # type: ignore[arg-type]  # a list of paths is accepted
        return new_connection().read_parquet(files)


def timed(run: Callable[[], AnalyzerContext]) -> tuple[float, AnalyzerContext]:
    """Wall time of one run, in seconds."""
    start = time.perf_counter()
    context = run()
    return time.perf_counter() - start, context


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (a != a and b != b) or abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _load() -> float:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else float("nan")


def bench_scan_sharing(
    engine: Engine, paths: Sequence[Path], analyzers: list[Analyzer], repeat: int
) -> dict:
    """Time the analyzers with and without scan sharing on the whole table.

    The two modes alternate ``repeat`` times; each keeps its fastest run (other
    work on the machine only ever slows a run down) and records the 1-minute
    load average before each run.
    """
    results: dict[str, Any] = {}
    contexts = {}
    for _ in range(repeat):
        for mode, share in (("shared", True), ("separate", False)):
            load = _load()

            def analyse(share: bool = share) -> AnalyzerContext:
                return (
                    AnalysisRunner.on_data(engine.data(paths))
                    .add_analyzers(analyzers)
                    .share_scans(share)
                    .run()
                )

            seconds, context = timed(analyse)
            entry = results.setdefault(mode, {"runs_seconds": [], "load_before": []})
            entry["runs_seconds"].append(round(seconds, 3))
            entry["load_before"].append(load)
            entry.update(
                seconds=min(entry["runs_seconds"]),
                scans=context.stats.scans,
                queries=context.stats.queries,
                failed_metrics=[str(a) for a, m in context.metrics.items() if m.error is not None],
            )
            contexts[mode] = context
            print(
                f"  {engine.name} {mode}: {seconds:.1f} s, {context.stats.scans} scans", flush=True
            )
    results["speedup"] = round(results["separate"]["seconds"] / results["shared"]["seconds"], 2)
    results["same_metrics"] = all(
        _same(contexts["shared"].metric(a).value, contexts["separate"].metric(a).value)
        for a in analyzers
    )
    return results


def _directory_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def bench_incremental(
    engine: Engine, paths: Sequence[Path], analyzers: list[Analyzer], states_root: Path
) -> list[dict]:
    """After each delta: recompute from all files vs. update the stored states with the delta."""
    shutil.rmtree(states_root, ignore_errors=True)
    rows: list[dict] = []
    previous: LocalDirectoryStateProvider | None = None
    total_rows = 0
    for t, path in enumerate(paths, start=1):
        total_rows += pq.ParquetFile(path).metadata.num_rows
        load = _load()

        def recompute(t: int = t) -> AnalyzerContext:
            return AnalysisRunner.on_data(engine.data(paths[:t])).add_analyzers(analyzers).run()

        recompute_s, full = timed(recompute)
        current = LocalDirectoryStateProvider(states_root / f"after-{t:03d}")

        def update(path: Path = path, previous: Any = previous, current: Any = current) -> Any:
            builder = AnalysisRunner.on_data(engine.data([path])).add_analyzers(analyzers)
            if previous is not None:
                builder = builder.aggregate_with(previous)
            return builder.save_states_with(current).run()

        incremental_s, incremental = timed(update)
        rows.append(
            {
                "delta": t,
                "rows": total_rows,
                "load_before": load,
                "recompute_seconds": round(recompute_s, 3),
                "incremental_seconds": round(incremental_s, 3),
                "state_bytes": _directory_bytes(current.path),
                "same_metrics": all(
                    _same(full.metric(a).value, incremental.metric(a).value)
                    for a in analyzers
                    # a merged quantile summary is exact only up to its rank error
                    if not a.metric_name.startswith("ApproxQuantile")
                ),
            }
        )
        print(
            f"  {engine.name} delta {t}: recompute {recompute_s:.1f} s, "
            f"incremental {incremental_s:.1f} s",
            flush=True,
        )
        if previous is not None:
            previous.clear()
        previous = current
    return rows


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _machine() -> dict:
    memory = None
    if hasattr(os, "sysconf") and "SC_PHYS_PAGES" in os.sysconf_names:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    import duckdb
    import pyspark

    return {
        "cores": os.cpu_count(),
        "memory_bytes": memory,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "pyspark": pyspark.__version__,
    }


def markdown(report: dict) -> str:
    """The report as Markdown tables."""
    p = report["params"]
    lines = [
        "# Deequ metric checks: benchmark",
        "",
        f"{p['rows']:,} rows in {p['deltas']} Parquet files (and their CSV copies), "
        f"{p['analyzers']} analyzers ({p['scan_only_analyzers']} scan-shareable) for "
        f"{p['constraints']} constraints; commit `{report['commit'][:12]}`, "
        f"{report['machine']['cores']} cores shared with other work (load average in the JSON). "
        f"Command: `{p['command']}`.",
        "",
        "## Scan sharing (ICDE 2019, Algorithm 1) vs one query per analyzer",
        "",
        f"Wall-clock seconds, the fastest of {p['repeat']} alternating runs per mode "
        f"(CSV: {p['csv_repeat']} run).",
        "",
        "| analyzers | format | engine | shared (s) | scans | separate (s) | scans | speedup | same"
        " |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in report["scan_sharing"]:
        lines.append(
            f"| {r['analyzers']} | {r['format']} | {r['engine']} | {r['shared']['seconds']:.1f} | "
            f"{r['shared']['scans']} | {r['separate']['seconds']:.1f} | "
            f"{r['separate']['scans']} | {r['speedup']:.2f}x | {r['same_metrics']} |"
        )
    for suite_name, by_engine in report["incremental"].items():
        lines += [
            "",
            f"## Incremental vs recomputation as deltas accumulate: {suite_name}",
            "",
            "| engine | delta | rows | recompute (s) | incremental (s) | ratio | state (MB) |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for engine, rows in by_engine.items():
            for r in rows:
                ratio = r["recompute_seconds"] / max(r["incremental_seconds"], 1e-9)
                lines.append(
                    f"| {engine} | {r['delta']} | {r['rows']:,} | {r['recompute_seconds']:.2f} | "
                    f"{r['incremental_seconds']:.2f} | {ratio:.2f}x | "
                    f"{r['state_bytes'] / 1e6:.1f} |"
                )
    return "\n".join(lines) + "\n"


def run_benchmark(
    rows: int,
    deltas: int,
    engines: Sequence[str],
    out: Path,
    *,
    data_dir: Path,
    spark: Any = None,
    warm_up: bool = True,
    repeat: int = 2,
    csv_repeat: int = 1,
) -> dict:
    """Run the whole benchmark and write ``deequ_bench.json`` and ``deequ_bench.md`` to ``out``.

    ``csv_repeat=0`` leaves out the CSV runs.
    """
    paths = generate(rows, deltas, data_dir)
    csv_paths = as_csv(paths) if csv_repeat else []
    checks = suite()
    analyzers = analyzers_of(checks)
    scan_only = [a for a in analyzers if not isinstance(a, FrequencyBasedAnalyzer)]
    suites = (("whole suite", analyzers), ("scan-only analyzers", scan_only))
    report: dict[str, Any] = {
        "params": {
            "rows": rows,
            "deltas": deltas,
            "engines": list(engines),
            "constraints": sum(len(c.constraints) for c in checks),
            "analyzers": len(analyzers),
            "scan_only_analyzers": len(scan_only),
            "seed": SEED,
            "warm_up": warm_up,
            "repeat": repeat,
            "csv_repeat": csv_repeat,
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        },
        "commit": _commit(),
        "machine": _machine(),
        "scan_sharing": [],
        "incremental": {name: {} for name, _ in suites},
    }
    for name in engines:
        if name == "spark" and spark is None:
            from autovalidate.engines.spark_session import local_session

            spark = local_session("deequ-bench", master="local[2]")
        engine = Engine(name, spark)
        if warm_up:  # JIT, caches: on one delta, not measured
            AnalysisRunner.on_data(engine.data(paths[:1])).add_analyzers(analyzers).run()
        runs = [(s, "parquet", paths, repeat) for s in suites]
        if csv_repeat:  # a row format: every scan parses every field, as in Deequ's setting
            runs.append((suites[0], "csv", csv_paths, csv_repeat))
        for (suite_name, chosen), fmt, files, times in runs:
            print(f"scan sharing ({suite_name}, {fmt}) on {name}", flush=True)
            result = bench_scan_sharing(engine, files, chosen, times)
            report["scan_sharing"].append(
                {"analyzers": suite_name, "format": fmt, "engine": name, **result}
            )
        for suite_name, chosen in suites:
            print(f"incremental ({suite_name}) on {name}", flush=True)
            report["incremental"][suite_name][name] = bench_incremental(
                engine, paths, chosen, data_dir.parent / f"states-{name}"
            )
    out.mkdir(parents=True, exist_ok=True)
    (out / "deequ_bench.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "deequ_bench.md").write_text(markdown(report))
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows of the table")
    parser.add_argument("--deltas", type=int, default=10, help="files (deltas) it is split into")
    parser.add_argument("--engines", default="duckdb,spark", help="comma-separated engines")
    parser.add_argument("--repeat", type=int, default=2, help="runs per scan-sharing mode")
    parser.add_argument("--csv-repeat", type=int, default=1, help="the same on CSV (0: skip)")
    parser.add_argument("--quick", action="store_true", help="small run for a smoke test")
    parser.add_argument("--out", type=Path, help="output directory")
    args = parser.parse_args(argv)
    if args.quick:
        args.rows, args.deltas = min(args.rows, 10_000), min(args.deltas, 2)
        args.repeat, args.csv_repeat = 1, min(args.csv_repeat, 1)
    out = args.out or (WORK / "quick-results" if args.quick else RESULTS)
    data_dir = WORK / f"orders-{args.rows}-{args.deltas}"
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    run_benchmark(
        args.rows,
        args.deltas,
        engines,
        out,
        data_dir=data_dir,
        warm_up=not args.quick,
        repeat=args.repeat,
        csv_repeat=args.csv_repeat,
    )
    print(f"wrote {out / 'deequ_bench.json'} and {out / 'deequ_bench.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
