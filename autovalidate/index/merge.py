"""Merging pattern indexes: an index is a sum of per-pattern states (Song & He 2021, §2.4).

Each corpus column D adds Imp_D(p) to ``imp_sum[p]``, 1 to ``cov[p]`` and its
conditional sums (:data:`~autovalidate.index.schema.SUM_COLUMNS`,
:mod:`autovalidate.index.state`), so the index of a lake L1 ∪ L2 is the
per-pattern sum of the indexes of L1 and L2, provided both were built with
the same enumeration parameters and kept every pattern (``min_cov`` = 1).
:func:`merge_indexes` adds up the pattern files of indexes in DuckDB and
publishes the sum as the build does (:func:`~autovalidate.index.state.publish_local`):
a lake that grows by a partition is indexed by building the partition and
merging, not by rebuilding the lake.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from autovalidate.errors import IndexBuildError, IndexMergeError, ParameterError
from autovalidate.index.generalization import GENERALIZATION_COLUMNS, KEY_COLUMNS
from autovalidate.index.publish import recover
from autovalidate.index.reader import PatternIndex
from autovalidate.index.schema import GENERALIZATION_DIR, PATTERNS_DIR, SUM_COLUMNS, IndexMetadata
from autovalidate.index.state import PART_FILE, iso_time, publish_local
from autovalidate.wording import counted

__all__ = ["build_params", "check_mergeable", "merge_indexes", "planned_params"]

#: Corpus counters that add up under a merge.
_CORPUS_SUMS = ("files", "columns", "columns_indexed", "values")


def build_params(meta: IndexMetadata) -> dict[str, Any]:
    """The build parameters that decide what a column contributes to an index.

    Returns
    -------
    dict
        ``tau``, ``budget``, ``ladder`` (list of coverage fractions) and
        ``min_cov``; two indexes add up only if these are equal and ``min_cov``
        is 1.
    """
    return planned_params(
        tau=meta.tau,
        budget=meta.build.get("budget"),
        ladder=meta.build.get("ladder", []),
        min_cov=meta.build.get("min_cov", 1),
    )


def planned_params(
    *, tau: int, budget: int | None, ladder: Sequence[float], min_cov: int = 1
) -> dict[str, Any]:
    """:func:`build_params` of a build not run yet (to refuse a merge before building)."""
    return {"tau": tau, "budget": budget, "ladder": [float(c) for c in ladder], "min_cov": min_cov}


def check_mergeable(params: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Refuse inputs whose sums would not be the index of their union.

    Parameters
    ----------
    params
        ``(index path, build_params(metadata))`` per input, in order; the
        first input's parameters are the reference.

    Raises
    ------
    IndexMergeError
        If an input was built with ``min_cov`` > 1 (its rare patterns' sums
        were dropped), or with another τ, budget or ladder than the first.
    """
    if not params:
        return
    _, reference = params[0]
    for path, p in params:
        if p["min_cov"] != 1:
            raise IndexMergeError(path, "min_cov", p["min_cov"], 1)
        for key in ("tau", "budget", "ladder"):
            if p[key] != reference[key]:
                raise IndexMergeError(path, key, p[key], reference[key])


def merge_indexes(
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    threads: int | None = None,
    labels: Sequence[str | None] | None = None,
    progress: Callable[[str], object] | None = None,
) -> IndexMetadata:
    """Add up the per-pattern states of indexes into a new index, published atomically.

    The output has the build's layout: one Parquet file of the pattern columns
    sorted by ``pattern_id``, the sums of ``SUM_COLUMNS`` added per pattern and
    ``fpr`` = imp_sum / cov derived from the sums; its metadata records every
    input lake with its provenance (``corpus["lakes"]``, flattened through
    inputs that are merges themselves) and the sums of the inputs' columns,
    values and rung counts.

    Parameters
    ----------
    inputs
        Two or more index directories (one is allowed: a copy).
    out
        Index directory to publish; may be one of the inputs with ``overwrite``.
    overwrite
        Replace an existing index at ``out`` once the merged one is complete.
    threads
        DuckDB worker threads; DuckDB's default (all cores) if ``None``.
    labels
        What to record as each input's ``index`` in the lake provenance, in
        the order of ``inputs`` (``None`` records none, e.g. for a temporary
        build); the input paths if not given.
    progress
        Called with a line when the inputs are checked and their patterns are summed.

    Returns
    -------
    IndexMetadata
        The record written as ``out/_autovalidate_index.json``.

    Raises
    ------
    ParameterError
        If no input is given, an input is given twice, or ``labels`` has
        another length than ``inputs``.
    IndexNotFoundError, IndexVersionError, IndexSchemaError
        If an input is not a complete index of this format and hierarchy.
    IndexMergeError
        If the inputs were built with different parameters (see
        :func:`check_mergeable`).
    IndexBuildError
        If ``out`` exists without ``overwrite``, or the merge cannot be
        written; nothing is published then.
    """
    started = time.time()
    roots = [Path(p) for p in inputs]
    if not roots:
        raise ParameterError("index merge needs at least one input index")
    resolved = [r.resolve() for r in roots]
    for i, r in enumerate(resolved):
        if r in resolved[:i]:
            raise ParameterError(f"{roots[i]}: given twice (its columns would count twice)")
    if labels is None:
        labels = [str(r) for r in roots]
    if len(labels) != len(roots):
        raise ParameterError(f"{len(labels)} labels for {len(roots)} input indexes")
    # each input checked (metadata, version, no part file missing) and held open until the
    # merge is published: a publish over an input (M into M) keeps its version meanwhile
    with contextlib.ExitStack() as held:
        indexes = [held.enter_context(PatternIndex.open(r, in_memory=False)) for r in roots]
        meta = _merge(indexes, roots, labels, Path(out), overwrite, threads, started, progress)
    recover(out)  # the version an input held (M merged into M) is no reader's now
    return meta


