"""Constraints: an assertion on the metric of one analyzer (Deequ's ``AnalysisBasedConstraint``).

A constraint never raises on data: a missing metric, a failed metric, a value
that fails the assertion or an assertion that raises all make a
:class:`ConstraintResult` with status ``Failure`` and a message saying which,
with Deequ's wording.
"""

from __future__ import annotations

import enum
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Protocol

from autovalidate.metrics.base import Analyzer, Metric, MetricValue, TableSchema
from autovalidate.metrics.expressions import Expr

__all__ = [
    "AssertionConstraint",
    "Constraint",
    "ConstraintResult",
    "ConstraintStatus",
    "DriftConstraint",
    "FreshnessConstraint",
    "PatternRule",
    "PatternRuleConstraint",
    "PatternRuleResult",
    "ReferenceConstraint",
    "SchemaConstraint",
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


#: Names a failure message lists before "and N more".
EXAMPLES_IN_MESSAGE = 5


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:EXAMPLES_IN_MESSAGE])
    more = len(names) - EXAMPLES_IN_MESSAGE
    return f"{shown} and {more} more" if more > 0 else shown


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def same_type(actual: str, accepted: str) -> bool:
    """Whether type names are equal, ignoring case and spaces (``BIGINT`` is ``bigint``)."""
    return "".join(actual.split()).lower() == "".join(accepted.split()).lower()


@dataclass(frozen=True, eq=False, kw_only=True)
class SchemaConstraint(Constraint):
    """The data's schema has the expected columns, with accepted types (no row is read).

    Decided on the :class:`~autovalidate.metrics.ColumnTypes` metric. The
    findings, each listed in the failure message (the first five names) and
    in ``details``: ``missing`` expected columns; ``added`` columns that
    were not expected (only when ``exact``); ``retyped`` columns whose type
    is none of the accepted ones (``{column: {"type": ..., "expected":
    [...]}}``); ``out_of_order`` when ``ordered`` and the columns are all
    there but in another order. The result's value is the number of
    findings (columns missing, added or retyped, plus one for the order).

    Attributes
    ----------
    expected
        ``(column, accepted types)`` pairs in the expected order; no
        accepted types means any type. Types are the engine's names, compared
        ignoring case and spaces (:func:`same_type`).
    exact
        No other column may be present.
    ordered
        The columns must come in the expected order.
    """

    expected: tuple[tuple[str, tuple[str, ...]], ...]
    exact: bool = False
    ordered: bool = False

    def findings(self, schema: TableSchema) -> dict[str, Any]:
        """Missing, added and retyped columns, and whether the order is off."""
        actual = dict(schema.columns)
        names = [name for name, _ in self.expected]
        missing = [n for n in names if n not in actual]
        added = [n for n in schema.names if n not in names] if self.exact else []
        retyped = {
            n: {"type": actual[n], "expected": list(types)}
            for n, types in self.expected
            if types and n in actual and not any(same_type(actual[n], t) for t in types)
        }
        present = [n for n in schema.names if n in names]
        out_of_order = self.ordered and not missing and present != names
        return {
            "missing": missing,
            "added": added,
            "retyped": retyped,
            "out_of_order": out_of_order,
        }

    def decide(self, metric: Metric) -> ConstraintResult:
        """Fail with the findings, if any."""
        schema = metric.value
        assert isinstance(schema, TableSchema)
        found = self.findings(schema)
        count = len(found["missing"]) + len(found["added"]) + len(found["retyped"])
        count += int(found["out_of_order"])
        if not count:
            return self._result(ConstraintStatus.SUCCESS, metric=metric, value=0, details=found)
        parts = []
        if found["missing"]:
            parts.append(f"{_plural(len(found['missing']), 'column')} missing: ")
            parts[-1] += _listed(found["missing"])
        if found["added"]:
            parts.append(f"{_plural(len(found['added']), 'column')} not expected: ")
            parts[-1] += _listed(found["added"])
        if found["retyped"]:
            retyped = [
                f"{n} ({v['type']}, expected {' or '.join(v['expected'])})"
                for n, v in found["retyped"].items()
            ]
            parts.append(f"{_plural(len(retyped), 'column')} of another type: {_listed(retyped)}")
        if found["out_of_order"]:
            parts.append(f"columns out of order: {', '.join(schema.names)}")
        return self._result(
            ConstraintStatus.FAILURE, "; ".join(parts), metric=metric, value=count, details=found
        )


