"""Runs ``suggest`` then ``validate`` on lake tables, in worker processes (not a test module).

Each table is an independent pair of CLI runs (in-process, through Typer's
``CliRunner``, as before). One table's pair used to run after the other's in
the pytest process: 2 x 200 tables, about 7 minutes of a 13-minute run on 2
cores. They run in a pool of spawned worker processes, one per core (at most
4): the same real CLI, DuckDB and files, the same failures reported in the
same order. A spawned worker starts a fresh interpreter: nothing of the test
process (its Spark JVM, its DuckDB connections) is shared with it.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

#: Worker processes: the cores this process may run on, at most 4.
WORKERS = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def suggest_then_validate(item: tuple[str, str, tuple[str, ...]]) -> str | None:
    """``suggest TABLE [INDEX_ARGS] --out SUITE`` then ``validate TABLE --constraints SUITE``.

    Returns None when both exit 0, else what failed.
    """
    from typer.testing import CliRunner

    from autovalidate.cli import app

    table_id, table, index_args = item
    path = Path(table)
    runner = CliRunner()
    suite = path.with_suffix(".suite.json")
    made = runner.invoke(app, ["suggest", str(path), *index_args, "--out", str(suite), "--json"])
    if made.exit_code != 0:
        return f"{table_id}: suggest exit {made.exit_code}: {made.output[-300:]}"
    checked = runner.invoke(app, ["validate", str(path), "--constraints", str(suite), "--json"])
    if checked.exit_code != 0:
        try:
            failed: object = [r for r in json.loads(checked.output)["results"] if not r["passed"]]
        except ValueError:
            failed = checked.output[-300:]
        return f"{table_id}: validate exit {checked.exit_code}: {failed}"
    return None


def failures(tables: list[tuple[str, Path]], *index_args: str) -> list[str]:
    """What failed, table by table in the order given, over :data:`WORKERS` processes."""
    items = [(table_id, str(path), tuple(index_args)) for table_id, path in tables]
    if WORKERS < 2 or len(items) < 2:
        results = [suggest_then_validate(item) for item in items]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(WORKERS, mp_context=context) as pool:
            results = list(pool.map(suggest_then_validate, items, chunksize=5))
    return [r for r in results if r is not None]
