"""Constraint suggestion rules: one function per rule, from a column profile to a suggestion.

Each rule looks at one :class:`~autovalidate.profiles.ColumnProfile`
(and the number of records) and returns a :class:`ConstraintSuggestion`, or
``None`` where it does not apply. The rules, thresholds and bounds are Deequ's
(``suggestions/rules/*.scala``; Schelter et al., PVLDB 2018, §3.3), except
where a docstring says otherwise; the Auto-Validate pattern rule (Song & He,
SIGMOD 2021) is added for string columns: with the configured pattern index, or
else the default one packaged with autovalidate.

Every suggestion carries its reason (the rule and the profile value it rests
on), the constraint as data (a :class:`~autovalidate.checks.spec.ConstraintSpec` or a
:class:`~autovalidate.pattern_constraint.PatternConstraint`, JSON via ``to_dict``) and
ready-to-use Python code for a fluent :class:`~autovalidate.checks.Check`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, Any

from autovalidate.checks.check import ConstrainableDataType
from autovalidate.checks.spec import Assertion, ConstraintSpec
from autovalidate.errors import ParameterError
from autovalidate.metrics import DataTypeInstance, DistributionValue
from autovalidate.metrics.base import ColumnKind
from autovalidate.metrics.frequencies import NULL_VALUE
from autovalidate.pattern_constraint import PatternConstraint
from autovalidate.profiles import ColumnProfile

if TYPE_CHECKING:
    from autovalidate.index.reader import PatternIndex

__all__ = [
    "DEFAULT_RULES",
    "PATTERN_RULE",
    "ConstraintSuggestion",
    "RuleContext",
    "SuggestionRule",
    "bernoulli_lower_bound",
    "categorical_range",
    "complete_if_complete",
    "fractional_categorical_range",
    "fresh_if_recent",
    "has_max_length",
    "has_min_length",
    "non_negative_numbers",
    "pattern_rule",
    "retain_completeness",
    "retain_type",
    "unique_if_approximately_unique",
    "weakened",
]


@dataclass(frozen=True)
class ConstraintSuggestion:
    """A suggested constraint for one column (Deequ's ``ConstraintSuggestion``).

    Attributes
    ----------
    column
        The column.
    rule
        Name of the rule that suggested it, e.g. ``"CompleteIfCompleteRule"``.
    description
        What the constraint states, e.g. ``"'id' is not null"``.
    current_value
        The profile value it rests on, e.g. ``"Completeness: 1.0"``.
    rule_description
        Why the rule suggests it.
    constraint
        The constraint as data.
    adjustment
        How the rule's constraint was changed because it failed on the data it
        was suggested from (``None`` when it held as the rule made it); see
        :func:`weakened`.
    """

    column: str
    rule: str
    description: str
    current_value: str
    rule_description: str
    constraint: ConstraintSpec | PatternConstraint
    adjustment: str | None = None

    @property
    def reason(self) -> str:
        """The rule's reasoning and the value it saw, in one line (and any adjustment)."""
        text = f"{self.rule_description} ({self.current_value})"
        return text if self.adjustment is None else f"{text}; {self.adjustment}"

    @property
    def code(self) -> str:
        """Python source adding the constraint to a :class:`~autovalidate.checks.Check`."""
        if isinstance(self.constraint, PatternConstraint):
            doc = json.dumps(self.constraint.to_dict(), ensure_ascii=False)
            return (
                f".satisfies_pattern_constraint({self.column!r}, "
                f"PatternConstraint.from_dict(json.loads({doc!r})))"
            )
        return self.constraint.code()

    def to_dict(self) -> dict[str, Any]:
        """The suggestion as plain data, with the constraint's JSON."""
        return {
            "column": self.column,
            "rule": self.rule,
            "description": self.description,
            "current_value": self.current_value,
            "reason": self.reason,
            "code": self.code,
            "constraint": self.constraint.to_dict(),
            "adjustment": self.adjustment,
        }


@dataclass(frozen=True)
class RuleContext:
    """What rules may use besides the column profile.

    Attributes
    ----------
    num_records
        Rows of the data the profiles describe.
    index
        Pattern index for the Auto-Validate rule, ``None`` to skip it.
    data
        The data the profiles describe, for the pattern rule: anything
        :func:`autovalidate.suggest_pattern` reads a ``column`` of (an
        :class:`~autovalidate.engines.Engine`, a path, a DataFrame); it
        streams the column and keeps a bounded sample.
    pattern_options
        Keyword arguments for :func:`autovalidate.suggest_pattern`.
    now
        The time suggestions are made at, seconds since the Unix epoch; ``None``
        for the clock's (the freshness rule measures ages from it).
    """

    num_records: int
    index: PatternIndex | None = None
    data: Any = None
    pattern_options: dict[str, Any] = field(default_factory=dict)
    now: float | None = None


RuleFunction = Callable[[ColumnProfile, RuleContext], "ConstraintSuggestion | None"]


@dataclass(frozen=True)
class SuggestionRule:
    """A named suggestion rule (Deequ's ``ConstraintRule``).

    Attributes
    ----------
    name
        Deequ's class name, e.g. ``"RetainCompletenessRule"``.
    description
        What the rule does (Deequ's ``ruleDescription``).
    apply
        The rule: a suggestion, or ``None`` where the rule does not apply.
    """

    name: str
    description: str
    apply: RuleFunction


def _truncate(x: float) -> float:
    """Deequ's ``BigDecimal(x).setScale(2, RoundingMode.DOWN)``: two decimals, toward zero."""
    return float(Decimal(repr(x)).quantize(Decimal("0.01"), rounding=ROUND_DOWN))


def bernoulli_lower_bound(p: float, n: int, *, z: float = 1.96, interval: str = "wald") -> float:
    """Lower end of a confidence interval for a Bernoulli probability, truncated to two decimals.

    Parameters
    ----------
    p
        Observed fraction of successes, in [0, 1].
    n
        Number of trials (records).
    z
        Normal quantile: 1.96 for a 95 % interval, as Deequ.
    interval
        ``"wald"`` (normal approximation ``p - z sqrt(p (1 - p) / n)``, Deequ's
        ``RetainCompletenessRule`` and ``FractionalCategoricalRangeRule``) or
        ``"wilson"`` (Wilson score interval, Deequ's ``WilsonScoreIntervalStrategy``).

    Returns
    -------
    float
        The bound, truncated toward zero to two decimals as Deequ does.

    Raises
    ------
    ParameterError
        If ``p`` is outside [0, 1], ``n`` < 1 or the interval is unknown.

    Examples
    --------
    >>> bernoulli_lower_bound(0.28076, 2000)
    0.26
    """
    if not 0.0 <= p <= 1.0 or n < 1:
        raise ParameterError(f"need 0 <= p <= 1 and n >= 1, got p={p}, n={n}")
    if interval == "wald":
        return _truncate(p - z * math.sqrt(p * (1 - p) / n))
    if interval == "wilson":
        z2n = z * z / n
        centre = p + z2n / 2
        margin = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n))
        return _truncate((centre - margin) / (1 + z2n))
    raise ParameterError(f"interval must be 'wald' or 'wilson', got {interval!r}")


