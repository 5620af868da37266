"""Constraints: an assertion on the metric of one analyzer (Deequ's ``AnalysisBasedConstraint``).

A constraint never raises on data: a missing metric, a failed metric, a value
that fails the assertion or an assertion that raises all make a
:class:`ConstraintResult` with status ``Failure`` and a message saying which,
with Deequ's wording.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from autovalidate.metrics.base import Analyzer, Metric, MetricValue
from autovalidate.metrics.expressions import Expr

__all__ = [
    "AssertionConstraint",
    "Constraint",
    "ConstraintResult",
    "ConstraintStatus",
    "PatternRule",
    "PatternRuleConstraint",
    "PatternRuleResult",
    "is_one",
]

MISSING_ANALYSIS = "Missing Analysis, can't run the constraint!"
PROBLEMATIC_METRIC_PICKER = "Can't retrieve the value to assert on"
ASSERTION_EXCEPTION = "Can't execute the assertion"


def is_one(value: float) -> bool:
    """Return the default assertion of the "is ..." constraints: the metric equals 1.0."""
    return value == 1.0


class ConstraintStatus(str, enum.Enum):
    """Whether a constraint held (Deequ's ``ConstraintStatus``)."""

    SUCCESS = "Success"
    FAILURE = "Failure"


@dataclass(frozen=True)
class ConstraintResult:
    """The outcome of one constraint on one batch.

    Attributes
    ----------
    constraint
        The constraint.
    status
        Success or failure.
    message
        Why it failed (``None`` on success).
    metric
        The metric it was decided on (``None`` if the analysis is missing).
    value
        The value the assertion saw (the metric value, or the part of it the
        constraint picks), ``None`` if it never got that far.
    details
        Extra findings of the constraint (the pattern constraint's validation
        result), else ``None``.
    """

    constraint: Constraint
    status: ConstraintStatus
    message: str | None = None
    metric: Metric | None = None
    value: Any = None
    details: Mapping[str, Any] | None = None


@dataclass(frozen=True, eq=False, kw_only=True)
class Constraint(ABC):
    """A decision on the metric of one analyzer.

    Attributes
    ----------
    name
        Deequ-style description, e.g. ``CompletenessConstraint(Completeness(a,None))``.
    analyzer
        Computes the metric.
    hint
        Added to the failure message.
    """

    name: str
    analyzer: Analyzer
    hint: str | None = None

    def __str__(self) -> str:
        return self.name

    def _result(
        self, status: ConstraintStatus, message: str | None = None, **fields: Any
    ) -> ConstraintResult:
        if message is not None and status is ConstraintStatus.FAILURE and self.hint:
            message = f"{message} {self.hint}"
        return ConstraintResult(self, status, message, **fields)

    def evaluate(self, metrics: Mapping[Analyzer, Metric]) -> ConstraintResult:
        """Decide the constraint on computed metrics; a missing or failed metric fails it."""
        metric = metrics.get(self.analyzer)
        if metric is None:
            return self._result(ConstraintStatus.FAILURE, MISSING_ANALYSIS)
        if metric.error is not None:
            return self._result(ConstraintStatus.FAILURE, str(metric.error), metric=metric)
        return self.decide(metric)

    @abstractmethod
    def decide(self, metric: Metric) -> ConstraintResult:
        """Decide on a successfully computed metric."""

    def row_violation(self) -> Expr | None:
        """The condition of a row that breaks the constraint, or ``None`` for no row-level meaning.

        The analyzer's (:meth:`~autovalidate.metrics.base.Analyzer.row_violation`):
        completeness (a null), compliance predicates (containment, ranges,
        non-negative, column comparisons, ``satisfies``: the predicate false or
        null), ``has_pattern`` (a null or a value not fully matching) and
        Auto-Validate pattern constraints (a non-null value not fully
        matching). Whether a row breaks it does not depend on the assertion
        (a tolerance of 5 % nulls still lets each null row break
        completeness). Constraints on the whole data (size, uniqueness,
        statistics, lengths, types, anomalies) give ``None``.
        """
        return self.analyzer.row_violation()


@dataclass(frozen=True, eq=False, kw_only=True)
class AssertionConstraint(Constraint):
    """A user's assertion on the metric value (Deequ's ``AnalysisBasedConstraint``).

    Attributes
    ----------
    assertion
        Gets the (picked) metric value and says whether it is acceptable.
    value_picker
        Turns the metric value into what the assertion gets (``None``: as is).
    """

    assertion: Callable[[Any], bool]
    value_picker: Callable[[MetricValue], Any] | None = None

    def decide(self, metric: Metric) -> ConstraintResult:
        """Pick the value and run the assertion."""
        assert metric.value is not None, "a successful metric has a value"
        try:
            value = metric.value if self.value_picker is None else self.value_picker(metric.value)
        except Exception as exc:  # noqa: BLE001 - a bad picker is a finding, as in Deequ
            return self._result(
                ConstraintStatus.FAILURE, f"{PROBLEMATIC_METRIC_PICKER}: {exc}!", metric=metric
            )
        try:
            ok = bool(self.assertion(value))
        except Exception as exc:  # noqa: BLE001 - a raising assertion is a finding, as in Deequ
            return self._result(
                ConstraintStatus.FAILURE,
                f"{ASSERTION_EXCEPTION}: {exc}!",
                metric=metric,
                value=value,
            )
        if ok:
            return self._result(ConstraintStatus.SUCCESS, metric=metric, value=value)
        return self._result(
            ConstraintStatus.FAILURE,
            f"Value: {value} does not meet the constraint requirement!",
            metric=metric,
            value=value,
        )


class PatternRuleResult(Protocol):
    """What a pattern rule's decision offers (``PatternValidationResult``); read-only."""

    @property
    def passed(self) -> bool:
        """Whether the batch passed."""
        ...

    @property
    def message(self) -> str:
        """One line for people."""
        ...

    @property
    def nonconforming_fraction(self) -> float:
        """Non-conforming / non-null values, in [0, 1]."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """Return the decision as plain data."""
        ...


class PatternRule(Protocol):
    """An inferred Auto-Validate pattern rule (a ``PatternConstraint``).

    ``regex`` is fully anchored and means the same in Python ``regex``, Java and
    RE2; ``evaluate_counts`` decides a batch from its counts of non-null values
    not fully matching and of non-null values. Attributes are read-only, so
    frozen dataclasses qualify.
    """

    @property
    def regex(self) -> str:
        """The fully anchored regex."""
        ...

    @property
    def null_tokens(self) -> tuple[str, ...]:
        """Texts that mean a missing value, never counted (:mod:`autovalidate.nulls`)."""
        ...

    def evaluate_counts(self, n_nonconforming: int, n_values: int) -> PatternRuleResult:
        """Decide the batch."""
        ...


@dataclass(frozen=True, eq=False, kw_only=True)
class PatternRuleConstraint(Constraint):
    """An Auto-Validate pattern rule as a constraint of a check.

    Its analyzer is a :class:`~autovalidate.metrics.strings.PatternConformance`
    on the rule's regex, computed in the shared scan; the rule itself decides
    from the counts (with its own tolerance and test), and its validation
    result becomes the constraint result's ``details``.

    Attributes
    ----------
    rule
        The pattern rule.
    """

    rule: PatternRule

    def decide(self, metric: Metric) -> ConstraintResult:
        """Let the rule decide on the batch's counts of non-conforming and non-null values."""
        assert isinstance(metric.value, Mapping)
        n_values = int(metric.value["num_values"])
        n_nonconforming = n_values - int(metric.value["num_matching"])
        try:
            decision = self.rule.evaluate_counts(n_nonconforming, n_values)
        except Exception as exc:  # noqa: BLE001 - a raising rule is a finding, as an assertion
            return self._result(
                ConstraintStatus.FAILURE, f"{ASSERTION_EXCEPTION}: {exc}!", metric=metric
            )
        return self._result(
            ConstraintStatus.SUCCESS if decision.passed else ConstraintStatus.FAILURE,
            None if decision.passed else decision.message,
            metric=metric,
            value=decision.nonconforming_fraction,
            details=decision.to_dict(),
        )