def _utc_text(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, eq=False, kw_only=True)
class FreshnessConstraint(Constraint):
    """The newest timestamp is at most ``max_age_hours`` older than a reference time.

    Decided on the :class:`~autovalidate.metrics.NewestTimestamp` metric;
    the result's value is the age in hours (negative when the newest value
    is after the reference time, which passes). A column without any
    timestamp fails (an empty state).

    Attributes
    ----------
    max_age_hours
        The largest age allowed, in hours.
    reference_time
        Seconds since the Unix epoch; ``None``: the time of the decision.
    """

    max_age_hours: float
    reference_time: float | None = None

    def decide(self, metric: Metric) -> ConstraintResult:
        """Compare the age of the newest value with ``max_age_hours``."""
        newest = metric.value
        assert isinstance(newest, float)
        reference = time.time() if self.reference_time is None else self.reference_time
        age = (reference - newest) / 3600.0
        details = {"newest": _utc_text(newest), "reference_time": _utc_text(reference)}
        if age <= self.max_age_hours:
            return self._result(ConstraintStatus.SUCCESS, metric=metric, value=age, details=details)
        return self._result(
            ConstraintStatus.FAILURE,
            f"The newest value, {details['newest']}, is {age:.2f} hours older than "
            f"{details['reference_time']}; at most {self.max_age_hours} allowed.",
            metric=metric,
            value=age,
            details=details,
        )


@dataclass(frozen=True, eq=False, kw_only=True)
class ReferenceConstraint(AssertionConstraint):
    """An assertion on :class:`~autovalidate.metrics.ReferentialIntegrity`, naming the orphans.

    Decided as :class:`AssertionConstraint` on the fraction of rows found in
    the reference; the result's ``details`` are the metric's (``num_rows``,
    ``num_orphans``, ``examples``) and a failure message counts the orphan
    rows and lists example values.
    """

    def decide(self, metric: Metric) -> ConstraintResult:
        """Run the assertion; name the orphans on failure."""
        result = super().decide(metric)
        details = dict(metric.details or {})
        if result.status is ConstraintStatus.SUCCESS:
            return replace(result, details=details)
        orphans, rows = details.get("num_orphans", 0), details.get("num_rows", 0)
        examples = [str(e) for e in details.get("examples", [])]
        message = (
            f"{orphans} of {rows} rows have values not in {metric.instance.split(' -> ')[1]}"
            + (f", e.g. {_listed(examples)}" if examples else "")
            + f"; {result.message}"
        )
        return replace(result, message=message, details=details)


@dataclass(frozen=True, eq=False, kw_only=True)
class DriftConstraint(Constraint):
    """No drift of a column's distribution from a reference batch.

    Decided on :class:`~autovalidate.metrics.DistributionDrift`'s outcome
    (its ``drift``); the value is the test's statistic and the result's
    ``details`` the whole outcome.
    """

    def decide(self, metric: Metric) -> ConstraintResult:
        """Fail when the test finds drift, saying why."""
        d = dict(metric.details or {})
        if not d.get("drift"):
            return self._result(
                ConstraintStatus.SUCCESS, metric=metric, value=metric.value, details=d
            )
        if d["p_value"] is None:
            why = f"statistic {d['statistic']:.4g} > {d['threshold']:g}"
        else:
            why = (
                f"statistic {d['statistic']:.4g}, p-value {d['p_value']:.3g} "
                f"< alpha {d['threshold']:g}"
            )
        return self._result(
            ConstraintStatus.FAILURE,
            f"{d['test']} finds drift of {metric.instance}: {why} "
            f"({d['n_reference']} reference values, {d['n_batch']} in the batch)",
            metric=metric,
            value=metric.value,
            details=d,
        )
