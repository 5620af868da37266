"""Index states: per-pattern sums that merge by addition (Song & He 2021, §2.4, Eq. 1 and 4).

Building an index is an aggregation with a mergeable state, like a Deequ
analyzer: each column D adds Imp_D(p) to ``imp_sum[p]`` and 1 to ``cov[p]`` for
every pattern p it matches; partial states of different partitions (or of
different corpora) merge by adding the sums; FPR_T(p) = imp_sum / cov.  The
Spark job keeps one :class:`IndexAccumulator` per partition and lets Spark add
them up; :func:`write_local_index` does the same in one process for small
corpora.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from autovalidate.errors import IndexBuildError
from autovalidate.index.schema import (
    METADATA_FILE,
    PATTERN_COLUMNS,
    PATTERNS_DIR,
    IndexMetadata,
    pattern_id,
)
from autovalidate.patterns.enumeration import (
    DEFAULT_BUDGET,
    DEFAULT_LADDER,
    DEFAULT_TAU,
    ColumnPatterns,
    column_patterns,
)

__all__ = [
    "IndexAccumulator",
    "StatsAccumulatorParam",
    "iso_time",
    "partition_states",
    "publish_local",
    "rung_label",
    "write_local_index",
]


def rung_label(cp: ColumnPatterns) -> str:
    """How a column's enumeration ended, as a metadata key.

    The coverage threshold used (``"0"`` for exact, ``"0.05"``...), or why the
    column contributed nothing (``"empty"``, ``"wide"``, ``"over-budget"``).
    """
    return cp.skipped if cp.skipped else f"{cp.min_coverage:g}"


class IndexAccumulator:
    """Partial index state: Σ Imp_D(p) and Cov(p) over the columns added so far.

    Parameters
    ----------
    tau, budget, ladder
        Passed to :func:`~autovalidate.patterns.enumeration.column_patterns`.
    """

    def __init__(
        self,
        *,
        tau: int = DEFAULT_TAU,
        budget: int = DEFAULT_BUDGET,
        ladder: tuple[float, ...] = DEFAULT_LADDER,
    ) -> None:
        self.tau = tau
        self.budget = budget
        self.ladder = ladder
        self.sums: dict[str, list[float]] = {}
        self.columns = 0
        self.columns_indexed = 0
        self.values = 0
        self.rungs: Counter[str] = Counter()

    def add_column(self, values: Iterable[str | None]) -> None:
        """Add one data column D: Imp_D(p) (Eq. 1) for each p in P(D)."""
        cp = column_patterns(values, tau=self.tau, budget=self.budget, ladder=self.ladder)
        self.columns += 1
        self.values += cp.n_values
        self.rungs[rung_label(cp)] += 1
        if not cp.counts:
            return
        self.columns_indexed += 1
        n = cp.n_values
        sums = self.sums
        for pattern, count in cp.counts.items():
            entry = sums.get(pattern)
            imp = 1.0 - count / n
            if entry is None:
                sums[pattern] = [imp, 1]
            else:
                entry[0] += imp
                entry[1] += 1

    def merge(self, other: IndexAccumulator) -> IndexAccumulator:
        """Add another partial state into this one (associative and commutative)."""
        for pattern, (imp, cov) in other.sums.items():
            entry = self.sums.get(pattern)
            if entry is None:
                self.sums[pattern] = [imp, cov]
            else:
                entry[0] += imp
                entry[1] += cov
        self.columns += other.columns
        self.columns_indexed += other.columns_indexed
        self.values += other.values
        self.rungs.update(other.rungs)
        return self

    def rows(self) -> Iterator[tuple[int, str, float, int]]:
        """``(pattern_id, pattern, imp_sum, cov)`` for every pattern."""
        for pattern, (imp, cov) in self.sums.items():
            yield pattern_id(pattern), pattern, imp, int(cov)

    def stats(self) -> dict[str, Any]:
        """Counters for the index metadata."""
        return {
            "columns": self.columns,
            "columns_indexed": self.columns_indexed,
            "values": self.values,
            "rungs": dict(self.rungs),
        }


#: The one pattern file of an index written in this process (local build, merge).
PART_FILE = "part-00000.parquet"

#: Pattern rows per Arrow batch emitted by :func:`partition_states`.
_OUTPUT_CHUNK = 100_000


def partition_states(
    batches: Iterable[Any],
    *,
    tau: int,
    budget: int,
    ladder: tuple[float, ...],
    stats: Any = None,
) -> Iterator[Any]:
    """One partition's partial index state, as Arrow batches (Spark ``mapInArrow`` body).

    Parameters
    ----------
    batches
        Arrow record batches whose first column is the lake's ``values``
        (one list of strings per data column).
    tau, budget, ladder
        Enumeration parameters.
    stats
        A Spark accumulator (:class:`StatsAccumulatorParam`) to add the
        partition's counters to, or ``None``.

    Yields
    ------
    pyarrow.RecordBatch
        ``pattern_id`` (int64), ``pattern`` (string), ``imp_sum`` (float64),
        ``cov`` (int64): Σ Imp_D(p) and Cov(p) over the partition's columns.
    """
    import pyarrow as pa

    acc = IndexAccumulator(tau=tau, budget=budget, ladder=ladder)
    for batch in batches:
        for values in batch.column(0).to_pylist():
            acc.add_column(values or ())
    if stats is not None:
        stats.add(acc.stats())
    rows = list(acc.rows())
    for start in range(0, len(rows), _OUTPUT_CHUNK):
        chunk = rows[start : start + _OUTPUT_CHUNK]
        yield pa.RecordBatch.from_arrays(
            [
                pa.array([r[0] for r in chunk], pa.int64()),
                pa.array([r[1] for r in chunk], pa.string()),
                pa.array([r[2] for r in chunk], pa.float64()),
                pa.array([r[3] for r in chunk], pa.int64()),
            ],
            names=["pattern_id", "pattern", "imp_sum", "cov"],
        )


class StatsAccumulatorParam:
    """Spark ``AccumulatorParam`` adding up :meth:`IndexAccumulator.stats` dictionaries."""

    def zero(self, value: dict[str, Any]) -> dict[str, Any]:
        """An empty record."""
        return {}

    def addInPlace(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:  # noqa: N802
        """Add ``b`` into ``a``: numbers add, nested counters add per key."""
        for key, value in b.items():
            if isinstance(value, dict):
                merged = Counter(a.get(key, {}))
                merged.update(value)
                a[key] = dict(merged)
            else:
                a[key] = a.get(key, 0) + value
        return a


def write_local_index(
    columns: Iterable[Iterable[str | None]],
    out: str | os.PathLike[str],
    *,
    tau: int = DEFAULT_TAU,
    budget: int = DEFAULT_BUDGET,
    ladder: tuple[float, ...] = DEFAULT_LADDER,
    min_cov: int = 1,
    corpus_path: str = "<in-memory>",
) -> IndexMetadata:
    """Build an index of a small corpus in this process (no Spark) and publish it atomically.

    The same state and files as the Spark job (:mod:`index_jobs.build_index`),
    for corpora that fit in memory: tests, examples, small lakes.

    Parameters
    ----------
    columns
        The corpus T: one iterable of values per data column.
    out
        Index directory to create; must not exist.
    tau, budget, ladder
        Enumeration parameters (§2.4).
    min_cov
        Patterns with Cov_T below this are left out of the files.
    corpus_path
        Recorded in the metadata.

    Returns
    -------
    IndexMetadata

    Raises
    ------
    IndexBuildError
        If ``out`` exists or cannot be written.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    started = time.time()
    target = Path(out)
    if target.exists():
        raise IndexBuildError(f"{target}: already exists; remove it first")
    acc = IndexAccumulator(tau=tau, budget=budget, ladder=ladder)
    for col in columns:
        acc.add_column(col)
    rows = [r for r in acc.rows() if r[3] >= min_cov]
    rows.sort(key=lambda r: r[0])
    table = pa.table(
        {
            "pattern_id": pa.array([r[0] for r in rows], pa.int64()),
            "pattern": pa.array([r[1] for r in rows], pa.string()),
            "cov": pa.array([r[3] for r in rows], pa.int64()),
            "imp_sum": pa.array([r[2] for r in rows], pa.float64()),
            "fpr": pa.array([r[2] / r[3] for r in rows], pa.float64()),
        }
    )
    assert table.column_names == list(PATTERN_COLUMNS)

    def write(staging: Path) -> IndexMetadata:
        pq.write_table(table, staging / PATTERNS_DIR / PART_FILE, compression="zstd")
        finished = time.time()
        return IndexMetadata(
            tau=tau,
            corpus={"path": corpus_path, **{k: v for k, v in acc.stats().items() if k != "rungs"}},
            build={
                "engine": "local",
                "budget": budget,
                "ladder": list(ladder),
                "min_cov": min_cov,
                "rungs": acc.stats()["rungs"],
                "started": iso_time(started),
                "finished": iso_time(finished),
                "wall_seconds": round(finished - started, 3),
            },
            patterns=len(rows),
        )

    return publish_local(target, write)


