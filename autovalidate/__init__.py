"""autovalidate: data validation for data lakes and pipelines.

Auto-Validate pattern constraints (Song & He, SIGMOD 2021) inferred from a
pattern index of a data lake, beside Deequ metric checks (Schelter et al.,
PVLDB 2018; ICDE 2019), on DuckDB locally and on Spark in ingestion jobs.
"""

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
    ParameterError,
    PatternIndexError,
)

__version__ = "0.1.0"

__all__ = sorted(
    [
        "AutovalidateError",
        "ColumnNotFoundError",
        "ConstraintFormatError",
        "DataError",
        "DataSourceError",
        "EmptyColumnError",
        "EngineError",
        "IndexBuildError",
        "IndexNotFoundError",
        "IndexSchemaError",
        "IndexVersionError",
        "ParameterError",
        "PatternIndexError",
        "__version__",
    ]
)
