"""Running checks on a batch: one verification run in shared scans, then examples of failures.

Running a suite (:meth:`~autovalidate.checks.spec.ConstraintSuite.run`) is running
its checks with a :class:`~autovalidate.checks.VerificationSuite` on the data's
engine, in shared scans, exactly as the Python API does: CSV files are read as text
exactly as written, as Deequ reads CSV and as the pattern constraints were
inferred (``007`` stays ``007``; types are what
:meth:`~autovalidate.checks.Check.has_data_type` infers from the text), and
numeric statistics of a CSV column read its values cast to 64-bit floats (see
:func:`~autovalidate.analysis.runner.run_analyzers`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from autovalidate.checks.check import Check
from autovalidate.checks.constraints import ConstraintStatus, PatternRuleConstraint
from autovalidate.checks.verification import VerificationResult, VerificationSuite
from autovalidate.engines import Engine, open_engine
from autovalidate.errors import ColumnNotFoundError
from autovalidate.pattern_constraint import DEFAULT_EXAMPLES, nonconforming_examples

__all__ = ["run_checks"]


def run_checks(
    checks: Sequence[Check],
    data: Any,
    *,
    rename: Mapping[str, str] | None = None,
    examples: int = DEFAULT_EXAMPLES,
    examples_of_passing: bool = False,
) -> VerificationResult:
    """Verify ``data`` against ``checks``: the run behind :func:`autovalidate.validate`.

    Not an entry of its own: :func:`autovalidate.validate` takes checks built
    in Python too (its ``verification`` is this result), and
    :meth:`~autovalidate.checks.spec.ConstraintSuite.run`, its alias, calls
    this for the suite's checks. The parameters and errors are those of
    :func:`autovalidate.validate`.
    """
    with open_engine(data, sandbox=True) as engine:
        view = engine.renamed(rename) if rename else engine
        _require_columns(checks, list(view.schema()))
        result = VerificationSuite().on_data(view).add_checks(checks).run()
        if examples <= 0:
            return result
        return _with_examples(result, view, examples, passing=examples_of_passing)


def _require_columns(checks: Sequence[Check], available: Sequence[str]) -> None:
    """Raise for the first column a check reads that the data lacks."""
    for check in checks:
        for analyzer in check.required_analyzers():
            for name in ("column", "columns", "first_column", "second_column"):
                value = getattr(analyzer, name, None)
                for column in [value] if isinstance(value, str) else value or ():
                    if column not in available:
                        raise ColumnNotFoundError(column, available)


def _with_examples(
    result: VerificationResult, engine: Engine, limit: int, *, passing: bool
) -> VerificationResult:
    """``result`` with non-conforming examples in the details of failing pattern constraints.

    With ``passing``, also of passing ones that have non-conforming values.
    """
    check_results = []
    for check_result in result.check_results:
        constraint_results = []
        for outcome in check_result.constraint_results:
            constraint = outcome.constraint
            wanted = outcome.status is ConstraintStatus.FAILURE or (
                passing and outcome.details is not None and outcome.details.get("n_nonconforming")
            )
            if (
                wanted
                and isinstance(constraint, PatternRuleConstraint)
                and outcome.details is not None
            ):
                found = nonconforming_examples(engine, constraint.analyzer, limit)
                outcome = replace(outcome, details={**outcome.details, "examples": found})
            constraint_results.append(outcome)
        check_results.append(replace(check_result, constraint_results=tuple(constraint_results)))
    return replace(result, check_results=tuple(check_results))
