"""Suggest time against the number of training values, 10^3 to 10^6 (issue 11, item 1).

Usage::

    python3 benchmarks/suggest_scaling.py [--index DIR] [--sizes 1000,10000,100000,1000000]
                                          [--profile N] [--quick]

1. Reads a real column with many distinct values from ``../shared/lake``
   (``created_at`` of ``dslabs/trump_tweets.csv``, ISO timestamps such as
   ``2009-12-23T17:38:18Z``; 1,000 values in the lake) and resamples it with
   new digits: each training value is a lake value with every digit re-drawn
   (seeded), until the wanted number of *distinct* values is reached.
2. Also makes random GUIDs (seeded, ``uuid.UUID(int=...)``): every *token* of
   them is distinct, the costliest kind of column for the solver (one
   hierarchy representative per shape of a token, one row per value).
3. Times :func:`autovalidate.suggest_pattern` (the public call, default
   method ``fmdv-vh``) once per size and series: with its default sample cap
   (``MAX_VALUES`` values; the constraint says when it sampled) and, up to
   ``--unsampled-max`` values, with every value (``max_values=None``), to show
   the solver's own growth; and once on 10^6 values with only 100 distinct
   ones; against a pattern index: ``--index DIR``, or one built once in this
   process over ``../shared/lake-mini`` with the local builder (under
   ``benchmarks/work/suggest_scaling/``).
4. ``--profile N`` runs cProfile on the size N instead and prints the top
   functions by cumulative and by own time.

Writes ``suggest_scaling.json`` (every run, the commit, the machine and its
load average), ``suggest_scaling.md`` and ``suggest_scaling.png`` (log-log,
with a line of slope 1) to ``benchmarks/results/`` (``--quick``: sizes up to
10^4, to ``benchmarks/work/quick-results/``). Target: 10^6 values in < 10 s.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from autovalidate.index.reader import PatternIndex  # noqa: E402
from autovalidate.pattern_inference import MAX_VALUES, suggest_pattern  # noqa: E402
from benchmarks.avbench.report import commit, machine  # noqa: E402

WORK = ROOT / "benchmarks" / "work" / "suggest_scaling"
RESULTS = ROOT / "benchmarks" / "results"
SHARED = ROOT.parent / "shared"
TABLE = "vincentarelbundock/Rdatasets:csv/dslabs/trump_tweets.csv"
COLUMN = "created_at"
SIZES = (1_000, 10_000, 100_000, 1_000_000)
FEW_DISTINCT = 100
SEED = 1
#: Largest size also run without the sample cap (GUIDs cost ~0.1 ms per value).
UNSAMPLED_MAX = 100_000


def lake_column(lake: Path = SHARED / "lake") -> list[str]:
    """The real column's values as stored in the lake (up to 1,000)."""
    rows = (
        duckdb.connect()
        .execute(
            f"SELECT \"values\" FROM read_parquet('{lake}/*.parquet') "
            "WHERE table_id = ? AND column_name = ?",
            [TABLE, COLUMN],
        )
        .fetchall()
    )
    if not rows:
        raise SystemExit(f"{TABLE}.{COLUMN} not found in {lake}")
    return [v for v in rows[0][0] if v is not None]


def resample(seeds: list[str], distinct: int, total: int, seed: int = SEED) -> list[str]:
    """``total`` values with ``distinct`` distinct ones: seed values with every digit re-drawn."""
    rng = random.Random(seed)
    digits = "0123456789"
    templates = [[c if not c.isdigit() else None for c in s] for s in seeds]
    out: dict[str, None] = {}
    while len(out) < distinct:
        template = templates[rng.randrange(len(templates))]
        out["".join(c if c is not None else rng.choice(digits) for c in template)] = None
    values = list(out)
    while len(values) < total:
        values.extend(values[: total - len(values)])
    rng.shuffle(values)
    return values


def index_path(given: Path | None) -> Path:
    """The index to suggest against: ``given``, or a local build of lake-mini (made once)."""
    if given is not None:
        return given
    out = WORK / "index-lake-mini"
    if not out.exists():
        import pyarrow.parquet as pq

        from autovalidate.index.state import write_local_index

        columns = []
        for f in sorted((SHARED / "lake-mini").glob("*.parquet")):
            columns += pq.read_table(f, columns=["values"]).column(0).to_pylist()
        print(f"building {out} (local builder, once)", file=sys.stderr, flush=True)
        write_local_index(columns, out, corpus_path=str(SHARED / "lake-mini"))
    return out


