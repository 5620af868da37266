"""Inferring a pattern constraint for a column: the public entry point of Auto-Validate."""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import regex

from autovalidate.drift import TESTS
from autovalidate.errors import EmptyColumnError, ParameterError
from autovalidate.nulls import DEFAULT_NULL_TOKENS, drop_missing
from autovalidate.patterns.render import segment_body
from autovalidate.solver.diagnosis import Diagnosis, diagnose
from autovalidate.solver.fmdv import METHODS, Prepared, SolverParams, solve
from autovalidate.solver.params import horizontal_cuts

if TYPE_CHECKING:
    from autovalidate.engines import Engine
    from autovalidate.index.reader import PatternIndex
    from autovalidate.pattern_constraint import PatternConstraint

__all__ = [
    "NoPatternReason",
    "PatternSuggestion",
    "infer_pattern",
    "solver_params",
    "suggest_pattern",
]

_DEFAULTS = SolverParams()

#: Most training values the solver infers a pattern from; a larger column is
#: sampled (uniformly, seeded: the same column gives the same sample) and the
#: constraint records it in ``params["inferred_from"]``. The training counts
#: of the drift test still cover every value. 50,000 keeps suggest under 10 s
#: on 2 cores for columns of all-distinct GUIDs, the costliest kind
#: (benchmarks/results/suggest_scaling.md). It also bounds memory: a column
#: read from a table streams in batches and only the sample is kept
#: (benchmarks/results/memory.md).
MAX_VALUES = 50_000
SAMPLE_SEED = 0


class _Reservoir:
    """A seeded uniform sample of ``size`` values of a stream; all of them if ``size`` is ``None``.

    Li's Algorithm L (ACM TOMS 20(4), 1994): after the first ``size`` values,
    it draws how many values to skip before the next one that replaces a
    random slot, so a batch costs Python work only for the values taken
    (O(size * (1 + log(n / size))) draws in all), not one draw per value. A
    stream of at most ``size`` values is kept whole, in order.
    """

    def __init__(self, size: int | None, seed: int) -> None:
        self.size = size
        self.values: list[str] = []
        self.seen = 0
        self._rng = random.Random(seed)
        self._log_w = 0.0  # log of Algorithm L's W
        self._next = 0  # stream position of the next value to take, once full

    @property
    def sampled(self) -> bool:
        """Whether values were left out."""
        return self.size is not None and self.seen > self.size

    def _uniform(self) -> float:
        u = self._rng.random()
        while u == 0.0:  # log(0); [0, 1) -> (0, 1)
            u = self._rng.random()
        return u

    def _advance(self) -> None:
        assert self.size is not None
        self._log_w += math.log(self._uniform()) / self.size
        # log(1 - W) as log(-expm1(log W)): exact where W rounds to 1
        self._next += int(math.log(self._uniform()) / math.log(-math.expm1(self._log_w))) + 1

    def extend(self, batch: Sequence[str]) -> None:
        """Offer the next values of the stream."""
        start = self.seen
        self.seen += len(batch)
        if self.size is None:
            self.values.extend(batch)
            return
        taken = 0
        if len(self.values) < self.size:
            taken = min(len(batch), self.size - len(self.values))
            self.values.extend(batch[:taken])
            if len(self.values) < self.size:
                return
            self._next = self.size - 1  # just filled: skip from its last value on
            self._advance()
        while self._next < self.seen:
            self.values[self._rng.randrange(self.size)] = batch[self._next - start]
            self._advance()


