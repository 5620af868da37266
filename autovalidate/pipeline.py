"""The one call to validate a batch against a suite, and to split its rows.

:func:`validate` runs a suite (a suite file, a loaded
:class:`~autovalidate.checks.spec.ConstraintSuite`, checks or pattern
constraints) on a batch, on the batch's engine (DuckDB for a path, pandas,
Arrow or a DuckDB relation; Spark for a classic or Spark Connect DataFrame),
in shared scans: the same run as ``autovalidate validate``, which is this
call. The :class:`ValidationResult` says whether the batch passed, raises on
request (:meth:`~ValidationResult.raise_for_status`), exports as JSON
(:meth:`~ValidationResult.to_json`, the CLI's ``--json``), and splits the
batch into the rows that break no row-level constraint and those that break
some, with the constraints each broke (:meth:`~ValidationResult.split`),
without collecting the data::

    result = av.validate("batch.parquet", "suite.json")
    valid, invalid = result.split()          # DuckDB relations, read lazily
    result.write_invalid_rows("quarantine.parquet")  # the invalid part, one scan
    result.raise_for_status()                # ValidationFailedError: an Error-level check failed
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autovalidate.checks.check import Check, CheckLevel, CheckStatus
from autovalidate.checks.constraints import ConstraintStatus
from autovalidate.checks.running import run_checks
from autovalidate.checks.spec import CheckSpec, ConstraintSuite
from autovalidate.checks.verification import VerificationResult
from autovalidate.engines import Engine, engine_for
from autovalidate.errors import ParameterError, ValidationFailedError
from autovalidate.metrics.expressions import numbers_compared_as_numbers
from autovalidate.pattern_constraint import DEFAULT_EXAMPLES, PatternConstraint
from autovalidate.report import validation_rows

if TYPE_CHECKING:
    from autovalidate.metrics.expressions import Expr
    from autovalidate.repository.base import MetricsRepository

__all__ = [
    "BROKEN_CONSTRAINTS",
    "MAX_ROW_NAME",
    "ValidationResult",
    "row_constraint_name",
    "validate",
]

#: The column of the invalid rows that lists the constraints each row broke.
BROKEN_CONSTRAINTS = "_broken_constraints"
#: Longest constraint name the rows that break it list in full: a longer one (an
#: ``is_contained_in`` of 100,000 values is named in 1.2 MB) would be repeated on
#: every such row, past the 2 GiB of text an Arrow column holds.
MAX_ROW_NAME = 200


def row_constraint_name(name: str) -> str:
    """A constraint's name as the rows that break it list it (:data:`BROKEN_CONSTRAINTS`).

    ``name`` itself up to :data:`MAX_ROW_NAME` characters; a longer one cut
    to its start, then ``…#`` and 12 hex digits of its BLAKE2b digest (200
    characters in all), so that two long names stay two.
    """
    if len(name) <= MAX_ROW_NAME:
        return name
    digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()
    return f"{name[: MAX_ROW_NAME - 14]}…#{digest}"


#: What :func:`validate` takes as a suite.
SuiteLike = (
    str
    | os.PathLike[str]
    | ConstraintSuite
    | CheckSpec
    | Check
    | PatternConstraint
    | Sequence[CheckSpec]
    | Sequence[Check]
    | Sequence[PatternConstraint]
)


def _checks_of(
    suite: Any, repository: MetricsRepository | None, references: Mapping[str, Any] | None
) -> tuple[list[Check], ConstraintSuite | None]:
    """The checks to run, and the suite they come from (``None`` for checks built in Python)."""
    if isinstance(suite, (str, os.PathLike)):
        suite = ConstraintSuite.load(os.fspath(suite))
    elif isinstance(suite, (CheckSpec, Check, PatternConstraint)):
        suite = [suite]
    if isinstance(suite, Sequence) and suite:
        if all(isinstance(s, Check) for s in suite):
            return list(suite), None
        if all(isinstance(s, CheckSpec) for s in suite):
            suite = ConstraintSuite(tuple(suite))
        elif all(isinstance(s, PatternConstraint) for s in suite):
            suite = ConstraintSuite.of_patterns(suite)
    if isinstance(suite, ConstraintSuite):
        return suite.to_checks(repository=repository, references=references), suite
    raise ParameterError(
        "suite: expected a suite file, a ConstraintSuite, checks (Check or CheckSpec, alone "
        f"or in a list of one kind) or pattern constraints; got {type(suite).__name__}"
    )


def validate(
    data: Any,
    suite: SuiteLike,
    *,
    rename: Mapping[str, str] | None = None,
    repository: MetricsRepository | None = None,
    examples: int = DEFAULT_EXAMPLES,
    examples_of_passing: bool = False,
    references: Mapping[str, Any] | None = None,
) -> ValidationResult:
    """Verify a batch against every check of a suite, in shared scans.

    The one entry for validating a batch: the CLI's ``validate`` is this call,
    and :meth:`ConstraintSuite.run` is its alias for a loaded suite (giving
    :attr:`ValidationResult.verification`). One pattern constraint's values
    (also a plain list) with its drift decision:
    :meth:`~autovalidate.PatternConstraint.validate`.

    Parameters
    ----------
    data
        The batch: a CSV/TSV or Parquet path (CSV read as text exactly as
        written), a pandas DataFrame, an Arrow table, a DuckDB relation, a
        PySpark DataFrame (classic or Spark Connect), or an
        :class:`~autovalidate.engines.Engine`.
    suite
        A suite JSON file (``autovalidate suggest --out``), a
        :class:`~autovalidate.checks.spec.ConstraintSuite`, a
        :class:`~autovalidate.checks.spec.CheckSpec` or a list of them, a
        :class:`~autovalidate.Check` or a list of them, or pattern constraints
        (one or a list: one check at level Error).
    rename
        Suite column -> batch column, for a batch whose columns are named
        differently (``{"ZipCode": "zip"}``).
    repository
        Metrics history, for ``has_no_anomalies`` constraints.
    examples
        Non-conforming values to fetch per failing pattern constraint (one
        small query each, only for failures).
    examples_of_passing
        Also fetch examples for passing pattern constraints with
        non-conforming values (as a report shows).
    references
        Reference name -> data, for the suite's ``has_referential_integrity``
        and ``has_no_drift`` constraints (the data as their ``reference``: on
        DuckDB a pandas or polars DataFrame or an Arrow table, the suite runs
        with file access off; on Spark a DataFrame of the session).

    Returns
    -------
    ValidationResult
        Failing constraints are results, not errors.

    Raises
    ------
    ColumnNotFoundError
        If a column a constraint reads (or ``rename`` names) is not in the
        batch: a schema error, not a failed check (as
        :meth:`~autovalidate.PatternConstraint.validate` also raises).
    DataSourceError, DataError
        If the batch cannot be read at all.
    EngineError
        If the engine fails (a corrupt Parquet part, a user UDF that raises, a
        lost executor): never a failed constraint. Its subclass
        :class:`~autovalidate.errors.QueryError`, an error in one
        constraint's own SQL, fails that constraint instead.
    ConstraintFormatError
        If the suite file is malformed, has ``has_no_anomalies`` and no
        repository, or names a reference that ``references`` does not bind;
        :class:`~autovalidate.errors.UnsafeInputError` if its SQL or a regex is
        refused (:mod:`autovalidate.user_code`).
    ParameterError
        If ``suite`` is none of the above.
    """
    checks, loaded = _checks_of(suite, repository, references)
    verification = run_checks(
        checks,
        data,
        rename=rename,
        examples=examples,
        examples_of_passing=examples_of_passing,
    )
    return ValidationResult(verification, loaded, data, dict(rename or {}))


@dataclass(frozen=True)
class ValidationResult:
    """The outcome of :func:`validate` on one batch.

    Attributes
    ----------
    verification
        The verification result: each check's status and each constraint's
        result and metric.
    suite
        The suite run, ``None`` when checks built in Python were given.
    data
        The batch as given (what :meth:`split` splits by default).
    rename
        Suite column -> batch column, as given.
    """

    verification: VerificationResult
    suite: ConstraintSuite | None
    data: Any = field(repr=False, compare=False)
    rename: Mapping[str, str] = field(default_factory=dict)

    @property
    def status(self) -> CheckStatus:
        """The worst check status: Error, else Warning, else Success."""
        return self.verification.status

    @property
    def passed(self) -> bool:
        """True unless an Error-level check failed (Warning-level failures pass, as exit code 0)."""
        return self.status is not CheckStatus.ERROR

    def rows(self) -> list[dict[str, Any]]:
        """One JSON-ready row per constraint: check, level, name, label, status, message, value.

        Pattern constraints add their validation result's fields (counts,
        non-conforming fraction, drift test, examples).
        """
        return validation_rows(self.suite, self.verification)

    def to_dict(self) -> dict[str, Any]:
        """``{"file", "passed", "status", "results"}``, as ``autovalidate validate --json`` prints.

        ``file`` is the batch's path, ``None`` for in-memory data.
        """
        source = os.fspath(self.data) if isinstance(self.data, (str, os.PathLike)) else None
        return {
            "file": source,
            "passed": self.passed,
            "status": self.status.value,
            "results": self.rows(),
        }

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as JSON text; keyword arguments go to :func:`json.dumps`."""
        options = {"ensure_ascii": False, "default": str, **kwargs}
        return json.dumps(self.to_dict(), **options)

    def raise_for_status(self) -> ValidationResult:
        """Raise if an Error-level check failed; else return the result (for chaining).

        Raises
        ------
        ValidationFailedError
            Naming each failed constraint of an Error-level check, with its message.
        """
        if self.passed:
            return self
        failures = [
            f"{row['check']}: {row['label']}: {row['constraint_message']}"
            for row in self.rows()
            if not row["passed"] and row["check_level"] == CheckLevel.ERROR.value
        ]
        raise ValidationFailedError(self.status.value, failures)

    def row_constraints(self, *, failed_only: bool = False) -> dict[str, Expr]:
        """Constraint name -> the condition of a row that breaks it, for the row-level constraints.

        A name is :func:`row_constraint_name` of the constraint's (cut past
        :data:`MAX_ROW_NAME` characters).

        Row-level: Auto-Validate pattern constraints (a non-null value not
        fully matching the regex: RE2 on DuckDB, Java on Spark; nulls are no
        pattern violation), completeness (a null), ``is_contained_in`` (a
        non-null value outside the set), ranges (``is_in_range``,
        ``is_non_negative``, ``is_positive``: values out of range), column
        comparisons, ``satisfies`` predicates (false or null), ``has_pattern``
        (a null or a value not fully matching, as its metric counts). Each
        holds only among the rows passing the constraint's ``where``.
        Constraints on the whole batch (uniqueness, size, means and other
        statistics, lengths, data types, entropy, anomalies) have no row
        predicate and are left out.

        Parameters
        ----------
        failed_only
            Only the constraints that failed on the batch (by default every
            row-level constraint, also those whose tolerance the batch met).
        """
        out: dict[str, Expr] = {}
        for check_result in self.verification.check_results:
            for outcome in check_result.constraint_results:
                if failed_only and outcome.status is ConstraintStatus.SUCCESS:
                    continue
                violation = outcome.constraint.row_violation()
                if violation is not None:
                    out.setdefault(row_constraint_name(str(outcome.constraint)), violation)
        return out

    def split(
        self,
        data: Any = None,
        *,
        column: str = BROKEN_CONSTRAINTS,
        failed_only: bool = False,
    ) -> tuple[Any, Any]:
        """The batch's rows that break no row-level constraint, and those that break some.

        Nothing is collected: the parts are queries over the batch, read when
        they are (one more scan of the batch each).

        Parameters
        ----------
        data
            The batch (by default the one validated); the same rows, e.g. a
            Spark DataFrame of the file that was validated.
        column
            The invalid part's column listing, per row, the names of the
            constraints it broke (a list of strings, as in :meth:`rows`'
            ``constraint``, a name longer than :data:`MAX_ROW_NAME` cut by
            :func:`row_constraint_name`; checks' order).
        failed_only
            Only split by the constraints that failed (see :meth:`row_constraints`).

        Returns
        -------
        tuple
            ``(valid, invalid)``: DuckDB relations for data DuckDB reads (call
            ``.df()``, ``.arrow()``, ``.write_parquet(path)``; they stay usable
            while referenced), Spark DataFrames for a Spark DataFrame. Both
            have the batch's own columns (``rename`` is applied to the
            constraints, not the rows); ``invalid`` also has ``column``.
            Which constraints have a row predicate: :meth:`row_constraints`.

        Raises
        ------
        ParameterError
            If ``column`` is already a column of the batch.
        ColumnNotFoundError
            If a column ``rename`` names is not in the batch.
        DataSourceError, DataError, EngineError
            If the batch cannot be read, or the engine rejects a predicate.
        """
        engine = self._engine(data)
        broken = self.row_constraints(failed_only=failed_only)
        if engine.untyped:  # CSV text: a range reads numbers, as its metric did
            broken = {name: numbers_compared_as_numbers(e) for name, e in broken.items()}
        # Not closed here: the parts are queries on the engine's connection.
        return engine.split_rows(broken, column, self.rename or None)

    def write_invalid_rows(
        self,
        path: str | os.PathLike[str],
        data: Any = None,
        *,
        column: str = BROKEN_CONSTRAINTS,
        failed_only: bool = False,
    ) -> None:
        """Write the rows that break a row-level constraint to Parquet (a quarantine).

        The invalid part of :meth:`split` (its parameters mean the same),
        written by the batch's engine: DuckDB streams it into one file, Spark
        writes a directory of part files from the executors (``path`` must not
        exist there). One scan of the batch. The CLI's ``validate
        --failed-rows`` is this call.

        Raises
        ------
        ParameterError, ColumnNotFoundError
            As :meth:`split`.
        DataSourceError
            If the batch cannot be read or ``path`` cannot be written.
        DataError, EngineError
            If the engine rejects a predicate.
        """
        engine = self._engine(data)
        _, invalid = self.split(engine, column=column, failed_only=failed_only)
        engine.write_rows(invalid, os.fspath(path))

    def _engine(self, data: Any) -> Engine:
        """The engine of ``data``, by default of the batch validated."""
        source = self.data if data is None else data
        return source if isinstance(source, Engine) else engine_for(source)
