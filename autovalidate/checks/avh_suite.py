"""An AVH program as a constraint suite: the constraints a static suite can express.

A constraint of an :class:`~autovalidate.monitor.avh_batches.AVHProgram` on a
batch's own value (``transform == "value"``) is a Deequ constraint with a
``between`` / ``>=`` / ``<=`` assertion; it runs with ``autovalidate validate
--suite`` on DuckDB or Spark, without the metrics repository. Constraints on
differences or on distances to the previous batch need the previous batch's
statistics: they are returned apart, and run only through ``validate-batch
--strategy avh --program``.
"""

from __future__ import annotations

import math

from autovalidate.checks.levels import CheckLevel
from autovalidate.checks.spec import Assertion, CheckSpec, ConstraintSpec, ConstraintSuite
from autovalidate.monitor.avh_batches import AVHConstraint, AVHProgram

__all__ = ["SUITE_METHOD_OF", "program_suite"]

#: The check method that constrains each metric AVH records.
SUITE_METHOD_OF = {
    "Size": "has_size",
    "Completeness": "has_completeness",
    "ApproxCountDistinct": "has_approx_count_distinct",
    "Mean": "has_mean",
    "StandardDeviation": "has_standard_deviation",
    "Minimum": "has_min",
    "Maximum": "has_max",
    "MinLength": "has_min_length",
    "MaxLength": "has_max_length",
}


def _assertion(lower: float, upper: float) -> Assertion:
    if math.isinf(lower):
        return Assertion("<=", upper)
    if math.isinf(upper):
        return Assertion(">=", lower)
    return Assertion("between", (lower, upper))


def program_suite(program: AVHProgram) -> tuple[ConstraintSuite, list[AVHConstraint]]:
    """The program's value constraints as one check at level Error, and the rest.

    Returns
    -------
    tuple
        The suite (its check's description states the program's budget) and
        the constraints it cannot hold (differences, distances).
    """
    specs: list[ConstraintSpec] = []
    rest: list[AVHConstraint] = []
    for c in program.constraints:
        method = SUITE_METHOD_OF.get(c.candidate.name)
        if c.candidate.transform != "value" or method is None:
            rest.append(c)
            continue
        args = {} if c.candidate.column == "*" else {"column": c.candidate.column}
        i = c.interval
        hint = f"AVH: {i.bound} bound {i.fpr:.4g} on the false-positive rate"
        specs.append(ConstraintSpec(method, args, _assertion(i.lower, i.upper), hint=hint))
    description = (
        f"AVH program of {program.dataset!r}: false-positive bound {program.fpr_bound:.4g} "
        f"<= delta {program.delta:g} (Tu et al., KDD 2023)"
    )
    return ConstraintSuite((CheckSpec(description, CheckLevel.ERROR, tuple(specs)),)), rest
