"""The pattern index on disk: layout, columns, metadata and versions (Song & He 2021, §2.4).

An index is a directory::

    INDEX/
      _autovalidate_index.json   metadata; written last, so its presence marks
                                 a complete index
      patterns/*.parquet         one row per pattern
      generalization/*.parquet   how formats generalized from each corpus column's
                                 first tenth to its rest (format 4; 5 adds
                                 the signature statistics,
                                 :mod:`autovalidate.index.generalization`)

Each pattern row is a mergeable state, like a Deequ analyzer state: two
indexes (or two parts of one build) merge by adding the sums (:data:`SUM_COLUMNS`)
per pattern, and FPR_T = imp_sum / cov (Eq. 4) is derived from them.
Part files are sorted by ``pattern_id``; a reader opening an index warm
sorts all its rows by ``pattern_id`` and looks patterns up by binary search
(:class:`autovalidate.index.reader.PatternIndex`).

============== ======== ==========================================================
column         type     meaning
============== ======== ==========================================================
pattern_id     BIGINT   :func:`pattern_id` of the canonical string (the join key)
pattern        VARCHAR  canonical pattern string (``autovalidate.patterns``)
cov            BIGINT   Cov_T(p): columns with at least one value matching p
imp_sum        DOUBLE   Σ_D Imp_D(p) over those columns (Eq. 1)
pure_sum_{n}   DOUBLE   Σ_D (1 - Imp_D(p))^n, for n in :data:`CONDITION_SIZES`
imp_sum_{n}    DOUBLE   Σ_D Imp_D(p) (1 - Imp_D(p))^n, likewise
short_cov_{k}  BIGINT   columns whose training prefix has two or more distinct
                        values matching p, whose ``+`` runs set the bound k
                        (k in :data:`SHORT_BOUNDS`, the last for k or more)
short_sum_{k}  DOUBLE   Σ_D Short_D(p) over those columns: the fraction of D's
                        values after the prefix that match p with a ``+`` run
                        shorter than the prefix showed
                        (:attr:`~autovalidate.patterns.enumeration.ColumnPatterns.length_violations`)
fpr            DOUBLE   FPR_T(p) = imp_sum / cov, a fraction in [0, 1] (Eq. 4)
============== ======== ==========================================================

``pure_sum_{n}`` weighs each column by the probability that n values drawn
from it all match p; with ``imp_sum_{n}`` it gives FPR_T conditioned on a
training column of n distinct conforming values
(:meth:`~autovalidate.index.stats.FprPrior.estimate`). Format 2 added them.
``short_sum_{k} / short_cov_{k}`` is what bounding p's runs from below by the
training values' shortest (k) adds to FPR_T (:mod:`autovalidate.solver.lengths`);
format 3 added them. Format 4 added the ``generalization`` table: sums per
key of :data:`~autovalidate.index.generalization.GENERALIZATION_COLUMNS`,
which add up like the pattern sums.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from autovalidate._version import __version__
from autovalidate.errors import IndexNotFoundError, IndexSchemaError, IndexVersionError
from autovalidate.index.stats import CONDITION_SIZES, SHORT_BOUNDS, bound_stratum
from autovalidate.patterns.hierarchy import HIERARCHY_VERSION
from autovalidate.schemas import parse_json

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "METADATA_FILE",
    "PATTERNS_DIR",
    "GENERALIZATION_DIR",
    "generalization_files",
    "CONDITION_SIZES",
    "PATTERN_COLUMNS",
    "SUM_COLUMNS",
    "IndexMetadata",
    "column_state",
    "pattern_files",
    "pattern_id",
    "read_metadata",
]

FORMAT_NAME = "autovalidate-pattern-index"
#: Bumped whenever the files' layout or the meaning of a column changes
#: (2: the conditional sums ``pure_sum_{n}`` and ``imp_sum_{n}``; 3: the run
#: length sums ``short_cov_{k}`` and ``short_sum_{k}``; 4: the generalization
#: table; 5: its ``signature`` statistics; 6: its ``identifier`` statistics).
FORMAT_VERSION = 6
METADATA_FILE = "_autovalidate_index.json"
PATTERNS_DIR = "patterns"
GENERALIZATION_DIR = "generalization"
#: The additive state of a pattern, column name → DuckDB type: what builds and
#: merges sum per pattern (``cov`` counts columns, the others sum functions of
#: Imp_D, see :func:`column_state`).
SUM_COLUMNS: dict[str, str] = {
    "cov": "BIGINT",
    "imp_sum": "DOUBLE",
    **{f"pure_sum_{n}": "DOUBLE" for n in CONDITION_SIZES},
    **{f"imp_sum_{n}": "DOUBLE" for n in CONDITION_SIZES},
    **{f"short_cov_{k}": "BIGINT" for k in SHORT_BOUNDS},
    **{f"short_sum_{k}": "DOUBLE" for k in SHORT_BOUNDS},
}
#: Column name → DuckDB type of the pattern files, in file order.
PATTERN_COLUMNS: dict[str, str] = {
    "pattern_id": "BIGINT",
    "pattern": "VARCHAR",
    **SUM_COLUMNS,
    "fpr": "DOUBLE",
}


def column_state(imp: float, short: tuple[int, float] | None = None) -> tuple[float, ...]:
    """One corpus column's contribution to a pattern's sums, in :data:`SUM_COLUMNS` order.

    Parameters
    ----------
    imp
        Imp_D(p), the fraction of the column's values not matching p, in [0, 1] (Eq. 1).
    short
        ``(k, Short_D(p))``: the bound k ≥ 2 the column's training prefix
        sets and the fraction, in [0, 1], of its later values shorter; or
        ``None`` where the column says nothing of p's run lengths.

    Returns
    -------
    tuple of float
        ``(1, imp, (1-imp)^n for n in CONDITION_SIZES..., imp (1-imp)^n ...,
        short_cov_{k}..., short_sum_{k}...)``, the short sums one-hot in k's stratum.
    """
    pures = [(1.0 - imp) ** n for n in CONDITION_SIZES]
    covs = [0.0] * len(SHORT_BOUNDS)
    sums = [0.0] * len(SHORT_BOUNDS)
    if short is not None:
        covs[bound_stratum(short[0])] = 1.0
        sums[bound_stratum(short[0])] = short[1]
    return (1.0, imp, *pures, *(imp * w for w in pures), *covs, *sums)


def pattern_id(pattern: str) -> int:
    """Stable signed 64-bit key of a canonical pattern string (BLAKE2b, 8 bytes).

    The same in every process and on every machine, unlike Python's ``hash``;
    readers also compare the pattern string itself, so a collision cannot
    confuse two patterns.
    """
    digest = hashlib.blake2b(pattern.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


@dataclass
class IndexMetadata:
    """What an index was built from and how (the ``_autovalidate_index.json`` record).

    Attributes
    ----------
    tau
        Token limit τ the index was built with; no pattern has more tokens.
    corpus
        ``path``, ``columns`` (rows of the lake), ``columns_indexed`` (with at
        least one pattern), ``values`` (non-null values) and ``tables``.
    build
        Build parameters and facts: ``budget``, ``ladder``, ``min_cov``,
        ``master``, ``started``/``finished`` (UTC ISO-8601), ``wall_seconds``,
        ``rungs`` (columns per coverage threshold used; ``"skipped"`` for none).
    patterns
        Number of pattern rows.
    """

    tau: int
    corpus: dict[str, Any]
    build: dict[str, Any]
    patterns: int
    format: str = FORMAT_NAME
    format_version: int = FORMAT_VERSION
    hierarchy_version: int = HIERARCHY_VERSION
    autovalidate_version: str = __version__

    def to_json(self) -> str:
        """The metadata as pretty JSON text."""
        return json.dumps(asdict(self), indent=2, sort_keys=True)


def pattern_files(path: str | Path) -> list[Path]:
    """The Parquet files of an index directory's pattern table, sorted by name (may be empty)."""
    return sorted((Path(path) / PATTERNS_DIR).glob("*.parquet"))