def publish_local(
    out: str | os.PathLike[str],
    write: Callable[[Path], IndexMetadata],
    *,
    overwrite: bool = False,
) -> IndexMetadata:
    """Publish an index on the local file system atomically: staging, metadata last, rename.

    ``write(staging)`` writes the pattern files under ``staging/patterns/``
    (created beforehand) and returns the metadata; the metadata file is then
    written, and the staging directory (``.NAME.tmp-*`` beside ``out``, which
    no reader accepts) renamed to ``out``.  A failure or an interrupt removes
    the staging directory and publishes nothing.

    Parameters
    ----------
    out
        Index directory to publish.
    write
        Fills the staging directory; called once.
    overwrite
        Replace an existing index at ``out`` once the new one is complete (the
        old one is moved aside, the new one renamed in, the old one removed).

    Returns
    -------
    IndexMetadata
        What ``write`` returned, as written to the metadata file.

    Raises
    ------
    IndexBuildError
        If ``out`` exists without ``overwrite``, or cannot be written.
    """
    target = Path(out)
    if target.exists() and not overwrite:
        raise IndexBuildError(f"{target}: already exists; remove it first or overwrite it")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    old: Path | None = None
    try:
        (staging / PATTERNS_DIR).mkdir()
        meta = write(staging)
        (staging / METADATA_FILE).write_text(meta.to_json(), encoding="utf-8")
        if target.exists():
            if not overwrite:
                raise IndexBuildError(f"{target}: appeared while building; not replaced")
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            os.rename(target, old / target.name)
        try:
            os.rename(staging, target)
        except OSError:
            if old is not None:
                os.rename(old / target.name, target)
            raise
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if old is not None and not target.exists():
            os.rename(old / target.name, target)
        if isinstance(exc, OSError):
            raise IndexBuildError(f"{target}: cannot write index: {exc}") from exc
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return meta


def iso_time(ts: float) -> str:
    """A POSIX timestamp as UTC ISO-8601 to the second (the metadata's ``started``/``finished``)."""
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")
