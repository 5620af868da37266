"""``python3 -m benchmarks.avbench [--quick [N]] [--index DIR] [--skip-build] ...``: run AV-bench.

Writes ``avbench.json``, ``avbench.md``, ``avbench_cases.csv``,
``avbench_pr.png`` and ``avbench_sensitivity.png`` under ``--out``
(``benchmarks/results/``); a ``--quick`` run writes ``avbench-quick.*`` so it
never replaces a full run's files.  Exit code 0 on success, 2 on a usage or
infrastructure error.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.avbench import report as reporting
from benchmarks.avbench.run import QUICK_SIZE, Config, run

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run, write; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python3 -m benchmarks.avbench", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--lake", type=Path, default=ROOT.parent / "shared" / "lake")
    parser.add_argument(
        "--index",
        type=Path,
        default=None,
        help="index at the product's default tau (default: build/reuse benchmarks/work/index-tauN)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "work")
    parser.add_argument(
        "--quick",
        type=int,
        nargs="?",
        const=QUICK_SIZE,
        default=None,
        help=f"only the first N columns of B (default N={QUICK_SIZE})",
    )
    parser.add_argument(
        "--skip-build",
        action="store_true",
        help="build no index: no offline cost; tau points without an index are omitted",
    )
    parser.add_argument(
        "--no-tfdv-install",
        action="store_true",
        help="do not install TFDV; use it only if already in WORK/tfdv-venv",
    )
    parser.add_argument("--no-sensitivity", action="store_true")
    parser.add_argument("--no-cost", action="store_true")
    parser.add_argument("--no-drift", action="store_true", help="no format-drift recall")
    parser.add_argument(
        "--dirty-clean",
        type=Path,
        default=ROOT.parent / "shared" / "dirty-clean",
        help="dirty/clean tables for the real-errors measure (default: ../shared/dirty-clean)",
    )
    parser.add_argument("--no-real-errors", action="store_true")
    args = parser.parse_args(argv)

    def say(line: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {line}", file=sys.stderr, flush=True)

    started = time.perf_counter()
    cfg = Config(
        lake=args.lake.resolve(),
        index=args.index.resolve() if args.index else None,
        work=args.work.resolve(),
        out=args.out.resolve(),
        quick=args.quick,
        skip_build=args.skip_build,
        tfdv_install=not args.no_tfdv_install,
        sensitivity=not args.no_sensitivity,
        cost=not args.no_cost,
        drift=not args.no_drift,
        dirty_clean=None if args.no_real_errors else args.dirty_clean.resolve(),
        progress=say,
    )
    cfg.work.mkdir(parents=True, exist_ok=True)
    # the code that runs is the code checked out now, whatever is committed later
    commit = reporting.commit(ROOT)
    try:
        result = run(cfg)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result["seconds"] = time.perf_counter() - started
    result["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    result["commit"] = commit
    result["machine"] = reporting.machine()
    stem = "avbench-quick" if args.quick else "avbench"
    paths = reporting.write(result, cfg.out, stem)
    for role, path in paths.items():
        say(f"wrote {role}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
