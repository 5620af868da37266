"""autovalidate: data validation for data lakes and pipelines.

Auto-Validate pattern constraints (Song & He, SIGMOD 2021) inferred from a
pattern index of a data lake, beside Deequ metric checks (Schelter et al.,
PVLDB 2018; ICDE 2019), on DuckDB locally and on Spark in ingestion jobs.
"""

from autovalidate._version import __version__
from autovalidate.analysis import (
    AnalysisRunner,
    InMemoryStateProvider,
    LocalDirectoryStateProvider,
    PartitionedStates,
)
from autovalidate.checks import (
    Check,
    CheckLevel,
    CheckStatus,
    ConstrainableDataType,
    VerificationResult,
    VerificationSuite,
)
from autovalidate.constraint import PatternConstraint, PatternValidationResult
from autovalidate.drift import DriftTest, drift_test
from autovalidate.errors import (
    AutovalidateError,
    ColumnNotFoundError,
    ConstraintFormatError,
    DataError,
    DataSourceError,
    EmptyColumnError,
    EngineError,
    IndexBuildError,
    IndexNotFoundError,
    IndexSchemaError,
    IndexVersionError,
    InsufficientHistoryError,
    ParameterError,
    PatternIndexError,
    RepositoryError,
)
from autovalidate.index.reader import PatternIndex, PatternStats
from autovalidate.infer import suggest_pattern
from autovalidate.spark import validate_spark
from autovalidate.suite import ConstraintSuite

__all__ = [
    "AnalysisRunner",
    "AutovalidateError",
    "Check",
    "CheckLevel",
    "CheckStatus",
    "ColumnNotFoundError",
    "ConstrainableDataType",
    "ConstraintFormatError",
    "ConstraintSuite",
    "DataError",
    "DataSourceError",
    "DriftTest",
    "EmptyColumnError",
    "EngineError",
    "InMemoryStateProvider",
    "IndexBuildError",
    "IndexNotFoundError",
    "IndexSchemaError",
    "IndexVersionError",
    "InsufficientHistoryError",
    "LocalDirectoryStateProvider",
    "ParameterError",
    "PartitionedStates",
    "PatternConstraint",
    "PatternIndex",
    "PatternIndexError",
    "PatternStats",
    "PatternValidationResult",
    "RepositoryError",
    "VerificationResult",
    "VerificationSuite",
    "__version__",
    "drift_test",
    "suggest_pattern",
    "validate_spark",
]