def _suggestion(
    rule: str,
    profile: ColumnProfile,
    description: str,
    current_value: str,
    spec: ConstraintSpec | PatternConstraint,
) -> ConstraintSuggestion:
    return ConstraintSuggestion(
        profile.column, rule, description, current_value, _DESCRIPTIONS[rule], spec
    )


#: Constraints on a fraction in [0, 1] that default to "== 1", and the method that
#: takes an explicit bound on the same metric (``is_unique`` -> ``has_uniqueness``).
_BOUNDED_FORM = {
    "is_complete": "has_completeness",
    "has_completeness": "has_completeness",
    "is_unique": "has_uniqueness",
    "has_uniqueness": "has_uniqueness",
    "is_contained_in": "is_contained_in",
    "is_non_negative": "is_non_negative",
    "has_data_type": "has_data_type",
}


def _two_decimals(x: float, rounding: str) -> float:
    return float(Decimal(repr(float(x))).quantize(Decimal("0.01"), rounding=rounding))


def weakened(suggestion: ConstraintSuggestion, observed: Any) -> ConstraintSuggestion | None:
    """The suggestion with a bound that the value observed on its own data meets.

    A suggestion whose constraint failed on the very data it was suggested from
    (Deequ's ``UniqueIfApproximatelyUniqueRule`` does: the HyperLogLog estimate
    of 1.0 can hide a uniqueness of 0.9) is turned into a bound the data meets:
    a lower bound ``>= observed`` rounded down to two decimals (``is_unique``
    with uniqueness 0.905 becomes ``has_uniqueness >= 0.9``), an upper bound
    ``<= observed`` rounded up. The new suggestion's ``adjustment`` says what
    changed and why.

    Parameters
    ----------
    suggestion
        The suggestion whose constraint failed.
    observed
        The value the failed constraint's assertion saw on that data.

    Returns
    -------
    ConstraintSuggestion or None
        ``None`` where no bound can be derived: a pattern constraint, a value
        that is not a number, a constraint with neither a fraction metric nor a
        one-sided assertion, or a lower bound that would round down to 0.
    """
    spec = suggestion.constraint
    if (
        not isinstance(spec, ConstraintSpec)
        or isinstance(observed, bool)
        or not isinstance(observed, (int, float))
        or not math.isfinite(observed)
    ):
        return None
    op = None if spec.assertion is None else spec.assertion.op
    method = spec.constraint
    if op in (None, "==") and method in _BOUNDED_FORM:
        method, op = _BOUNDED_FORM[method], ">="
    if op in (">=", ">"):
        op, bound = ">=", _two_decimals(observed, ROUND_FLOOR)
        if bound <= 0.0:
            return None
    elif op in ("<=", "<"):
        op, bound = "<=", _two_decimals(observed, ROUND_CEILING)
    else:
        return None
    args = dict(spec.args)
    if method == "has_uniqueness" and "column" in args:
        args["columns"] = args.pop("column")
    new = ConstraintSpec(method, args, Assertion(op, bound), spec.where, spec.hint)
    return replace(
        suggestion,
        description=f"'{suggestion.column}': {method} {op} {_num(bound)}",
        constraint=new,
        adjustment=f"{spec.code()} failed on the data it was suggested from (value "
        f"{observed:.6g}), weakened to {new.code()}",
    )


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


