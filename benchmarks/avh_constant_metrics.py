"""How often a metric that never varied in the history changes on a clean batch.

Usage::

    python3 benchmarks/avh_constant_metrics.py [--reps 2] [--tables 3]

Same trials as ``benchmarks/avh_pipelines.py`` (its histories and clean tested
batches, same statistics). For every candidate of the raw-value kind whose
history is constant, every clean tested batch is a trial of "the value stays
equal". ``zero_variance="plugin"`` prices this constraint as if it never
failed; ``zero_variance="rank"`` bounds its failure rate by ``1 / (n + 1)``
one-sided. The observed rate, with its 95 % Clopper-Pearson interval, says
which of the two the pipelines' constant metrics resemble. Prints a table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from avh_pipelines import (  # noqa: E402
    _numeric_columns,
    _stats,
    clopper_pearson,
    trials,
)

from autovalidate.monitor.avh_batches import _Observation, candidates, tracked_patterns  # noqa: E402
from autovalidate.repository.base import AnalysisResult, ResultKey  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--tables", type=int, default=3)
    args = parser.parse_args(argv)
    by_metric: dict[str, list[int]] = {}
    histories = 0
    for trial in trials(args.reps, args.tables):
        numeric = _numeric_columns(pd.concat(trial.history, ignore_index=True))
        first = _stats(trial.history[0], numeric, learn=True)
        learned = tracked_patterns([AnalysisResult(ResultKey("p", 0), first)])
        history = [first] + [_stats(b, numeric, learned) for b in trial.history[1:]]
        results = [AnalysisResult(ResultKey("p", t), h) for t, h in enumerate(history)]
        constant = [
            c
            for c in candidates(results)
            if c.transform == "value" and max(c.history) == min(c.history)
        ]
        histories += 1
        for batch in trial.tested:
            new = _Observation.of(_stats(batch, numeric, learned))
            for c in constant:
                value = new.scalars.get(c.analyzer)
                tally = by_metric.setdefault(c.name, [0, 0])
                tally[0] += value is None or value != c.history[0]
                tally[1] += 1
    print(f"{histories} histories; constant-history candidates x clean tested batches:\n")
    print("| metric | changed / trials | rate (95 % CI) |")
    print("|---|---:|---:|")
    total = [0, 0]
    for name, (k, n) in sorted(by_metric.items()):
        lo, hi = clopper_pearson(k, n)
        print(f"| {name} | {k}/{n} | {k / n:.4f} ({lo:.4f}-{hi:.4f}) |")
        total[0] += k
        total[1] += n
    lo, hi = clopper_pearson(*total)
    print(f"| all | {total[0]}/{total[1]} | {total[0] / total[1]:.4f} ({lo:.4f}-{hi:.4f}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