def suggest_pattern(
    values: Any,
    index: PatternIndex | None = None,
    *,
    method: str = "fmdv-vh",
    r: float = _DEFAULTS.max_fpr,
    m: int = _DEFAULTS.min_cov,
    theta: float = _DEFAULTS.theta,
    tau: int = _DEFAULTS.tau,
    test: str | None = None,
    alpha: float = 0.01,
    column: str | None = None,
    objective: str = _DEFAULTS.objective,
    condition: bool = _DEFAULTS.condition,
    max_shortfall: float = _DEFAULTS.max_shortfall,
    generalize: bool = _DEFAULTS.generalize,
    max_position_risk: float = _DEFAULTS.max_position_risk,
    null_tokens: Sequence[str] = DEFAULT_NULL_TOKENS,
    max_values: int | None = MAX_VALUES,
) -> PatternConstraint | None:
    """Infer a validation pattern for a column's values, from the corpus evidence in ``index``.

    Parameters
    ----------
    values
        The training values: a list/tuple, pandas Series or pyarrow Array
        (``None``/NaN are nulls and ignored), or a table (CSV/Parquet path,
        pandas DataFrame, pyarrow Table, DuckDB relation, PySpark DataFrame,
        :class:`~autovalidate.engines.Engine`) with ``column``. A table's
        column is streamed (:meth:`~autovalidate.engines.Engine.text_batches`):
        memory holds one batch and the ``max_values`` sampled values, not the
        column, and a sampled column is read twice.
    index
        An opened :class:`PatternIndex`; ``None`` (the default): the default
        index packaged with autovalidate (a public corpus, see
        :func:`autovalidate.open_default_index`), opened once per process.
    method
        ``"fmdv"`` (Eq. 5-7), ``"fmdv-v"`` (vertical cuts, Eq. 8-11),
        ``"fmdv-h"`` (horizontal cuts, Eq. 12-16) or ``"fmdv-vh"`` (both).
    r
        Largest admissible estimated FPR, a fraction in [0, 1].
    m
        Least admissible coverage Cov_T, in corpus columns.
    theta
        Largest tolerated fraction of non-conforming training values, in
        [0, 1) (horizontal-cut methods only).
    tau
        Most tokens per pattern or segment, at most the index's τ.
    test
        Drift test of the constraint: ``"fisher"`` (default for the tolerant
        methods), ``"chi2"``, or ``"strict"`` (default for ``fmdv``/``fmdv-v``).
    alpha
        Significance level of the drift test, in (0, 1).
    column
        The column to read from a table; also recorded in the constraint.
    objective
        ``"coverage"`` (the most specific feasible pattern) or ``"fpr"``.
    condition
        Condition FPR_T on the training values
        (:meth:`~autovalidate.index.stats.FprPrior.estimate`); ``False``: the
        unconditional shrunk estimate (an ablation).
    max_shortfall
        Most the run-length bounds of a pattern (``<digit>{3,}`` for
        ``<digit>+``) may add to its estimated FPR, a fraction in [0, 1];
        0 sets no bound (:mod:`autovalidate.solver.lengths`).
    generalize
        Price the parts of a vertical cut by the index's generalization
        statistics (how formats held from the corpus columns' first tenths to
        their rests, :mod:`autovalidate.index.generalization`); ``False``:
        by their FPR_T, as the paper does (an ablation).
    max_position_risk
        Most the risks of a cut priced by positions may add up to, a fraction
        in [0, 1] (:class:`~autovalidate.solver.fmdv.SolverParams`).
    null_tokens
        Texts that mean a missing value (default: pandas' ``na_values`` and
        ``-``; :mod:`autovalidate.nulls`). Missing values, like nulls and
        empty or whitespace-only values, are never learned as the pattern,
        and the constraint never counts them; a column of only missing values
        gets no constraint.
    max_values
        Most training values (after missing ones are dropped) the pattern is
        inferred from: a larger column is sampled uniformly with a fixed seed
        (a reservoir over the values in row order: the same values in the
        same order give the same sample), and ``params["inferred_from"]`` of
        the constraint says how many values were used (absent: all, in row
        order). The training non-conforming count is taken over every value.
        ``None``: never sample (a table's column is then held whole).

    Returns
    -------
    PatternConstraint or None
        ``None`` when no hypothesis is feasible (for example natural-language
        columns) or every non-null value is a null token or blank: never a
        match-anything pattern. ``regex`` is anchored (full match) and means
        the same in Python ``regex``, Java and RE2.

    Raises
    ------
    EmptyColumnError
        If there is no non-null value: no values at all, or only nulls
        (``None``, NaN, SQL NULL). Null tokens and blanks are values: a
        column of only those returns ``None``.
    ColumnNotFoundError
        If ``column`` is not in the table.
    ParameterError
        If a parameter is out of range, or ``tau`` exceeds the index's.
    DefaultIndexError
        If ``index`` is ``None`` and the packaged index cannot be used (for
        example built with another hierarchy version than this code's).

    References
    ----------
    Song & He, SIGMOD 2021, §2.3-§4.
    """
    params = solver_params(
        r=r,
        m=m,
        theta=theta,
        tau=tau,
        objective=objective,
        condition=condition,
        max_shortfall=max_shortfall,
        generalize=generalize,
        max_position_risk=max_position_risk,
    )
    return infer_pattern(
        values,
        index,
        params=params,
        method=method,
        test=test,
        alpha=alpha,
        column=column,
        null_tokens=null_tokens,
        max_values=max_values,
    ).constraint


