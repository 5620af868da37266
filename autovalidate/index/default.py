"""The default pattern index packaged with autovalidate: used when no index is given.

The package ships the index of a public corpus (open-data repositories whose
licenses allow it; provenance and attributions in the index's metadata and
``NOTICE.md``, decisions in ``docs/default-index.md``), pruned to patterns
with Cov_T ≥ 10, the solver's default m.  It is rebuilt by
``python3 -m index_jobs.build_default_index`` whenever the pattern hierarchy
or the corpus changes, and it is only ever read: opening it writes nothing
into the package directory.
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path

from autovalidate.errors import DefaultIndexError, PatternIndexError
from autovalidate.index.reader import PatternIndex

__all__ = [
    "DEFAULT_INDEX_NAME",
    "default_index_path",
    "describe_index",
    "index_summary",
    "is_default_index",
    "open_default_index",
    "shared_default_index",
]

#: How the default index is named in output: "default index: public corpus, N patterns".
DEFAULT_INDEX_NAME = "public corpus"

_shared: PatternIndex | None = None
_shared_lock = threading.Lock()


def default_index_path() -> Path:
    """The directory of the packaged index (inside the installed ``autovalidate`` package)."""
    return Path(str(resources.files("autovalidate") / "data" / "default-index"))


def open_default_index(*, in_memory: bool = True) -> PatternIndex:
    """Open the packaged default index; the caller owns (and closes) it.

    Parameters
    ----------
    in_memory
        As :meth:`PatternIndex.open`: load its patterns into DuckDB's memory.

    Returns
    -------
    PatternIndex

    Raises
    ------
    DefaultIndexError
        If the packaged index is missing, broken, or built with another
        hierarchy or format version than this code's (the message says why
        and what to do: pass an index of your own, or rebuild the default).
    """
    path = default_index_path()
    try:
        return PatternIndex.open(path, in_memory=in_memory)
    except PatternIndexError as exc:
        raise DefaultIndexError(str(path), str(exc)) from exc


def shared_default_index() -> PatternIndex:
    """The packaged default index, opened once per process and shared (do not close it).

    What ``suggest_pattern(values)`` and the suggestion runner use when no
    index is given; lookups are thread-safe.

    Raises
    ------
    DefaultIndexError
        As :func:`open_default_index`.
    """
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = open_default_index()
        return _shared


def is_default_index(index: PatternIndex) -> bool:
    """Whether ``index`` is the packaged default index."""
    return index.path.resolve() == default_index_path().resolve()


def index_summary(index: PatternIndex) -> dict[str, object]:
    """Which index answered, as plain data for JSON output.

    Returns
    -------
    dict
        ``default`` (bool), ``description`` (:func:`describe_index`), ``path``,
        ``patterns`` and ``hierarchy_version``.
    """
    return {
        "default": is_default_index(index),
        "description": describe_index(index),
        "path": str(index.path),
        "patterns": index.metadata.patterns,
        "hierarchy_version": index.metadata.hierarchy_version,
    }


def describe_index(index: PatternIndex) -> str:
    """One line naming the index: ``"default index: public corpus, 72,613 patterns"``.

    For any other index: ``"index DIR, N patterns"``.
    """
    if is_default_index(index):
        return f"default index: {DEFAULT_INDEX_NAME}, {index.metadata.patterns:,} patterns"
    return f"index {index.path}, {index.metadata.patterns:,} patterns"
