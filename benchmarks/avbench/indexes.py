"""Index builds for AV-bench (the tau sweep's indexes, the offline cost), each in its own JVM.

Every build calls the product's ``autovalidate.index.build.build_index`` with a
``autovalidate.engines.spark_session.local_session`` of the requested master, in a
subprocess (``python -m benchmarks.avbench.indexes``), so that local[1] and
local[2] get fresh JVMs and the builds never overlap.  The wall time is
measured around the ``build_index`` call only (JVM start excluded).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import autovalidate

__all__ = ["build", "corpus_bytes", "directory_bytes", "index_matches", "offline_cost"]


def build(lake: Path, out: Path, *, tau: int, master: str) -> dict[str, Any]:
    """Build an index of ``lake`` at ``out`` (replacing it) in a subprocess.

    Returns
    -------
    dict
        ``wall_seconds`` of ``build_index``, ``master``, ``tau``, and the
        index metadata's ``corpus`` and ``patterns``.

    Raises
    ------
    RuntimeError
        If the build fails (its stderr tail is in the message).
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(Path.cwd()), os.environ.get("PYTHONPATH")])
        ),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.avbench.indexes",
            "--lake",
            str(lake),
            "--out",
            str(out),
            "--tau",
            str(tau),
            "--master",
            master,
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"index build ({master}, tau={tau}) failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def index_matches(path: Path, lake: Path, tau: int) -> bool:
    """Whether ``path`` holds a complete index of ``lake`` at ``tau`` with the product defaults."""
    from autovalidate.index.build import DEFAULT_BUDGET, DEFAULT_LADDER

    try:
        with autovalidate.PatternIndex.open(path, in_memory=False) as index:
            meta = index.metadata
    except autovalidate.PatternIndexError:
        return False
    return (
        meta.tau == tau
        and Path(meta.corpus.get("path", "")).resolve() == lake.resolve()
        and meta.autovalidate_version == autovalidate.__version__
        and meta.build.get("budget") == DEFAULT_BUDGET
        and list(meta.build.get("ladder", [])) == list(DEFAULT_LADDER)
        and meta.build.get("min_cov") == 1
    )


def directory_bytes(path: Path) -> int:
    """Bytes of the files under ``path``."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def corpus_bytes(lake: Path) -> int:
    """Bytes of the lake's Parquet files."""
    return sum(f.stat().st_size for f in lake.glob("*.parquet"))


def offline_cost(lake: Path, work: Path, *, tau: int) -> dict[str, Any]:
    """Build the index at local[1] and local[2]; time, throughput and size of each.

    The local[2] build is left at ``work/index-tau{tau}``, where the run then
    finds its default index.
    """
    out: dict[str, Any] = {"corpus_bytes": corpus_bytes(lake), "tau": tau, "builds": {}}
    for cores in (1, 2):
        target = work / (f"index-tau{tau}" if cores == 2 else f"index-tau{tau}-local1")
        facts = build(lake, target, tau=tau, master=f"local[{cores}]")
        wall = facts["wall_seconds"]
        size = directory_bytes(target)
        out["builds"][f"local[{cores}]"] = {
            "wall_seconds": wall,
            "columns": facts["corpus"]["columns"],
            "values": facts["corpus"]["values"],
            "columns_per_second": facts["corpus"]["columns"] / wall,
            "values_per_second": facts["corpus"]["values"] / wall,
            "patterns": facts["patterns"],
            "index_bytes": size,
            "index_to_corpus": size / out["corpus_bytes"],
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Build one index and print its facts as JSON (the subprocess side of :func:`build`)."""
    parser = argparse.ArgumentParser(description="one timed index build")
    parser.add_argument("--lake", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--tau", type=int, required=True)
    parser.add_argument("--master", required=True)
    args = parser.parse_args(argv)
    from autovalidate.engines.spark_session import local_session
    from autovalidate.index.build import build_index

    spark = local_session("avbench-index-build", master=args.master)
    try:
        started = time.perf_counter()
        meta = build_index(spark, args.lake, args.out, tau=args.tau, overwrite=True)
        wall = time.perf_counter() - started
    finally:
        spark.stop()
    print(
        json.dumps(
            {
                "wall_seconds": wall,
                "master": args.master,
                "tau": args.tau,
                "corpus": meta.corpus,
                "patterns": meta.patterns,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