# -- completeness ------------------------------------------------------------------


def complete_if_complete(
    profile: ColumnProfile, context: RuleContext
) -> ConstraintSuggestion | None:
    """``is_complete`` when the column has no null (Deequ ``CompleteIfCompleteRule``)."""
    if profile.completeness != 1.0:
        return None
    return _suggestion(
        "CompleteIfCompleteRule",
        profile,
        f"'{profile.column}' is not null",
        f"Completeness: {profile.completeness}",
        ConstraintSpec("is_complete", {"column": profile.column}),
    )


def retain_completeness(
    profile: ColumnProfile, context: RuleContext
) -> ConstraintSuggestion | None:
    """``has_completeness >= bound`` for a column complete in more than 20 % of rows, not all.

    The bound is the lower end of the 95 % Wald interval of the completeness
    seen as a Bernoulli probability over the records, truncated to two decimals
    (Deequ ``RetainCompletenessRule``).
    """
    p = profile.completeness
    if not 0.2 < p < 1.0 or context.num_records < 1:
        return None
    bound = bernoulli_lower_bound(p, context.num_records)
    missing = int((1.0 - bound) * 100)
    return _suggestion(
        "RetainCompletenessRule",
        profile,
        f"'{profile.column}' has less than {missing}% missing values",
        f"Completeness: {p}",
        ConstraintSpec(
            "has_completeness",
            {"column": profile.column},
            Assertion(">=", bound),
            hint=f"It should be above {bound}!",
        ),
    )


# -- types and numbers -----------------------------------------------------------------


def retain_type(profile: ColumnProfile, context: RuleContext) -> ConstraintSuggestion | None:
    """``has_data_type`` for a string column whose text is all Integral, Fractional or Boolean.

    Deequ ``RetainTypeRule``; only for inferred types (string columns). One
    deviation: when Integral and Fractional values mix (inferred Fractional),
    the constraint asks for Numeric, because Deequ's Fractional ratio counts
    only the fractional values and would fail on the data it was suggested from.
    """
    if not profile.is_data_type_inferred or profile.data_type not in (
        DataTypeInstance.INTEGRAL,
        DataTypeInstance.FRACTIONAL,
        DataTypeInstance.BOOLEAN,
    ):
        return None
    target = ConstrainableDataType(profile.data_type.value)
    if (
        profile.data_type is DataTypeInstance.FRACTIONAL
        and profile.type_counts.get(DataTypeInstance.INTEGRAL.value, 0) > 0
    ):
        target = ConstrainableDataType.NUMERIC
    return _suggestion(
        "RetainTypeRule",
        profile,
        f"'{profile.column}' has type {target.value}",
        f"DataType: {profile.data_type.value}",
        ConstraintSpec("has_data_type", {"column": profile.column, "data_type": target.value}),
    )


