"""What a report shows, as plain values built from a command's results (no HTML here).

One :class:`Report` per run of ``validate``, ``validate-batch`` or ``suggest``:
per check its status and per constraint its outcome; per pattern constraint
its pattern, regex, segments (FPR_T, Cov_T), the non-conforming fraction of
training and of the batch, the drift test's p-value and alpha, and examples
of non-conforming values (Song & He, SIGMOD 2021, §2-4); per batch statistic
its history, forecast and interval (Redyuk et al. 2020). A pattern
constraint's row has room for the number of failed rows a run writes out
(``failed_rows``), shown when known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autovalidate._version import __version__
from autovalidate.checks.check import CheckLevel
from autovalidate.checks.constraints import (
    ConstraintResult,
    ConstraintStatus,
    PatternRuleConstraint,
)
from autovalidate.export.base import constraint_label, shorten
from autovalidate.metrics.base import plain
from autovalidate.pattern_constraint import PatternConstraint, Segment
from autovalidate.wording import counted

if TYPE_CHECKING:
    from autovalidate.checks.spec import ConstraintSuite
    from autovalidate.checks.verification import VerificationResult
    from autovalidate.monitor.batches import BatchValidationResult, StatisticDecision
    from autovalidate.repository.base import AnalysisResult
    from autovalidate.suggest.runner import ConstraintSuggestionResult

__all__ = [
    "CheckRow",
    "ConstraintRow",
    "PatternDetails",
    "Report",
    "StatisticRow",
    "SuggestionRow",
    "batch_report",
    "pattern_report",
    "suggestion_report",
    "validation_report",
    "validation_rows",
]

#: Characters of a constraint label in tables.
LABEL_WIDTH = 70


@dataclass(frozen=True)
class PatternDetails:
    """A pattern constraint and, after a validation, its outcome on the batch.

    Attributes
    ----------
    constraint
        The constraint (pattern, regex, segments, FPR, test, alpha, training counts).
    n_values, n_nonconforming
        Non-null values of the batch and those not matching (``None`` before a validation).
    p_value
        The drift test's p-value (``None`` for ``strict`` and before a validation).
    passed
        The test's decision (``None`` before a validation).
    examples
        Some non-conforming values of the batch.
    failed_rows
        Rows written out as failing this constraint, when a run writes them.
    """

    constraint: PatternConstraint
    n_values: int | None = None
    n_nonconforming: int | None = None
    p_value: float | None = None
    passed: bool | None = None
    examples: tuple[str, ...] = ()
    failed_rows: int | None = None

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The vertical cut's segments with FPR_T, Cov_T, their reading and format."""
        return self.constraint.segments

    @property
    def formats(self) -> int:
        """How many formats the pattern has (1, or the branches of a multi-format one)."""
        return len({s.branch for s in self.segments}) or 1

    @property
    def batch_fraction(self) -> float | None:
        """θ_C' of the batch in [0, 1] (``None`` before a validation)."""
        if self.n_values is None or self.n_nonconforming is None:
            return None
        return self.n_nonconforming / self.n_values if self.n_values else 0.0

    @classmethod
    def of(
        cls, constraint: PatternConstraint, outcome: Mapping[str, Any] | None = None
    ) -> PatternDetails:
        """The details of ``constraint``, with a validation row's fields when given."""
        if not outcome or "n_values" not in outcome:
            return cls(constraint)
        drift = outcome.get("drift") or {}
        return cls(
            constraint,
            n_values=int(outcome["n_values"]),
            n_nonconforming=int(outcome["n_nonconforming"]),
            p_value=drift.get("p_value"),
            passed=bool(outcome["passed"]),
            examples=tuple(str(e) for e in outcome.get("examples") or ()),
        )


@dataclass(frozen=True)
class ConstraintRow:
    """One constraint's outcome: ``status`` is ``passed``, ``failed`` or ``warning``."""

    check: str
    label: str
    status: str
    value: Any
    message: str
    pattern: PatternDetails | None = None


@dataclass(frozen=True)
class CheckRow:
    """One check: its level, status (``Success``, ``Warning``, ``Error``) and constraints."""

    description: str
    level: str
    status: str
    constraints: tuple[ConstraintRow, ...]


