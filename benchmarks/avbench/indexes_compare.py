"""AV-bench's FMDV rows for several indexes side by side: the default index against the full one.

``python3 -m benchmarks.avbench.indexes_compare --index full=DIR --index floor10=DIR [--quick N]``

Runs the product's FMDV variants (``autovalidate.suggest_pattern`` with its
defaults) on AV-bench's query set B of ``--lake`` with each index, scores them
with AV-bench's own protocol (the 10%/90% split, Validate, precision and
squashed recall of Eq. 17: the share of B's other columns the rule rejects), and
writes ``default_index.json`` and ``default_index.md`` under ``--out``.
Besides all of B, each row is split by where B's column comes from: a source
the index was built from (``in corpus``), or another (``held out``: for the
default index, the sources left out for their licenses), which separates
what the license filter costs from what pruning costs.  The baselines of the
full run are left out: they do not read the index.
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
from benchmarks.avbench.methods.fmdv import FmdvMethod
from benchmarks.avbench.protocol import RuleCounter, load_queries, score, summarize
from benchmarks.avbench.report import commit
from benchmarks.avbench.run import FMDV_VARIANTS, _fit

ROOT = Path(__file__).resolve().parents[2]


def _sources(index: autovalidate.PatternIndex) -> set[str] | None:
    """The lake sources an index records (``corpus.sources``); ``None``: the whole lake."""
    recorded = index.metadata.corpus.get("sources")
    return {s["repo"] for s in recorded} if recorded else None


def compare(
    lake: Path, indexes: dict[str, Path], *, quick: int | None, variants: tuple[str, ...], say: Any
) -> dict[str, Any]:
    """Score every FMDV variant with every index on B; returns the report as plain data."""
    cases = load_queries(lake, quick=quick)
    say(f"B: {len(cases)} columns")
    counter = RuleCounter(cases)
    rows: list[dict[str, Any]] = []
    facts: dict[str, Any] = {}
    for label, path in indexes.items():
        index = autovalidate.PatternIndex.open(path)
        built_from = _sources(index)
        in_corpus = [c.idx for c in cases if built_from is None or c.source in built_from]
        held_out = sorted(set(range(len(cases))) - set(in_corpus))
        facts[label] = {
            "path": str(path),
            "patterns": index.metadata.patterns,
            "floor": index.metadata.build.get("floor", index.metadata.build.get("min_cov")),
            "bytes": sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file()),
            "hierarchy_version": index.metadata.hierarchy_version,
            "sources": "all" if built_from is None else len(built_from),
        }
        for variant in variants:
            run = _fit(FmdvMethod(variant, index), cases)
            scores = score(cases, run.rules, counter.count(run.rules))
            rows.append(
                {
                    "index": label,
                    "method": variant,
                    "all": summarize(scores),
                    "in_corpus": summarize(scores, in_corpus),
                    "held_out": summarize(scores, held_out),
                    "abstentions": sum(r is None for r in run.rules),
                    "seconds": run.seconds,
                }
            )
            say(f"{label} {variant}: {run.seconds:.1f} s")
        index.close()
    counter.close()
    return {
        "lake": str(lake),
        "query_set": {"size": len(cases), "quick": quick, "seed": 0},
        "indexes": facts,
        "rows": rows,
    }


def markdown(report: dict[str, Any], header: str) -> str:
    """The report as a Markdown table, one row per index and method."""
    lines = [
        "# AV-bench: the default index beside the full one",
        "",
        header,
        "",
        "| index | patterns | floor | MB | sources |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, f in report["indexes"].items():
        lines.append(
            f"| {label} | {f['patterns']:,} | {f['floor']} | {f['bytes'] / 2**20:.1f} "
            f"| {f['sources']} |"
        )
    lines += [
        "",
        "P, R: AV-bench's precision and squashed recall (Eq. 17) on all of B;"
        " R in/out: recall on B's columns from the sources the index holds / from the others.",
        "",
        "| index | method | P | R | F1 | abstains | R in corpus (n) | R held out (n) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["rows"]:
        a, i, h = r["all"], r["in_corpus"], r["held_out"]

        def cell(s: dict[str, float]) -> str:
            return f"{s['recall']:.3f} ({s['cases']})" if s["cases"] else "- (0)"

        lines.append(
            f"| {r['index']} | {r['method']} | {a['precision']:.3f} | {a['recall']:.3f} "
            f"| {a['f1']:.3f} | {r['abstentions']} | {cell(i)} | {cell(h)} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Parse, run, write ``default_index.{json,md}``; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", type=Path, default=ROOT.parent / "shared" / "lake")
    parser.add_argument(
        "--index", action="append", required=True, help="LABEL=DIR, repeated; in table order"
    )
    parser.add_argument("--quick", type=int, default=None, help="only the first N columns of B")
    parser.add_argument("--methods", default=",".join(FMDV_VARIANTS))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    indexes = dict(item.split("=", 1) for item in args.index)
    started = time.perf_counter()

    def say(line: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {line}", file=sys.stderr, flush=True)

    report = compare(
        args.lake.resolve(),
        {k: Path(v).resolve() for k, v in indexes.items()},
        quick=args.quick,
        variants=tuple(args.methods.split(",")),
        say=say,
    )
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    report["commit"] = commit(ROOT)
    report["finished"] = when
    report["seconds"] = round(time.perf_counter() - started, 1)
    size = report["query_set"]["size"]
    header = (
        f"Commit `{report['commit']['sha']}`"
        + (" (uncommitted changes)" if report["commit"]["dirty"] else "")
        + f"; {when}; {report['seconds']:.0f} s. B: {size} columns"
        + (" (quick: a prefix of B)" if args.quick else "")
        + "; product defaults (r, m, theta, tau) of `suggest_pattern`."
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "default_index.json").write_text(json.dumps(report, indent=2) + "\n")
    (args.out / "default_index.md").write_text(markdown(report, header))
    print(args.out / "default_index.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