def non_negative_numbers(
    profile: ColumnProfile, context: RuleContext
) -> ConstraintSuggestion | None:
    """``is_non_negative`` for a numeric column with minimum >= 0 (``NonNegativeNumbersRule``)."""
    if not profile.is_numeric or profile.minimum is None or profile.minimum < 0.0:
        return None
    return _suggestion(
        "NonNegativeNumbersRule",
        profile,
        f"'{profile.column}' has no negative values",
        f"Minimum: {profile.minimum}",
        ConstraintSpec("is_non_negative", {"column": profile.column}),
    )


#: Deequ's bound on ``|1 - approx. distinct / records|`` for a unique column.
APPROXIMATE_UNIQUENESS_TOLERANCE = 0.08


def unique_if_approximately_unique(
    profile: ColumnProfile, context: RuleContext
) -> ConstraintSuggestion | None:
    """``is_unique`` for a complete column whose approximate distinct count is near the rows.

    Applies when ``|1 - approx_distinct / num_records| <= 0.08`` (Deequ
    ``UniqueIfApproximatelyUniqueRule``; the tolerance covers the HyperLogLog
    error). It can be wrong (Schelter et al., PVLDB 2018, §5.3): the sample is only
    approximately unique;
    the runner verifies it exactly and weakens it to ``has_uniqueness >= observed``
    where it fails (:func:`weakened`).
    """
    n = context.num_records
    if profile.completeness != 1.0 or n < 1:
        return None
    ratio = profile.approx_distinct / n
    if abs(1.0 - ratio) > APPROXIMATE_UNIQUENESS_TOLERANCE:
        return None
    return _suggestion(
        "UniqueIfApproximatelyUniqueRule",
        profile,
        f"'{profile.column}' is unique",
        f"ApproxDistinctness: {ratio}",
        ConstraintSpec("is_unique", {"column": profile.column}),
    )


# -- categories ---------------------------------------------------------------------------

#: ``FractionalCategoricalRangeRule.targetDataCoverageFraction``.
TARGET_DATA_COVERAGE = 0.9


def _categorical_bins(profile: ColumnProfile) -> list[tuple[str, DistributionValue]] | None:
    """Histogram bins of a String or Integral column, or ``None`` where the rules do not apply."""
    if profile.histogram is None or profile.data_type not in (
        DataTypeInstance.STRING,
        DataTypeInstance.INTEGRAL,
    ):
        return None
    return list(profile.histogram.values.items())


def _unique_value_ratio(bins: list[tuple[str, DistributionValue]]) -> float:
    """Bins seen exactly once / bins (the null bin included, as Deequ)."""
    return sum(1 for _, v in bins if v.absolute == 1) / len(bins)


def _by_popularity(
    bins: list[tuple[str, DistributionValue]],
) -> list[tuple[str, DistributionValue]]:
    """Most frequent first; ties by value (Deequ's order among ties is its hash map's)."""
    return sorted(bins, key=lambda kv: (-kv[1].absolute, kv[0]))


def _category_values(profile: ColumnProfile, keys: list[str]) -> list[Any]:
    """Categories as the column holds them: numbers for a typed numeric column, else text."""
    if profile.kind is not ColumnKind.NUMERIC:
        return keys
    values: list[Any] = []
    for key in keys:
        number = float(key)
        values.append(int(number) if number.is_integer() else number)
    return values


def _quoted(values: list[Any]) -> str:
    return ", ".join("'" + str(v).replace("'", "''") + "'" for v in values)