@dataclass(frozen=True)
class StatisticRow:
    """One batch statistic's decision, with its history as ``(date ms, value)`` points."""

    column: str
    name: str
    value: float | None
    expected: float | None
    lower: float | None
    upper: float | None
    history: tuple[tuple[int, float], ...]
    status: str
    detail: str | None


@dataclass(frozen=True)
class SuggestionRow:
    """A suggested constraint: its column, Python code, reason and any weakening."""

    column: str
    code: str
    reason: str
    adjustment: str | None = None


@dataclass(frozen=True)
class Report:
    """Everything one report page shows.

    Attributes
    ----------
    command
        ``validate``, ``validate-batch`` or ``suggest``.
    subject
        The file the command read.
    status
        ``passed``, ``failed``, ``warning``, ``accepted``, ``rejected`` or ``suggested``.
    summary
        One line for people.
    created
        When the report was made (UTC, ISO 8601).
    checks, statistics, suggestions, patterns
        The sections; empty ones are not shown.
    """

    command: str
    subject: str
    status: str
    summary: str
    created: str = field(
        default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds")
    )
    checks: tuple[CheckRow, ...] = ()
    statistics: tuple[StatisticRow, ...] = ()
    suggestions: tuple[SuggestionRow, ...] = ()
    patterns: tuple[PatternDetails, ...] = ()
    version: str = __version__


# -- validate -------------------------------------------------------------------------------


def validation_rows(
    suite: ConstraintSuite | None, result: VerificationResult
) -> list[dict[str, Any]]:
    """One JSON-ready row per constraint of a suite run (``validate --json``'s ``results``).

    ``value`` is what the constraint was decided on and ``metric`` says what
    that is: the Deequ metric's name (``Completeness``, ``Compliance``: the
    fraction of rows that meet it; ``Size``: rows; ...), or
    :data:`NONCONFORMING` for a pattern constraint, whose value is the fraction
    of non-null values that do *not* match. Pattern constraints also give their
    validation result's fields, with the
    non-conforming examples the run fetched (:meth:`ConstraintSuite.run`).
    ``suite`` is ``None`` for checks built in Python: a constraint's label is
    then its name.
    """
    rows = []
    for i, check_result in enumerate(result.check_results):
        outcomes = check_result.constraint_results
        labels = (
            [shorten(str(o.constraint), LABEL_WIDTH) for o in outcomes]
            if suite is None
            else [constraint_label(c, LABEL_WIDTH) for c in suite.checks[i].constraints]
        )
        for label, outcome in zip(labels, outcomes, strict=True):
            row: dict[str, Any] = {
                "check": check_result.check.description,
                "check_level": check_result.check.level.value,
                "constraint": str(outcome.constraint),
                "label": label,
                "constraint_status": outcome.status.value,
                "constraint_message": outcome.message or "",
                "passed": outcome.status is ConstraintStatus.SUCCESS,
                "metric": metric_name(outcome),
                "value": plain(outcome.value),
            }
            if isinstance(outcome.constraint, PatternRuleConstraint):
                row.update(_pattern_fields(outcome))
            elif outcome.details is not None:
                row["details"] = dict(outcome.details)
            rows.append(row)
    return rows


#: What a pattern constraint's ``value`` is, in ``validate``'s rows.
NONCONFORMING = "non-conforming"


def metric_name(outcome: ConstraintResult) -> str | None:
    """What ``outcome.value`` measures: the metric's name, or :data:`NONCONFORMING` (patterns)."""
    if isinstance(outcome.constraint, PatternRuleConstraint):
        return NONCONFORMING
    return None if outcome.metric is None else outcome.metric.name


def _pattern_fields(outcome: ConstraintResult) -> dict[str, Any]:
    """The pattern validation result (with non-conforming examples where the run fetched them)."""
    fields = dict(outcome.details or {})
    if outcome.status is ConstraintStatus.FAILURE and outcome.details is not None:
        fields["message"] = outcome.message
    return fields


