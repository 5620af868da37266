"""A metrics repository in memory (Deequ's ``InMemoryMetricsRepository``), for one process."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from autovalidate.repository.base import (
    AnalysisResult,
    MetricsRepository,
    ResultKey,
    results_from_rows,
)

__all__ = ["InMemoryMetricsRepository"]


class InMemoryMetricsRepository(MetricsRepository):
    """Metrics history held in this process, lost when it ends; thread-safe."""

    def __init__(self) -> None:
        self._rows: dict[ResultKey, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"InMemoryMetricsRepository({len(self._rows)} results)"

    def _write(self, key: ResultKey, rows: Sequence[Mapping[str, Any]]) -> None:
        with self._lock:
            self._rows[key] = [dict(r) for r in rows]

    def _read(
        self, dataset: str | None, after: int | None, before: int | None
    ) -> list[AnalysisResult]:
        with self._lock:
            rows = [
                r
                for key, members in self._rows.items()
                if (dataset is None or key.dataset == dataset)
                and (after is None or key.dataset_date >= after)
                and (before is None or key.dataset_date <= before)
                for r in members
            ]
        return results_from_rows(rows)