def guids(n: int, seed: int = SEED) -> list[str]:
    """``n`` distinct random GUIDs (seeded)."""
    rng = random.Random(seed)
    return [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(n)]


def timed_suggest(
    values: list[str], index: PatternIndex, max_values: int | None = MAX_VALUES
) -> dict[str, Any]:
    started = time.perf_counter()
    cpu = time.process_time()
    constraint = suggest_pattern(values, index, max_values=max_values)
    return {
        "n": len(values),
        "distinct": len(set(values)),
        "max_values": max_values,
        "inferred_from": (constraint.params.get("inferred_from", len(values)))
        if constraint
        else None,
        "seconds": round(time.perf_counter() - started, 3),
        "cpu_seconds": round(time.process_time() - cpu, 3),
        "pattern": constraint.pattern if constraint else None,
        "train_nonconforming": constraint.train_nonconforming if constraint else None,
    }


def profile(values: list[str], index: PatternIndex, top: int = 25) -> None:
    profiler = cProfile.Profile(time.process_time)  # CPU time: the machine may be shared
    profiler.enable()
    suggest_pattern(values, index)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for (series, capped), runs in _series(report).items():
        xs = [r["n"] for r in runs]
        label = f"{series}, {'sampled' if capped else 'every value'} (CPU)"
        ax.loglog(xs, [r["cpu_seconds"] for r in runs], "o-" if capped else "o--", label=label)
    few = report["few_distinct"]
    ax.loglog([few["n"]], [few["cpu_seconds"]], "s", label=f"{few['distinct']} distinct (CPU)")
    xs = [r["n"] for r in report["runs"]]
    ax.loglog(
        sorted(set(xs)), [1e-4 * x for x in sorted(set(xs))], ":", color="grey", label="slope 1"
    )
    ax.axhline(10, color="red", linewidth=0.8, label="target at 10^6: 10 s")
    ax.set_xlabel("training values")
    ax.set_ylabel("suggest time (s)")
    ax.set_title("suggest_pattern: timestamps (resampled) and GUIDs")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _series(report: dict[str, Any]) -> dict[tuple[str, bool], list[dict[str, Any]]]:
    out: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    for r in report["runs"]:
        out.setdefault((r["series"], r["max_values"] is not None), []).append(r)
    return out


def _per_value(report: dict[str, Any], series: str, n: int) -> float:
    """CPU µs per value of the uncapped run of ``series`` at ``n`` values (nan if not run)."""
    for r in report["runs"]:
        if r["series"] == series and r["n"] == n and r["max_values"] is None:
            return float(r["cpu_seconds"] / r["n"] * 1e6)
    return float("nan")


