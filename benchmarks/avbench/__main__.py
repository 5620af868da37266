"""``python3 -m benchmarks.avbench [--queries B|B-M] [--quick [N]] ...``: run AV-bench.

Writes ``avbench.json``, ``avbench.md``, ``avbench_cases.csv``,
``avbench_pr.png`` and ``avbench_sensitivity.png`` under ``--out``
(``benchmarks/results/``); a run on B-M writes ``avbench-machine.*``, and a
``--quick`` run ``avbench-quick.*`` (``avbench-machine-quick.*``) so it never
replaces a full run's files.  Exit code 0 on success, 2 on a usage or
infrastructure error.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.avbench import report as reporting
from benchmarks.avbench.run import QUERY_SETS, QUICK_SIZE, Config, run

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run, write; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python3 -m benchmarks.avbench", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--lake", type=Path, default=ROOT.parent / "shared" / "lake")
    parser.add_argument(
        "--queries",
        choices=QUERY_SETS,
        default="B",
        help="query set: B (from the lake) or B-M (machine-generated columns of other sources)",
    )
    parser.add_argument(
        "--machine",
        type=Path,
        default=ROOT.parent / "shared" / "avbench-machine" / "cases.parquet",
        help="B-M's cases file",
    )
    parser.add_argument(
        "--leave-source-out",
        action="store_true",
        help="also score the FMDV variants on B with 5-fold leave-source-out indexes "
        "(built under --work, about 20 minutes the first time)",
    )
    parser.add_argument(
        "--other-index",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="also score the FMDV variants with this index (repeatable), e.g. "
        "default=autovalidate/data/default-index",
    )
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
    others: dict[str, Path] = {}
    for item in args.other_index:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            parser.error(f"--other-index takes LABEL=DIR, got {item!r}")
        others[label] = Path(path).resolve()

    def say(line: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {line}", file=sys.stderr, flush=True)

    started = time.perf_counter()
    cfg = Config(
        lake=args.lake.resolve(),
        queries=args.queries,
        machine=args.machine.resolve(),
        leave_source_out=args.leave_source_out,
        other_indexes=others,
        index=args.index.resolve() if args.index else None,
        work=args.work.resolve(),
        out=args.out.resolve(),
        quick=args.quick,
        skip_build=args.skip_build,
        tfdv_install=not args.no_tfdv_install,
        sensitivity=not args.no_sensitivity,
        cost=not args.no_cost,
        drift=not args.no_drift,
        # the real errors do not read the query set: a B-M run leaves them to B's
        dirty_clean=None
        if args.no_real_errors or args.queries != "B"
        else args.dirty_clean.resolve(),
        progress=say,
    )
    cfg.work.mkdir(parents=True, exist_ok=True)
    # the code that runs is the code checked out now, whatever is committed later
    commit = reporting.commit(ROOT)
    machine = reporting.machine()  # before the run: its load is the other work's
    try:
        result = run(cfg)
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result["seconds"] = time.perf_counter() - started
    result["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    result["commit"] = commit
    result["machine"] = machine
    stem = "avbench" + ("-machine" if args.queries == "B-M" else "")
    stem += "-quick" if args.quick else ""
    paths = reporting.write(result, cfg.out, stem)
    for role, path in paths.items():
        say(f"wrote {role}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
