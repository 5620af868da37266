"""Deequ metrics: analyzers with mergeable states, run in shared scans on DuckDB or Spark.

One metric family per module (:mod:`.counts`, :mod:`.statistics`,
:mod:`.frequencies`, :mod:`.sketches`, :mod:`.strings`); :mod:`.runner` runs
them (Schelter et al., ICDE 2019, Algorithm 1) and :mod:`.state_provider`
keeps their states for incremental and partitioned computation.
"""

from autovalidate.metrics.base import (
    Analyzer,
    Distribution,
    DistributionValue,
    Entity,
    Metric,
    State,
    merge_states,
)
from autovalidate.metrics.counts import Completeness, Compliance, Size
from autovalidate.metrics.frequencies import (
    CountDistinct,
    Distinctness,
    Entropy,
    FrequenciesState,
    Histogram,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from autovalidate.metrics.partitions import PartitionedStates
from autovalidate.metrics.runner import AnalysisRunner, AnalyzerContext
from autovalidate.metrics.sketches import ApproxCountDistinct, ApproxQuantile, ApproxQuantiles
from autovalidate.metrics.state_provider import (
    InMemoryStateProvider,
    LocalDirectoryStateProvider,
    StateLoader,
    StatePersister,
)
from autovalidate.metrics.statistics import (
    Correlation,
    Maximum,
    Mean,
    Minimum,
    StandardDeviation,
    Sum,
)
from autovalidate.metrics.strings import (
    DataType,
    DataTypeInstance,
    MaxLength,
    MinLength,
    PatternConformance,
    PatternMatch,
)

__all__ = [
    "AnalysisRunner",
    "Analyzer",
    "AnalyzerContext",
    "ApproxCountDistinct",
    "ApproxQuantile",
    "ApproxQuantiles",
    "Completeness",
    "Compliance",
    "Correlation",
    "CountDistinct",
    "DataType",
    "DataTypeInstance",
    "Distinctness",
    "Distribution",
    "DistributionValue",
    "Entity",
    "Entropy",
    "FrequenciesState",
    "Histogram",
    "InMemoryStateProvider",
    "LocalDirectoryStateProvider",
    "MaxLength",
    "Maximum",
    "Mean",
    "Metric",
    "MinLength",
    "Minimum",
    "MutualInformation",
    "PartitionedStates",
    "PatternConformance",
    "PatternMatch",
    "Size",
    "StandardDeviation",
    "State",
    "StateLoader",
    "StatePersister",
    "Sum",
    "UniqueValueRatio",
    "Uniqueness",
    "merge_states",
]