def validation_report(
    suite: ConstraintSuite,
    result: VerificationResult,
    rows: Sequence[Mapping[str, Any]],
    file: Path,
) -> Report:
    """The report of ``validate``: checks, constraints, and the pattern constraints' details."""
    checks = []
    patterns = []
    remaining = iter(rows)
    for spec, check_result in zip(suite.checks, result.check_results, strict=True):
        constraint_rows = []
        for constraint in spec.constraints:
            row = next(remaining)
            details = None
            if isinstance(constraint, PatternConstraint):
                details = PatternDetails.of(constraint, row)
                patterns.append(details)
            if row["passed"]:
                status = "passed"
            else:
                status = "failed" if spec.level is CheckLevel.ERROR else "warning"
            constraint_rows.append(
                ConstraintRow(
                    spec.description,
                    str(row["label"]),
                    status,
                    row["value"],
                    str(row["constraint_message"]),
                    details,
                )
            )
        checks.append(
            CheckRow(
                spec.description,
                spec.level.value,
                check_result.status.value,
                tuple(constraint_rows),
            )
        )
    failed = sum(1 for c in checks for r in c.constraints if r.status == "failed")
    warned = sum(1 for c in checks for r in c.constraints if r.status == "warning")
    total = sum(len(c.constraints) for c in checks)
    status = "failed" if failed else ("warning" if warned else "passed")
    summary = (
        f"{counted(total, 'constraint')} in {counted(len(checks), 'check')}: "
        f"{total - failed - warned} passed, {failed} failed, {counted(warned, 'warning')}"
    )
    return Report(
        "validate", str(file), status, summary, checks=tuple(checks), patterns=tuple(patterns)
    )


# -- validate-batch -------------------------------------------------------------------------


def _series(
    decision: StatisticDecision, history: Sequence[AnalysisResult]
) -> tuple[tuple[Any, float], ...]:
    points = [(r.result_key.dataset_date, r.value(decision.analyzer)) for r in history]
    return tuple(sorted((d, float(v)) for d, v in points if isinstance(v, (int, float))))


def batch_report(
    file: Path, result: BatchValidationResult, history: Sequence[AnalysisResult]
) -> Report:
    """The report of ``validate-batch``: each statistic with its history and forecast interval.

    Parameters
    ----------
    file
        The batch.
    result
        The decision (:func:`autovalidate.monitor.batches.validate_batch`).
    history
        The dataset's earlier results the decision used (the metrics repository's).
    """
    rows = tuple(
        StatisticRow(
            s.column,
            s.name,
            s.value,
            s.expected,
            s.lower,
            s.upper,
            _series(s, history),
            s.status,
            s.detail,
        )
        for s in result.statistics
    )
    reasons = result.reasons()
    summary = (
        f"{'accepted' if result.accepted else 'rejected'} against {result.history_results} "
        f"earlier batches of {result.dataset!r}" + (f"; {reasons}" if reasons else "")
    )
    return Report(
        "validate-batch",
        str(file),
        "accepted" if result.accepted else "rejected",
        summary,
        statistics=rows,
    )


# -- suggest --------------------------------------------------------------------------------


def suggestion_report(file: Path, result: ConstraintSuggestionResult) -> Report:
    """The report of ``suggest`` for a whole table: suggestions and their pattern constraints."""
    suggestions = tuple(
        SuggestionRow(s.column, s.code, f"{s.description} ({s.current_value})", s.adjustment)
        for s in (*result.suggestions, *result.dropped)
    )
    patterns = tuple(
        PatternDetails.of(s.constraint)
        for s in result.suggestions
        if isinstance(s.constraint, PatternConstraint)
    )
    summary = (
        f"{counted(len(result.suggestions), 'suggestion')} for "
        f"{counted(len(result.column_profiles.profiles), 'column')} from "
        f"{counted(result.num_records, 'row')}; {len(result.dropped)} dropped"
    )
    return Report(
        "suggest", str(file), "suggested", summary, suggestions=suggestions, patterns=patterns
    )


def pattern_report(
    file: Path,
    column: str,
    constraint: PatternConstraint | None,
    n_values: int,
    why: Sequence[str] = (),
) -> Report:
    """The report of ``suggest --column``: the inferred pattern constraint, or why there is none.

    ``why``: without a constraint, the reason and what the diagnosis found, one
    finding each (:attr:`~autovalidate.pattern_inference.PatternSuggestion.diagnosis`).
    """
    if constraint is None:
        return Report(
            "suggest",
            str(file),
            "no constraint",
            f"{column!r} ({n_values:,} values): " + "; ".join(why or ["no constraint"]),
        )
    return Report(
        "suggest",
        str(file),
        "suggested",
        f"{column!r} ({n_values:,} values): {constraint.pattern}",
        patterns=(PatternDetails.of(constraint),),
    )