def categorical_range(profile: ColumnProfile, context: RuleContext) -> ConstraintSuggestion | None:
    """``is_contained_in`` all seen categories, when at most 10 % of the bins occur once.

    Deequ ``CategoricalRangeRule``: needs the histogram of a String or Integral
    column; the null bin counts for the ratio but is not a category; categories
    are listed by descending count.
    """
    bins = _categorical_bins(profile)
    if not bins or _unique_value_ratio(bins) > 0.1:
        return None
    keys = [k for k, _ in _by_popularity(bins) if k != NULL_VALUE]
    if not keys:
        return None
    values = _category_values(profile, keys)
    return _suggestion(
        "CategoricalRangeRule",
        profile,
        f"'{profile.column}' has value range {_quoted(values)}",
        "Compliance: 1",
        ConstraintSpec("is_contained_in", {"column": profile.column, "allowed_values": values}),
    )


def fractional_categorical_range(
    profile: ColumnProfile, context: RuleContext
) -> ConstraintSuggestion | None:
    """``is_contained_in`` the top categories for at least a bound of the rows.

    Deequ ``FractionalCategoricalRangeRule``: the most frequent bins are taken
    while their ratios sum to less than 0.9; the rule applies when at most 40 %
    of the bins occur once and those bins cover less than all rows. The
    compliance bound is the lower end of the 95 % Wald interval of the covered
    fraction over the records, truncated to two decimals.
    """
    bins = _categorical_bins(profile)
    if not bins or context.num_records < 1:
        return None
    top: list[tuple[str, DistributionValue]] = []
    covered = 0.0
    for key, value in sorted(bins, key=lambda kv: (-kv[1].ratio, kv[0])):
        if covered < TARGET_DATA_COVERAGE:
            covered += value.ratio
            top.append((key, value))
    if not (_unique_value_ratio(bins) <= 0.4 and covered < 1.0):
        return None
    keys = [k for k, _ in _by_popularity(top) if k != NULL_VALUE]
    if not keys:
        return None
    values = _category_values(profile, keys)
    bound = bernoulli_lower_bound(covered, context.num_records)
    hint = f"It should be above {bound}!"
    return _suggestion(
        "FractionalCategoricalRangeRule",
        profile,
        f"'{profile.column}' has value range {_quoted(values)} for at least "
        f"{bound * 100}% of values",
        f"Compliance: {covered}",
        ConstraintSpec(
            "is_contained_in",
            {"column": profile.column, "allowed_values": values},
            Assertion(">=", bound),
            hint=hint,
        ),
    )


# -- text ---------------------------------------------------------------------------------


def _length_suggestion(
    rule: str, profile: ColumnProfile, metric: str, op: str, bound: int | None
) -> ConstraintSuggestion | None:
    if bound is None:
        return None
    return _suggestion(
        rule,
        profile,
        f"The length of '{profile.column}' {op} {bound}",
        f"{metric}: {bound}",
        ConstraintSpec(
            f"has_{metric[:3].lower()}_length", {"column": profile.column}, Assertion(op, bound)
        ),
    )


def has_min_length(profile: ColumnProfile, context: RuleContext) -> ConstraintSuggestion | None:
    """``has_min_length >= shortest`` for a String column (Deequ ``HasMinLength``)."""
    return _length_suggestion("HasMinLength", profile, "MinLength", ">=", profile.min_length)


def has_max_length(profile: ColumnProfile, context: RuleContext) -> ConstraintSuggestion | None:
    """``has_max_length <= longest`` for a String column (Deequ ``HasMaxLength``)."""
    return _length_suggestion("HasMaxLength", profile, "MaxLength", "<=", profile.max_length)


#: Freshness is suggested for a column whose newest value is at most this old (a week).
RECENT_HOURS = 7 * 24


def fresh_if_recent(profile: ColumnProfile, context: RuleContext) -> ConstraintSuggestion | None:
    """``is_fresh`` for a date or timestamp column whose newest value is recent.

    Applies to a temporal column whose newest value (``profile.newest``) is at
    most :data:`RECENT_HOURS` (a week) before ``context.now`` and not after it:
    data that is loaded regularly. Suggests a maximum age of twice the
    current age in whole days, at least one day (24, 48, ... hours), so the
    next load may come as late again. Older data (an archive) gets none. Not
    a Deequ rule: DQDL ``DataFreshness``, Soda ``freshness``.
    """
    if profile.kind is not ColumnKind.TEMPORAL or profile.newest is None:
        return None
    now = time.time() if context.now is None else context.now
    age_hours = (now - profile.newest) / 3600.0
    if not 0.0 <= age_hours <= RECENT_HOURS:
        return None
    max_age = 24 * max(1, math.ceil(2 * age_hours / 24))
    return _suggestion(
        "FreshIfRecentRule",
        profile,
        f"'{profile.column}' has a value of the last {max_age} hours",
        f"Newest: {age_hours:.1f} hours old",
        ConstraintSpec("is_fresh", {"column": profile.column, "max_age_hours": max_age}),
    )


