"""Index states: per-pattern sums that merge by addition (Song & He 2021, §2.4, Eq. 1 and 4).

Building an index is an aggregation with a mergeable state, like a Deequ
analyzer: each column D adds Imp_D(p) to ``imp_sum[p]``, 1 to ``cov[p]`` and
the conditional sums of :func:`~autovalidate.index.schema.column_state` for
every pattern p it matches; partial states of different partitions (or of
different corpora) merge by adding the sums; FPR_T(p) = imp_sum / cov.  The
Spark job keeps one :class:`IndexAccumulator` per partition and lets Spark add
them up; :func:`write_local_index` does the same in one process for small
corpora.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from autovalidate.errors import IndexBuildError
from autovalidate.index.generalization import GENERALIZATION_COLUMNS, GeneralizationStats
from autovalidate.index.publish import publish_local
from autovalidate.index.schema import (
    GENERALIZATION_DIR,
    PATTERN_COLUMNS,
    PATTERNS_DIR,
    SUM_COLUMNS,
    IndexMetadata,
    column_state,
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
    "GENERALIZATION_SCHEMA",
    "STATE_SCHEMA",
    "IndexAccumulator",
    "StatsAccumulatorParam",
    "iso_time",
    "partition_generalization",
    "partition_states",
    "publish_local",
    "rung_label",
    "write_local_index",
]


#: Which sums are counts (BIGINT), in SUM_COLUMNS order.
_INTEGRAL = tuple(t == "BIGINT" for t in SUM_COLUMNS.values())


def rung_label(cp: ColumnPatterns) -> str:
    """How a column's enumeration ended, as a metadata key.

    The coverage threshold used (``"0"`` for exact, ``"0.05"``...), or why the
    column contributed nothing (``"empty"``, ``"wide"``, ``"over-budget"``).
    """
    return cp.skipped if cp.skipped else f"{cp.min_purity:g}"


class IndexAccumulator:
    """Partial index state: the sums of :data:`~autovalidate.index.schema.SUM_COLUMNS` per pattern.

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
        """Add one data column D: the state of Imp_D(p) (Eq. 1) for each p in P(D)."""
        cp = column_patterns(values, tau=self.tau, budget=self.budget, ladder=self.ladder)
        self.columns += 1
        self.values += cp.n_values
        self.rungs[rung_label(cp)] += 1
        if not cp.counts:
            return
        self.columns_indexed += 1
        n = cp.n_values
        # patterns of a column share few counts and shares
        states: dict[tuple[int, tuple[int, float] | None], tuple[float, ...]] = {}
        for pattern, count in cp.counts.items():
            key = (count, cp.length_violations.get(pattern))
            state = states.get(key)
            if state is None:
                state = states[key] = column_state(1.0 - count / n, key[1])
            self._add(pattern, state)

    def _add(self, pattern: str, state: Sequence[float]) -> None:
        entry = self.sums.get(pattern)
        if entry is None:
            self.sums[pattern] = list(state)
        else:
            for i, x in enumerate(state):
                entry[i] += x

    def merge(self, other: IndexAccumulator) -> IndexAccumulator:
        """Add another partial state into this one (associative and commutative)."""
        for pattern, state in other.sums.items():
            self._add(pattern, state)
        self.columns += other.columns
        self.columns_indexed += other.columns_indexed
        self.values += other.values
        self.rungs.update(other.rungs)
        return self

    def rows(self) -> Iterator[tuple[Any, ...]]:
        """``(pattern_id, pattern, *sums)`` for every pattern, sums in ``SUM_COLUMNS`` order."""
        for pattern, state in self.sums.items():
            yield (
                pattern_id(pattern),
                pattern,
                *(int(x) if integral else x for x, integral in zip(state, _INTEGRAL, strict=True)),
            )

    def arrow_columns(self, min_cov: int = 1) -> dict[str, Any]:
        """The rows with Cov_T ≥ ``min_cov``, sorted by ``pattern_id``, as Arrow arrays.

        Keys are the pattern file's columns (:data:`PATTERN_COLUMNS`) without ``fpr``.
        """
        rows = sorted((r for r in self.rows() if r[2] >= min_cov), key=lambda r: r[0])
        return _arrow_columns(rows)

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
        ``pattern_id`` (int64), ``pattern`` (string) and the sums of
        :data:`~autovalidate.index.schema.SUM_COLUMNS` over the partition's
        columns (:data:`STATE_SCHEMA`).
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
        columns = _arrow_columns(rows[start : start + _OUTPUT_CHUNK])
        yield pa.RecordBatch.from_arrays(list(columns.values()), names=list(columns))


