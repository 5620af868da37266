"""The index build and the lookups at lake scale: 1x to 30x, local[1] and local[2] (issue 11).

Usage::

    python3 benchmarks/scale_build.py [--base ../shared/lake-mini] [--seed 0]
        [--series 'local[2]=1,4,10,30' --series 'local[1]=1,4,10']
        [--queries 300] [--lookup-only] [--out benchmarks/results]

1. Writes the scale lakes of ``--base`` (``benchmarks/scale_lake.py``, seeded;
   reused when their manifest matches) under ``benchmarks/work/scale/lakes/``.
2. For each ``--series MASTER=F1,F2,...``, in a child process of its own (one
   JVM and one Spark session per master, so one series' heap does not weigh
   on the next one's memory figures): one untimed warm-up build of a
   256-column slice of the base, then one build per factor with
   :func:`index_jobs.build_index.build_index`, the job the CLI runs. Per
   build it records wall seconds; CPU seconds of the JVM and all its
   descendants (the Python workers), from ``/proc``; columns/s and values/s;
   the shuffle bytes Spark reports (``shuffleWriteBytes`` and
   ``shuffleReadBytes`` summed over the build's stages, from the REST API of
   the running application, ``/api/v1/applications/<id>/stages``); the JVM's
   peak RSS (``VmHWM`` of ``/proc/<pid>/status``, reset through
   ``clear_refs`` before each build, and a 0.1 s RSS sampler), the Python
   workers' peak summed RSS, the Python driver's ``ru_maxrss``; index rows,
   files and bytes; the load average before and after.
3. Lookups, in this process once the builds are done, against the smallest
   and the largest index of the series (both opened warm, ``in_memory``, the
   default): the seconds to open each, then ``suggest_pattern`` (default
   method) on the training part of the first ``--queries`` columns of
   AV-bench's query set B (``../shared/lake``), in two alternating rounds
   (small, large, small, large; per column the faster round is kept, to damp
   the other jobs on the machine), wall and CPU milliseconds; every
   ``PatternIndex.lookup`` batch those suggestions issue is recorded and
   replayed on both indexes, timed per call (median of 3).

Writes ``scale_build.json`` (every figure, the commit, the machine, the
commands), ``scale_build.md`` and ``scale_build.png`` (time against lake
size, one line per core count) to ``--out``. ``--lookup-only`` re-runs step
3 on the indexes of the last run and replaces the lookup part of the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.avbench.report import commit, machine  # noqa: E402
from benchmarks.scale_lake import base_files, ensure  # noqa: E402

WORK = ROOT / "benchmarks" / "work" / "scale"
RESULTS = ROOT / "benchmarks" / "results"
SHARED = ROOT.parent / "shared"
DEFAULT_SERIES = ("local[2]=1,4,10,30", "local[1]=1,4,10")
WARMUP_COLUMNS = 256
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


# --- /proc: CPU and memory of the JVM and its Python workers -------------------------------


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def descendants(pid: int) -> list[int]:
    """``pid``'s live descendants (children, their children, ...)."""
    kids, out, todo = _children_map(), [], [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its live descendants, reaped children included."""
    total = 0
    for p in (pid, *descendants(pid)):
        try:
            stat = Path(f"/proc/{p}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / TICKS


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` in bytes (0 if it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _status_kib(pid: int, key: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


class PeakMemory:
    """Peak RSS of the JVM (``VmHWM``, reset at start, and sampled) and of its Python workers.

    Parameters
    ----------
    jvm_pid
        The driver JVM's process id.
    interval
        Sampling period in seconds.
    """

    def __init__(self, jvm_pid: int, interval: float = 0.1):
        self.jvm_pid, self.interval = jvm_pid, interval
        self.jvm_sampled = 0
        self.workers = 0
        self.hwm_reset = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        try:  # "5" resets the peak RSS (VmHWM) to the current RSS (Linux >= 4.0)
            Path(f"/proc/{self.jvm_pid}/clear_refs").write_text("5")
            self.hwm_reset = True
        except OSError:
            pass
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.jvm_sampled = max(self.jvm_sampled, rss_bytes(self.jvm_pid))
            workers = sum(rss_bytes(p) for p in descendants(self.jvm_pid))
            self.workers = max(self.workers, workers)
            self._stop.wait(self.interval)

    @property
    def jvm_peak(self) -> int:
        """The JVM's peak RSS in bytes: ``VmHWM`` if it was reset, else the sampled peak."""
        hwm = _status_kib(self.jvm_pid, "VmHWM") if self.hwm_reset else None
        return max(self.jvm_sampled, (hwm or 0) * 1024)


# --- Spark ---------------------------------------------------------------------------------


def spark_stages(sc: Any) -> list[dict[str, Any]]:
    """Every stage of the running application, from Spark's REST API."""
    url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/stages"
    with urllib.request.urlopen(url, timeout=60) as response:
        return list(json.load(response))


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def warmup_lake(base: Path, work: Path) -> Path:
    """A slice of the base lake (its first :data:`WARMUP_COLUMNS` rows) to warm the JVM up on."""
    out = work / "lakes" / "warmup"
    target = out / "warmup-000.parquet"
    if not target.exists():
        out.mkdir(parents=True, exist_ok=True)
        table = pq.read_table(base_files(base)[0]).slice(0, WARMUP_COLUMNS)
        pq.write_table(table, target, compression="zstd")
    return out


def index_dir(work: Path, factor: int, master: str) -> Path:
    tag = master.replace("[", "").replace("]", "").replace("*", "all")
    return work / "indexes" / f"x{factor}-{tag}"


def run_series(master: str, factors: list[int], lakes: dict[int, dict[str, Any]], work: Path):
    """Build the index of each scale lake on ``master`` in one Spark session; one record each."""
    from autovalidate.sparkutil import local_session
    from index_jobs.build_index import build_index

    tag = index_dir(work, 0, master).name[3:]
    spark = local_session(
        f"scale-build-{master}",
        master=master,
        driver_memory="4g",
        log_file=work / f"spark-{tag}.log",
        config={
            "spark.ui.enabled": "true",  # for the REST API's stage metrics
            "spark.ui.port": "0",  # a free port: others' Spark apps run on this machine
            "spark.ui.retainedStages": "100000",
            "spark.ui.retainedJobs": "100000",
        },
    )
    sc = spark.sparkContext
    jvm_pid = int(sc._jvm.ProcessHandle.current().pid())
    records = []
    try:
        started = time.perf_counter()
        warm = work / "indexes" / f"warmup-{tag}"
        build_index(spark, str(warmup_lake(lakes[min(lakes)]["base_path"], work)), str(warm),
                    overwrite=True)  # fmt: skip
        warmup_seconds = time.perf_counter() - started
        print(f"[{master}] warm-up {warmup_seconds:.1f} s", file=sys.stderr, flush=True)
        for factor in factors:
            lake = lakes[factor]
            out = index_dir(work, factor, master)
            seen = {(s["stageId"], s["attemptId"]) for s in spark_stages(sc)}
            load_before = os.getloadavg()
            cpu_before = tree_cpu_seconds(jvm_pid)
            self_before = resource.getrusage(resource.RUSAGE_SELF)
            with PeakMemory(jvm_pid) as memory:
                t0 = time.perf_counter()
                meta = build_index(spark, lake["path"], str(out), overwrite=True)
                wall = time.perf_counter() - t0
            cpu = tree_cpu_seconds(jvm_pid) - cpu_before
            self_after = resource.getrusage(resource.RUSAGE_SELF)
            load_after = os.getloadavg()
            stages = [s for s in spark_stages(sc) if (s["stageId"], s["attemptId"]) not in seen]
            done = [s for s in stages if s["status"] == "COMPLETE"]
            columns, values = meta.corpus["columns"], meta.corpus["values"]
            record = {
                "master": master,
                "cores": sc.defaultParallelism,
                "factor": factor,
                "lake": lake["path"],
                "lake_bytes": lake["bytes"],
                "columns": columns,
                "values": values,
                "values_stored": lake["values_stored"],
                "partitions": meta.build["partitions"],
                "wall_seconds": round(wall, 3),
                "cpu_seconds": round(cpu, 2),
                "python_driver_cpu_seconds": round(
                    (self_after.ru_utime + self_after.ru_stime)
                    - (self_before.ru_utime + self_before.ru_stime),
                    2,
                ),
                "columns_per_second": round(columns / wall, 1),
                "values_per_second": round(values / wall, 1),
                "columns_per_cpu_second": round(columns / cpu, 1) if cpu else None,
                "shuffle_write_bytes": sum(s["shuffleWriteBytes"] for s in done),
                "shuffle_read_bytes": sum(s["shuffleReadBytes"] for s in done),
                "stages": len(done),
                "stages_skipped": sum(1 for s in stages if s["status"] == "SKIPPED"),
                "tasks": sum(s["numTasks"] for s in done),
                "jvm_executor_cpu_seconds": round(
                    sum(s.get("executorCpuTime", 0) for s in done) / 1e9, 2
                ),
                "jvm_rss_peak_bytes": memory.jvm_peak,
                "jvm_rss_peak_from_vmhwm": memory.hwm_reset,
                "python_workers_rss_peak_bytes": memory.workers,
                "python_driver_maxrss_bytes": self_after.ru_maxrss * 1024,
                "patterns": meta.patterns,
                "index_bytes": dir_bytes(out),
                "index_files": len(list((out / "patterns").glob("*.parquet"))),
                "index": str(out),
                "load_average": {"before": load_before, "after": load_after},
            }
            records.append(record)
            print(
                f"[{master}] x{factor}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
                f"{meta.patterns:,} patterns, load {load_before[0]:.1f}->{load_after[0]:.1f}",
                file=sys.stderr,
                flush=True,
            )
    finally:
        spark.stop()
    return {"master": master, "warmup_seconds": round(warmup_seconds, 3), "runs": records}


# --- lookups -------------------------------------------------------------------------------


def _percentile(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    k = max(0, min(len(s) - 1, round(q * (len(s) - 1))))
    return s[k]


def _summary(xs: Sequence[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(xs), 3),
        "p95": round(_percentile(xs, 0.95), 3),
        "mean": round(statistics.fmean(xs), 3),
        "n": len(xs),
    }


def measure_lookups(indexes: dict[str, Path], queries: int, lake: Path) -> dict[str, Any]:
    """Suggest and raw lookup latency against each index (see the module docstring, step 3)."""
    from autovalidate.index.reader import PatternIndex
    from autovalidate.suggest.pattern import suggest_pattern
    from benchmarks.avbench.protocol import load_queries

    cases = load_queries(lake, quick=queries)
    batches: list[list[str]] = []
    recording = {"on": False}

    class RecordingIndex(PatternIndex):
        """A real :class:`PatternIndex` that keeps each lookup batch (to replay them)."""

        def lookup(self, patterns):  # type: ignore[no-untyped-def]
            patterns = list(patterns)
            if recording["on"]:
                batches.append(patterns)
            return super().lookup(patterns)

    load_before = os.getloadavg()
    opened: dict[str, Any] = {}
    open_seconds: dict[str, float] = {}
    for name, path in indexes.items():
        t0 = time.perf_counter()
        opened[name] = RecordingIndex.open(path)
        open_seconds[name] = round(time.perf_counter() - t0, 3)
    wall: dict[str, list[list[float]]] = {name: [] for name in indexes}
    cpu: dict[str, list[list[float]]] = {name: [] for name in indexes}
    results: dict[str, list[str | None]] = {}
    for round_ in range(2):
        for name, index in opened.items():
            index.prior  # noqa: B018 - fitted once per index, outside the timed calls
            recording["on"] = round_ == 0 and name == next(iter(indexes))
            w, c, out = [], [], []
            for case in cases:
                t0, c0 = time.perf_counter(), time.process_time()
                rule = suggest_pattern(case.train, index)
                w.append((time.perf_counter() - t0) * 1e3)
                c.append((time.process_time() - c0) * 1e3)
                out.append(None if rule is None else rule.pattern)
            wall[name].append(w)
            cpu[name].append(c)
            results[name] = out
            print(f"lookups: {name} round {round_}: median {statistics.median(w):.2f} ms",
                  file=sys.stderr, flush=True)  # fmt: skip
    recording["on"] = False
    raw: dict[str, list[float]] = {name: [] for name in indexes}
    for batch in batches:
        for name, index in opened.items():
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                index.lookup(batch)
                times.append((time.perf_counter() - t0) * 1e3)
            raw[name].append(statistics.median(times))
    load_after = os.getloadavg()
    for index in opened.values():
        index.close()
    per_index = {}
    for name, path in indexes.items():
        best_wall = [min(r) for r in zip(*wall[name], strict=True)]
        best_cpu = [min(r) for r in zip(*cpu[name], strict=True)]
        per_index[name] = {
            "index": str(path),
            "patterns": opened[name].metadata.patterns,
            "index_bytes": dir_bytes(path),
            "open_seconds": open_seconds[name],
            "suggest_wall_ms": _summary(best_wall),
            "suggest_cpu_ms": _summary(best_cpu),
            "lookup_ms": _summary(raw[name]),
        }
    small, large = list(indexes)
    same = sum(a == b for a, b in zip(results[small], results[large], strict=True))
    return {
        "queries": len(cases),
        "query_set": f"first {len(cases)} columns of AV-bench's B over {lake}, training part",
        "lookup_batches": len(batches),
        "lookup_batch_patterns": _summary([len(b) for b in batches]) if batches else None,
        "indexes": per_index,
        "ratio_large_over_small": {
            "suggest_wall_median": round(
                per_index[large]["suggest_wall_ms"]["median"]
                / per_index[small]["suggest_wall_ms"]["median"],
                3,
            ),
            "suggest_wall_p95": round(
                per_index[large]["suggest_wall_ms"]["p95"]
                / per_index[small]["suggest_wall_ms"]["p95"],
                3,
            ),
            "lookup_median": round(
                per_index[large]["lookup_ms"]["median"] / per_index[small]["lookup_ms"]["median"],
                3,
            ),
        },
        "same_suggestion": same,
        "load_average": {"before": load_before, "after": load_after},
    }


# --- report --------------------------------------------------------------------------------


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares ``y = a + b x``: (intercept a, slope b)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return my - b * mx, b


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for series in report["series"]:
        runs = series["runs"]
        xs = [r["columns"] for r in runs]
        ax1.plot(xs, [r["wall_seconds"] for r in runs], "o-", label=f"{series['master']} wall")
        ax1.plot(xs, [r["cpu_seconds"] for r in runs], "s--", label=f"{series['master']} CPU")
        ax2.plot(xs, [r["columns_per_second"] for r in runs], "o-", label=series["master"])
    ax1.set_xlabel("lake size (columns)")
    ax1.set_ylabel("index build (s)")
    ax1.set_title("Build time against lake size")
    ax1.legend()
    ax1.grid(alpha=0.3)
    ax2.set_xlabel("lake size (columns)")
    ax2.set_ylabel("columns / s (wall)")
    ax2.set_title("Throughput")
    ax2.legend()
    ax2.grid(alpha=0.3)
    fig.suptitle(f"Scale lakes of {Path(report['base']).name}; machine shared (see load averages)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _mib(n: float) -> str:
    return f"{n / 2**20:,.1f}"


def markdown(report: dict[str, Any]) -> str:
    base = Path(report["base"]).name
    lines = [
        "# Index build and lookups at lake scale",
        "",
        f"Scale lakes of `{report['base']}` ({report['base_columns']:,} columns) written by "
        f"`benchmarks/scale_lake.py` (seed {report['seed']}); factor F = F times the base's "
        "columns, each base column drawn F times, perturbed (shifted dates, permuted digits, "
        "re-drawn id letters; shapes kept). One build per point, one Spark session per master, "
        "after an untimed warm-up build. "
        f"Commit `{(report['commit']['sha'] or '?')[:12]}`"
        f"{' (dirty)' if report['commit']['dirty'] else ''}, {report['machine']['cores']} cores, "
        f"{report['machine']['cpu']}; the machine was shared with other jobs (load average per "
        f"run below). Command: `{report['command']}`.",
        "",
    ]
    if base == "lake-mini":
        lines += [
            "**The scale factors are of lake-mini (1,821 columns), not of the full lake**: a "
            "build of `../shared/lake` takes 13 to 30 minutes on this loaded machine, so 10x of "
            "it on local[1] would take hours. 30x lake-mini (54,630 columns) is about the "
            "column count of 1x lake (55,616; it holds 68 % of its values, lake-mini's columns "
            "being shorter). `--base ../shared/lake` runs the same series on the real lake.",
            "",
        ]
    lines += [
        "| master | factor | columns | values | wall (s) | CPU (s) | columns/s | values/s | "
        "shuffle write / read (MiB) | JVM RSS peak (MiB) | workers RSS peak (MiB) | "
        "index patterns | index MiB | load before → after |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for series in report["series"]:
        for r in series["runs"]:
            la = r["load_average"]
            lines.append(
                f"| {r['master']} | {r['factor']} | {r['columns']:,} | {r['values']:,} | "
                f"{r['wall_seconds']:.1f} | {r['cpu_seconds']:.1f} | "
                f"{r['columns_per_second']:,.0f} | {r['values_per_second']:,.0f} | "
                f"{_mib(r['shuffle_write_bytes'])} / {_mib(r['shuffle_read_bytes'])} | "
                f"{_mib(r['jvm_rss_peak_bytes'])} | {_mib(r['python_workers_rss_peak_bytes'])} | "
                f"{r['patterns']:,} | {_mib(r['index_bytes'])} | "
                f"{la['before'][0]:.1f} → {la['after'][0]:.1f} |"
            )
    lines += [""]
    for series in report["series"]:
        lines.append(
            f"Python driver `ru_maxrss` ({series['master']} session): "
            f"{_mib(max(r['python_driver_maxrss_bytes'] for r in series['runs']))} MiB; "
            f"warm-up build ({WARMUP_COLUMNS} columns): {series['warmup_seconds']:.1f} s."
        )
    lines += ["", "![build time against lake size](scale_build.png)", ""]
    if report.get("analysis"):
        lines += ["## Does it scale linearly?", "", report["analysis"], ""]
    fits = report.get("fits", {})
    if fits:
        lines += [
            "Least-squares fits `seconds = fixed + per_column × columns` over each series:",
            "",
            "| master | fixed wall (s) | wall per 1,000 columns (s) | "
            "fixed CPU (s) | CPU per 1,000 columns (s) |",
            "|---|---:|---:|---:|---:|",
        ]
        for master, f in fits.items():
            lines.append(
                f"| {master} | {f['wall_fixed']:.1f} | {1000 * f['wall_per_column']:.2f} | "
                f"{f['cpu_fixed']:.1f} | {1000 * f['cpu_per_column']:.2f} |"
            )
        lines.append("")
    lk = report.get("lookups")
    if lk:
        small, large = list(lk["indexes"])
        la = lk["load_average"]
        lines += [
            "## Lookup latency against index size",
            "",
            f"{lk['query_set']}; `suggest_pattern` with its defaults, two alternating rounds, "
            f"the faster per column; {lk['lookup_batches']:,} `PatternIndex.lookup` batches "
            f"recorded from those suggestions (median {lk['lookup_batch_patterns']['median']:.0f}"
            " patterns each) replayed on both indexes (median of 3 per batch). Load average "
            f"{la['before'][0]:.1f} before, {la['after'][0]:.1f} after.",
            "",
            "| index | patterns | MiB | open (s) | suggest median / p95 (ms, wall) | "
            "suggest median / p95 (ms, CPU) | lookup median / p95 (ms) |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for name, x in lk["indexes"].items():
            sw, sc_, lu = x["suggest_wall_ms"], x["suggest_cpu_ms"], x["lookup_ms"]
            lines.append(
                f"| {name} | {x['patterns']:,} | {_mib(x['index_bytes'])} | "
                f"{x['open_seconds']:.2f} | {sw['median']:.2f} / {sw['p95']:.2f} | "
                f"{sc_['median']:.2f} / {sc_['p95']:.2f} | {lu['median']:.3f} / {lu['p95']:.3f} |"
            )
        ratio = lk["ratio_large_over_small"]
        ok = ratio["suggest_wall_median"] <= 1.5
        lines += [
            "",
            f"**{large} / {small}: suggest median {ratio['suggest_wall_median']:.2f}x, p95 "
            f"{ratio['suggest_wall_p95']:.2f}x, raw lookup median {ratio['lookup_median']:.2f}x** "
            f"(target: within 1.5x; {'met' if ok else 'not met'}). The two indexes gave the same "
            f"suggestion on {lk['same_suggestion']} of {lk['queries']} columns.",
            "",
        ]
        if lk.get("before_fix"):
            lines += [lk["before_fix"], ""]
    if report.get("estimate_100x"):
        lines += ["## The 100x case (about 180M patterns), estimated", "", report["estimate_100x"]]
    return "\n".join(lines) + "\n"


def derive(report: dict[str, Any]) -> None:
    """Add the least-squares fits of time against columns to ``report``."""
    fits = {}
    for series in report["series"]:
        runs = series["runs"]
        if len(runs) < 2:
            continue
        xs = [r["columns"] for r in runs]
        wa, wb = fit_line(xs, [r["wall_seconds"] for r in runs])
        ca, cb = fit_line(xs, [r["cpu_seconds"] for r in runs])
        fits[series["master"]] = {
            "wall_fixed": round(wa, 2),
            "wall_per_column": round(wb, 6),
            "cpu_fixed": round(ca, 2),
            "cpu_per_column": round(cb, 6),
        }
    report["fits"] = fits


def write(report: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    derive(report)
    (out / "scale_build.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "scale_build.md").write_text(markdown(report))
    if report["series"]:
        plot(report, out / "scale_build.png")


def parse_series(items: Sequence[str]) -> list[tuple[str, list[int]]]:
    out = []
    for item in items:
        master, _, factors = item.partition("=")
        out.append((master, [int(f) for f in factors.split(",") if f]))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, default=SHARED / "lake-mini")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--series", action="append", help="MASTER=F1,F2,... (repeatable)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--query-lake", type=Path, default=SHARED / "lake")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--lookup-only", action="store_true")
    parser.add_argument("--no-lookups", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # MASTER=F1,...: one series, JSON out
    args = parser.parse_args(argv)
    base = args.base.resolve()
    series = parse_series(args.series or DEFAULT_SERIES)
    factors = sorted({f for _, fs in series for f in fs})
    lakes_dir = args.work / "lakes"

    def lake_of(factor: int) -> dict[str, Any]:
        path = lakes_dir / f"{base.name}-x{factor}"
        manifest = ensure(base, factor, path, seed=args.seed)
        return {**manifest, "path": str(path), "base_path": base}

    if args.child:
        ((master, fs),) = parse_series([args.child])
        lakes = {f: lake_of(f) for f in fs}
        result = run_series(master, fs, lakes, args.work)
        print(json.dumps(result, default=str))
        return

    json_path = args.out / "scale_build.json"
    command = "python3 benchmarks/scale_build.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    if args.lookup_only:
        report = json.loads(json_path.read_text())
        report["lookup_command"] = command
    else:
        for f in factors:
            m = lake_of(f)
            print(f"lake x{f}: {m['columns']:,} columns", file=sys.stderr, flush=True)
        report = {
            "benchmark": "scale_build",
            "command": command,
            "base": str(base),
            "base_columns": lake_of(1)["base_columns"] if 1 in factors else None,
            "seed": args.seed,
            "series": [],
            "commit": commit(ROOT),
            "machine": machine(),
        }
        for master, fs in series:
            child = subprocess.run(
                [sys.executable, __file__, "--base", str(base), "--seed", str(args.seed),
                 "--work", str(args.work), "--child", f"{master}={','.join(map(str, fs))}"],
                stdout=subprocess.PIPE, text=True, check=True,
            )  # fmt: skip
            report["series"].append(json.loads(child.stdout.strip().splitlines()[-1]))
            write(report, args.out)  # after each series: a partial run keeps what it measured
    if not args.no_lookups:
        runs = [r for s in report["series"] for r in s["runs"]]
        small = min(runs, key=lambda r: (r["columns"], -r["cores"]))
        large = max(runs, key=lambda r: (r["columns"], r["cores"]))
        indexes = {
            f"x{small['factor']}": Path(small["index"]),
            f"x{large['factor']}": Path(large["index"]),
        }
        if len(indexes) == 2:  # a single factor: nothing to compare
            report["lookups"] = measure_lookups(indexes, args.queries, args.query_lake)
    import duckdb
    import pyspark

    report["machine"] = {
        **report["machine"],
        "duckdb": duckdb.__version__,
        "pyspark": pyspark.__version__,
    }
    write(report, args.out)
    print(markdown(report))


if __name__ == "__main__":
    main()