def generalization_files(path: str | Path) -> list[Path]:
    """The Parquet files of an index directory's generalization table, sorted by name."""
    return sorted((Path(path) / GENERALIZATION_DIR).glob("*.parquet"))


def read_metadata(path: str | Path) -> IndexMetadata:
    """Read and check an index directory's metadata.

    Raises
    ------
    IndexNotFoundError
        If ``path`` is not a directory with a metadata file (also the case of
        a build that did not finish).
    IndexSchemaError
        If the metadata is not valid JSON or lacks a field.
    IndexVersionError
        If the format or the hierarchy version differs from this code's.
    """
    root = Path(path)
    meta_path = root / METADATA_FILE
    if not root.is_dir():
        raise IndexNotFoundError(str(root), f"{root}: no such index directory")
    if not meta_path.is_file():
        raise IndexNotFoundError(str(root))
    try:
        raw = parse_json(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise IndexSchemaError(str(root), f"unreadable metadata file: {exc}") from exc
    if not isinstance(raw, dict) or raw.get("format") != FORMAT_NAME:
        raise IndexSchemaError(str(root), f"{METADATA_FILE} is not a {FORMAT_NAME} record")
    found = (raw.get("format_version"), raw.get("hierarchy_version"))
    expected = (FORMAT_VERSION, HIERARCHY_VERSION)
    if found != expected:
        raise IndexVersionError(
            str(root),
            found=f"format {found[0]}, hierarchy {found[1]}",
            expected=f"format {expected[0]}, hierarchy {expected[1]}",
        )
    try:
        return IndexMetadata(**raw)
    except TypeError as exc:
        raise IndexSchemaError(str(root), f"bad metadata fields: {exc}") from exc