#: Spark DDL schema of :func:`partition_states`' batches.
STATE_SCHEMA = "pattern_id long, pattern string, " + ", ".join(
    f"{c} {'long' if t == 'BIGINT' else 'double'}" for c, t in SUM_COLUMNS.items()
)


def _arrow_columns(rows: Sequence[tuple[Any, ...]]) -> dict[str, Any]:
    """Rows of :meth:`IndexAccumulator.rows` as Arrow arrays by column name."""
    import pyarrow as pa

    names = ["pattern_id", "pattern", *SUM_COLUMNS]
    types = [pa.int64(), pa.string()] + [
        pa.int64() if t == "BIGINT" else pa.float64() for t in SUM_COLUMNS.values()
    ]
    return {
        name: pa.array([r[i] for r in rows], typ)
        for i, (name, typ) in enumerate(zip(names, types, strict=True))
    }


def partition_generalization(batches: Iterable[Any]) -> Iterator[Any]:
    """One partition's generalization statistics, as one Arrow batch (Spark ``mapInArrow`` body).

    Parameters
    ----------
    batches
        Arrow record batches whose first column is the lake's ``values``.

    Yields
    ------
    pyarrow.RecordBatch
        Rows of :data:`GENERALIZATION_SCHEMA`, a key at most once: Spark adds
        the partitions' rows up by key.
    """
    import pyarrow as pa

    stats = GeneralizationStats()
    for batch in batches:
        for values in batch.column(0).to_pylist():
            stats.add_column(values or ())
    yield pa.RecordBatch.from_pydict(_generalization_columns(stats))


def _generalization_columns(stats: GeneralizationStats) -> dict[str, Any]:
    """The statistics as Arrow arrays by column (:data:`GENERALIZATION_COLUMNS` order)."""
    import pyarrow as pa

    types = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "BOOLEAN": pa.bool_()}
    types |= {"BIGINT": pa.int64(), "DOUBLE": pa.float64()}
    rows = list(stats.rows())
    return {
        name: pa.array([r[i] for r in rows], types[t])
        for i, (name, t) in enumerate(GENERALIZATION_COLUMNS.items())
    }


#: Spark DDL schema of :func:`partition_generalization`'s batches.
_SPARK_TYPES = {
    "VARCHAR": "string",
    "INTEGER": "int",
    "BOOLEAN": "boolean",
    "BIGINT": "long",
    "DOUBLE": "double",
}
GENERALIZATION_SCHEMA = ", ".join(
    f"{c} {_SPARK_TYPES[t]}" for c, t in GENERALIZATION_COLUMNS.items()
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

    The same state and files as the Spark job (:mod:`autovalidate.index.build`),
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
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    started = time.time()
    target = Path(out)
    if target.exists():
        raise IndexBuildError(f"{target}: already exists; remove it first")
    acc = IndexAccumulator(tau=tau, budget=budget, ladder=ladder)
    generalization = GeneralizationStats()
    for col in columns:
        values = list(col)
        acc.add_column(values)
        generalization.add_column(values)
    columns = acc.arrow_columns(min_cov)
    fpr = pc.divide(columns["imp_sum"], pc.cast(columns["cov"], pa.float64()))
    table = pa.table({**columns, "fpr": fpr})
    assert table.column_names == list(PATTERN_COLUMNS)

    def write(staging: Path) -> IndexMetadata:
        pq.write_table(table, staging / PATTERNS_DIR / PART_FILE, compression="zstd")
        (staging / GENERALIZATION_DIR).mkdir()
        pq.write_table(
            pa.table(_generalization_columns(generalization)),
            staging / GENERALIZATION_DIR / PART_FILE,
            compression="zstd",
        )
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
            patterns=table.num_rows,
        )

    return publish_local(target, write)


def iso_time(ts: float) -> str:
    """A POSIX timestamp as UTC ISO-8601 to the second (the metadata's ``started``/``finished``)."""
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")
