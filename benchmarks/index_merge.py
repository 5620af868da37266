"""Appending to a pattern index against rebuilding it (issue 11, item 5).

Usage::

    python3 benchmarks/index_merge.py [--lake ../shared/lake] [--new-fraction 0.1]
                                      [--master local[2]] [--quick] [--name index_merge]

1. Splits the lake's tables (whole tables, in a seeded random order) into
   ``old`` (about 90 % of the columns) and ``new`` (the rest, at least
   ``--new-fraction``), written once under ``benchmarks/work/index_merge/``.
2. In one Spark session (``--master``, local[2] by default): builds the index
   of ``old`` (the existing index; it also warms the JVM up), then appends:
   builds the index of ``new`` and merges it into the old one
   (``autovalidate index build --lake NEW --merge-into OLD`` does the same
   two steps), then rebuilds: builds the index of the whole lake.
3. Checks that the appended index equals the rebuilt one pattern by pattern
   (``cov`` exact, ``imp_sum`` to 1e-9) in DuckDB.

Writes ``index_merge.json`` (times, sizes, the split, the commit, the
machine and its load average) and ``index_merge.md`` (``--name`` changes the
stem) to
``benchmarks/results/`` (``--quick``: ``../shared/lake-mini``, written to
``benchmarks/work/quick-results/``). The target is rebuild / append >= 5.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from autovalidate.index.merge import merge_indexes  # noqa: E402
from autovalidate.index.schema import PATTERN_COLUMNS, PATTERNS_DIR  # noqa: E402
from benchmarks.avbench.report import commit, machine  # noqa: E402
from benchmarks.scale_lake import MANIFEST as SCALE_MANIFEST  # noqa: E402

WORK = ROOT / "benchmarks" / "work" / "index_merge"
RESULTS = ROOT / "benchmarks" / "results"
LAKE = ROOT.parent / "shared" / "lake"
LAKE_MINI = ROOT.parent / "shared" / "lake-mini"
SEED = 5


def split_lake(lake: Path, new_fraction: float, work: Path) -> dict[str, Any]:
    """Write ``work/old`` and ``work/new``: the lake's tables split at random, whole tables.

    Tables are drawn into ``new`` in a seeded order until it holds at least
    ``new_fraction`` of the columns. Written once; the split is returned.
    """
    files = sorted(lake.glob("*.parquet"))
    tables = sorted(
        {t for f in files for t in pq.read_table(f, columns=["table_id"]).column(0).to_pylist()}
    )
    columns = sum(pq.read_metadata(f).num_rows for f in files)
    counts: dict[str, int] = {}
    for f in files:
        for t in pq.read_table(f, columns=["table_id"]).column(0).to_pylist():
            counts[t] = counts.get(t, 0) + 1
    order = list(tables)
    random.Random(SEED).shuffle(order)
    new: set[str] = set()
    taken = 0
    for t in order:
        if taken >= new_fraction * columns:
            break
        new.add(t)
        taken += counts[t]
    stamp = work / f"split-{lake.name}-{new_fraction:g}.json"
    split = {
        "lake": str(lake),
        "columns": columns,
        "tables": len(tables),
        "new_columns": taken,
        "new_tables": len(new),
        "old_columns": columns - taken,
        "old_tables": len(tables) - len(new),
        "seed": SEED,
    }
    if stamp.exists() and json.loads(stamp.read_text()) == split:
        return split
    for part in ("old", "new"):
        shutil.rmtree(work / part, ignore_errors=True)
        (work / part).mkdir(parents=True)
    wanted = sorted(new)
    for f in files:
        table = pq.read_table(f)
        is_new = pc.is_in(table.column("table_id"), value_set=_strings(wanted))
        for part, mask in (("new", is_new), ("old", pc.invert(is_new))):
            rows = table.filter(mask)
            if rows.num_rows:
                pq.write_table(rows, work / part / f.name, compression="zstd")
    stamp.write_text(json.dumps(split))
    return split


def _strings(values: list[str]) -> Any:
    import pyarrow as pa

    return pa.array(values, pa.string())


def index_bytes(index: Path) -> int:
    return sum(f.stat().st_size for f in index.rglob("*") if f.is_file())


def differing_patterns(a: Path, b: Path) -> int:
    """Patterns in one index only, or whose sums differ (counts exactly, fractions by > 1e-9).

    Every column of the index's pattern files is compared (Cov_T, Σ Imp and the
    conditional sums), so two builds or a build and a merge agree only if they
    would give every estimate alike.
    """
    differs = " OR ".join(
        f"abs(x.{c} - y.{c}) > 1e-9" if t == "DOUBLE" else f"x.{c} IS DISTINCT FROM y.{c}"
        for c, t in PATTERN_COLUMNS.items()
        if c not in ("pattern_id", "pattern")
    )
    q = "SELECT * FROM read_parquet('{}/{}/*.parquet')"
    with duckdb.connect() as con:
        ((n,),) = con.execute(
            f"SELECT count(*) FROM ({q.format(a, PATTERNS_DIR)}) x "
            f"FULL JOIN ({q.format(b, PATTERNS_DIR)}) y USING (pattern_id, pattern) "
            f"WHERE x.pattern_id IS NULL OR y.pattern_id IS NULL OR {differs}"
        ).fetchall()
    return int(n)


def run_benchmark(lake: Path, new_fraction: float, master: str, work: Path) -> dict[str, Any]:
    import pyspark

    from autovalidate.engines.spark_session import local_session
    from autovalidate.index.build import build_index

    split = split_lake(lake, new_fraction, work / "lakes")
    out = work / "indexes"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    load_before = os.getloadavg()
    spark = local_session(
        "index-merge-bench", master=master, log_file=work / "spark.log", driver_memory="4g"
    )
    timings: dict[str, float] = {}

    def timed(name: str, fn: Any) -> Any:
        started = time.perf_counter()
        result = fn()
        timings[name] = round(time.perf_counter() - started, 3)
        print(f"{name}: {timings[name]:.1f} s", file=sys.stderr, flush=True)
        return result

    try:
        old = timed(
            "build_old", lambda: build_index(spark, str(work / "lakes/old"), str(out / "old"))
        )
        timed("build_new", lambda: build_index(spark, str(work / "lakes/new"), str(out / "new")))
        merged = timed("merge", lambda: merge_indexes([out / "old", out / "new"], out / "appended"))
        whole = timed("rebuild", lambda: build_index(spark, str(lake), str(out / "rebuilt")))
    finally:
        spark.stop()
    load_after = os.getloadavg()
    append = timings["build_new"] + timings["merge"]
    return {
        "benchmark": "index_merge",
        "command": "python3 benchmarks/index_merge.py " + " ".join(sys.argv[1:]),
        "split": split,
        "master": master,
        "seconds": {**timings, "append": round(append, 3)},
        "ratio_rebuild_over_append": round(timings["rebuild"] / append, 2),
        "patterns": {
            "old": old.patterns,
            "appended": merged.patterns,
            "rebuilt": whole.patterns,
        },
        "bytes": {name: index_bytes(out / name) for name in ("old", "new", "appended", "rebuilt")},
        "differing_patterns": differing_patterns(out / "appended", out / "rebuilt"),
        "load_average": {"before": load_before, "after": load_after},
        "commit": commit(ROOT),
        "machine": {**machine(), "duckdb": duckdb.__version__, "pyspark": pyspark.__version__},
    }


def markdown(report: dict[str, Any]) -> str:
    s, split = report["seconds"], report["split"]
    mib = {k: v / 2**20 for k, v in report["bytes"].items()}
    load = report["load_average"]
    return "\n".join(
        [
            "# Appending to a pattern index against rebuilding it",
            "",
            f"Lake `{split['lake']}` ({split['columns']:,} columns, {split['tables']:,} tables), "
            f"split by whole tables (seed {split['seed']}): the existing index covers "
            f"{split['old_columns']:,} columns ({split['old_tables']:,} tables), the appended "
            f"part {split['new_columns']:,} columns ({split['new_tables']:,} tables, "
            f"{split['new_columns'] / split['columns']:.1%}). Spark `{report['master']}`, one "
            f"session, one run each; commit `{(report['commit']['sha'] or '?')[:12]}`, "
            f"{report['machine']['cores']} cores, load average {load['before'][0]:.1f} before "
            f"and {load['after'][0]:.1f} after (the machine was shared). "
            f"Command: `{report['command'].strip()}`.",
            "",
            "| step | wall (s) | index patterns | index MiB |",
            "|---|---:|---:|---:|",
            f"| build the existing index (90 %) | {s['build_old']:.1f} | "
            f"{report['patterns']['old']:,} | {mib['old']:.1f} |",
            f"| append: build the new 10 % | {s['build_new']:.1f} | | {mib['new']:.1f} |",
            f"| append: merge (DuckDB) | {s['merge']:.1f} | {report['patterns']['appended']:,} | "
            f"{mib['appended']:.1f} |",
            f"| **append, total** | **{s['append']:.1f}** | | |",
            f"| **rebuild the whole lake** | **{s['rebuild']:.1f}** | "
            f"{report['patterns']['rebuilt']:,} | {mib['rebuilt']:.1f} |",
            "",
            f"**Rebuild / append = {report['ratio_rebuild_over_append']:.2f}x** (target: >= 5x). "
            f"The appended index equals the rebuilt one: {report['differing_patterns']} patterns "
            "differ (Cov_T exact, every sum of impurity to 1e-9).",
            "",
            _scale_paragraph(report.get("scale")),
            "",
        ]
    )


def _scale_paragraph(scale: dict[str, Any] | None) -> str:
    """Which lake the run measured."""
    if scale:
        return (
            f"Measured on a scale lake: `benchmarks/scale_lake.py` wrote {scale['factor']}x "
            f"`{scale['base']}` (seed {scale['seed']}; each column drawn {scale['factor']} "
            "times, its values perturbed with their shapes kept)."
        )
    return (
        "Measured at 1x (the shared lake). The same run on scale lakes of it: "
        "`index_merge_4x.md` and `index_merge_10x.md`."
    )


def scale_of(lake: Path) -> dict[str, Any] | None:
    """The manifest of a lake written by ``benchmarks/scale_lake.py`` (None for another lake)."""
    manifest = lake / SCALE_MANIFEST
    if not manifest.exists():
        return None
    meta = json.loads(manifest.read_text())
    return {k: meta[k] for k in ("base", "factor", "seed")}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", type=Path, default=LAKE)
    parser.add_argument("--new-fraction", type=float, default=0.1)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--quick", action="store_true", help="lake-mini, to work/quick-results/")
    parser.add_argument(
        "--name",
        default="index_merge",
        help="results file stem (index_merge_4x for a scale lake keeps the 1x results)",
    )
    args = parser.parse_args(argv)
    lake = LAKE_MINI if args.quick else args.lake
    results = ROOT / "benchmarks" / "work" / "quick-results" if args.quick else RESULTS
    report = run_benchmark(lake, args.new_fraction, args.master, WORK)
    report["scale"] = scale_of(lake)
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{args.name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (results / f"{args.name}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