def _merge(
    indexes: Sequence[PatternIndex],
    roots: Sequence[Path],
    labels: Sequence[str | None],
    target: Path,
    overwrite: bool,
    threads: int | None,
    started: float,
    progress: Callable[[str], object] | None,
) -> IndexMetadata:
    metas = [index.metadata for index in indexes]
    check_mergeable([(str(r), build_params(m)) for r, m in zip(roots, metas, strict=True)])
    if target.exists() and not overwrite:
        raise IndexBuildError(f"{target}: already exists; pass --overwrite to replace it")

    (progress or (lambda _: None))(
        f"sum {counted(sum(m.patterns for m in metas), 'pattern')} of "
        f"{counted(len(roots), 'index', 'indexes')} "
        f"({counted(sum(m.corpus.get('columns', 0) for m in metas), 'column')})"
    )

    def write(staging: Path) -> IndexMetadata:
        casts = ", ".join(f"CAST({c} AS {t}) AS {c}" for c, t in SUM_COLUMNS.items())
        sums = ", ".join(f"CAST(sum({c}) AS {t}) AS {c}" for c, t in SUM_COLUMNS.items())
        sources = " UNION ALL ".join(
            f"SELECT pattern_id, pattern, {casts} "
            f"FROM read_parquet({[str(f) for f in index.files]!r})"
            for index in indexes
        )
        part = staging / PATTERNS_DIR / PART_FILE
        con = duckdb.connect()
        try:
            if threads is not None:
                con.execute(f"SET threads = {int(threads)}").fetchall()
            ((n_patterns,),) = con.execute(
                f"COPY (SELECT pattern_id, pattern, {sums}, sum(imp_sum) / sum(cov) AS fpr "
                f"FROM ({sources}) GROUP BY pattern_id, pattern ORDER BY pattern_id) "
                f"TO '{_sql_string(part)}' (FORMAT parquet, COMPRESSION zstd)"
            ).fetchall()
            (staging / GENERALIZATION_DIR).mkdir()
            con.execute(_generalization_sum(indexes, staging / GENERALIZATION_DIR / PART_FILE))
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0]
            raise IndexBuildError(f"{target}: merge failed: {first}") from exc
        finally:
            con.close()
        finished = time.time()
        return _merged_metadata(
            metas, labels, n_patterns=int(n_patterns), started=started, finished=finished
        )

    return publish_local(target, write, overwrite=overwrite)


def _generalization_sum(indexes: Sequence[PatternIndex], part: Path) -> str:
    """SQL writing the sum, per key, of the inputs' generalization tables to ``part``.

    Each input's files are those its reader opened (in the version it holds).
    """
    typed = ", ".join(f"CAST({c} AS {t}) AS {c}" for c, t in GENERALIZATION_COLUMNS.items())
    sources = " UNION ALL ".join(
        f"SELECT {typed} FROM read_parquet({[str(f) for f in index.generalization_files]!r})"
        for index in indexes
    )
    sums = ", ".join(
        f"CAST(sum({c}) AS {GENERALIZATION_COLUMNS[c]}) AS {c}"
        for c in ("columns", "share_sum", "failed")
    )
    return (
        f"COPY (SELECT {', '.join(KEY_COLUMNS)}, {sums} FROM ({sources}) GROUP BY ALL "
        f"ORDER BY ALL) TO '{_sql_string(part)}' (FORMAT parquet, COMPRESSION zstd)"
    )


def _merged_metadata(
    metas: Sequence[IndexMetadata],
    labels: Sequence[str | None],
    *,
    n_patterns: int,
    started: float,
    finished: float,
) -> IndexMetadata:
    lakes: list[dict[str, Any]] = []
    for meta, label in zip(metas, labels, strict=True):
        if "lakes" in meta.corpus:  # a merge: its lakes carry their provenance already
            lakes.extend(meta.corpus["lakes"])
            continue
        lake = {k: v for k, v in meta.corpus.items()}
        lake.update(
            {
                "index": label,
                "engine": meta.build.get("engine"),
                "master": meta.build.get("master"),
                "finished": meta.build.get("finished"),
                "wall_seconds": meta.build.get("wall_seconds"),
                "autovalidate_version": meta.autovalidate_version,
            }
        )
        lakes.append({k: v for k, v in lake.items() if v is not None})
    corpus: dict[str, Any] = {"path": " + ".join(str(lake.get("path")) for lake in lakes)}
    for key in _CORPUS_SUMS:
        if all(key in m.corpus for m in metas):
            corpus[key] = sum(int(m.corpus[key]) for m in metas)
    corpus["lakes"] = lakes
    rungs: Counter[str] = Counter()
    for m in metas:
        rungs.update(m.build.get("rungs", {}))
    params = build_params(metas[0])
    return IndexMetadata(
        tau=params["tau"],
        corpus=corpus,
        build={
            "engine": "merge",
            "inputs": len(metas),
            "budget": params["budget"],
            "ladder": params["ladder"],
            "min_cov": 1,
            # a pruned input (the packaged default index keeps Cov_T >= its floor)
            # lacks the sums of its rarer patterns: the merge under-counts those
            # by fewer than `floor` columns, and says so by keeping the floor
            **(
                {"floor": max(int(m.build.get("floor", 1)) for m in metas)}
                if any(int(m.build.get("floor", 1)) > 1 for m in metas)
                else {}
            ),
            "rungs": dict(rungs),
            "started": iso_time(started),
            "finished": iso_time(finished),
            "wall_seconds": round(finished - started, 3),
        },
        patterns=n_patterns,
    )


def _sql_string(path: Path) -> str:
    return str(path).replace("'", "''")
