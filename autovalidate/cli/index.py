"""``autovalidate index build``, ``autovalidate index merge`` and ``autovalidate index info``."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from autovalidate.cli.common import (
    HELP_SETTINGS,
    Command,
    console,
    field_table,
    handle_errors,
    print_json,
    progress,
    styled,
)
from autovalidate.errors import IndexBuildError, ParameterError
from autovalidate.patterns.enumeration import DEFAULT_BUDGET, DEFAULT_LADDER, DEFAULT_TAU
from autovalidate.wording import counted

if TYPE_CHECKING:
    from autovalidate.index.schema import IndexMetadata


#: Where a build's Spark log lines go unless ``--verbose``: a file per build process
#: (``{pid}``), in the temporary directory; one fixed path was overwritten by every
#: concurrent build.
SPARK_LOG = str(Path(tempfile.gettempdir()) / "autovalidate-spark-{pid}.log")


app = typer.Typer(
    help="Build and inspect pattern indexes of a data lake.", no_args_is_help=True, **HELP_SETTINGS
)


@app.command("build", cls=Command)
@handle_errors
def build(
    lake: Path = typer.Option(
        ..., "--lake", help="Directory of the lake's Parquet files (one row per column)."
    ),
    out: Path = typer.Option(..., "--out", help="Index directory to create."),
    tau: int = typer.Option(
        DEFAULT_TAU, "--tau", min=1, max=13, help="Token limit: longer values generate no patterns."
    ),
    min_purity: float = typer.Option(
        DEFAULT_LADDER[0],
        "--min-purity",
        "--min-coverage",
        min=0.0,
        max=1.0,
        help=(
            "Fraction of a column's values a pattern must match for the column to count "
            "as its evidence (Algorithm 1): 1 - the largest impurity Imp_D. "
            "--min-coverage is its former name."
        ),
    ),
    budget: int = typer.Option(
        DEFAULT_BUDGET,
        "--budget",
        min=1,
        help="Most patterns per column before the purity threshold rises.",
    ),
    master: str = typer.Option(
        "local[2]", "--master", help="Spark master URL; local[N] is the embedded default."
    ),
    partitions: int = typer.Option(
        None, "--partitions", min=1, help="Enumeration tasks (default: 16 per core)."
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace an existing index once the new one is complete."
    ),
    merge_into: Path = typer.Option(
        None,
        "--merge-into",
        help=(
            "An index of the rest of the lake, built with the same parameters: OUT is then "
            "its sum with the index of LAKE (LAKE's columns appended; see `index merge`)."
        ),
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the index metadata as JSON."),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        help=f"Show Spark's own log lines (else they go to {SPARK_LOG.format(pid='PID')}, "
        "named in the first progress line).",
    ),
) -> None:
    """Build the pattern index of LAKE with Spark (FPR_T and Cov_T of every pattern; §2.4).

    With --merge-into EXISTING, LAKE holds new columns only: its index is built
    beside OUT, then added to EXISTING into OUT (OUT may be EXISTING with
    --overwrite).

    Exit codes: 0 built, 2 error (nothing is published at OUT then).
    """
    from autovalidate.engines.spark_session import require_pyspark
    from autovalidate.index.merge import build_params, check_mergeable, planned_params
    from autovalidate.index.publish import check_writable, staging_dir
    from autovalidate.index.reader import PatternIndex

    require_pyspark("autovalidate index build")
    if not lake.is_dir():
        raise IndexBuildError(f"{lake}: no such lake directory")
    if out.exists() and not overwrite:
        raise IndexBuildError(f"{out}: already exists; pass --overwrite to replace it")
    check_writable(out)  # before Spark starts, not after the build
    ladder = tuple(sorted({min_purity, *[c for c in DEFAULT_LADDER if c > min_purity]}))
    built_out = out
    if merge_into is not None:
        # refuse before the build, not after it
        existing = PatternIndex.open(merge_into, in_memory=False)
        existing.close()
        planned = planned_params(tau=tau, budget=budget, ladder=ladder)
        check_mergeable([(str(merge_into), build_params(existing.metadata)), (str(lake), planned)])
    with contextlib.ExitStack() as stack:
        if merge_into is not None:
            # LAKE's index goes to a directory beside OUT that this process holds locked:
            # what a killed run leaves there, the next publish or open at OUT removes
            holder, fd = staging_dir(out)
            stack.callback(shutil.rmtree, holder, True)
            stack.callback(os.close, fd)
            built_out = holder / "index"
        meta, took = _build(
            lake,
            out,
            built_out,
            merge_into,
            tau,
            budget,
            ladder,
            master,
            partitions,
            overwrite,
            as_json=as_json,
            verbose=verbose,
        )
    _published("built", out, meta, took, as_json)


def _build(
    lake: Path,
    out: Path,
    built_out: Path,
    merge_into: Path | None,
    tau: int,
    budget: int,
    ladder: tuple[float, ...],
    master: str,
    partitions: int | None,
    overwrite: bool,
    *,
    as_json: bool,
    verbose: bool,
) -> tuple[IndexMetadata, str]:
    """Run the Spark build of LAKE to ``built_out``, then merge it into ``merge_into`` at OUT.

    Returns the metadata published at OUT and how long the build (and merge) took,
    Spark's start-up apart.
    """
    from autovalidate.engines.spark_session import local_session
    from autovalidate.index.build import BuildProgress, build_index
    from autovalidate.index.merge import merge_indexes

    spark_log = None if verbose else Path(SPARK_LOG.format(pid=os.getpid()))
    first = "starting Spark" + (f" (its log: {spark_log})" if spark_log else "")
    with progress(first, unit="tasks", enabled=not as_json) as update:
        started = time.time()
        spark = local_session("autovalidate-index-build", master=master, log_file=spark_log)
        spark_seconds = time.time() - started

        def report(p: BuildProgress) -> None:
            update(p.phase, p.completed, p.total)

        meta = build_index(
            spark,
            str(lake),
            str(built_out),
            tau=tau,
            budget=budget,
            ladder=ladder,
            partitions=partitions,
            overwrite=overwrite and merge_into is None,
            progress=report,
        )
        took = f"in {_seconds(meta)} s"
        if merge_into is not None:
            update(f"merge into {merge_into}")
            meta = merge_indexes(
                [merge_into, built_out],
                out,
                overwrite=overwrite,
                labels=[str(merge_into), None],
                progress=update,
            )
            took += f" and merged in {_seconds(meta)} s"
    # the build's own duration, as `index info` shows it; Spark's start-up apart
    return meta, f"{took}, after {spark_seconds:.1f} s starting Spark"


@app.command("merge", cls=Command)
@handle_errors
def merge(
    inputs: list[Path] = typer.Argument(
        ..., metavar="INDEX", help="Index directories to add up (two or more)."
    ),
    out: Path = typer.Option(..., "--out", help="Index directory to create."),
    overwrite: bool = typer.Option(
        False,
        "--overwrite",
        help="Replace an existing index (even an input) once the merged one is complete.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the index metadata as JSON."),
) -> None:
    """Add up the per-pattern states (imp_sum, cov) of indexes: the index of their lakes' union.

    The inputs must have been built with the same tau, budget and coverage
    ladder, and min_cov 1. OUT is published atomically; its metadata records
    every input lake.

    Exit codes: 0 merged, 2 error (incompatible or broken inputs; nothing is
    published at OUT then).
    """
    from autovalidate.index.merge import merge_indexes

    with progress(None, unit="", enabled=not as_json) as update:
        meta = merge_indexes(inputs, out, overwrite=overwrite, progress=update)
    _published("merged", out, meta, f"in {_seconds(meta)} s", as_json)


def _seconds(meta: IndexMetadata) -> str:
    """The wall time the metadata records for its build or merge, as every command shows it."""
    return f"{float(meta.build.get('wall_seconds') or 0.0):.1f}"


def _published(verb: str, out: Path, meta: IndexMetadata, took: str, as_json: bool) -> None:
    """Say what was published at ``out`` and how long it took: the metadata as JSON, or a line."""
    if as_json:
        print_json({"path": str(out), **meta.__dict__})
        return
    lakes = meta.corpus.get("lakes")
    console.print(
        styled(verb, "green"),
        f"{out}: {meta.patterns:,} patterns from "
        + (f"{len(lakes)} lakes, " if lakes else "")
        + f"{meta.corpus['columns']:,} columns "
        f"({meta.corpus['values']:,} values) {took}",
        soft_wrap=True,
    )


@app.command("info", cls=Command)
@handle_errors
def info(
    path: Path = typer.Argument(None, metavar="PATH", help="Index directory."),
    default: bool = typer.Option(
        False,
        "--default",
        help="Show the default index packaged with autovalidate: its sources and licenses.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the metadata as JSON."),
) -> None:
    """Show what an index was built from and how, after checking its files are all there.

    With --default: the index packaged with autovalidate (used when no
    --index is given), with the public sources it was built from, their
    licenses, and the Cov_T floor it was pruned at.

    Exit codes: 0 a complete index, 2 none at PATH, another version, or a
    broken one (a pattern file missing, truncated or changed).
    """
    from autovalidate.index.default import describe_index, open_default_index
    from autovalidate.index.reader import PatternIndex

    if (path is None) == (not default):
        raise ParameterError("give an index directory, or --default for the packaged index")
    with (
        PatternIndex.open(path, in_memory=False)
        if path is not None
        else open_default_index(in_memory=False)
    ) as index:
        meta = index.metadata
        shown = str(index.path) if path is not None else describe_index(index)
        where = str(index.path)
    if as_json:
        print_json({"path": where, **meta.__dict__})
        return
    table = field_table()
    table.add_row("index", shown)
    table.add_row("patterns", f"{meta.patterns:,}")
    table.add_row("tau", str(meta.tau))
    # the default index's recorded path is a directory of the machine that built it
    corpus = (
        str(meta.corpus.get("path"))
        if path is not None
        else f"{counted(len(meta.corpus.get('sources', [])), 'public source')} (below)"
    )
    table.add_row(
        "corpus",
        f"{corpus}: {meta.corpus.get('columns', 0):,} columns, "
        f"{meta.corpus.get('values', 0):,} values",
    )
    for lake in meta.corpus.get("lakes", []):
        table.add_row(
            "  lake",
            f"{lake.get('path')}: {lake.get('columns', 0):,} columns, "
            f"{lake.get('values', 0):,} values; built {lake.get('finished')} on "
            f"{lake.get('master', lake.get('engine'))}"
            + (f", from index {lake['index']}" if lake.get("index") else ""),
        )
    table.add_row(
        "built",
        f"{meta.build.get('finished')} in {_seconds(meta)} s "
        f"on {meta.build.get('master', meta.build.get('engine'))}",
    )
    table.add_row("purity ladder", ", ".join(f"{c:g}" for c in meta.build.get("ladder", [])))
    if "floor" in meta.build:
        table.add_row(
            "pruned",
            f"patterns with Cov_T >= {meta.build['floor']} kept "
            f"(of {meta.build.get('unpruned_patterns', 0):,})",
        )
    table.add_row(
        "versions",
        f"format {meta.format_version}, hierarchy {meta.hierarchy_version}, "
        f"autovalidate {meta.autovalidate_version}",
    )
    console.print(table)
    for title, key in (("sources", "sources"), ("left out", "excluded_sources")):
        if meta.corpus.get(key):
            sources = Table(title=title)
            sources.add_column("repository", no_wrap=True)
            sources.add_column("commit", no_wrap=True)
            sources.add_column("columns", justify="right")
            sources.add_column("license" if key == "sources" else "license: why left out")
            for s in meta.corpus[key]:
                why = s["license"] if key == "sources" else f"{s['license']}: {s['reason']}"
                sources.add_row(s["repo"], s["commit"][:7], f"{s['columns']:,}", why)
            console.print(sources)
    if path is None:
        console.print(f"files and attributions (NOTICE.md): {where}", soft_wrap=True)
        console.print("license decisions: docs/default-index.md of the repository")
