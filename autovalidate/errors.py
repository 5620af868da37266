"""Exceptions raised by autovalidate.

Findings are values, misuse is an exception: a constraint that fails on a
batch is a :class:`~autovalidate.pattern_constraint.PatternValidationResult` with
``passed=False``; an unreadable index, a missing column or a bad argument is
one of the errors below.  Every error mixes in the built-in exception it
resembles, so callers may catch either, and carries the fields that locate the
problem (path, column, pattern).  Errors raised because of a lower-level
failure (DuckDB, Spark, I/O) are raised ``from`` it.  Every error survives
:mod:`pickle` with its message and fields (Spark and multiprocessing pickle
exceptions to send them between processes).

The tree::

    AutovalidateError
    ├── DataError (ValueError)
    │   ├── ColumnNotFoundError (KeyError)
    │   └── EmptyColumnError
    ├── DataSourceError (OSError)
    ├── PatternIndexError
    │   ├── IndexNotFoundError (FileNotFoundError)
    │   ├── IndexSchemaError (ValueError)
    │   ├── IndexVersionError (ValueError)
    │   ├── IndexMergeError (ValueError)
    │   └── DefaultIndexError
    ├── IndexBuildError (RuntimeError)
    ├── ConstraintFormatError (ValueError)
    │   └── UnsafeInputError
    ├── ParameterError (ValueError)
    ├── EngineError (RuntimeError)
    │   └── QueryError
    ├── MissingDependencyError (ImportError)
    ├── RepositoryError (OSError)
    ├── InsufficientHistoryError (ValueError)
    └── ValidationFailedError
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from autovalidate._version import install_hint

__all__ = [
    "AutovalidateError",
    "ColumnNotFoundError",
    "ConstraintFormatError",
    "DataError",
    "DataSourceError",
    "DefaultIndexError",
    "EmptyColumnError",
    "EngineError",
    "IndexBuildError",
    "IndexMergeError",
    "IndexNotFoundError",
    "IndexSchemaError",
    "IndexVersionError",
    "InsufficientHistoryError",
    "MissingDependencyError",
    "ParameterError",
    "PatternIndexError",
    "QueryError",
    "RepositoryError",
    "UnsafeInputError",
    "ValidationFailedError",
]


def _unpickle(
    cls: type[AutovalidateError], args: tuple[object, ...], fields: dict[str, object]
) -> AutovalidateError:
    """Rebuild an error from its final message and fields, bypassing ``__init__``.

    The subclasses' constructors take the fields and compose the message; the
    default pickling would call them again with the composed message alone.
    """
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(fields)
    return error


class AutovalidateError(Exception):
    """Root of every error raised on purpose by autovalidate."""

    def __reduce__(self) -> tuple[object, ...]:
        return (_unpickle, (type(self), self.args, dict(self.__dict__)))


class DataError(AutovalidateError, ValueError):
    """The data given cannot be used as asked (wrong type, no usable values)."""


class ColumnNotFoundError(DataError, KeyError):
    """A named column is not in the data.

    The message names the closest available columns (case-insensitive
    similarity, :func:`difflib.get_close_matches`) and, briefly, the others.

    Attributes
    ----------
    column
        The column asked for.
    available
        The columns the data has.
    closest
        Up to three available names most like ``column``, best first.
    hint
        What to do about it, shown after the closest names (the CLI's
        ``validate`` names the ``--rename`` that reads another column), or ``None``.
    """

    def __init__(
        self, column: str, available: Iterable[str] = (), *, hint: str | None = None
    ) -> None:
        self.column = column
        self.available = list(available)
        self.hint = hint
        by_lower = {a.lower(): a for a in reversed(self.available)}
        self.closest = [
            by_lower[m]
            for m in difflib.get_close_matches(column.lower(), list(by_lower), n=3, cutoff=0.6)
        ]
        closest = f"; closest: {', '.join(map(repr, self.closest))}" if self.closest else ""
        advice = f"; {hint}" if hint else ""
        shown = ", ".join(self.available[:8])
        more = "" if len(self.available) <= 8 else f", ... ({len(self.available)} in all)"
        super().__init__(f"column {column!r} not found{closest}{advice}; available: {shown}{more}")

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class EmptyColumnError(DataError):
    """A column has no non-null values, so nothing can be inferred from it.

    The message names the column (``column 'zip' has no non-null values``),
    or, for values given without one, says ``no non-null values were given``.

    Attributes
    ----------
    column
        The column, or ``None`` for anonymous values.
    """

    def __init__(self, column: str | None = None, message: str | None = None) -> None:
        self.column = column
        if message is None:
            message = (
                f"column {column!r} has no non-null values"
                if column is not None
                else "no non-null values were given"
            )
        super().__init__(message)


class DataSourceError(AutovalidateError, OSError):
    """A file or table could not be read.

    Attributes
    ----------
    path
        The path or name of the source.
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")

    def __str__(self) -> str:  # OSError's __str__ formats errno fields
        return str(self.args[0])


