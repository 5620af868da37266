"""FMDV-VH under several configurations, side by side on the query sets that decide.

``python3 -m benchmarks.avbench.estimators --index DIR [--queries B-M,LSO-B] [--config L=JSON]...``

Each configuration is a set of ``autovalidate.suggest_pattern`` keyword
arguments (e.g. ``base={}``, ``r0.1={"r": 0.1}``, ``paper-cuts={"generalize":
false}``), run with AV-bench's own protocol on each query set:

* ``B``: AV-bench's B with ``--index`` (its columns are in the index's corpus);
* ``B-M``: the machine-generated columns of ``../shared/avbench-machine`` with
  ``--index`` (sources the lake does not hold);
* ``LSO-B``: B, each column learned with the leave-source-out index of its fold
  (:mod:`.folds`, under ``--work``; built by the product where missing).

Per query set and configuration: precision, squashed recall and F1 (Eq. 17)
on all columns and on the two slices (training parts of at most 3 distinct
values, and the rest), abstentions, format-drift recall over the columns with
a rule, the calibration of the estimated FPR, the failing rules by cause
(:mod:`.failures`), and, against the first configuration, the paired
bootstrap difference of P, R and F1 with its 95% interval (:mod:`.noise`).
``--real-errors`` adds the dirty-clean tables (they do not read the query
set). The full run (``python3 -m benchmarks.avbench``)
reports the product defaults beside the baselines; this is how the defaults
are chosen (``docs/avbench.md``, "Deciding"). Writes ``estimators.json`` and
``estimators.md`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import autovalidate
from benchmarks.avbench import drift, folds, noise, real_errors
from benchmarks.avbench.calibration import calibration
from benchmarks.avbench.failures import CAUSES, census
from benchmarks.avbench.methods.fmdv import FmdvMethod
from benchmarks.avbench.protocol import (
    Case,
    CaseScore,
    Rule,
    RuleCounter,
    load_machine_queries,
    load_queries,
    score,
    summarize,
)
from benchmarks.avbench.report import commit
from benchmarks.avbench.run import product_defaults, slices

ROOT = Path(__file__).resolve().parents[2]
QUERY_SETS = ("B", "B-M", "LSO-B")


def _fit(cases: Sequence[Case], index_of: Callable[[Case], Any], kwargs: dict) -> list[Rule | None]:
    """FMDV-VH's rule for every case, each learned with the index ``index_of`` gives it."""
    methods: dict[int, FmdvMethod] = {}
    rules = []
    for c in cases:
        index = index_of(c)
        method = methods.setdefault(id(index), FmdvMethod("fmdv-vh", index, dict(kwargs)))
        rules.append(method.fit(c.train))
    return rules


def _query_set(
    queries: str,
    index: autovalidate.PatternIndex,
    args: argparse.Namespace,
    opened: list[autovalidate.PatternIndex],
    say: Callable[[str], None],
) -> tuple[list[Case], Callable[[Case], Any]]:
    """A query set's cases and, per case, the index its rule is learned with."""
    if queries == "B-M":
        return load_machine_queries(args.machine), lambda c: index
    cases = load_queries(args.lake)
    if queries == "B":
        return cases, lambda c: index
    where = folds.fold_of(folds.source_folds(args.lake))
    paths = folds.fold_indexes(args.lake, args.work, tau=product_defaults()["tau"], say=say)
    by_fold = [autovalidate.PatternIndex.open(p) for p in paths]
    opened += by_fold
    return cases, lambda c: by_fold[where[c.source]]


def evaluate(
    cases: Sequence[Case], rules: list[Rule | None], counter: RuleCounter
) -> tuple[dict[str, Any], list[CaseScore]]:
    """One configuration's numbers on one query set (see the module docstring)."""
    counts = counter.count(rules)
    scores = score(cases, rules, counts)
    passed = [s.precision for s in scores]
    report, _ = drift.drift_recall(cases, {"m": rules}, {"m": passed})
    cal = calibration(rules, passed, counts)
    parts = slices(cases)
    found = census(cases, rules, scores, parts["repetitive"])
    return {
        "all": summarize(scores),
        **{name: summarize(scores, idx) for name, idx in parts.items()},
        "abstentions": sum(r is None for r in rules),
        "noise": noise.interval(scores),
        "drift_with_rule": report["methods"]["m"]["with_rule"]["total"],
        "calibration": {
            "calibrated": cal["calibrated"],
            "estimate": cal["estimate"],
            "failed": cal["failed"],
            "deciles": cal["deciles"],
        },
        "failing": {why: row["total"] for why, row in found["causes"].items()},
    }, scores


def _real_errors(index: autovalidate.PatternIndex, dirty_clean: Path, kwargs: dict) -> dict:
    columns = real_errors.load_columns(dirty_clean)
    method = FmdvMethod("fmdv-vh", index, dict(kwargs))
    learned = [method.fit(c.train) for c in real_errors.cases(columns)]
    real = real_errors.evaluate(columns, {"m": learned})
    row = real["methods"]["m"]
    return {
        "columns_with_rule": row["columns_with_rule"],
        "false_alarms": row["false_alarms"],
        "false_alarm_columns": row["false_alarm_columns"],
        "error_cells_flagged": row["error_cells_flagged"],
        "error_cells": real["error_cells"],
    }


