"""FMDV-VH under several FPR_T estimators and r: quality, drift recall and real errors side by side.

``python3 -m benchmarks.avbench.estimators --index DIR [--config LABEL=JSON ...] [--out DIR]``

Each configuration is a set of ``autovalidate.suggest_pattern`` keyword
arguments (e.g. ``cond-r0.15={"r": 0.15}``, ``uncond={"condition": false}``),
run on AV-bench's query set B with AV-bench's own protocol: precision,
squashed recall and F1 (Eq. 17), abstentions, format-drift recall over the
columns with a rule, and the real errors of ``../shared/dirty-clean``.  The
full run (``python3 -m benchmarks.avbench``) reports the product defaults
beside the baselines; this is how the defaults were chosen
(docs/auto-validate.md).  Writes ``estimators.json`` and ``estimators.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import autovalidate
from benchmarks.avbench import drift, real_errors
from benchmarks.avbench.methods.fmdv import FmdvMethod
from benchmarks.avbench.protocol import RuleCounter, load_queries, score, summarize
from benchmarks.avbench.report import commit

ROOT = Path(__file__).resolve().parents[2]
#: The configurations of docs/auto-validate.md's estimator table.
DEFAULT_CONFIGS = {
    "unconditioned, r=0.2": {"condition": False, "r": 0.2},
    "conditioned, r=0.2": {"r": 0.2},
    "conditioned, r=0.15": {"r": 0.15},
    "conditioned, r=0.1": {"r": 0.1},
}


def evaluate(index: autovalidate.PatternIndex, lake: Path, dirty_clean: Path, kwargs: dict) -> dict:
    """One configuration's numbers (see the module docstring)."""
    cases = load_queries(lake)
    method = FmdvMethod("fmdv-vh", index, dict(kwargs))
    rules = [method.fit(c.train) for c in cases]
    counter = RuleCounter(cases)
    scores = score(cases, rules, counter.count(rules))
    counter.close()
    report, _ = drift.drift_recall(cases, {"m": rules}, {"m": [s.precision for s in scores]})
    with_rule = report["methods"]["m"]["with_rule"]
    columns = real_errors.load_columns(dirty_clean)
    learned = [method.fit(c.train) for c in real_errors.cases(columns)]
    real = real_errors.evaluate(columns, {"m": learned})
    row = real["methods"]["m"]
    return {
        "kwargs": kwargs,
        "all": summarize(scores),
        "abstentions": sum(r is None for r in rules),
        "drift_with_rule": with_rule["total"],
        "drift_kinds": with_rule["kinds"],
        "real_errors": {
            "columns_with_rule": row["columns_with_rule"],
            "false_alarms": row["false_alarms"],
            "false_alarm_columns": row["false_alarm_columns"],
            "error_cells_flagged": row["error_cells_flagged"],
            "error_cells": real["error_cells"],
        },
    }


def markdown(report: dict[str, Any]) -> str:
    """The configurations as one Markdown table."""
    lines = [
        "# FMDV-VH under several FPR_T estimators and r",
        "",
        f"Index `{report['index']}`; commit `{report['commit'].get('sha', '?')}`; "
        f"{report['finished']}; {report['seconds']:.0f} s. Command: `{report['command']}`.",
        "",
        "| configuration | P | R | F1 | abstains | drift recall (with a rule) "
        "| real errors flagged | false alarms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, r in report["configs"].items():
        a, e = r["all"], r["real_errors"]
        lines.append(
            f"| {label} | {a['precision']:.3f} | {a['recall']:.3f} | {a['f1']:.3f} "
            f"| {r['abstentions']} | {r['drift_with_rule']:.3f} "
            f"| {e['error_cells_flagged'] / e['error_cells']:.3f} | {e['false_alarms']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--lake", type=Path, default=ROOT.parent / "shared" / "lake")
    parser.add_argument("--dirty-clean", type=Path, default=ROOT.parent / "shared" / "dirty-clean")
    parser.add_argument("--config", action="append", default=[], help="LABEL=JSON, repeated")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    configs = dict(DEFAULT_CONFIGS)
    if args.config:
        configs = {}
        for item in args.config:
            label, _, text = item.partition("=")
            configs[label] = json.loads(text)
    started = time.time()
    report: dict[str, Any] = {"index": str(args.index), "configs": {}}
    with autovalidate.PatternIndex.open(args.index) as index:
        for label, kwargs in configs.items():
            report["configs"][label] = evaluate(index, args.lake, args.dirty_clean, kwargs)
            print(label, json.dumps(report["configs"][label]["all"]), file=sys.stderr, flush=True)
    report.update(
        commit=commit(ROOT),
        seconds=time.time() - started,
        finished=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        command="python3 -m benchmarks.avbench.estimators " + " ".join(argv or sys.argv[1:]),
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "estimators.json").write_text(json.dumps(report, indent=2, default=str))
    (args.out / "estimators.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