class PatternIndexError(AutovalidateError):
    """A pattern index cannot be opened or used."""


class IndexNotFoundError(PatternIndexError, FileNotFoundError):
    """No complete pattern index at the given path.

    A directory without the index metadata file is not an index: this is also
    what a reader sees of a build that was killed before it finished.

    Attributes
    ----------
    path
        The index directory.
    """

    def __init__(self, path: str, message: str | None = None) -> None:
        self.path = path
        super().__init__(message or f"{path}: no pattern index here (missing metadata file)")

    def __str__(self) -> str:
        return str(self.args[0])


class IndexSchemaError(PatternIndexError, ValueError):
    """The index files do not have the expected columns or metadata.

    Attributes
    ----------
    path
        The index directory.
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")


class IndexVersionError(PatternIndexError, ValueError):
    """The index was built by an incompatible format or hierarchy version.

    Attributes
    ----------
    path
        The index directory.
    found, expected
        The versions found in the index and the versions this code reads.
    """

    def __init__(self, path: str, found: object, expected: object) -> None:
        self.path = path
        self.found = found
        self.expected = expected
        super().__init__(
            f"{path}: index built with {found}, this autovalidate reads {expected}; "
            "rebuild it with `autovalidate index build`"
        )


class IndexMergeError(PatternIndexError, ValueError):
    """Indexes that cannot be added up: built with different parameters, or with patterns left out.

    A column contributes other patterns under another τ, budget or purity
    ladder, so the sums of two such indexes are the index of no corpus; an
    index built with ``min_cov`` > 1 lacks the rare patterns' partial sums.

    Attributes
    ----------
    path
        The input index refused.
    parameter
        The build parameter at fault (``"tau"``, ``"budget"``, ``"ladder"``,
        ``"min_cov"``, ``"path"``).
    found, expected
        Its value in ``path`` and the value the merge needs (the first input's).
    """

    def __init__(self, path: str, parameter: str, found: object, expected: object) -> None:
        self.path = path
        self.parameter = parameter
        self.found = found
        self.expected = expected
        super().__init__(
            f"{path}: cannot merge: built with {parameter}={found}, the merge needs "
            f"{parameter}={expected}; rebuild it with the same parameters as the other inputs"
        )


class DefaultIndexError(PatternIndexError):
    """The default index packaged with autovalidate cannot be used (missing, broken, or refused).

    Raised where no index was given and the packaged one was to be used: the
    message says why and the two ways out (give an index of your own, or
    rebuild the packaged one).

    Attributes
    ----------
    path
        The packaged index directory.
    reason
        The reader's own message (another hierarchy version, a missing file...).
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(
            f"the default index packaged with autovalidate cannot be used: {reason} -- "
            "give an index of your own (--index DIR, or suggest_pattern(values, index)), "
            "or rebuild the packaged one: python3 -m index_jobs.build_default_index"
        )


class IndexBuildError(AutovalidateError, RuntimeError):
    """The offline index build failed; nothing was published at the output path."""


class ConstraintFormatError(AutovalidateError, ValueError):
    """A serialized constraint or constraint suite is malformed."""


class UnsafeInputError(ConstraintFormatError):
    """User code of a suite (SQL, a regex) that may not reach an engine.

    A ``satisfies`` predicate or ``where`` filter that is not one expression
    over the table's columns, or a ``has_pattern`` regex outside the RE2
    subset or nesting repetitions (:mod:`autovalidate.user_code`).

    Attributes
    ----------
    what
        The constraint or field refused (``"constraint 2: where"``).
    """

    def __init__(self, what: str, message: str) -> None:
        self.what = what
        super().__init__(f"{what}: {message}")


class ParameterError(AutovalidateError, ValueError):
    """An argument is out of its documented range."""


class EngineError(AutovalidateError, RuntimeError):
    """An execution engine (DuckDB or Spark) failed while running a query.

    A failure of the engine itself (a corrupt input file it cannot read, a
    user UDF that raises, a lost executor, memory exhausted) fails the whole
    run: it is raised from :meth:`~autovalidate.checks.VerificationSuite.run`
    and never counted as a failed constraint (the CLI exits 2). Its subclass
    :class:`QueryError` is the one engine error that is a finding.
    """


class QueryError(EngineError):
    """The engine refused one query's expressions, or they failed on a value.

    A ``where`` filter naming no column, a predicate with a type error, a
    cast that fails on a value: the metrics computed by that query fail (a
    failed metric is a value, as in Deequ), the others are computed.
    """


class MissingDependencyError(AutovalidateError, ImportError):
    """A feature needs an optional dependency that is not installed.

    The message is one line that says what to install.

    Attributes
    ----------
    feature
        What was asked for (``"autovalidate index build"``, ...).
    package
        The missing import (``"pyspark"``).
    extra
        The extra of the ``autovalidate-lake`` distribution that installs it (``"spark"``).
    """

    def __init__(self, feature: str, package: str, extra: str) -> None:
        self.feature = feature
        self.package = package
        self.extra = extra
        hint = install_hint(extra)
        super().__init__(f"{feature} needs {package}, which is not installed: {hint}")

    def __str__(self) -> str:
        return str(self.args[0])


class RepositoryError(AutovalidateError, OSError):
    """A metrics repository cannot be read or written (unreadable file, lock not obtained in time).

    Attributes
    ----------
    path
        The repository's file or directory.
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")

    def __str__(self) -> str:  # OSError's __str__ formats errno fields
        return str(self.args[0])


class InsufficientHistoryError(AutovalidateError, ValueError):
    """The metrics history is too short to decide on a new batch.

    Attributes
    ----------
    dataset
        The dataset whose history was read.
    found, needed
        Results found and results needed.
    """

    def __init__(self, dataset: str, found: int, needed: int) -> None:
        self.dataset = dataset
        self.found = found
        self.needed = needed
        super().__init__(
            f"dataset {dataset!r} has {found} earlier result(s) in the repository; "
            f"at least {needed} are needed to decide on a new batch"
        )


class ValidationFailedError(AutovalidateError):
    """A batch failed a check at level Error, raised on request (``raise_for_status``).

    A failed check is a finding, a value; a pipeline that wants it to stop the
    run asks for this error (:meth:`autovalidate.ValidationResult.raise_for_status`).

    Attributes
    ----------
    status
        The verification's status (``"Error"``).
    failures
        One line per failed constraint of an Error-level check:
        ``"check: constraint: message"``.
    """

    def __init__(self, status: str, failures: Iterable[str]) -> None:
        self.status = status
        self.failures = list(failures)
        shown = "; ".join(self.failures[:3])
        more = "" if len(self.failures) <= 3 else f"; ... ({len(self.failures)} in all)"
        super().__init__(
            f"validation failed ({status}): {len(self.failures)} constraint(s) of Error-level "
            f"checks failed: {shown}{more}"
        )