def markdown(report: dict[str, Any]) -> str:
    """Per query set, the configurations as one Markdown table."""
    lines = [
        "# FMDV-VH under several configurations",
        "",
        f"Index `{report['index']}`; commit `{report['commit'].get('sha', '?')}`"
        f"{' (with uncommitted changes)' if report['commit'].get('dirty') else ''}; "
        f"{report['finished']}; {report['seconds']:.0f} s. Command: `{report['command']}`.",
        "Δ: the paired bootstrap difference against the first configuration, with its 95% "
        'interval (docs/avbench.md, "Deciding").',
    ]
    for queries, configs in report["queries"].items():
        lines += [
            "",
            f"## {queries}",
            "",
            "| configuration | P | R | F1 | abstains | F1 (rep.) | F1 (varied) | drift (rule) "
            f"| calibrated | failing: {' / '.join(CAUSES)} | ΔP | ΔF1 |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|",
        ]
        for label, r in configs.items():
            a = r["all"]
            diff = r.get("paired")
            dp = _diff(diff["precision"]) if diff else ""
            df = _diff(diff["f1"]) if diff else ""
            cal = {True: "yes", False: "no", None: "–"}[r["calibration"]["calibrated"]]
            lines.append(
                f"| {label} | {a['precision']:.3f} | {a['recall']:.3f} | {a['f1']:.3f} "
                f"| {r['abstentions']} | {r['repetitive']['f1']:.3f} | {r['varied']['f1']:.3f} "
                f"| {r['drift_with_rule']:.3f} | {cal} "
                f"| {' / '.join(str(n) for n in r['failing'].values())} | {dp} | {df} |"
            )
    if report.get("real_errors"):
        lines += [
            "",
            "## Real errors (dirty-clean)",
            "",
            "| configuration | columns with a rule | false alarms | error cells flagged |",
            "|---|---:|---:|---:|",
        ]
        for label, e in report["real_errors"].items():
            lines.append(
                f"| {label} | {e['columns_with_rule']} | {e['false_alarms']} "
                f"| {e['error_cells_flagged']} of {e['error_cells']} |"
            )
    return "\n".join(lines) + "\n"


def _diff(d: dict[str, Any]) -> str:
    low, high = d["interval"]
    return f"{d['diff']:+.3f} ({low:+.3f}, {high:+.3f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="the lake's index (B, B-M)")
    parser.add_argument("--lake", type=Path, default=ROOT.parent / "shared" / "lake")
    parser.add_argument(
        "--machine",
        type=Path,
        default=ROOT.parent / "shared" / "avbench-machine" / "cases.parquet",
    )
    parser.add_argument("--queries", default="B", help=f"comma-separated of {QUERY_SETS}")
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "work")
    parser.add_argument("--dirty-clean", type=Path, default=ROOT.parent / "shared" / "dirty-clean")
    parser.add_argument("--real-errors", action="store_true", help="also the dirty-clean tables")
    parser.add_argument("--config", action="append", default=[], help="LABEL=JSON, repeated")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    wanted = [q.strip() for q in args.queries.split(",") if q.strip()]
    unknown = [q for q in wanted if q not in QUERY_SETS]
    if unknown or not wanted:
        parser.error(f"--queries takes a comma-separated list of {', '.join(QUERY_SETS)}")
    configs: dict[str, dict] = {"defaults": {}}
    if args.config:
        configs = {}
        for item in args.config:
            label, sep, text = item.partition("=")
            if not sep:
                parser.error(f"--config takes LABEL=JSON, got {item!r}")
            configs[label] = json.loads(text)
    started = time.time()

    def say(line: str) -> None:
        print(f"[{time.time() - started:7.1f}s] {line}", file=sys.stderr, flush=True)

    report: dict[str, Any] = {"index": str(args.index), "queries": {}}
    opened: list[autovalidate.PatternIndex] = []
    with autovalidate.PatternIndex.open(args.index) as index:
        for queries in wanted:
            cases, index_of = _query_set(queries, index, args, opened, say)
            counter = RuleCounter(cases)
            first: list[CaseScore] | None = None
            results: dict[str, Any] = {}
            for label, kwargs in configs.items():
                rules = _fit(cases, index_of, kwargs)
                results[label], scores = evaluate(cases, rules, counter)
                if first is None:
                    first = scores
                else:
                    results[label]["paired"] = noise.paired(scores, first)
                results[label]["kwargs"] = kwargs
                say(f"{queries} {label}: " + json.dumps(results[label]["all"]))
            counter.close()
            report["queries"][queries] = results
        if args.real_errors:
            report["real_errors"] = {
                label: _real_errors(index, args.dirty_clean, kwargs)
                for label, kwargs in configs.items()
            }
    for other in opened:
        other.close()
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
