"""How long a command takes to start: wall time and ``-X importtime`` per command (issue 31).

Usage::

    python3 benchmarks/startup.py [--runs 7] [--checkout DIR --label NAME] [--quick]

Runs each command below in a fresh interpreter (``python3 -m autovalidate ...``
with ``PYTHONPATH`` at the checkout measured: this one, or ``--checkout DIR``,
e.g. a checkout of an older commit for a before/after), ``--runs`` times, and
keeps the median and the minimum wall time, then once more with ``python3 -X
importtime`` and keeps the total import time and the ten costliest top-level
imports (cumulative microseconds, as Python reports them):

* ``--help``: target under 0.5 s on an idle machine;
* ``validate`` of the quick start's clean hospital table (1,000 rows) against
  its ZipCode pattern: a small validation, start to end;
* ``python3 -c pass``: the interpreter alone, the floor under every number.

The pattern constraint is made once per run with ``suggest --column`` into a
temporary directory. The machine is shared: the load average before and after
is recorded beside the numbers, and only an idle machine's numbers are the
target's. Writes ``startup.json`` and ``startup.md`` to ``benchmarks/results/``
(``--label NAME``: ``startup-NAME.*``; ``--quick``: 2 runs, to
``benchmarks/work/quick-results/``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
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

from benchmarks.avbench.report import commit, machine  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
HOSPITAL = ROOT.parent / "shared" / "dirty-clean" / "hospital" / "clean.csv"
#: The target for ``--help`` on an idle machine, seconds.
HELP_TARGET_S = 0.5

#: Name -> arguments after ``python3``; ``{suite}`` is the ZipCode constraint file.
COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "autovalidate --help": ["-m", "autovalidate", "--help"],
    "autovalidate validate (1,000 rows)": [
        "-m",
        "autovalidate",
        "validate",
        str(HOSPITAL),
        "--constraints",
        "{suite}",
    ],
}


def _env(checkout: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(checkout), "COLUMNS": "100"}


def _wall(args: list[str], checkout: Path, cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *args], cwd=cwd, env=_env(checkout), capture_output=True, check=False
    )
    return time.perf_counter() - started


def import_times(args: list[str], checkout: Path, cwd: Path, top: int = 10) -> dict[str, Any]:
    """Total import time (s) under ``-X importtime`` and the costliest top-level imports."""
    res = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        cwd=cwd,
        env=_env(checkout),
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for line in res.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((len(m.group(3)), m.group(4), int(m.group(2))))
    roots = [(name, us) for depth, name, us in rows if depth == 1]
    return {
        "total_s": round(sum(us for _, us in roots) / 1e6, 3),
        "top": [
            {"module": name, "cumulative_ms": round(us / 1000, 1)}
            for name, us in sorted(roots, key=lambda r: -r[1])[:top]
        ],
    }


def measure(checkout: Path, runs: int) -> list[dict[str, Any]]:
    """Every command of :data:`COMMANDS`: wall times and import times, at ``checkout``."""
    work = Path(tempfile.mkdtemp(prefix="startup-"))
    try:
        suite = work / "zip.json"
        subprocess.run(
            [sys.executable, "-m", "autovalidate", "suggest", str(HOSPITAL)]
            + ["--column", "ZipCode", "--out", str(suite)],
            cwd=work,
            env=_env(checkout),
            capture_output=True,
            check=True,
        )
        out = []
        for name, template in COMMANDS.items():
            args = [a.replace("{suite}", str(suite)) for a in template]
            _wall(args, checkout, work)  # warm the file cache
            walls = [_wall(args, checkout, work) for _ in range(runs)]
            out.append(
                {
                    "command": name,
                    "median_s": round(statistics.median(walls), 3),
                    "min_s": round(min(walls), 3),
                    "imports": import_times(args, checkout, work),
                }
            )
            print(out[-1]["command"], out[-1]["median_s"], file=sys.stderr, flush=True)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def markdown(report: dict[str, Any]) -> str:
    load = report["load_average"]
    lines = [
        "# Command start-up time",
        "",
        f"`{report['command']}`, at `{report['checkout']}` (commit "
        f"`{(report['commit']['sha'] or '?')[:12]}`"
        + (", with uncommitted changes" if report["commit"]["dirty"] else "")
        + f"); {report['runs']} runs per command after one warm-up, "
        f"{report['machine']['cores']} cores, load average {load['before'][0]:.2f} before and "
        f"{load['after'][0]:.2f} after (a shared machine: an idle one is faster). "
        f"Target: `--help` under {HELP_TARGET_S} s on an idle machine.",
        "",
        "| command | median (s) | fastest (s) | imports (s) | costliest imports (ms, cumulative) |",
        "|---|---:|---:|---:|---|",
    ]
    for r in report["results"]:
        top = ", ".join(f"{t['module']} {t['cumulative_ms']:.0f}" for t in r["imports"]["top"][:5])
        lines.append(
            f"| `{r['command']}` | {r['median_s']:.3f} | {r['min_s']:.3f} | "
            f"{r['imports']['total_s']:.3f} | {top} |"
        )
    lines += [
        "",
        "Imports: the sum of the top-level imports' cumulative times under "
        "`python3 -X importtime` (one run).",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--label", default=None, help="results as startup-LABEL.*")
    parser.add_argument("--quick", action="store_true", help="2 runs, results to work/")
    args = parser.parse_args(argv)
    runs = 2 if args.quick else args.runs
    checkout = args.checkout.resolve()
    load_before = os.getloadavg()
    results = measure(checkout, runs)
    report = {
        "benchmark": "startup",
        "command": "python3 benchmarks/startup.py " + " ".join(sys.argv[1:]),
        "checkout": str(checkout) if checkout != ROOT else ".",
        "runs": runs,
        "results": results,
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "commit": commit(checkout),
        "machine": machine(),
    }
    out = ROOT / "benchmarks" / "work" / "quick-results" if args.quick else RESULTS
    out.mkdir(parents=True, exist_ok=True)
    stem = "startup" if args.label is None else f"startup-{args.label}"
    (out / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / f"{stem}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
