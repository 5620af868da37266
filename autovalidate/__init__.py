"""autovalidate: data validation for data lakes and pipelines.

Auto-Validate pattern constraints (Song & He, SIGMOD 2021) inferred from a
pattern index of a data lake, beside Deequ metric checks (Schelter et al.,
PVLDB 2018; ICDE 2019), on DuckDB locally and on Spark in ingestion jobs.

Glossary (one word, one type):

pattern constraint
    :class:`PatternConstraint`: an inferred regex with its training counts
    and drift test (Auto-Validate §4); made by :func:`suggest_pattern`.
hypothesis pattern, token, segment
    A node of the generalization hierarchy over a value's tokens
    (:mod:`autovalidate.patterns`); a vertical cut splits values into
    segments, each with its own pattern (§3).
FPR, coverage
    FPR_T and Cov_T of a pattern, estimated from the corpus and stored in the
    :class:`PatternIndex` (§2.2).
analyzer, metric, state
    :mod:`autovalidate.metrics`: what to compute, its result, and the
    mergeable summary it comes from (Deequ).
constraint, check, check level
    :class:`autovalidate.checks.Constraint` (an assertion on a metric),
    :class:`Check` (constraints with a :class:`CheckLevel`); a pattern
    constraint added to a check becomes a check constraint on its column.
assertion
    ``AssertionFn`` is the callable a check constraint applies to a metric;
    :class:`autovalidate.checks.spec.Assertion` is its serializable form in a suite.
suite
    :class:`ConstraintSuite`: checks saved as JSON and run together (the
    file format is :mod:`autovalidate.checks.spec`); :func:`validate`, the one
    entry for validating a batch, runs one on a batch and splits the batch's
    rows by the row-level constraints they break (:mod:`autovalidate.pipeline`;
    ``ConstraintSuite.run`` is its alias).
suggestion rule, anomaly detection strategy, metrics repository
    :mod:`autovalidate.suggest`, :mod:`autovalidate.anomaly`,
    :mod:`autovalidate.repository` (Deequ).
"""

from typing import TYPE_CHECKING

from autovalidate._lazy import attach
from autovalidate._version import __version__

if TYPE_CHECKING:  # the names below, imported on first use (see __getattr__)
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
        ConstraintSuite,
        VerificationResult,
        VerificationSuite,
    )
    from autovalidate.drift import DriftTest, drift_test
    from autovalidate.errors import (
        AutovalidateError,
        ColumnNotFoundError,
        ConstraintFormatError,
        DataError,
        DataSourceError,
        DefaultIndexError,
        EmptyColumnError,
        EngineError,
        IndexBuildError,
        IndexNotFoundError,
        IndexSchemaError,
        IndexVersionError,
        InsufficientHistoryError,
        MissingDependencyError,
        ParameterError,
        PatternIndexError,
        QueryError,
        RepositoryError,
        UnsafeInputError,
        ValidationFailedError,
    )
    from autovalidate.index.default import open_default_index
    from autovalidate.index.reader import PatternIndex
    from autovalidate.index.stats import PatternStats
    from autovalidate.pattern_constraint import PatternConstraint, PatternValidationResult
    from autovalidate.pattern_inference import suggest_pattern
    from autovalidate.pipeline import ValidationResult, validate
    from autovalidate.spark import validate_spark

#: Public name -> the module that defines it. The package imports none of them
#: up front: ``autovalidate --help`` and a small ``validate`` would otherwise pay for
#: scipy, pyarrow and the engines before doing anything (issue 31).
_LAZY = {
    "AnalysisRunner": "autovalidate.analysis",
    "AutovalidateError": "autovalidate.errors",
    "Check": "autovalidate.checks",
    "CheckLevel": "autovalidate.checks",
    "CheckStatus": "autovalidate.checks",
    "ColumnNotFoundError": "autovalidate.errors",
    "ConstrainableDataType": "autovalidate.checks",
    "ConstraintFormatError": "autovalidate.errors",
    "ConstraintSuite": "autovalidate.checks",
    "DataError": "autovalidate.errors",
    "DataSourceError": "autovalidate.errors",
    "DefaultIndexError": "autovalidate.errors",
    "DriftTest": "autovalidate.drift",
    "EmptyColumnError": "autovalidate.errors",
    "EngineError": "autovalidate.errors",
    "InMemoryStateProvider": "autovalidate.analysis",
    "IndexBuildError": "autovalidate.errors",
    "IndexNotFoundError": "autovalidate.errors",
    "IndexSchemaError": "autovalidate.errors",
    "IndexVersionError": "autovalidate.errors",
    "InsufficientHistoryError": "autovalidate.errors",
    "LocalDirectoryStateProvider": "autovalidate.analysis",
    "MissingDependencyError": "autovalidate.errors",
    "ParameterError": "autovalidate.errors",
    "PartitionedStates": "autovalidate.analysis",
    "PatternConstraint": "autovalidate.pattern_constraint",
    "PatternIndex": "autovalidate.index.reader",
    "PatternIndexError": "autovalidate.errors",
    "PatternStats": "autovalidate.index.stats",
    "PatternValidationResult": "autovalidate.pattern_constraint",
    "QueryError": "autovalidate.errors",
    "RepositoryError": "autovalidate.errors",
    "UnsafeInputError": "autovalidate.errors",
    "ValidationFailedError": "autovalidate.errors",
    "ValidationResult": "autovalidate.pipeline",
    "VerificationResult": "autovalidate.checks",
    "VerificationSuite": "autovalidate.checks",
    "drift_test": "autovalidate.drift",
    "open_default_index": "autovalidate.index.default",
    "suggest_pattern": "autovalidate.pattern_inference",
    "validate": "autovalidate.pipeline",
    "validate_spark": "autovalidate.spark",
}

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
    "DefaultIndexError",
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
    "MissingDependencyError",
    "ParameterError",
    "PartitionedStates",
    "PatternConstraint",
    "PatternIndex",
    "PatternIndexError",
    "PatternStats",
    "PatternValidationResult",
    "QueryError",
    "RepositoryError",
    "UnsafeInputError",
    "ValidationFailedError",
    "ValidationResult",
    "VerificationResult",
    "VerificationSuite",
    "__version__",
    "drift_test",
    "open_default_index",
    "suggest_pattern",
    "validate",
    "validate_spark",
]


__getattr__, __dir__ = attach(__name__, _LAZY)
