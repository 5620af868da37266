"""Deequ metrics: analyzers with mergeable states, declared engine-neutrally.

One metric family per module (:mod:`.counts`, :mod:`.statistics`,
:mod:`.frequencies`, :mod:`.sketches`, :mod:`.strings`, :mod:`.schema`,
:mod:`.reference`), their aggregations as
:mod:`.expressions` trees. This package declares; it imports no engine.
:mod:`autovalidate.engines` renders and runs the expressions, and
:mod:`autovalidate.analysis` runs analyzers in shared scans (Schelter et al.,
ICDE 2019, Algorithm 1) and keeps their states for incremental and
partitioned computation.
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
from autovalidate.metrics.counts import Completeness, Compliance, CustomSql, Size, ZeroCount
from autovalidate.metrics.frequencies import (
    CountDistinct,
    Distinctness,
    DuplicateCount,
    Entropy,
    ExactQuantile,
    FrequenciesState,
    Histogram,
    InterquartileRange,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from autovalidate.metrics.reference import DistributionDrift, ReferentialIntegrity
from autovalidate.metrics.schema import ColumnTypes, NewestTimestamp
from autovalidate.metrics.sketches import ApproxCountDistinct, ApproxQuantile, ApproxQuantiles
from autovalidate.metrics.statistics import (
    Correlation,
    Kurtosis,
    Maximum,
    Mean,
    Minimum,
    Monotonicity,
    Range,
    RatioOfSums,
    Skewness,
    StandardDeviation,
    Sum,
    Variance,
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
    "Analyzer",
    "ApproxCountDistinct",
    "ApproxQuantile",
    "ApproxQuantiles",
    "Completeness",
    "Compliance",
    "ColumnTypes",
    "Correlation",
    "CountDistinct",
    "CustomSql",
    "DataType",
    "DataTypeInstance",
    "Distinctness",
    "Distribution",
    "DistributionDrift",
    "DistributionValue",
    "DuplicateCount",
    "Entity",
    "Entropy",
    "ExactQuantile",
    "FrequenciesState",
    "Histogram",
    "InterquartileRange",
    "Kurtosis",
    "MaxLength",
    "Maximum",
    "Mean",
    "Metric",
    "MinLength",
    "Minimum",
    "Monotonicity",
    "MutualInformation",
    "NewestTimestamp",
    "PatternConformance",
    "PatternMatch",
    "Range",
    "RatioOfSums",
    "ReferentialIntegrity",
    "Size",
    "Skewness",
    "StandardDeviation",
    "State",
    "Sum",
    "UniqueValueRatio",
    "Uniqueness",
    "Variance",
    "ZeroCount",
    "merge_states",
]