def solver_params(
    *,
    r: float = _DEFAULTS.max_fpr,
    m: int = _DEFAULTS.min_cov,
    theta: float = _DEFAULTS.theta,
    tau: int = _DEFAULTS.tau,
    objective: str = _DEFAULTS.objective,
    condition: bool = _DEFAULTS.condition,
    max_shortfall: float = _DEFAULTS.max_shortfall,
    generalize: bool = _DEFAULTS.generalize,
    max_position_risk: float = _DEFAULTS.max_position_risk,
) -> SolverParams:
    """:class:`SolverParams` from :func:`suggest_pattern`'s keyword names: the one place they map.

    ``r`` is ``max_fpr`` (a fraction in [0, 1]) and ``m`` is ``min_cov`` (in
    corpus columns), the paper's symbols (Song & He 2021, Eq. 6-7); the
    others keep their names. Range errors are raised when the solver checks
    the parameters (:class:`~autovalidate.errors.ParameterError`).
    """
    return SolverParams(
        max_fpr=r,
        min_cov=m,
        theta=theta,
        tau=tau,
        objective=objective,
        condition=condition,
        max_shortfall=max_shortfall,
        generalize=generalize,
        max_position_risk=max_position_risk,
    )


@dataclass(frozen=True)
class _Column:
    """A column to infer a pattern from: values in memory, or a column of a table's engine."""

    values: list[str | None] | None = None
    engine: Engine | None = None
    name: str = ""

    def batches(self) -> Iterable[Sequence[str | None]]:
        """The values as text, nulls as ``None``: one batch, or a scan of the engine's column."""
        if self.engine is None:
            return (self.values or [],)
        return self.engine.text_batches(self.name)


@contextmanager
def _column(values: Any, column: str | None) -> Iterator[_Column]:
    """The column ``values`` (a sequence) or ``column`` of ``values`` (a table) is.

    A sequence of values (list, Series, Arrow array) is read into memory as
    text; a table (anything :func:`autovalidate.engines.open_engine` takes: a
    path, a DataFrame, a relation, an engine) stays where it is and is
    scanned on demand, :data:`~autovalidate.engines.base.TEXT_BATCH_ROWS`
    values at a time.

    Raises
    ------
    ColumnNotFoundError, DataError, DataSourceError
        As :func:`autovalidate.engines.io.column_values`.
    """
    from autovalidate.engines import open_engine
    from autovalidate.engines.io import column_values, is_value_sequence, resolve_column

    if is_value_sequence(values):
        yield _Column(values=column_values(values))
        return
    with open_engine(values) as engine:
        yield _Column(engine=engine, name=resolve_column(engine.schema(), column))


class NoPatternReason(str, enum.Enum):
    """Why a column gets no pattern constraint (:attr:`PatternSuggestion.reason`)."""

    #: Every value is missing: nulls, blanks or null tokens (``NA``, ``N/A``...).
    ALL_MISSING = "all-missing"
    #: No hypothesis pattern is feasible: every one has an estimated FPR above
    #: r or a coverage below m, and every cut priced by positions a risk above
    #: max_position_risk (free text and random base64 keys usually end here).
    INFEASIBLE = "infeasible"

    @property
    def explanation(self) -> str:
        """One line for a user: what happened, in the terms of the parameters."""
        if self is NoPatternReason.ALL_MISSING:
            return "every value is missing (null tokens such as NA or N/A, or blanks)"
        return (
            "no feasible hypothesis pattern (estimated FPR > r or coverage < m; a cut "
            "priced by positions: risk > max_position_risk)"
        )


@dataclass(frozen=True)
class PatternSuggestion:
    """The outcome of :func:`infer_pattern`: a constraint, or the reason there is none.

    Attributes
    ----------
    constraint
        The inferred constraint, or ``None``.
    reason
        ``None`` exactly when there is a constraint.
    non_null
        Values of the column read, nulls aside (null tokens and blanks
        included: ``constraint.train_n`` counts the values without them).
    diagnosis
        With :attr:`NoPatternReason.INFEASIBLE`, a vertical-cut method and
        ``infer_pattern(..., diagnose_abstention=True)``, what the largest
        retained set shows: its shape risk against
        max_position_risk, and aligned positions no pattern element covers
        (:class:`~autovalidate.solver.diagnosis.Diagnosis`); else ``None``.
    """

    constraint: PatternConstraint | None
    reason: NoPatternReason | None = None
    non_null: int = 0
    diagnosis: Diagnosis | None = None


