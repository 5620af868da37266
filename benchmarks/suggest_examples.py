"""Suggestions for named real columns of the lake: what `autovalidate suggest` says about them.

For each column: train on the first 10% of its non-null values (as AV-bench
does), print the suggested pattern and regex, its segments, and whether the
other 90% passes validation; latency is measured with a warm index.

    python3 -m benchmarks.suggest_examples [--index DIR] [--lake DIR]

writes ``benchmarks/results/suggest_examples.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path
from typing import Any

import duckdb

import autovalidate

ROOT = Path(__file__).resolve().parents[1]

#: (table_id, column_name, what it is)
COLUMNS = [
    ("cisagov/kev-data:known_exploited_vulnerabilities.csv", "cveID", "identifier"),
    ("cisagov/kev-data:known_exploited_vulnerabilities.csv", "dateAdded", "date"),
    ("citizenlab/malware-indicators:201512_PackRAT/iocs.csv", "uuid", "identifier (GUID)"),
    (
        "fivethirtyeight/data:impeachment-polls/impeachment_topline.csv",
        "timestamp",
        "timestamp",
    ),
    ("fivethirtyeight/data:mayweather-mcgregor/tweets.csv", "created_at", "timestamp"),
    (
        "fivethirtyeight/data:trump-twitter/realDonaldTrump_poll_tweets.csv",
        "created_at",
        "timestamp",
    ),
    (
        "ipinfo/sample-database:IP Residential Proxy/ip_residential_proxy_sample.csv",
        "ip",
        "composite",
    ),
    ("fivethirtyeight/data:bob-ross/elements-by-episode.csv", "EPISODE", "composite identifier"),
    ("fivethirtyeight/data:congress-age/congress-terms.csv", "bioguide", "identifier"),
    ("datasets/country-codes:data/country-codes.csv", "ISO3166-1-Alpha-3", "code"),
    ("ipinfo/sample-database:WHOIS/whois_poc_sample.csv", "officephone", "composite"),
    (
        "cisagov/dotgov-data:dotgov-websites/pulse-subdomains-snapshot-06-08-2020-https.csv",
        "URL",
        "composite",
    ),
    ("datasets/publicbodies:data/br.csv", "email", "composite"),
]


def main(argv: list[str] | None = None) -> int:
    """Run the examples; returns an exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=ROOT / "benchmarks/work/index-tau8")
    parser.add_argument("--lake", type=Path, default=ROOT.parent / "shared/lake")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results")
    args = parser.parse_args(argv)

    con = duckdb.connect()
    index = autovalidate.PatternIndex.open(args.index)
    rows: list[dict[str, Any]] = []
    for table_id, column, kind in COLUMNS:
        found = con.execute(
            f"SELECT values FROM read_parquet('{args.lake}/*.parquet') "
            "WHERE starts_with(table_id, ?) AND column_name = ? LIMIT 1",
            [table_id, column],
        ).fetchall()
        if not found:
            rows.append({"table": table_id, "column": column, "kind": kind, "error": "not found"})
            continue
        values = [v for v in found[0][0] if v is not None]
        train, test = values[: math.ceil(len(values) / 10)], values[math.ceil(len(values) / 10) :]
        autovalidate.suggest_pattern(train, index)  # warm
        timings = []
        for _ in range(5):
            started = time.perf_counter()
            constraint = autovalidate.suggest_pattern(train, index, column=column)
            timings.append((time.perf_counter() - started) * 1000)
        result = constraint.validate(test) if constraint else None
        rows.append(
            {
                "table": table_id,
                "column": column,
                "kind": kind,
                "train": len(train),
                "examples": list(dict.fromkeys(train))[:3],
                "pattern": constraint.pattern if constraint else None,
                "regex": constraint.regex if constraint else None,
                "segments": [
                    {k: s.to_dict()[k] for k in ("pattern", "fpr", "cov", "optional")}
                    for s in constraint.segments
                ]
                if constraint
                else [],
                "fpr": constraint.fpr if constraint else None,
                "test_values": len(test),
                "test_passed": result.passed if result else None,
                "test_nonconforming": result.n_nonconforming if result else None,
                "ms": round(statistics.median(timings), 2),
            }
        )
    index.close()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "suggest_examples.json").write_text(
        json.dumps({"index": str(args.index), "columns": rows}, indent=2, ensure_ascii=False) + "\n"
    )
    lines = [
        "# Suggestions for real lake columns",
        "",
        f"Index `{args.index}`; defaults of `suggest_pattern` (FMDV-VH); train = first 10% of the"
        " column's values, test = the rest. ms: median of 5 warm runs.",
        "",
        "| column | kind | examples | pattern | regex | test | ms |",
        "|---|---|---|---|---|---|---:|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['column']} | {r['kind']} | {r['error']} | | | | |")
            continue
        verdict = (
            "no constraint"
            if r["pattern"] is None
            else ("passes" if r["test_passed"] else f"fails ({r['test_nonconforming']} bad)")
        )
        cell = lambda s: "" if s is None else "`" + s.replace("|", "\\|") + "`"  # noqa: E731
        ex = ", ".join(cell(e) for e in r["examples"])
        lines.append(
            f"| {r['column']} | {r['kind']} | {ex} | {cell(r['pattern'])} | {cell(r['regex'])} "
            f"| {verdict} | {r['ms']} |"
        )
    (args.out / "suggest_examples.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
