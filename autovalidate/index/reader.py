"""Reading a pattern index (Song & He 2021, §2.4, online stage).

A warm index (``in_memory=True``) is held as one Arrow table sorted by
``pattern_id``: :meth:`PatternIndex.lookup` finds a batch of k patterns by
binary search (numpy ``searchsorted``), O(k log n) for n patterns, so its
latency stays flat as the index grows, and DuckDB queries the same Arrow
memory (zero-copy) for the prior and the size. A cold index
(``in_memory=False``) is a DuckDB view of the Parquet files, joined per batch:
O(n) per lookup, for one-off reads (``index info``, ``index merge``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from autovalidate.errors import IndexSchemaError
from autovalidate.index.generalization import GENERALIZATION_COLUMNS, GeneralizationStats
from autovalidate.index.publish import IndexLease, open_version
from autovalidate.index.schema import (
    GENERALIZATION_DIR,
    PATTERN_COLUMNS,
    PATTERNS_DIR,
    IndexMetadata,
    generalization_files,
    pattern_files,
    pattern_id,
    read_metadata,
)
from autovalidate.index.stats import (
    CONDITION_SIZES,
    SHORT_BOUNDS,
    FprPrior,
    PatternStats,
    RunShortfall,
)

__all__ = ["PatternIndex"]

#: The conditional sums of a pattern row: pure_sum_n for each size, then imp_sum_n.
_CONDITIONAL_COLUMNS = [f"pure_sum_{n}" for n in CONDITION_SIZES] + [
    f"imp_sum_{n}" for n in CONDITION_SIZES
]
_CONDITIONAL = ", ".join(f"p.{c}" for c in _CONDITIONAL_COLUMNS)
#: The run-length sums of a pattern row: short_cov_k for each bound, then short_sum_k.
_SHORT = ", ".join(
    [f"p.short_cov_{k}" for k in SHORT_BOUNDS] + [f"p.short_sum_{k}" for k in SHORT_BOUNDS]
)


def _interleaved(sums: Sequence[float]) -> tuple[float, ...]:
    """``PatternStats.conditional`` from the sums in ``_CONDITIONAL_COLUMNS`` order."""
    k = len(CONDITION_SIZES)
    return tuple(x for pair in zip(sums[:k], sums[k:], strict=True) for x in pair)


def _moments(values: np.ndarray) -> tuple[float, float]:
    """Mean and population variance of ``values`` (0, 0 when empty), each sum correctly rounded.

    ``math.fsum`` rounds the exact sum once, so the result does not depend on
    the order of the values: DuckDB's parallel ``avg``/``var_pop`` gave the
    prior, and with it every FPR_T estimate, different last bits from one
    query to the next.
    """
    if not len(values):
        return 0.0, 0.0
    mean = math.fsum(values.tolist()) / len(values)
    deviation = values - mean
    return mean, math.fsum((deviation * deviation).tolist()) / len(values)


#: Patterns with at least this Cov_T fit the prior (their FPR_T rests on enough columns).
PRIOR_MIN_COV = 20
#: Fewer such patterns than this: no prior (Eq. 4 as it is).
PRIOR_MIN_PATTERNS = 100


def _read_generalization(
    con: duckdb.DuckDBPyConnection, root: Path, files: Sequence[Path]
) -> GeneralizationStats:
    """The index's generalization table (:mod:`autovalidate.index.generalization`).

    Parameters
    ----------
    con
        The reader's connection.
    root
        The directory read (a versioned index's version directory), for messages.
    files
        Its generalization files (:func:`~autovalidate.index.schema.generalization_files`).

    Raises
    ------
    IndexSchemaError
        If the table is missing (an index of format 4 or later always has it) or lacks a column.
    duckdb.Error
        If its files cannot be read.
    """
    if not files:
        raise IndexSchemaError(str(root), f"no Parquet files under {GENERALIZATION_DIR}/")
    source = f"read_parquet({[str(f) for f in files]!r})"
    described = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    missing = [c for c in GENERALIZATION_COLUMNS if c not in described]
    if missing:
        raise IndexSchemaError(str(root), f"generalization files lack columns {missing}")
    columns = ", ".join(f"CAST({c} AS {t})" for c, t in GENERALIZATION_COLUMNS.items())
    return GeneralizationStats.from_rows(con.execute(f"SELECT {columns} FROM {source}").fetchall())


class PatternIndex:
    """An opened pattern index: FPR_T and Cov_T by pattern.

    Open with :meth:`open`; use as a context manager or call :meth:`close`.
    A warm index (``in_memory=True``, the default) holds its patterns in
    memory sorted by ``pattern_id`` and finds a lookup's patterns by binary
    search, so repeated lookups neither re-read Parquet nor scan the index;
    a cold one (``in_memory=False``) queries the Parquet files in DuckDB.

    Attributes
    ----------
    path
        The index directory.
    metadata
        Its build record.
    generalization
        How formats generalized from the corpus columns' first tenths to their
        rests (:class:`~autovalidate.index.generalization.GeneralizationStats`).
    """

    def __init__(
        self,
        path: Path,
        metadata: IndexMetadata,
        con: duckdb.DuckDBPyConnection,
        table: pa.Table | None = None,
        generalization: GeneralizationStats | None = None,
    ):
        self.path = path
        self.metadata = metadata
        self.generalization = generalization or GeneralizationStats()
        #: The pattern files read (in the version directory of a versioned index).
        self.files: list[Path] = []
        #: The generalization files read (beside :attr:`files`).
        self.generalization_files: list[Path] = []
        #: The hold on the directory read (released by :meth:`close`).
        self.lease = IndexLease(path, None)
        self._con = con
        self._lock = threading.Lock()
        self._prior: FprPrior | None = None
        # the warm index: the pattern table sorted by pattern_id, and its columns as numpy
        self._table = table
        self._ids: np.ndarray | None = None
        if table is not None:
            self._ids = table.column("pattern_id").to_numpy()
            self._fpr = table.column("fpr").to_numpy()
            self._cov = table.column("cov").to_numpy()
            # (rows, 2k): pure_sum_n, imp_sum_n for n in CONDITION_SIZES, the flat
            # layout of PatternStats.conditional
            k = len(CONDITION_SIZES)
            self._conditional = np.empty((table.num_rows, 2 * k))
            for q, name in enumerate(_CONDITIONAL_COLUMNS):
                self._conditional[:, 2 * (q % k) + q // k] = table.column(name).to_numpy()
            self._patterns = table.column("pattern").chunk(0) if table.num_rows else None
            self._short_cov = np.column_stack(
                [table.column(f"short_cov_{k}").to_numpy() for k in SHORT_BOUNDS]
            )
            self._short_sum = np.column_stack(
                [table.column(f"short_sum_{k}").to_numpy() for k in SHORT_BOUNDS]
            )

    @classmethod
    def open(
        cls, path: str | Path, *, in_memory: bool = True, threads: int | None = None
    ) -> PatternIndex:
        """Open an index directory written by ``autovalidate index build``.

        Parameters
        ----------
        path
            The index directory (plain, or versioned: then the version it
            points to is read, and held until :meth:`close` so that no
            publish removes it; :mod:`autovalidate.index.publish`).
        in_memory
            Load the pattern table into memory, sorted by ``pattern_id``
            (lookups by binary search: fast, and flat in the index size);
            ``False`` queries the Parquet files in place through DuckDB
            (a join per lookup, which reads the whole pattern column).
        threads
            DuckDB worker threads; DuckDB's default (all cores) if ``None``.

        Returns
        -------
        PatternIndex

        Raises
        ------
        IndexNotFoundError
            If there is no complete index at ``path``.
        IndexVersionError
            If it was built by an incompatible format or hierarchy version.
        IndexSchemaError
            If its files lack a column or cannot be read, or hold another number
            of patterns than the metadata records (a partial index).
        """
        lease = open_version(path)
        try:
            index = cls._open(Path(path), lease.path, in_memory=in_memory, threads=threads)
        except BaseException:
            lease.close()
            raise
        index.lease = lease
        return index

    @classmethod
    def _open(cls, path: Path, root: Path, *, in_memory: bool, threads: int | None) -> PatternIndex:
        """:meth:`open` of the directory ``root`` holding the files (a version of ``path``)."""
        metadata = read_metadata(root)
        files = pattern_files(root)
        if not files:
            raise IndexSchemaError(str(root), f"no Parquet files under {PATTERNS_DIR}/")
        con = duckdb.connect()
        if threads is not None:
            con.execute(f"SET threads = {int(threads)}").fetchall()
        source = f"read_parquet({[str(f) for f in files]!r})"
        try:
            described = dict(
                (r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
            )
            missing = [c for c in PATTERN_COLUMNS if c not in described]
            if missing:
                raise IndexSchemaError(str(root), f"pattern files lack columns {missing}")
            columns = ", ".join(
                f"CAST({c} AS {t}) AS {c}" for c, t in PATTERN_COLUMNS.items() if c != "imp_sum"
            )  # imp_sum = fpr * cov: the lookups need one of them
            table = None
            if in_memory:
                # one chunk per column (numpy views without copies), sorted for searchsorted
                query = f"SELECT {columns} FROM {source} ORDER BY pattern_id"
                table = con.sql(query).to_arrow_table().combine_chunks()
                con.register("patterns", table)  # DuckDB reads the Arrow memory in place
                rows = table.num_rows
            else:
                con.execute(f"CREATE VIEW patterns AS SELECT {columns} FROM {source}").fetchall()
                # a partial index (a part file deleted, truncated to another row group,
                # or the metadata edited) would give silently looser constraints
                ((rows,),) = con.execute("SELECT count(*) FROM patterns").fetchall()
            general_files = generalization_files(root)
            generalization = _read_generalization(con, root, general_files)
        except duckdb.Error as exc:
            con.close()
            first = str(exc).splitlines()[0]  # DuckDB appends the failing SQL
            raise IndexSchemaError(str(root), f"cannot read pattern files: {first}") from exc
        if rows != metadata.patterns:
            con.close()
            raise IndexSchemaError(
                str(root),
                f"incomplete index: its {len(files)} pattern files hold {rows:,} patterns, "
                f"its metadata records {metadata.patterns:,} (a part file is missing or was "
                "changed); rebuild it",
            )
        index = cls(path, metadata, con, table, generalization)
        index.files = files
        index.generalization_files = general_files
        return index

    @property
    def tau(self) -> int:
        """The token limit τ the index was built with."""
        return self.metadata.tau

    def lookup(self, patterns: Iterable[str]) -> dict[str, PatternStats]:
        """FPR_T and Cov_T of the given canonical patterns, in one DuckDB query.

        Parameters
        ----------
        patterns
            Canonical pattern strings; duplicates are fine.

        Returns
        -------
        dict
            Pattern → :class:`PatternStats` (with the conditional sums) for the
            patterns found; a pattern
            absent from the index matched no corpus column (Cov_T = 0).

        Raises
        ------
        IndexSchemaError
            If the pattern files cannot be read (e.g. removed after ``open``
            with ``in_memory=False``).
        """
        unique = list(dict.fromkeys(patterns))
        if not unique:
            return {}
        if self._ids is not None:
            return self._search(unique)
        rows = self._joined(unique, f"p.fpr, p.cov, {_CONDITIONAL}")
        return {r[0]: PatternStats(float(r[1]), int(r[2]), _interleaved(r[3:])) for r in rows}

    def _joined(self, unique: list[str], columns: str) -> list[tuple[Any, ...]]:
        """``(pattern, *columns)`` of the cold index's rows of the given patterns.

        Joined on the 64-bit id alone: a join key with the strings would hash
        every pattern of the index (5x slower); the strings of the few matches
        are compared here instead, so a collision cannot mislead.
        """
        query = pa.table(
            {
                "pattern_id": pa.array([pattern_id(p) for p in unique], pa.int64()),
                "pattern": pa.array(unique, pa.string()),
            }
        )
        with self._lock:
            self._con.register("_candidates", query)
            try:
                rows = self._con.execute(
                    f"SELECT q.pattern, p.pattern, {columns} "
                    "FROM _candidates q JOIN patterns p ON p.pattern_id = q.pattern_id"
                ).fetchall()
            except duckdb.Error as exc:  # e.g. a part file removed after open
                raise IndexSchemaError(str(self.path), f"cannot read pattern files: {exc}") from exc
            finally:
                self._con.unregister("_candidates")
        return [(r[0], *r[2:]) for r in rows if r[0] == r[1]]

    def _find(self, unique: list[str]) -> tuple[list[int], list[int]]:
        """The patterns of ``unique`` the warm index has: their positions there, and their rows."""
        ids = self._ids
        assert ids is not None
        if self._patterns is None:  # an empty index
            return [], []
        wanted = np.fromiter((pattern_id(p) for p in unique), np.int64, len(unique))
        # searched in sorted order: numpy narrows each search by the previous one, and
        # neighbouring keys share their probes (cache hits on a large id column)
        order = np.argsort(wanted, kind="stable")
        left = np.empty(len(wanted), np.int64)
        left[order] = np.searchsorted(ids, wanted[order], side="left")
        inside = np.flatnonzero(left < len(ids))
        found = inside[ids[left[inside]] == wanted[inside]]
        if not found.size:
            return [], []
        rows = left[found].tolist()
        names = self._patterns.take(pa.array(rows)).to_pylist()
        positions = found.tolist()
        if names == list(map(unique.__getitem__, positions)):  # no id collision: the rule
            return positions, rows
        for k, (i, name) in enumerate(zip(positions, names, strict=True)):
            if name == unique[i]:
                continue
            row = rows[k] + 1  # a 64-bit id collision: the other rows of that id
            rows[k] = -1
            while row < len(ids) and ids[row] == wanted[i]:
                if self._patterns[row].as_py() == unique[i]:
                    rows[k] = row
                    break
                row += 1
        kept = [k for k, row in enumerate(rows) if row >= 0]
        if len(kept) < len(rows):
            positions = [positions[k] for k in kept]
            rows = [rows[k] for k in kept]
        return positions, rows

    def _search(self, unique: list[str]) -> dict[str, PatternStats]:
        """Lookup in the warm index: binary search of the ids, then the strings compared."""
        positions, rows = self._find(unique)
        # the statistics of all found rows built in one pass of C-level maps: a
        # few thousand per lookup on long values, where a loop cost 1.6 us each
        stats = map(
            PatternStats,
            self._fpr[rows].tolist(),
            self._cov[rows].tolist(),
            list(map(tuple, self._conditional[rows].tolist())),
        )
        return {unique[i]: st for i, st in zip(positions, stats, strict=True)}

    def shortfall(self, patterns: Iterable[str]) -> dict[str, RunShortfall]:
        """How often the corpus's columns ran shorter than their training prefix, per pattern.

        Parameters
        ----------
        patterns
            Canonical pattern strings with ``+`` runs; duplicates are fine.

        Returns
        -------
        dict
            Pattern → :class:`RunShortfall` for the patterns found with
            some ``short_cov_{k}`` ≥ 1 (see :mod:`autovalidate.index.schema`).

        Raises
        ------
        IndexSchemaError
            If the pattern files cannot be read.
        """
        unique = list(dict.fromkeys(patterns))
        if not unique:
            return {}
        if self._ids is not None:
            positions, rows = self._find(unique)
            found = zip(
                positions,
                self._short_cov[rows].tolist(),
                self._short_sum[rows].tolist(),
                strict=True,
            )
            return {unique[i]: RunShortfall(tuple(c), tuple(s)) for i, c, s in found if any(c)}
        k = len(SHORT_BOUNDS)
        return {
            r[0]: RunShortfall(tuple(map(int, r[1 : 1 + k])), tuple(map(float, r[1 + k :])))
            for r in self._joined(unique, _SHORT)
            if any(r[1 : 1 + k])
        }

    @property
    def prior(self) -> FprPrior:
        """The empirical-Bayes prior of FPR_T fitted on this index (see :class:`FprPrior`).

        Fitted once, on first use, from the FPR_T of the patterns with Cov_T ≥
        :data:`PRIOR_MIN_COV` (:func:`_moments`: the same bits in every
        process). An index with fewer than :data:`PRIOR_MIN_PATTERNS` such
        patterns gets strength 0: Eq. 4 as it is.

        Raises
        ------
        IndexSchemaError
            If the pattern files cannot be read.
        """
        if self._prior is None:
            with self._lock:
                try:
                    fpr = self._con.execute(
                        "SELECT fpr FROM patterns WHERE cov >= ?", [PRIOR_MIN_COV]
                    ).fetchnumpy()["fpr"]
                except duckdb.Error as exc:
                    raise IndexSchemaError(
                        str(self.path), f"cannot read pattern files: {exc}"
                    ) from exc
            mean, var = _moments(np.asarray(fpr, np.float64))
            if len(fpr) < PRIOR_MIN_PATTERNS or not var:
                self._prior = FprPrior(mean, 0.0)
            else:
                self._prior = FprPrior(mean, max(0.0, mean * (1 - mean) / var - 1))
        return self._prior

    def size(self) -> int:
        """Number of patterns in the index."""
        with self._lock:
            try:
                return int(self._con.execute("SELECT count(*) FROM patterns").fetchall()[0][0])
            except duckdb.Error as exc:
                raise IndexSchemaError(str(self.path), f"cannot read pattern files: {exc}") from exc

    def close(self) -> None:
        """Release the DuckDB connection and the in-memory table."""
        self._con.close()
        self._table = self._ids = self._patterns = None
        self.lease.close()

    def __enter__(self) -> PatternIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"PatternIndex({str(self.path)!r}, tau={self.tau}, patterns={self.metadata.patterns})"
        )