def infer_pattern(
    values: Any,
    index: PatternIndex | None = None,
    *,
    params: SolverParams | None = None,
    method: str = "fmdv-vh",
    test: str | None = None,
    alpha: float = 0.01,
    column: str | None = None,
    null_tokens: Sequence[str] = DEFAULT_NULL_TOKENS,
    max_values: int | None = MAX_VALUES,
    diagnose_abstention: bool = False,
) -> PatternSuggestion:
    """:func:`suggest_pattern` with its solver parameters as one value; says why it has none.

    ``params`` (r, m, θ, τ and the rest: :class:`~autovalidate.solver.fmdv.SolverParams`,
    its defaults if ``None``) replace :func:`suggest_pattern`'s keyword
    arguments of the same meaning; every other argument, the errors raised and
    the source are :func:`suggest_pattern`'s. With ``diagnose_abstention``, a
    column without a feasible pattern also gets its
    :attr:`PatternSuggestion.diagnosis`, read from the plan the solver made.

    Returns
    -------
    PatternSuggestion
        The constraint, or ``None`` with a :class:`NoPatternReason`:
        ``ALL_MISSING`` when every non-null value is a null token or blank
        (``["NA", "", "N/A"]``), ``INFEASIBLE`` when no hypothesis pattern is.

    Raises
    ------
    EmptyColumnError
        If there is no non-null value: no values at all (``[]``), or only
        nulls (``None``, NaN, SQL NULL); a reason needs a value to give it.
    ColumnNotFoundError, ParameterError, DefaultIndexError
        As :func:`suggest_pattern`.
    """
    params = params or _DEFAULTS
    if method not in METHODS:
        raise ParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    if test is None:
        test = "fisher" if horizontal_cuts(method) else "strict"
    if test not in TESTS:
        raise ParameterError(f"test must be one of {', '.join(TESTS)}; got {test!r}")
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")
    if max_values is not None and max_values < 1:
        raise ParameterError(f"max_values must be at least 1 (or None), got {max_values}")
    # the engines, the index reader and DuckDB load here, not when the CLI reads MAX_VALUES
    from autovalidate.index.default import is_default_index, shared_default_index
    from autovalidate.pattern_constraint import PatternConstraint, Segment

    null_tokens = tuple(null_tokens)
    with _column(values, column) as source:
        sample, non_null = _Reservoir(max_values, SAMPLE_SEED), 0
        for batch in source.batches():
            read = [v for v in batch if v is not None]
            non_null += len(read)
            sample.extend(list(drop_missing(read, null_tokens)))
        if not non_null:
            raise EmptyColumnError(column)
        if not sample.seen:
            return PatternSuggestion(None, NoPatternReason.ALL_MISSING, non_null)
        if index is None:
            index = shared_default_index()
        trace: list[Prepared] | None = [] if diagnose_abstention else None
        solution = solve(sample.values, index, method=method, params=params, trace=trace)
        if solution is None:
            found = diagnose(trace[0], index, params) if trace else None
            return PatternSuggestion(None, NoPatternReason.INFEASIBLE, non_null, found)
        constraint = PatternConstraint(
            regex=solution.regex,
            pattern=solution.pattern,
            segments=tuple(
                Segment(
                    s.hypothesis.pattern,
                    segment_body(s.form),
                    s.hypothesis.fpr,
                    s.hypothesis.cov,
                    s.hypothesis.evidence,
                    s.shape or None,
                    s.optional,
                    s.repeat if s.optional and s.repeat > 1 else 1,
                    b if len(solution.branches) > 1 else None,
                    s.parts,
                )
                for b, branch in enumerate(solution.branches)
                for s in branch
            ),
            fpr=solution.fpr,
            method=method,
            test=test,
            alpha=alpha,
            train_n=sample.seen,
            train_nonconforming=0,
            column=column,
            params={
                "r": params.max_fpr,
                "m": params.min_cov,
                "theta": params.theta,
                "tau": params.tau,
                "objective": params.objective,
                "max_shortfall": params.max_shortfall,
                "max_position_risk": params.max_position_risk,
                **({"inferred_from": len(sample.values)} if sample.sampled else {}),
            },
            null_tokens=null_tokens,
            index={
                # the packaged index's path is only this installation's site-packages
                "path": None if is_default_index(index) else str(index.path),
                "default": is_default_index(index),
                "tau": index.tau,
                "patterns": index.metadata.patterns,
                "built": index.metadata.build.get("finished"),
            },
        )
        if sample.sampled and source.engine is not None:
            # every value of a table's column: the count validation makes, in one scan
            # of the engine, not a Python pass over millions of values
            nonconforming = constraint.validate(
                source.engine, column=source.name, examples=0
            ).n_nonconforming
        else:
            # θ_C is counted with the regex itself: the regex was rendered here, so it
            # means the same in Python ``regex`` as in RE2 and Java (property-tested), and
            # the training values hold no missing value, which validation would not count
            # either; in Python, not through an engine, because a query costs more than
            # the whole search
            rx = regex.compile(solution.regex)
            everything = drop_missing(source.values or [], null_tokens)
            nonconforming = sum(
                1
                for v in (everything if sample.sampled else sample.values)
                if rx.fullmatch(v) is None
            )
    return PatternSuggestion(replace(constraint, train_nonconforming=nonconforming), None, non_null)
