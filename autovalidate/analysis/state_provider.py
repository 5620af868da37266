"""Where analyzer states are kept between runs: state loaders and persisters.

A state is stored under its analyzer's :attr:`~autovalidate.metrics.base.Analyzer.state_key`,
so analyzers that compute the same state (all frequency analyzers of one
grouping) store it once. :class:`LocalDirectoryStateProvider` is the default
store: one file per state in a directory, JSON for the small states and
Parquet for frequency tables, each written atomically (a temporary file
renamed into place), so a killed run leaves the previous state or the new one.

References
----------
Schelter et al., PVLDB 2018, §4.1 (StateProvider, Listing 3); ICDE 2019, §II.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from autovalidate.errors import DataSourceError
from autovalidate.metrics.base import Analyzer, State
from autovalidate.metrics.frequencies import FrequenciesState
from autovalidate.schemas import parse_json

__all__ = [
    "InMemoryStateProvider",
    "LocalDirectoryStateProvider",
    "StateLoader",
    "StatePersister",
]

FORMAT_VERSION = 1


class StateLoader(Protocol):
    """Gives the stored state of an analyzer."""

    def load(self, analyzer: Analyzer) -> State | None:
        """Return the stored state, or ``None`` if there is none (the state of no data)."""
        ...


class StatePersister(Protocol):
    """Stores the state of an analyzer."""

    def persist(self, analyzer: Analyzer, state: State) -> None:
        """Store ``state`` as the state of ``analyzer``, replacing any earlier one."""
        ...


class InMemoryStateProvider:
    """States in a dictionary, for one process (Deequ's ``InMemoryStateProvider``)."""

    def __init__(self) -> None:
        self._states: dict[str, State] = {}

    def load(self, analyzer: Analyzer) -> State | None:
        """Return the state stored for the analyzer's state key."""
        return self._states.get(analyzer.state_key)

    def persist(self, analyzer: Analyzer, state: State) -> None:
        """Keep ``state`` under the analyzer's state key."""
        self._states[analyzer.state_key] = state

    def __len__(self) -> int:
        return len(self._states)


def _file_stem(state_key: str) -> str:
    return hashlib.sha256(state_key.encode()).hexdigest()[:40]


class LocalDirectoryStateProvider:
    """States as files in a local directory (the default state provider).

    Each state is ``<sha256 of its state key>.json``; a frequency state also
    has a ``.parquet`` file with its table. The JSON records the state key, the
    state class and a format version, so a file is never read as the state of
    another analyzer.

    Parameters
    ----------
    path
        The directory; created on the first write.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _paths(self, analyzer: Analyzer) -> tuple[Path, Path]:
        stem = _file_stem(analyzer.state_key)
        return self.path / f"{stem}.json", self.path / f"{stem}.parquet"

    def load(self, analyzer: Analyzer) -> State | None:
        """Return the stored state, ``None`` if the directory has none for this analyzer.

        Raises
        ------
        DataSourceError
            If the state file cannot be read or belongs to another state key or class.
        """
        meta_path, table_path = self._paths(analyzer)
        if not meta_path.exists():
            return None
        try:
            meta = parse_json(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataSourceError(str(meta_path), f"unreadable state file: {exc}") from exc
        expected = (analyzer.state_key, analyzer.state_class.__name__, FORMAT_VERSION)
        found = (meta.get("state_key"), meta.get("state_class"), meta.get("format_version"))
        if found != expected:
            raise DataSourceError(str(meta_path), f"holds state {found}, expected {expected}")
        if analyzer.state_class is FrequenciesState:
            try:
                return FrequenciesState(pq.read_table(table_path))
            except (OSError, pa.ArrowException) as exc:
                raise DataSourceError(
                    str(table_path), f"unreadable frequency table: {exc}"
                ) from exc
        return analyzer.state_class.from_dict(meta["state"])

    def persist(self, analyzer: Analyzer, state: State) -> None:
        """Write the state atomically, replacing any earlier one."""
        self.path.mkdir(parents=True, exist_ok=True)
        meta_path, table_path = self._paths(analyzer)
        meta = {
            "format_version": FORMAT_VERSION,
            "state_key": analyzer.state_key,
            "state_class": type(state).__name__,
        }
        if isinstance(state, FrequenciesState):
            with _atomic(table_path) as tmp:
                pq.write_table(state.table, tmp)
        else:
            meta["state"] = state.to_dict()
        with _atomic(meta_path) as tmp:
            Path(tmp).write_text(json.dumps(meta), encoding="utf-8")

    def clear(self) -> None:
        """Remove every stored state (the directory itself)."""
        shutil.rmtree(self.path, ignore_errors=True)


@contextmanager
def _atomic(target: Path) -> Iterator[str]:
    """Return a temporary path beside ``target``, renamed onto it when the block succeeds."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
