"""Running analyzers: shared scans, stored states, partitions.

The layer between the metric declarations (:mod:`autovalidate.metrics`) and
the engines that compute them (:mod:`autovalidate.engines`) on one side, and
checks, suites and suggestions on the other. :mod:`.runner` runs a set of
analyzers in as few scans as the engine allows (Schelter et al., ICDE 2019,
Algorithm 1); :mod:`.state_provider` keeps their states, and
:mod:`.partitions` merges per-partition states (Deequ's incremental and
partitioned computation, PVLDB 2018 §3.3).
"""

from autovalidate.analysis.partitions import PartitionedStates
from autovalidate.analysis.runner import (
    AnalysisRunner,
    AnalyzerContext,
    metric_from_state,
    metrics_from_states,
)
from autovalidate.analysis.state_provider import (
    InMemoryStateProvider,
    LocalDirectoryStateProvider,
    StateLoader,
    StatePersister,
)

__all__ = [
    "AnalysisRunner",
    "AnalyzerContext",
    "InMemoryStateProvider",
    "LocalDirectoryStateProvider",
    "PartitionedStates",
    "StateLoader",
    "StatePersister",
    "metric_from_state",
    "metrics_from_states",
]
