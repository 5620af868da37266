"""Constraint suggestion for whole tables (Deequ's ``ConstraintSuggestionRunner``).

The runner asks the engine to read the columns once
(:meth:`~autovalidate.engines.Engine.hold`: DuckDB keeps them in memory when
they fit, so a query of one column costs the same in a table of 5,000), profiles
them (:func:`~autovalidate.profiles.profile_columns`: three passes with shared
scans), applies every rule to every column profile,
verifies every suggested constraint exactly on the data it came from (a
failing one is weakened to a bound that data meets, or dropped:
:func:`holding_suggestions`), and, when asked, evaluates the suggestions on a
held-out test set: the data are split at random into a training set, from
which the constraints are suggested, and a test set, on which they are
verified as one Warning-level check (PVLDB 2018, §5.3: suggest on a 10 %
sample, measure on the other 90 %).

Examples
--------
>>> import pandas as pd
>>> from autovalidate.suggest import ConstraintSuggestionRunner
>>> data = pd.DataFrame({"id": [1, 2, 3, 4], "status": ["a", "b", "a", "a"]})
>>> result = ConstraintSuggestionRunner.on_data(data).run()
>>> [s.rule for s in result.suggestions_for("id")]
['CompleteIfCompleteRule', 'NonNegativeNumbersRule', 'UniqueIfApproximatelyUniqueRule']
>>> result.suggestions_for("id")[0].code
".is_complete('id')"
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from autovalidate.checks.check import CheckLevel
from autovalidate.checks.constraints import ConstraintStatus
from autovalidate.checks.spec import CheckSpec, ConstraintSuite
from autovalidate.checks.verification import VerificationResult, VerificationSuite
from autovalidate.engines import ExecutionStats, open_engine
from autovalidate.errors import DefaultIndexError, ParameterError
from autovalidate.index.default import describe_index, shared_default_index
from autovalidate.metrics import Size
from autovalidate.pattern_constraint import PatternConstraint
from autovalidate.profiles import (
    DEFAULT_CARDINALITY_THRESHOLD,
    ColumnProfiles,
    profile_columns,
)
from autovalidate.suggest.rules import (
    DEFAULT_RULES,
    PATTERN_RULE,
    ConstraintSuggestion,
    RuleContext,
    SuggestionRule,
    weakened,
)

if TYPE_CHECKING:
    from autovalidate.index.reader import PatternIndex

__all__ = [
    "ConstraintSuggestionResult",
    "ConstraintSuggestionRunBuilder",
    "ConstraintSuggestionRunner",
    "holding_suggestions",
]

#: ``progress(description, completed, total)``; ``total`` is ``None`` when unknown.
Progress = Callable[[str, int, "int | None"], None]


@dataclass(frozen=True)
class ConstraintSuggestionResult:
    """What a suggestion run found (Deequ's ``ConstraintSuggestionResult``).

    Attributes
    ----------
    column_profiles
        The profiles of the (training) data.
    suggestions
        Every suggestion, grouped by column in column order, rules in order.
    pattern_rule
        ``"applied"`` or why the Auto-Validate pattern rule was skipped.
    evaluation
        The suggestions verified on the test set (one Warning-level check,
        constraints in the order of ``suggestions``), ``None`` without a split.
    dropped
        Suggestions whose constraint failed on the (training) data it was
        suggested from and could not be weakened (see :func:`holding_suggestions`);
        each one's ``adjustment`` says why.
    pattern_index
        The index the pattern rule used, in one line (``"default index: public
        corpus, 72,613 patterns"``); ``None`` when the rule was skipped.
    stats
        The queries of the whole run on the (training) data, ``stats.scans``
        those reading it: the read that holds the columns, then the profile's
        passes, the pattern rule and the verification of the suggestions,
        which read the held columns (no scan) where they fit in memory (on
        Spark, the pattern rule reads the columns' text, collected in one
        read, and the rest runs on Spark: :meth:`SparkEngine.hold
        <autovalidate.engines.spark.SparkEngine.hold>`).
        ``column_profiles.stats`` has the profile's alone.
    """

    column_profiles: ColumnProfiles
    suggestions: tuple[ConstraintSuggestion, ...]
    pattern_rule: str
    evaluation: VerificationResult | None = None
    dropped: tuple[ConstraintSuggestion, ...] = ()
    pattern_index: str | None = None
    stats: ExecutionStats = field(default_factory=ExecutionStats)

    @property
    def num_records(self) -> int:
        """Rows the suggestions were made from."""
        return self.column_profiles.num_records

    @property
    def test_records(self) -> int | None:
        """Rows of the test set, ``None`` without a split."""
        if self.evaluation is None:
            return None
        return int(self.evaluation.metrics.metric(Size()).value or 0)  # type: ignore[arg-type]

    def suggestions_for(self, column: str) -> list[ConstraintSuggestion]:
        """The suggestions for one column."""
        return [s for s in self.suggestions if s.column == column]

    def to_suite(
        self, *, level: CheckLevel = CheckLevel.ERROR, columns: Iterable[str] | None = None
    ) -> ConstraintSuite:
        """A constraint suite of the suggestions: one check per column, at ``level``."""
        wanted = None if columns is None else set(columns)
        checks = []
        for column in self.column_profiles.profiles:
            found = self.suggestions_for(column)
            if found and (wanted is None or column in wanted):
                checks.append(
                    CheckSpec(f"column {column!r}", level, tuple(s.constraint for s in found))
                )
        return ConstraintSuite(tuple(checks))

    def evaluation_rows(self) -> list[dict[str, Any]]:
        """Per suggestion: its status and its metric on the test set (PVLDB 2018, Table 3).

        ``metric`` is the constraint's metric value, a pattern constraint's
        the fraction of values conforming (what Table 3 calls coverage).

        Raises
        ------
        ParameterError
            If the run had no train/test split.
        """
        if self.evaluation is None:
            raise ParameterError("no evaluation: the run had no train/test split")
        results = self.evaluation.check_results[0].constraint_results
        rows = []
        for suggestion, result in zip(self.suggestions, results, strict=True):
            value = result.value
            if isinstance(suggestion.constraint, PatternConstraint) and value is not None:
                value = 1.0 - float(value)  # the conforming fraction
            rows.append(
                {
                    "column": suggestion.column,
                    "rule": suggestion.rule,
                    "code": suggestion.code,
                    "status": result.status.value,
                    "metric": value if isinstance(value, (int, float)) else None,
                    "message": result.message or "",
                }
            )
        return rows

    def to_dict(self) -> dict[str, Any]:
        """Profiles, suggestions and the evaluation as plain data."""
        out: dict[str, Any] = {
            "num_records": self.num_records,
            "pattern_rule": self.pattern_rule,
            "pattern_index": self.pattern_index,
            "profiles": [p.to_dict() for p in self.column_profiles],
            "suggestions": [s.to_dict() for s in self.suggestions],
            "dropped": [s.to_dict() for s in self.dropped],
        }
        if self.evaluation is not None:
            out["evaluation"] = {
                "status": self.evaluation.status.value,
                "test_records": self.test_records,
                "constraints": self.evaluation_rows(),
            }
        return out


def holding_suggestions(
    suggestions: Sequence[ConstraintSuggestion], data: Any
) -> tuple[list[ConstraintSuggestion], list[ConstraintSuggestion]]:
    """Keep the suggestions whose constraints hold on ``data``, weaken or drop the others.

    Every constraint is verified exactly on the data it was suggested from (one
    Error-level check, shared scans); a failing one is replaced by
    :func:`~autovalidate.suggest.rules.weakened` (``is_unique`` at uniqueness
    0.905 becomes ``has_uniqueness >= 0.9``) or, where no weaker bound exists
    (a pattern constraint, say), dropped. So a suite made of the suggestions
    passes on that data: profiles can be approximate (Deequ's
    ``UniqueIfApproximatelyUniqueRule`` reads a HyperLogLog sketch), the
    verification is not.

    Parameters
    ----------
    suggestions
        Suggestions made from ``data``.
    data
        What they were suggested from, as the profiles read it (CSV text, the
        training set of a split): data or an :class:`~autovalidate.engines.Engine`.

    Returns
    -------
    tuple of list
        ``(kept, dropped)``: kept in the input order, weakened ones in place;
        each dropped suggestion's ``adjustment`` gives the failure.
    """
    if not suggestions:
        return [], []
    check = CheckSpec(
        "suggestions on their own data", CheckLevel.ERROR, tuple(s.constraint for s in suggestions)
    ).to_check()
    outcome = VerificationSuite().on_data(data).add_check(check).run()
    kept: list[ConstraintSuggestion] = []
    dropped: list[ConstraintSuggestion] = []
    for suggestion, result in zip(
        suggestions, outcome.check_results[0].constraint_results, strict=True
    ):
        if result.status is ConstraintStatus.SUCCESS:
            kept.append(suggestion)
            continue
        weaker = weakened(suggestion, result.value)
        if weaker is not None:
            kept.append(weaker)
        else:
            why = f"dropped: failed on the data it was suggested from ({result.message})"
            dropped.append(replace(suggestion, adjustment=why))
    return kept, dropped


class ConstraintSuggestionRunBuilder:
    """Configures a suggestion run; :meth:`run` runs it."""

    def __init__(self, data: Any) -> None:
        self._data = data
        self._rules: list[SuggestionRule] = []
        self._columns: list[str] | None = None
        self._threshold = DEFAULT_CARDINALITY_THRESHOLD
        self._index: PatternIndex | None = None
        self._default_index = True
        self._pattern_options: dict[str, Any] = {}
        self._test_ratio: float | None = None
        self._seed = 0
        self._progress: Progress | None = None

    def add_constraint_rule(self, rule: SuggestionRule) -> ConstraintSuggestionRunBuilder:
        """Use ``rule`` (when no rule is added, :data:`DEFAULT_RULES` are used)."""
        self._rules.append(rule)
        return self

    def add_constraint_rules(
        self, rules: Iterable[SuggestionRule]
    ) -> ConstraintSuggestionRunBuilder:
        """Use ``rules``."""
        self._rules.extend(rules)
        return self

    def restrict_to_columns(self, columns: Sequence[str]) -> ConstraintSuggestionRunBuilder:
        """Profile and suggest for these columns only."""
        self._columns = list(columns)
        return self

    def with_low_cardinality_histogram_threshold(
        self, threshold: int
    ) -> ConstraintSuggestionRunBuilder:
        """Most approximate distinct values for an exact histogram (default 120, as Deequ)."""
        self._threshold = threshold
        return self

    def with_pattern_index(
        self, index: PatternIndex | None, **options: Any
    ) -> ConstraintSuggestionRunBuilder:
        """Run the Auto-Validate pattern rule for string columns with this index.

        Without this call the rule uses the default index packaged with
        autovalidate (:func:`autovalidate.open_default_index`); ``index=None``
        skips the rule. ``options`` go to :func:`autovalidate.suggest_pattern`
        (``method``, ``r``, ``m``, ``theta``, ``tau``, ``objective``, ``test``,
        ``alpha``).
        """
        self._index = index
        self._default_index = False
        self._pattern_options = dict(options)
        return self

    def with_pattern_options(self, **options: Any) -> ConstraintSuggestionRunBuilder:
        """Options of the Auto-Validate pattern rule, whichever index it uses.

        ``options`` go to :func:`autovalidate.suggest_pattern` (``method``,
        ``r``, ``m``, ``theta``, ``tau``, ``objective``, ``test``, ``alpha``).
        """
        self._pattern_options = dict(options)
        return self

    def use_train_test_split_with_testset_ratio(
        self, ratio: float, seed: int = 0
    ) -> ConstraintSuggestionRunBuilder:
        """Suggest on a random ``1 - ratio`` of the rows, evaluate on the rest.

        Raises
        ------
        ParameterError
            If ``ratio`` is not in (0, 1).
        """
        if not 0.0 < ratio < 1.0:
            raise ParameterError(f"the test set ratio must be in (0, 1), got {ratio}")
        self._test_ratio = ratio
        self._seed = seed
        return self

    def on_progress(self, progress: Progress) -> ConstraintSuggestionRunBuilder:
        """Call ``progress(description, completed, total)`` as the run advances."""
        self._progress = progress
        return self

    def run(self) -> ConstraintSuggestionResult:
        """Profile, suggest, keep what holds on the (training) data, evaluate if a split was asked.

        Raises
        ------
        ColumnNotFoundError
            If a restricted column is not in the data.
        DataSourceError, DataError
            If the data cannot be read.
        PatternIndexError
            If the pattern index cannot be read.
        """
        say = self._progress or (lambda *_: None)
        rules = list(self._rules or DEFAULT_RULES)
        index, pattern_rule = self._index, "skipped: no pattern index configured"
        if index is None and self._default_index:
            try:
                index = shared_default_index()
            except DefaultIndexError as exc:
                pattern_rule = f"skipped: {exc}"
        if index is not None:
            rules.append(PATTERN_RULE)
            pattern_rule = "applied"
        with open_engine(self._data) as source:
            train, test = source, None
            if self._test_ratio is not None:
                train, test = source.split(self._test_ratio, self._seed)
            started = train.stats.queries
            # every pass, the verification and the pattern rule read the columns:
            # read them once (a query per column then costs the same however wide the table)
            train.hold(self._columns if self._columns is not None else list(train.schema()))
            profiles = profile_columns(
                train,
                columns=self._columns,
                low_cardinality_threshold=self._threshold,
                progress=lambda text: say(text, 0, None),
            )
            context = RuleContext(
                profiles.num_records,
                index,
                train,
                self._pattern_options,
            )
            suggestions: list[ConstraintSuggestion] = []
            columns = list(profiles.profiles)
            for done, column in enumerate(columns):
                say(f"suggesting for {column!r}", done, len(columns))
                for rule in rules:
                    found = rule.apply(profiles[column], context)
                    if found is not None:
                        suggestions.append(found)
            say("checking the suggestions on their own data", len(columns), len(columns))
            suggestions, dropped = holding_suggestions(suggestions, train)
            stats = train.stats.since(started)
            say("suggested", len(columns), len(columns))
            evaluation = None
            if test is not None:
                say("evaluating on the test set", 0, None)
                check = CheckSpec(
                    "generated constraints",
                    CheckLevel.WARNING,
                    tuple(s.constraint for s in suggestions),
                ).to_check()
                evaluation = (
                    VerificationSuite()
                    .on_data(test)
                    .add_check(check)
                    .add_required_analyzer(Size())
                    .run()
                )
        return ConstraintSuggestionResult(
            profiles,
            tuple(suggestions),
            pattern_rule,
            evaluation,
            tuple(dropped),
            None if index is None else describe_index(index),
            stats,
        )


class ConstraintSuggestionRunner:
    """Entry point for constraint suggestion (Deequ's ``ConstraintSuggestionRunner``).

    References
    ----------
    Schelter et al., PVLDB 2018, §3.3 and §5.3;
    Deequ ``suggestions/ConstraintSuggestionRunner.scala``.
    """

    @staticmethod
    def on_data(data: Any) -> ConstraintSuggestionRunBuilder:
        """Start a run on ``data``.

        ``data`` is a CSV (read as text) or Parquet path, a pandas DataFrame, an
        Arrow table, a DuckDB relation, a PySpark DataFrame or an
        :class:`~autovalidate.engines.Engine`. With a train/test split, the
        split is the engine's (:meth:`~autovalidate.engines.Engine.split`).
        """
        return ConstraintSuggestionRunBuilder(data)