def markdown(report: dict[str, Any]) -> str:
    load = report["load_average"]

    def used(r: dict[str, Any]) -> str:
        if r["max_values"] is None:
            return "all (no cap)"
        return "all" if r["inferred_from"] in (None, r["n"]) else f"{r['inferred_from']:,}"

    rows = [
        f"| {r.get('series', COLUMN)} | {r['n']:,} | {r['distinct']:,} | {used(r)} | "
        f"{r['seconds']:.2f} | {r['cpu_seconds']:.2f} | "
        f"{r['cpu_seconds'] / r['n'] * 1e6:.1f} | `{r['pattern']}` |"
        for r in [*report["runs"], report["few_distinct"]]
    ]
    capped = [r for r in report["runs"] if r["max_values"] is not None]
    worst = max(capped, key=lambda r: (r["n"], r["cpu_seconds"]))
    return "\n".join(
        [
            "# Suggest time against the number of training values",
            "",
            f"Two series. *timestamps*: column `{COLUMN}` of `{TABLE}` "
            f"({report['lake_values']:,} values in the lake), resampled with every digit "
            "re-drawn (seeded) to the number of distinct values shown. *guids*: random GUIDs "
            "(seeded), every token distinct. Index `"
            f"{report['index']}` ({report['index_patterns']:,} patterns). "
            "`suggest_pattern(values, index)` with its defaults (fmdv-vh), with the default "
            f"sample cap of {report['max_values']:,} values and, up to "
            f"{report['unsampled_max']:,} values, with every value (`max_values=None`); one "
            f"run each, in one process; commit `{(report['commit']['sha'] or '?')[:12]}`, "
            f"{report['machine']['cores']} cores, load average {load['before'][0]:.1f} before "
            f"and {load['after'][0]:.1f} after (CPU seconds are the steadier number on a "
            f"shared machine). Command: `{report['command'].strip()}`.",
            "",
            "| series | values | distinct | inferred from | wall (s) | CPU (s) "
            "| CPU µs per value | pattern |",
            "|---|---:|---:|---:|---:|---:|---:|---|",
            *rows,
            "",
            f"Target: 10^6 training values in under 10 s. With the default cap the slowest "
            f"run at {worst['n']:,} values ({worst['series']}) took {worst['seconds']:.1f} s "
            f"of wall-clock and {worst['cpu_seconds']:.1f} s of CPU time: the pattern is "
            f"inferred from {worst['inferred_from']:,} values drawn at random, the training "
            "non-conforming count (what the drift test compares batches with) is taken over "
            "every value, and the constraint records the sample (`params.inferred_from`). "
            "Without the cap (dashed in the plot) the solver's CPU time per value goes from "
            f"{_per_value(report, 'guids', 10_000):.0f} µs at 10^4 GUIDs to "
            f"{_per_value(report, 'guids', report['unsampled_max']):.0f} µs at "
            f"{report['unsampled_max']:,} (timestamps: "
            f"{_per_value(report, 'timestamps', 10_000):.1f} and "
            f"{_per_value(report, 'timestamps', report['unsampled_max']):.1f} µs): the "
            "hierarchy of a position is built from the representatives of its tokens (a few "
            "shapes, `patterns/hierarchy.py` `representative`), not from every distinct token. "
            "Plot: `suggest_scaling.png`.",
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=None)
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--profile", type=int, default=None, metavar="N")
    parser.add_argument("--quick", action="store_true", help="sizes up to 10^4, to work/")
    parser.add_argument("--unsampled-max", type=int, default=UNSAMPLED_MAX)
    args = parser.parse_args(argv)
    seeds = lake_column()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.quick:
        sizes = [s for s in sizes if s <= 10_000]
    path = index_path(args.index)
    with PatternIndex.open(path) as index:
        if args.profile:
            profile(resample(seeds, args.profile, args.profile), index)
            return
        load_before = os.getloadavg()
        timed_suggest(seeds, index)  # warm-up: DuckDB, caches of the hierarchy
        runs = []
        for series, make in (
            ("timestamps", lambda n: resample(seeds, n, n)),
            ("guids", guids),
        ):
            for n in sizes:
                values = make(n)
                for cap in (MAX_VALUES, None) if n <= args.unsampled_max else (MAX_VALUES,):
                    runs.append({"series": series, **timed_suggest(values, index, cap)})
                    print(runs[-1], file=sys.stderr, flush=True)
        few = timed_suggest(resample(seeds, FEW_DISTINCT, max(sizes)), index)
        print(few, file=sys.stderr, flush=True)
        report = {
            "benchmark": "suggest_scaling",
            "command": "python3 benchmarks/suggest_scaling.py " + " ".join(sys.argv[1:]),
            "column": {"table": TABLE, "column": COLUMN},
            "lake_values": len(seeds),
            "index": str(path),
            "index_patterns": index.metadata.patterns,
            "runs": runs,
            "few_distinct": few,
            "max_values": MAX_VALUES,
            "unsampled_max": args.unsampled_max,
            "load_average": {"before": load_before, "after": os.getloadavg()},
            "commit": commit(ROOT),
            "machine": {**machine(), "duckdb": duckdb.__version__},
        }
    results = ROOT / "benchmarks" / "work" / "quick-results" if args.quick else RESULTS
    results.mkdir(parents=True, exist_ok=True)
    (results / "suggest_scaling.json").write_text(json.dumps(report, indent=2) + "\n")
    (results / "suggest_scaling.md").write_text(markdown(report))
    plot(report, results / "suggest_scaling.png")
    print(markdown(report))


if __name__ == "__main__":
    main()
