"""Suggest latency of two commits side by side, on AV-bench's long-values set (issue 29).

Usage::

    python3 benchmarks/latency_ab.py BASE [HEAD] --index DIR [--rounds 3] [--calls 3]
                                     [--columns N] [--lake DIR] [--work DIR] [--out DIR]

The latency target of issue 29 (p95 <= 30 ms over the long-values set) sits
inside this machine's noise: the same commit's p95 moves by a fifth from one
run to the next, in spells of a minute or more, so one AV-bench run cannot
tell a 10 % saving from a quiet minute. This script compares two commits in
the same spells instead:

1. Checks both revisions out as detached git worktrees under ``--work``
   (``benchmarks/work/latency_ab/``; kept for the next run).
2. Takes the long-values set of B (:func:`benchmarks.avbench.run.long_values`:
   the 100 columns with the most tokens per training value; ``--columns N``:
   the first N of them, a smoke test) from this checkout, and writes their
   training values to one JSON file, so that both revisions are timed on the
   same values whatever their benchmark code.
3. ``--rounds`` times, runs each revision in a fresh process (its worktree
   first on ``PYTHONPATH``, ``PYTHONHASHSEED=0``), BASE then HEAD: the
   process opens the index warm and times ``--calls`` calls of
   :func:`autovalidate.suggest_pattern` per column, going round the columns.
4. Per revision, the least time of each column over all its calls and rounds
   (the solver's own time, as far as the machine lets it show), and the
   median, p95 and mean over the columns; every round's p95 too, which is the
   spread a single run has. The suggestions of the two revisions are compared
   column by column (pattern, regex and FPR).

Writes ``latency_ab.json`` (every call's least per round, the commits, the
machine and its load average) and ``latency_ab.md`` to ``benchmarks/results/``
(``--out`` elsewhere). Exit code 0, or 2 on a usage error (an unknown
revision, a missing index).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def _worker(values_file: Path, index: Path, calls: int, out: Path) -> None:
    """One timed process: the least of ``calls`` calls per column (ms), and the suggestions."""
    import autovalidate  # the revision's, first on PYTHONPATH

    columns = json.loads(values_file.read_text())
    idx = autovalidate.PatternIndex.open(index)
    best = [math.inf] * len(columns)
    found: list[Any] = [None] * len(columns)
    for _ in range(calls):
        for j, train in enumerate(columns):
            started = time.perf_counter()
            rule = autovalidate.suggest_pattern(train, idx)
            best[j] = min(best[j], (time.perf_counter() - started) * 1000.0)
            found[j] = None if rule is None else [rule.pattern, rule.regex, rule.fpr]
    out.write_text(
        json.dumps({"package": autovalidate.__file__, "least_ms": best, "suggestions": found})
    )


def _rev(rev: str) -> str | None:
    """The commit ``rev`` names in this checkout, or None."""
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() if done.returncode == 0 else None


def _usage(message: str) -> int:
    print(f"latency_ab: {message}", file=sys.stderr)
    return 2


def _worktree(work: Path, sha: str) -> Path:
    """A detached checkout of ``sha`` under ``work``, made once."""
    tree = work / sha[:12]
    if not (tree / "autovalidate").is_dir():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=True)
        subprocess.run(
            ["git", "worktree", "add", "--detach", "--force", str(tree), sha],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
    return tree


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the revision to compare against, e.g. HEAD~1")
    parser.add_argument("head", nargs="?", default="HEAD", help="default: HEAD")
    parser.add_argument("--index", type=Path, required=True, help="a pattern index both can read")
    parser.add_argument("--lake", type=Path, default=ROOT.parent / "shared" / "lake")
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per revision")
    parser.add_argument("--calls", type=int, default=3, help="calls per column per process")
    parser.add_argument("--columns", type=int, default=None, help="the first N columns only")
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "work" / "latency_ab")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--worker", nargs=3, metavar=("VALUES", "CALLS", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.worker:
        _worker(Path(args.worker[0]), args.index, int(args.worker[1]), Path(args.worker[2]))
        return 0
    if not args.index.is_dir():
        return _usage(f"no index at {args.index}")
    if args.rounds < 1 or args.calls < 1 or (args.columns is not None and args.columns < 1):
        return _usage("--rounds, --calls and --columns must be at least 1")
    revisions: dict[str, str] = {}
    for role, rev in (("base", args.base), ("head", args.head)):
        sha = _rev(rev)
        if sha is None:
            return _usage(f"unknown revision {rev!r}")
        revisions[role] = sha
    work = args.work.resolve()
    trees = {role: _worktree(work, sha) for role, sha in revisions.items()}

    # this checkout's benchmark code, imported here only: a worker imports its
    # revision's autovalidate and nothing of this checkout
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from benchmarks.avbench.protocol import load_queries
    from benchmarks.avbench.report import machine
    from benchmarks.avbench.run import latency_summary, long_values

    cases = load_queries(args.lake)
    subset = long_values(cases)[: args.columns]
    values_file = work / "long_values.json"
    values_file.write_text(json.dumps([cases[i].train for i in subset]))
    load_before = os.getloadavg()[0]
    runs: dict[str, list[dict[str, Any]]] = {role: [] for role in revisions}
    for r in range(args.rounds):
        for role, tree in trees.items():
            out = work / f"{role}-{r}.json"
            env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
            worker = [sys.executable, str(Path(__file__).resolve()), args.base]
            worker += ["--index", str(args.index.resolve())]
            worker += ["--worker", str(values_file), str(args.calls), str(out)]
            subprocess.run(worker, cwd=tree, env=env, check=True)
            run = json.loads(out.read_text())
            if Path(run["package"]).resolve().parents[1] != tree.resolve():
                raise RuntimeError(f"{role} imported {run['package']}, not its worktree {tree}")
            runs[role].append(run)
            p95 = latency_summary(run["least_ms"])["p95_ms"]
            print(f"round {r + 1}/{args.rounds} {role}: p95 {p95:.1f} ms", file=sys.stderr)
    least = {
        role: np.min([x["least_ms"] for x in rr], axis=0).tolist() for role, rr in runs.items()
    }
    base, head = runs["base"][0]["suggestions"], runs["head"][0]["suggestions"]
    rules_same = all(
        (b is None) == (h is None) and (b is None or b[:2] == h[:2])
        for b, h in zip(base, head, strict=True)
    )
    gaps = (abs(b[2] - h[2]) for b, h in zip(base, head, strict=True) if b and h)
    fpr_gap = max(gaps, default=0.0)
    report = {
        "revisions": revisions,
        "index": str(args.index),
        "columns": len(subset),
        "rounds": args.rounds,
        "calls": args.calls,
        "machine": machine(),
        "load_average_1min": {"before": load_before, "after": os.getloadavg()[0]},
        # pattern and regex of every column the same in both commits
        "rules_identical": rules_same,
        "max_fpr_difference": fpr_gap,
        # every round of a commit gave its first round's suggestions, FPRs to the last bit
        "deterministic": {
            role: all(x["suggestions"] == rr[0]["suggestions"] for x in rr)
            for role, rr in runs.items()
        },
        "least": {role: latency_summary(ms) for role, ms in least.items()},
        "per_round_p95_ms": {
            role: [latency_summary(x["least_ms"])["p95_ms"] for x in rr]
            for role, rr in runs.items()
        },
        "least_ms": least,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latency_ab.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / "latency_ab.md").write_text(_markdown(report))
    print(_markdown(report))
    return 0


def _markdown(report: dict[str, Any]) -> str:
    rows = [
        "# Suggest latency, two commits side by side",
        "",
        f"The {report['columns']} columns of AV-bench's long-values set, "
        f"`suggest_pattern` with the index `{report['index']}`; {report['rounds']} fresh "
        f"processes per commit, alternating, {report['calls']} calls per column in each "
        f"(`benchmarks/latency_ab.py`). {report['machine']['cores']} cores, load average "
        f"{report['load_average_1min']['before']:.1f} before and "
        f"{report['load_average_1min']['after']:.1f} after.",
        "",
        "| commit | median ms | p95 ms | mean ms | p95 of each round, ms |",
        "|---|---:|---:|---:|---|",
    ]
    for role, sha in report["revisions"].items():
        s = report["least"][role]
        rounds = ", ".join(f"{x:.1f}" for x in report["per_round_p95_ms"][role])
        rows.append(
            f"| {role} `{sha[:10]}` | {s['median_ms']:.1f} | {s['p95_ms']:.1f} "
            f"| {s['mean_ms']:.1f} | {rounds} |"
        )
    same = report["rules_identical"]
    steady = [role for role, ok in report["deterministic"].items() if not ok]
    rows += [
        "",
        "A column's time is the least of all its calls over all rounds; a round's p95 "
        "is what one run would have reported. Rules (pattern and regex) "
        + ("identical on every column" if same else "**differ**")
        + f"; FPRs differ by at most {report['max_fpr_difference']:.1e}. "
        + (
            "Each commit gave the same suggestions, FPRs to the last bit, in every round."
            if not steady
            else f"Rounds of {' and '.join(steady)} gave suggestions differing from each other."
        ),
        "",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
