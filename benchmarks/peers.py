"""Benchmark: autovalidate against the tools users would pick instead, on the same checks.

Usage::

    python3 benchmarks/peers.py [--rows N] [--repeat R] [--tools a,b,...] [--formats parquet,csv]
                                [--label NAME]

The same 16 checks (row count, completeness, uniqueness, ranges, set
membership, min/max/mean/standard deviation/median bounds, regexes with a
``mostly`` fraction; :data:`CHECKS`) on the same orders table of
``deequ_bench.py`` (``--rows`` rows, 1 million by default) as one Parquet file
and its CSV copy, validated by:

- ``floor``: one hand-written DuckDB query computing every check's number;
- ``autovalidate-duckdb`` and ``autovalidate-spark`` (``local[2]``);
- ``gx-pandas``: Great Expectations 1.x on a pandas DataFrame;
- ``pandera-pandas`` and ``pandera-polars``;
- ``soda-duckdb``: Soda Core 3 (SodaCL) on a DuckDB view of the file;
- ``gx-spark`` and ``soda-spark``: the same on a Spark DataFrame (local[2],
  the settings of autovalidate's ``local_session``; CSV read with
  ``inferSchema``), with the PySpark each supports in its own virtualenv.

Each peer is installed with pip in a virtualenv of its own under
``benchmarks/work/venvs/`` (created here on the first run, never in the
running interpreter's environment). Each run is a subprocess
(``benchmarks/peer_runners/``); the tools alternate ``--repeat`` times and
each keeps its fastest run. Reported per tool and format: process wall time
(interpreter start-up and imports included), the in-process time from reading
the file to the verdicts, the process CPU time and peak resident memory (from
``wait4``), the ratio to the floor, and whether its verdicts equal the floor's.

Writes ``peers[-LABEL].json``, ``.md`` (and ``.png`` when matplotlib is
installed) to ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.deequ_bench import (  # noqa: E402
    COUNTRIES,
    RESULTS,
    STATUSES,
    WORK,
    _commit,
    _machine,
    as_csv,
    generate,
)

RUNNERS = Path(__file__).resolve().parent / "peer_runners"
VENVS = WORK / "venvs"

#: The checks, in a small vocabulary every runner maps to its tool's own API.
#: Two fail on purpose (duplicate customer ids, four-digit zip codes), so that
#: agreeing verdicts mean something.
CHECKS: list[dict[str, Any]] = [
    {"id": "rows", "kind": "rows_min", "min": 1},
    {"id": "order_id_complete", "kind": "not_null", "column": "order_id"},
    {"id": "order_id_unique", "kind": "unique", "column": "order_id"},
    {"id": "customer_id_unique", "kind": "unique", "column": "customer_id"},
    {"id": "price_completeness", "kind": "completeness_min", "column": "price", "min": 0.98},
    {"id": "price_non_negative", "kind": "range", "column": "price", "min": 0, "max": None},
    {"id": "discount_range", "kind": "range", "column": "discount", "min": 0.0, "max": 0.5},
    {"id": "status_set", "kind": "in_set", "column": "status", "values": STATUSES.tolist()},
    {"id": "country_set", "kind": "in_set", "column": "country", "values": COUNTRIES.tolist()},
    {"id": "quantity_min", "kind": "min_between", "column": "quantity", "min": 0, "max": 10},
    {"id": "quantity_max", "kind": "max_between", "column": "quantity", "min": 0, "max": 10},
    {"id": "price_mean", "kind": "mean_between", "column": "price", "min": 20, "max": 50},
    {"id": "price_stddev", "kind": "stddev_between", "column": "price", "min": 20, "max": 80},
    {"id": "price_median", "kind": "median_between", "column": "price", "min": 15, "max": 25},
    {
        "id": "sku_pattern",
        "kind": "regex_mostly",
        "column": "sku",
        "regex": "SKU-[0-9]{5}",
        "mostly": 0.99,
    },
    {
        "id": "zip_pattern",
        "kind": "regex_mostly",
        "column": "zip",
        "regex": "[0-9]{5}",
        "mostly": 1.0,
    },
]

#: pip requirements of each peer's virtualenv.
PEERS = {
    "gx": ["great_expectations>=1,<2", "pandas", "pyarrow"],
    "pandera": ["pandera[polars]", "pandas", "polars", "pyarrow"],
    "soda": ["-r", str(ROOT / "tests" / "tools" / "soda.txt")],
    # Spark peers bring the PySpark their tool supports (GX: < 4.2; Soda's
    # spark-df source: < 4), each in its own venv; the JVM is this machine's.
    "gx-spark": ["great_expectations[spark]>=1,<2", "pandas", "pyarrow"],
    "soda-spark": ["soda-core==3.5.6", "soda-core-spark-df==3.5.6", "pyarrow"],
}

#: tool: (virtualenv or None for this interpreter, runner, option)
TOOLS: dict[str, tuple[str | None, str, str]] = {
    "floor": (None, "floor_duckdb.py", ""),
    "autovalidate-duckdb": (None, "autovalidate_run.py", "duckdb"),
    "autovalidate-spark": (None, "autovalidate_run.py", "spark"),
    "gx-pandas": ("gx", "gx_pandas.py", ""),
    "pandera-pandas": ("pandera", "pandera_run.py", "pandas"),
    "pandera-polars": ("pandera", "pandera_run.py", "polars"),
    "soda-duckdb": ("soda", "soda_duckdb.py", ""),
    "gx-spark": ("gx-spark", "gx_pandas.py", "spark"),
    "soda-spark": ("soda-spark", "soda_duckdb.py", "spark"),
}

#: Where a peer's semantics differ from autovalidate's on these checks.
SEMANTICS = [
    "GX `ExpectColumnStdevToBeBetween` is the sample standard deviation (n - 1); autovalidate, "
    "pandera (`ddof=0` here) and Soda (`stddev_pop` here) the population one: on 1M rows the "
    "two differ in the 7th significant digit.",
    "GX `mostly` is a fraction of the non-null values; autovalidate's `has_pattern` fraction "
    "counts nulls as not matching. The regex columns here have no nulls, so the verdicts agree.",
    "GX and Soda search with a regex; the runners anchor it (`^(?:...)$`) for autovalidate's "
    "full-match semantics.",
    "The median: autovalidate's `has_approx_quantile` is within 1% in rank (a quantile "
    "sketch); GX, pandera, Soda and the floor compute it exactly.",
    "CSV: autovalidate reads every field as text exactly as written (DuckDB) and casts it "
    "(`TRY_CAST(x AS DOUBLE)`) where a check reads numbers, in the same scan; a text that is "
    "no number fails a range as in Deequ on Spark. Spark runners read with `inferSchema`, "
    "pandas and polars infer types (the zip codes become integers there).",
    "Soda's Spark source has no `stddev_pop` nor `percentile` metric: soda-spark computes "
    "those two as user-defined metrics (`SELECT stddev_pop(price) FROM orders`, "
    "`percentile(price, 0.5)`), one Spark query each, as a Soda user would write them.",
    "Spark runners (autovalidate-spark, gx-spark, soda-spark) start their Spark session "
    "(local[2], 4g driver, 8 shuffle partitions) inside the timed `validate` part.",
    "pandera has no `mostly`: fractions and statistics are custom checks of one boolean; "
    "uniqueness, non-null, ranges, sets and the all-rows regex are its own checks.",
]


def _python(venv: str | None) -> str:
    if venv is None:
        return sys.executable
    return str(VENVS / venv / "bin" / "python")


def ensure_venv(name: str) -> str | None:
    """Create the peer's virtualenv and install it with pip, once; the error text if that fails."""
    python = Path(_python(name))
    marker = VENVS / f"{name}.installed"
    wanted = json.dumps(PEERS[name])
    if python.exists() and marker.exists() and marker.read_text() == wanted:
        return None
    VENVS.mkdir(parents=True, exist_ok=True)
    steps = [
        [sys.executable, "-m", "venv", str(VENVS / name)],
        [str(python), "-m", "pip", "install", "-q", *PEERS[name]],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            return (done.stderr or done.stdout).strip().splitlines()[-1]
    marker.write_text(wanted)
    return None


def _version(tool: str) -> str:
    venv, _, _ = TOOLS[tool]
    package = {
        "gx": "great_expectations",
        "gx-spark": "great_expectations",
        "pandera": "pandera",
        "soda": "soda-core",
        "soda-spark": "soda-core",
        None: "duckdb",
    }[venv]
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    out = subprocess.run([_python(venv), "-c", code], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def run_tool(tool: str, fmt: str, path: Path, checks_file: Path) -> dict[str, Any]:
    """One subprocess run: its JSON plus process wall time, CPU time and peak memory."""
    venv, runner, option = TOOLS[tool]
    env = dict(os.environ, AUTOVALIDATE_ROOT=str(ROOT), PYTHONPATH=str(RUNNERS))
    command = [_python(venv), str(RUNNERS / runner), str(checks_file), fmt, str(path)]
    command += [option] if option else []
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        load = round(os.getloadavg()[0], 2)
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if process.returncode != 0:
        return {"error": stderr.strip().splitlines()[-1] if stderr.strip() else "failed"}
    result = json.loads(stdout.strip().splitlines()[-1])
    result.update(
        process_seconds=round(wall, 3),
        process_cpu_seconds=round(usage.ru_utime + usage.ru_stime, 3),
        load_before=load,
    )
    return result


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[-1]
    best = dict(min(ok, key=lambda r: r["process_seconds"]))
    best["runs_process_seconds"] = [r["process_seconds"] for r in ok]
    best["runs_load_before"] = [r["load_before"] for r in ok]
    return best


def markdown(report: dict) -> str:
    """The report as Markdown."""
    p = report["params"]
    loads = [x for r in report["results"] for x in r.get("runs_load_before", [])]
    lines = [
        "# Side by side: autovalidate and the tools users would pick instead",
        "",
        f"{len(CHECKS)} checks ({', '.join(c['id'] for c in CHECKS)}) on {p['rows']:,} rows of "
        f"`deequ_bench.py`'s orders table, one Parquet file and its CSV copy; commit "
        f"`{report['commit'][:12]}`, {report['machine']['cores']} cores shared with other work "
        f"(1-minute load average before the runs: {min(loads, default=0)}-"
        f"{max(loads, default=0)}). Fastest of {p['repeat']} alternating runs, each a "
        f"subprocess. Command: `{p['command']}`.",
        "",
        "- process: wall seconds of the whole subprocess (start-up and imports included); "
        "validate: from reading the file to the verdicts, inside it;",
        "- CPU: user + system seconds of the subprocess; RSS: its peak resident memory "
        "(`VmHWM`); neither counts Spark's JVM, a process of its own;",
        "- ratios are to the floor's, same format; `verdicts` tells whether all "
        f"{len(CHECKS)} verdicts equal the floor's (which fails "
        f"{', '.join(report['floor_failed'].get('parquet', []))}).",
        "",
        "| tool | version | format | process (s) | validate (s) | CPU (s) | RSS (MB) | "
        "process / floor | validate / floor | verdicts |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    floors = {
        r["format"]: r for r in report["results"] if r["tool"] == "floor" and "error" not in r
    }
    for r in report["results"]:
        if "error" in r:
            lines.append(
                f"| {r['tool']} | {r.get('version', '')} | {r['format']} | failed: "
                f"{r['error'][:120]} | | | | | | |"
            )
            continue
        f = floors.get(r["format"], r)
        disagree = r.get("disagreements", [])
        lines.append(
            f"| {r['tool']} | {r['version']} | {r['format']} | {r['process_seconds']:.2f} | "
            f"{r['seconds']:.2f} | {r['process_cpu_seconds']:.2f} | "
            f"{r['max_rss_bytes'] / 1e6:.0f} | "
            f"{r['process_seconds'] / f['process_seconds']:.2f}x | "
            f"{r['seconds'] / f['seconds']:.2f}x | "
            f"{'same' if not disagree else 'differ: ' + ', '.join(disagree)} |"
        )
    if report["install_errors"]:
        lines += ["", "## Peers that did not install", ""]
        lines += [f"- {k}: {v}" for k, v in report["install_errors"].items()]
    lines += ["", "## Semantic differences", ""] + [f"- {s}" for s in SEMANTICS]
    return "\n".join(lines) + "\n"


def plot(report: dict, path: Path) -> bool:
    """Bars of the validate and process seconds per tool and format; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [r for r in report["results"] if "error" not in r]
    labels = [f"{r['tool']}\n{r['format']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 0.9), 4))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r["seconds"] for r in rows], 0.4, label="validate")
    ax.bar([x + 0.2 for x in xs], [r["process_seconds"] for r in rows], 0.4, label="process")
    ax.set_xticks(list(xs), labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("seconds (best run)")
    ax.set_title(f"{len(CHECKS)} checks, {report['params']['rows']:,} rows (shared 2-core machine)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--formats", default="parquet,csv")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--label", default="", help="suffix of the result files (peers-LABEL.md)")
    args = parser.parse_args(argv)
    tools = [t for t in args.tools.split(",") if t]
    formats = [f for f in args.formats.split(",") if f]
    (parquet,) = generate(args.rows, 1, WORK / f"orders-{args.rows}-1")
    files = {"parquet": parquet, "csv": as_csv([parquet])[0]}
    install_errors = {}
    for venv in sorted({TOOLS[t][0] for t in tools} - {None}):
        print(f"installing {venv} in {VENVS / venv}", flush=True)
        error = ensure_venv(venv)  # type: ignore[arg-type]
        if error:
            install_errors[venv] = error
    tools = [t for t in tools if TOOLS[t][0] not in install_errors]
    checks_file = WORK / "peers-checks.json"
    checks_file.write_text(json.dumps(CHECKS))
    runs: dict[tuple[str, str], list[dict]] = {}
    for _ in range(args.repeat):
        for fmt in formats:
            for tool in tools:
                result = run_tool(tool, fmt, files[fmt], checks_file)
                runs.setdefault((tool, fmt), []).append(result)
                shown = result.get("error") or f"{result['process_seconds']:.2f} s"
                print(f"  {tool} {fmt}: {shown}", flush=True)
    results = []
    floor_verdicts: dict[str, dict] = {}
    for (tool, fmt), tool_runs in runs.items():
        best = _best(tool_runs)
        best.update(tool=tool, format=fmt, version=_version(tool))
        if tool == "floor" and "verdicts" in best:
            floor_verdicts[fmt] = best["verdicts"]
        results.append(best)
    for r in results:
        if "verdicts" in r:
            reference = floor_verdicts.get(r["format"], {})
            r["disagreements"] = sorted(
                k for k in reference if r["verdicts"].get(k) != reference[k]
            )
    report = {
        "params": {
            "rows": args.rows,
            "repeat": args.repeat,
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
            "checks": CHECKS,
        },
        "commit": _commit(),
        "machine": _machine(),
        "install_errors": install_errors,
        "floor_failed": {
            f: sorted(k for k, v in vs.items() if not v) for f, vs in floor_verdicts.items()
        },
        "results": results,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    name = "peers" + (f"-{args.label}" if args.label else "")
    (args.out / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / f"{name}.md").write_text(markdown(report))
    plot(report, args.out / f"{name}.png")
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
