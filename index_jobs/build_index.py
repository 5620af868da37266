r"""spark-submit entry point of the index build (Auto-Validate's offline stage, §2.4).

Run it on any cluster::

    spark-submit --py-files autovalidate.zip index_jobs/build_index.py \
        --lake hdfs:///lake --out hdfs:///indexes/lake-tau8

The build itself is :func:`autovalidate.index.build.build_index` (the CLI's
``autovalidate index build`` runs it in local mode); this file parses the
arguments, starts the session, prints progress lines and the result.
Exit codes: 0 built, 2 error (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autovalidate.errors import IndexBuildError, ParameterError
from autovalidate.index.build import BuildProgress, build_index, local_path
from autovalidate.index.publish import check_writable
from autovalidate.patterns.enumeration import DEFAULT_BUDGET, DEFAULT_TAU
from autovalidate.progress import PhaseLines

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run ``spark-submit index_jobs/build_index.py --lake DIR --out DIR``; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lake", required=True, help="directory of lake Parquet files")
    parser.add_argument("--out", required=True, help="index directory to publish")
    parser.add_argument("--tau", type=int, default=DEFAULT_TAU)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--min-cov", type=int, default=1)
    parser.add_argument("--partitions", type=int, default=None)
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    local = local_path(args.out) if "://" in args.out else Path(args.out)
    if local is not None:
        try:
            check_writable(local)  # before the session starts
        except IndexBuildError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("autovalidate-index-build").getOrCreate()

    # cluster logs are no terminal: throttled lines, as the CLI writes them off one
    lines = PhaseLines(lambda line: print(line, file=sys.stderr, flush=True), unit="tasks")

    def report(p: BuildProgress) -> None:
        lines(p.phase, p.completed, p.total)

    try:
        meta = build_index(
            spark,
            args.lake,
            args.out,
            tau=args.tau,
            budget=args.budget,
            min_cov=args.min_cov,
            partitions=args.partitions,
            overwrite=args.overwrite,
            progress=report,
        )
    except (IndexBuildError, ParameterError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"out": args.out, "patterns": meta.patterns, **meta.build}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
