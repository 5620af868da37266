"""States of a partitioned table, one directory per partition (ICDE 2019, §II scenarios).

The three scenarios of differential verification, on stored states:

* append: a new partition (or delta) gets its states with :meth:`PartitionedStates.update`;
* views: :meth:`PartitionedStates.metrics` computes the metrics of any set of
  partitions from their states, reading no data;
* replace: :meth:`PartitionedStates.update` on an existing partition recomputes
  its states from its new data and swaps them in; the table's metrics follow
  from the states without touching the other partitions.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from autovalidate.analysis.runner import AnalysisRunner, AnalyzerContext, metrics_from_states
from autovalidate.analysis.state_provider import LocalDirectoryStateProvider
from autovalidate.errors import ParameterError
from autovalidate.metrics.base import Analyzer

__all__ = ["PartitionedStates"]


class PartitionedStates:
    """Per-partition analyzer states under ``root``, one subdirectory per partition.

    Parameters
    ----------
    root
        Directory holding the partitions' state directories (named by the
        URL-quoted partition name).
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _directory(self, partition: str) -> Path:
        if not partition:
            raise ParameterError("a partition needs a non-empty name")
        return self.root / quote(partition, safe="")

    def provider(self, partition: str) -> LocalDirectoryStateProvider:
        """Return the state provider of one partition."""
        return LocalDirectoryStateProvider(self._directory(partition))

    def partitions(self) -> list[str]:
        """Names of the partitions with stored states, sorted."""
        if not self.root.exists():
            return []
        return sorted(
            unquote(p.name)
            for p in self.root.iterdir()
            if p.is_dir() and not p.name.startswith(".")
        )

    def update(
        self,
        partition: str,
        data: Any,
        analyzers: Iterable[Analyzer],
        *,
        share_scans: bool = True,
    ) -> AnalyzerContext:
        """Compute a partition's states from its data, adding or replacing the partition.

        The new states are written beside the old ones and swapped in only when
        all are written, so a failed run leaves the partition as it was.

        Returns
        -------
        AnalyzerContext
            The metrics of this partition alone.
        """
        target = self._directory(partition)
        self.root.mkdir(parents=True, exist_ok=True)
        staging = self.root / f".staging-{uuid.uuid4().hex}"
        try:
            context = (
                AnalysisRunner.on_data(data)
                .add_analyzers(analyzers)
                .save_states_with(LocalDirectoryStateProvider(staging))
                .share_scans(share_scans)
                .run()
            )
            staging.mkdir(exist_ok=True)
            retired = self.root / f".retired-{uuid.uuid4().hex}"
            if target.exists():
                target.rename(retired)
            staging.rename(target)
            shutil.rmtree(retired, ignore_errors=True)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return context

    def remove(self, partition: str) -> None:
        """Forget a partition's states."""
        shutil.rmtree(self._directory(partition), ignore_errors=True)

    def loaders(self, partitions: Iterable[str] | None = None) -> list[LocalDirectoryStateProvider]:
        """State providers of the given partitions (all by default).

        Raises
        ------
        ParameterError
            If a named partition has no stored states.
        """
        names = self.partitions() if partitions is None else list(partitions)
        missing = [p for p in names if not self._directory(p).is_dir()]
        if missing:
            raise ParameterError(f"no stored states for partitions {missing} under {self.root}")
        return [self.provider(p) for p in names]

    def metrics(
        self, analyzers: Iterable[Analyzer], partitions: Iterable[str] | None = None
    ) -> AnalyzerContext:
        """Metrics of the union of the given partitions (all by default), from their states only."""
        return metrics_from_states(analyzers, self.loaders(partitions))