def pattern_rule(profile: ColumnProfile, context: RuleContext) -> ConstraintSuggestion | None:
    """An Auto-Validate pattern constraint for a String column, from an index's corpus evidence.

    Applies to String columns with a non-null value when ``context.index`` is
    set; the column of ``context.data`` is given to
    :func:`autovalidate.suggest_pattern` with ``context.pattern_options``. No
    suggestion where no hypothesis pattern is feasible (natural language, for
    example): the rule abstains rather than suggest a match-anything pattern.

    References
    ----------
    Song & He, SIGMOD 2021, §2-4.
    """
    if (
        context.index is None
        or context.data is None
        or profile.data_type is not DataTypeInstance.STRING
        or profile.completeness == 0.0
    ):
        return None
    from autovalidate.pattern_inference import suggest_pattern

    constraint = suggest_pattern(
        context.data, context.index, column=profile.column, **context.pattern_options
    )
    if constraint is None:
        return None
    share = 1.0 - constraint.theta_train
    return _suggestion(
        "AutoValidatePatternRule",
        profile,
        f"'{profile.column}' matches {constraint.pattern}",
        f"Pattern: {constraint.pattern}, estimated FPR {constraint.fpr:.4f}, "
        f"{share:.2%} of values conform",
        constraint,
    )


_DESCRIPTIONS = {
    "FreshIfRecentRule": "If the newest value of a date or timestamp column is at most a week "
    "old, we suggest that new data keeps arriving at least half as often",
    "CompleteIfCompleteRule": "If a column is complete in the sample, we suggest a NOT NULL "
    "constraint",
    "RetainCompletenessRule": "If a column is incomplete in the sample, we model its "
    "completeness as a binomial variable, estimate a confidence interval and use this to "
    "define a lower bound for the completeness",
    "RetainTypeRule": "If we detect a non-string type, we suggest a type constraint",
    "NonNegativeNumbersRule": "If we see only non-negative numbers in a column, we suggest a "
    "corresponding constraint",
    "UniqueIfApproximatelyUniqueRule": "If the ratio of approximate num distinct values in a "
    "column is close to the number of records (within the error of the HLL sketch), we "
    "suggest a UNIQUE constraint",
    "CategoricalRangeRule": "If we see a categorical range for a column, we suggest an IS IN "
    "(...) constraint",
    "FractionalCategoricalRangeRule": "If we see a categorical range for most values in a "
    "column, we suggest an IS IN (...) constraint that should hold for most values",
    "HasMinLength": "If we see a string column, we suggest a corresponding Minimum length "
    "constraint",
    "HasMaxLength": "If we see a string column, we suggest a corresponding Maximum length "
    "constraint",
    "AutoValidatePatternRule": "If the corpus evidence of the pattern index admits a pattern "
    "with a low estimated false-positive rate for a string column, we suggest it "
    "(Auto-Validate)",
}


def _rule(name: str, apply: RuleFunction) -> SuggestionRule:
    return SuggestionRule(name, _DESCRIPTIONS[name], apply)


#: Deequ's default rules, with UniqueIfApproximatelyUnique, the length rules and FreshIfRecent.
DEFAULT_RULES: tuple[SuggestionRule, ...] = (
    _rule("CompleteIfCompleteRule", complete_if_complete),
    _rule("RetainCompletenessRule", retain_completeness),
    _rule("RetainTypeRule", retain_type),
    _rule("CategoricalRangeRule", categorical_range),
    _rule("FractionalCategoricalRangeRule", fractional_categorical_range),
    _rule("NonNegativeNumbersRule", non_negative_numbers),
    _rule("UniqueIfApproximatelyUniqueRule", unique_if_approximately_unique),
    _rule("HasMinLength", has_min_length),
    _rule("HasMaxLength", has_max_length),
    _rule("FreshIfRecentRule", fresh_if_recent),
)

#: The Auto-Validate pattern rule; the runner adds it with the configured or the default index.
PATTERN_RULE = _rule("AutoValidatePatternRule", pattern_rule)
