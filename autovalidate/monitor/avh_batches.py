"""Batch validation by an Auto-Validate-by-History program (Tu et al., KDD 2023).

Where :mod:`autovalidate.monitor.batches` forecasts every statistic (Redyuk et
al. 2020) and rejects a batch when any leaves its interval, with no bound on
how often a clean batch is rejected, AVH *programs* a conjunction of
constraints from the history whose false-positive rate is at most a budget
``delta`` (a fraction in (0, 1]) and which catches as many issues as it can.
The mathematics is in :mod:`autovalidate.anomaly.avh`; this module builds it
from a metrics repository:

* **Statistics recorded per batch** (:func:`avh_statistics`,
  :func:`record_avh_batch`): Redyuk's (completeness and approximate distinct
  count per column; mean, standard deviation, minimum, maximum per numeric
  column), plus the row count (``Size``), the minimum and maximum length of
  every text column, the histogram of every column with at most
  :data:`HISTOGRAM_MAX_DISTINCT` distinct values (one profile run, shared
  scans), and the share of every text column's present values that conform
  to its Auto-Validate pattern (``PatternConformance``; Song & He, SIGMOD
  2021): the pattern is learned by :func:`autovalidate.suggest_pattern`
  (default packaged index) from the first batch recorded with the column
  and kept in the history, so a format change shows as a drop in conformance.
* **Candidates** (:func:`candidates`): every scalar statistic's series, raw
  (unless it trends, :func:`~autovalidate.anomaly.avh.needs_differencing`)
  and differenced (``x_t - x_{t-1}``), each with three sides (two-sided
  Chebyshev; upper or lower Cantelli); and the L-infinity, Jensen-Shannon and
  PSI distances between the histograms of consecutive batches (upper side).
  Each candidate is offered at the bounds ``delta / 2**i`` for ``i`` in 0..5.
* **Expected recall** (:func:`synthetic_issues`): the paper estimates which
  constraints catch issues on synthetic issues; here they are made from a
  reference batch (a clean batch the caller passes), each kind at a mild and
  a gross severity (:data:`SEVERITIES`): per column, the column dropped,
  values missing in 5 % / 30 % of the rows, numbers times 10 / 1000, text
  cut to 75 % / 50 % of its length, 10 % / 50 % of a text column's values
  written in double quotes (a format change), 10 % / 40 % of a categorical
  column set to its most frequent value; per table, 10 % / 100 % of the rows
  duplicated.
  A candidate at a bound *covers* an issue when the issue's statistic falls
  outside its interval (or cannot be computed any more).
* **Program** (:func:`fit_program`): :func:`~autovalidate.anomaly.avh.select_constraints`
  under ``delta``; the budget the selection leaves unspent is then shared
  among the chosen constraints whose range narrows with budget (Chebyshev,
  Cantelli, CLT), each bound scaled by one factor, so that the bounds sum to
  ``delta``. The false-positive bound rests only on the history; the
  synthetic issues only steer which constraints spend the budget.
* **Decision** (:func:`validate_batch_avh`): the batch is accepted iff every
  constraint of the program holds; a program is saved and loaded as JSON
  (:meth:`AVHProgram.to_dict`) so that a pipeline can pin it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from autovalidate.analysis.runner import run_analyzers
from autovalidate.anomaly.avh import (
    Interval,
    Option,
    Side,
    ZeroVariance,
    fit_interval,
    js_divergence,
    linf_distance,
    needs_differencing,
    psi,
    select_constraints,
)
from autovalidate.engines import open_engine
from autovalidate.errors import (
    AutovalidateError,
    ConstraintFormatError,
    DataSourceError,
    InsufficientHistoryError,
    ParameterError,
)
from autovalidate.metrics import (
    ApproxCountDistinct,
    Completeness,
    DataTypeInstance,
    Distribution,
    Histogram,
    Maximum,
    MaxLength,
    Mean,
    Metric,
    Minimum,
    MinLength,
    PatternConformance,
    Size,
    StandardDeviation,
)
from autovalidate.metrics.base import Analyzer
from autovalidate.metrics.codec import analyzer_key, keys_by_text
from autovalidate.monitor.batches import (
    BatchValidationResult,
    StatisticDecision,
    _history,
    _tracked_numeric,
)
from autovalidate.nulls import DEFAULT_NULL_TOKENS
from autovalidate.profiles import profile_columns
from autovalidate.repository.base import AnalysisResult, MetricsRepository, ResultKey
from autovalidate.schemas import parse_json

__all__ = [
    "AVH_STATISTICS",
    "DISTANCES",
    "HISTOGRAM_MAX_DISTINCT",
    "PROGRAM_FORMAT",
    "PROGRAM_VERSION",
    "SEVERITIES",
    "AVHConstraint",
    "AVHProgram",
    "Candidate",
    "SyntheticIssue",
    "avh_statistics",
    "candidates",
    "fit_program",
    "learn_patterns",
    "read_text_frame",
    "record_avh_batch",
    "synthetic_issues",
    "tracked_patterns",
    "validate_batch_avh",
]

#: Metric names AVH draws candidates from.
AVH_STATISTICS = (
    "Size",
    "Completeness",
    "ApproxCountDistinct",
    "Mean",
    "StandardDeviation",
    "Minimum",
    "Maximum",
    "MinLength",
    "MaxLength",
    "PatternConformance",
)

#: Columns with at most this many distinct values get a histogram (for the distances).
HISTOGRAM_MAX_DISTINCT = 50

#: The ``format`` field of a saved program.
PROGRAM_FORMAT = "autovalidate-avh-program"
#: Version 2: each constraint names its analyzer by key (``analyzer_key``) as
#: well as by text (``analyzer``); version 1 programs, text only, still load.
PROGRAM_VERSION = 2

#: Shares of ``delta`` each candidate is offered at: ``delta / 2**i``.
_LEVELS = 6

#: Distances between the histograms of consecutive batches.
DISTANCES: dict[str, Callable[[dict[str, float], dict[str, float]], float]] = {
    "LInfDistance": linf_distance,
    "JSDivergence": js_divergence,
    "PSI": psi,
}

_SIDES: tuple[Side, ...] = ("both", "upper", "lower")


def _conformance(column: str, regex: str) -> PatternConformance:
    return PatternConformance(column, regex, null_tokens=DEFAULT_NULL_TOKENS)


def tracked_patterns(history: Iterable[AnalysisResult]) -> dict[str, str]:
    """Column -> regex of the pattern-conformance statistic a history records.

    A column's pattern is the one of its oldest recorded conformance (it is
    learned once, :func:`record_avh_batch`, and then kept, so that the
    conformance series of the history is about one pattern).
    """
    out: dict[str, str] = {}
    for r in sorted(history, key=lambda r: r.result_key.dataset_date):
        for key, m in r.metrics.items():
            if m.name == "PatternConformance" and m.instance not in out:
                regex = _recorded_regex(key, m.instance)
                if regex is not None:
                    out[m.instance] = regex
    return out


def _recorded_regex(key: str, column: str) -> str | None:
    """The regex of ``column``'s conformance stored under ``key``, ``None`` if not this module's.

    ``key`` is the analyzer's key, or its text where it was saved before keys existed.
    """
    if key.startswith("{"):
        regex = json.loads(key).get("pattern")
        ok = isinstance(regex, str) and analyzer_key(_conformance(column, regex)) == key
        return regex if ok else None
    prefix, suffix = str(_conformance(column, "\x00")).split("\x00")
    if key.startswith(prefix) and key.endswith(suffix) and len(key) > len(prefix + suffix):
        return key[len(prefix) : len(key) - len(suffix)]
    return None


def learn_patterns(data: Any, columns: Iterable[str]) -> dict[str, str]:
    """Auto-Validate patterns of ``columns`` learned from one batch: column -> anchored regex.

    :func:`autovalidate.suggest_pattern` with its defaults (the packaged
    index, ``fmdv-vh``). Columns without a feasible pattern (free text), and
    data ``suggest_pattern`` cannot read (a Spark DataFrame), get none.
    """
    from autovalidate.pattern_inference import suggest_pattern

    out = {}
    for c in columns:
        try:
            if isinstance(data, pd.DataFrame):
                constraint = suggest_pattern(data[c], column=c)
            else:
                constraint = suggest_pattern(data, column=c)
        except (AutovalidateError, TypeError, ValueError):
            continue
        if constraint is not None:
            out[c] = constraint.regex
    return out


def avh_statistics(
    data: Any,
    *,
    numeric_columns: Iterable[str] = (),
    patterns: Mapping[str, str] | None = None,
    learn: bool = False,
) -> dict[Analyzer, Metric]:
    """The statistics AVH records of one batch (see the module docstring), in shared scans.

    Parameters
    ----------
    data
        The batch: a CSV (read as text) or Parquet path, pandas, Arrow, a
        DuckDB relation or a PySpark DataFrame.
    numeric_columns
        Columns to treat as numeric whatever their values (those the history tracks).
    patterns
        Column -> regex: the share of each column's present values that fully
        match its pattern is recorded as ``PatternConformance`` (a fraction,
        1 for a column without present values).
    learn
        Also learn a pattern (:func:`learn_patterns`) for every text column
        not in ``patterns``, from this batch.

    Returns
    -------
    dict
        Analyzer -> metric; a metric that could not be computed is a failure.
    """
    predefined = {c: DataTypeInstance.FRACTIONAL for c in numeric_columns}
    with open_engine(data) as engine:
        profiles = profile_columns(
            engine, low_cardinality_threshold=HISTOGRAM_MAX_DISTINCT, predefined_types=predefined
        )
        present = {p.column for p in profiles}
        regexes = {c: r for c, r in (patterns or {}).items() if c in present}
        if learn:
            text = [p.column for p in profiles if not p.is_numeric and p.column not in regexes]
            regexes.update(learn_patterns(data, text))
        conformance = (
            run_analyzers(engine, [_conformance(c, r) for c, r in regexes.items()]).metrics
            if regexes
            else {}
        )
    metrics = profiles.metrics
    out: dict[Analyzer, Metric] = {}
    if Size() in metrics:
        out[Size()] = metrics[Size()]
    for profile in profiles:
        c = profile.column
        wanted: list[Analyzer] = [Completeness(c), ApproxCountDistinct(c)]
        if profile.is_numeric:
            wanted += [Mean(c), StandardDeviation(c), Minimum(c), Maximum(c)]
        wanted += [MinLength(c), MaxLength(c), Histogram(c)]
        for analyzer in wanted:
            if analyzer in metrics:
                out[analyzer] = metrics[analyzer]
    for analyzer, m in conformance.items():
        if m.error is None and isinstance(m.value, Mapping):
            n = float(m.value.get("num_values", 0.0))
            share = float(m.value.get("num_matching", 0.0)) / n if n else 1.0
            m = replace(m, value=share)
        out[analyzer] = m
    return out


def record_avh_batch(
    data: Any, repository: MetricsRepository, key: ResultKey
) -> dict[Analyzer, Metric]:
    """Compute a batch's AVH statistics (:func:`avh_statistics`) and save them under ``key``.

    They include Redyuk's, so :func:`~autovalidate.monitor.batches.validate_batch`
    can use the same history. The conformance to the patterns the history
    tracks is recorded; a text column without one gets a pattern learned
    from this batch, kept for the batches after it.

    Raises
    ------
    RepositoryError
        If the repository cannot be read or written.
    """
    history = _history(repository, key.dataset, key.tags, None)
    metrics = avh_statistics(
        data,
        numeric_columns=_tracked_numeric(history),
        patterns=tracked_patterns(history),
        learn=True,
    )
    repository.save(key, metrics)
    return metrics


# -- values of a batch as AVH sees them -------------------------------------------------------


def _scalars(metrics: Mapping[str, Metric]) -> dict[str, float]:
    out = {}
    for key, m in metrics.items():
        if m.name in AVH_STATISTICS and m.error is None and isinstance(m.value, (int, float)):
            if math.isfinite(float(m.value)):
                out[key] = float(m.value)
    return out


def _histograms(metrics: Mapping[str, Metric]) -> dict[str, dict[str, float]]:
    out = {}
    for m in metrics.values():
        if m.name == "Histogram" and m.error is None and isinstance(m.value, Distribution):
            out[m.instance] = {k: v.ratio for k, v in m.value.values.items()}
    return out


@dataclass(frozen=True)
class _Observation:
    """One batch's scalars (by analyzer text) and histograms (by column)."""

    scalars: dict[str, float]
    histograms: dict[str, dict[str, float]]
    columns: frozenset[str]

    @classmethod
    def of(cls, metrics: Mapping[str, Metric]) -> _Observation:
        columns = frozenset(m.instance for m in metrics.values() if m.name == "Completeness")
        return cls(_scalars(metrics), _histograms(metrics), columns)


def _names(result: AnalysisResult) -> dict[str, tuple[str, str, str]]:
    return {k: (m.name, m.instance, result.description(k)) for k, m in result.metrics.items()}


# -- candidates ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A metric with a statistic over its history: what a constraint of the program is about.

    Attributes
    ----------
    analyzer
        The recorded metric's analyzer key
        (:func:`~autovalidate.metrics.codec.analyzer_key`), or for a distance
        the column's histogram analyzer's.
    name, column
        The metric's name (``"Size"``, ``"Mean"``, ``"LInfDistance"`` ...) and column (``"*"``
        for the table).
    transform
        ``"value"`` (the batch's value), ``"difference"`` (the value minus the
        previous batch's) or ``"distance"`` (between the histograms of the
        previous and this batch).
    history
        The series the bound is computed from, oldest first.
    description
        The analyzer's text (``str(analyzer)``), what outputs print; empty:
        ``analyzer`` itself.
    """

    analyzer: str
    name: str
    column: str
    transform: str
    history: tuple[float, ...]
    description: str = ""

    @property
    def text(self) -> str:
        """The analyzer's text, for people."""
        return self.description or self.analyzer

    @property
    def key(self) -> str:
        """Identifies the candidate: transform, metric and column."""
        return f"{self.transform}:{self.name}({self.column})"


def candidates(history: Sequence[AnalysisResult], *, alpha: float = 0.05) -> list[Candidate]:
    """The candidate space of a dataset's history (see the module docstring).

    Parameters
    ----------
    history
        The dataset's results, any order (sorted by date here).
    alpha
        Significance of the trend test that decides differencing.

    Returns
    -------
    list of Candidate
        Those with at least 2 values in their series.
    """
    ordered = sorted(history, key=lambda r: r.result_key.dataset_date)
    names: dict[str, tuple[str, str, str]] = {}
    for r in ordered:
        names.update(_names(r))
    observations = [_Observation.of(r.metrics) for r in ordered]
    out: list[Candidate] = []
    keys = sorted({k for o in observations for k in o.scalars})
    for key in keys:
        name, column, text = names[key]
        # the series over consecutive batches that all have it
        series = [o.scalars[key] for o in observations if key in o.scalars]
        if len(series) >= 2 and not needs_differencing(series, alpha):
            out.append(Candidate(key, name, column, "value", tuple(series), text))
        steps = [
            b.scalars[key] - a.scalars[key]
            for a, b in zip(observations, observations[1:], strict=False)
            if key in a.scalars and key in b.scalars
        ]
        if len(steps) >= 2:
            out.append(Candidate(key, name, column, "difference", tuple(steps), text))
    columns = sorted({c for o in observations for c in o.histograms})
    for column in columns:
        pairs = [
            (a.histograms[column], b.histograms[column])
            for a, b in zip(observations, observations[1:], strict=False)
            if column in a.histograms and column in b.histograms
        ]
        if len(pairs) < 2:
            continue
        histogram = Histogram(column)
        for name, distance in DISTANCES.items():
            distances = tuple(distance(p, q) for p, q in pairs)
            out.append(
                Candidate(
                    analyzer_key(histogram), name, column, "distance", distances, str(histogram)
                )
            )
    return out


def _value_of(candidate: Candidate, new: _Observation, last: _Observation) -> float | None:
    """The candidate's value on a new batch after ``last``; None when it cannot be computed."""
    if candidate.transform == "distance":
        p, q = last.histograms.get(candidate.column), new.histograms.get(candidate.column)
        if p is None or q is None:
            return None
        return DISTANCES[candidate.name](p, q)
    value = new.scalars.get(candidate.analyzer)
    if value is None:
        return None
    if candidate.transform == "value":
        return value
    previous = last.scalars.get(candidate.analyzer)
    return None if previous is None else value - previous


def _sides(candidate: Candidate) -> tuple[Side, ...]:
    return ("upper",) if candidate.transform == "distance" else _SIDES


def _clt(candidate: Candidate, clt: bool) -> bool:
    # the CLT applies to averages over rows: means and ratios (not to extremes or counts)
    return clt and candidate.transform == "value" and candidate.name in ("Mean", "Completeness")


# -- synthetic issues --------------------------------------------------------------------------


@dataclass(frozen=True)
class SyntheticIssue:
    """A perturbed copy of the reference batch (for the expected recall), as its statistics."""

    kind: str
    column: str
    metrics: Mapping[str, Metric]


def _numeric(series: pd.Series) -> pd.Series:
    return pd.to_numeric(series, errors="coerce")


#: Severities of the synthetic issues: mild and gross, so that tight intervals earn their cost.
SEVERITIES = {
    "duplicated rows": (0.1, 1.0),  # share of the rows added again
    "missing values": (0.05, 0.3),  # share of a column's values set to null
    "unit change": (10.0, 1000.0),  # factor on a numeric column
    "truncated strings": (0.75, 0.5),  # share of each text value kept
    "category drift": (0.1, 0.4),  # share of a categorical column set to its mode
    "format change": (0.1, 0.5),  # share of a text column's values written in quotes
}


def _perturbations(frame: pd.DataFrame, seed: int) -> list[tuple[str, str, pd.DataFrame]]:
    rng = np.random.default_rng(seed)
    n = len(frame)
    out: list[tuple[str, str, pd.DataFrame]] = []
    for share in SEVERITIES["duplicated rows"]:
        extra = frame.iloc[np.flatnonzero(rng.random(n) < share)]
        out.append(("duplicated rows", "*", pd.concat([frame, extra], ignore_index=True)))
    for c in frame.columns:
        values = frame[c]
        present = values.notna()
        if not present.any():
            continue
        out.append(("schema change", c, frame.drop(columns=[c])))
        for share in SEVERITIES["missing values"]:
            missing = frame.copy()
            missing.loc[rng.random(n) < share, c] = None
            out.append(("missing values", c, missing))
        numbers = _numeric(values)
        if numbers.notna().sum() >= 0.9 * present.sum():
            for factor in SEVERITIES["unit change"]:
                scaled = frame.copy()
                scaled[c] = [None if pd.isna(x) else f"{x * factor:g}" for x in numbers]
                out.append(("unit change", c, scaled))
        else:
            for keep in SEVERITIES["truncated strings"]:
                cut = frame.copy()
                cut[c] = [
                    None if pd.isna(v) else str(v)[: max(1, int(len(str(v)) * keep))]
                    for v in values
                ]
                out.append(("truncated strings", c, cut))
            for share in SEVERITIES["format change"]:
                quoted = frame.copy()
                hit = present & (rng.random(n) < share)
                quoted.loc[hit, c] = ['"' + str(v) + '"' for v in values[hit]]
                out.append(("format change", c, quoted))
        if values.nunique() <= HISTOGRAM_MAX_DISTINCT:
            top = values.mode(dropna=True).iloc[0]
            for share in SEVERITIES["category drift"]:
                drift = frame.copy()
                drift.loc[rng.random(n) < share, c] = top
                out.append(("category drift", c, drift))
    return out


def read_text_frame(path: str | Path) -> pd.DataFrame:
    """A CSV/TSV read as text exactly as written (empty cell = null), or a Parquet file.

    Raises
    ------
    DataSourceError
        If the file cannot be read.
    """
    p = str(path)
    try:
        if p.endswith(".parquet"):
            return pd.read_parquet(p)
        sep = "\t" if p.endswith((".tsv", ".tab")) else ","
        return pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, na_values=[""])
    except (OSError, ValueError) as e:
        raise DataSourceError(p, f"cannot read: {e}") from e


def synthetic_issues(
    reference: pd.DataFrame,
    *,
    numeric_columns: Iterable[str] = (),
    seed: int = 0,
    patterns: Mapping[str, str] | None = None,
) -> list[SyntheticIssue]:
    """Statistics of perturbed copies of a clean reference batch (see the module docstring).

    Parameters
    ----------
    reference
        A clean batch, values as text (as CSV is read) or typed.
    numeric_columns
        Columns the history tracks as numeric.
    seed
        Seeds which rows are perturbed.
    patterns
        Column -> regex whose conformance is computed (:func:`tracked_patterns`).

    Returns
    -------
    list of SyntheticIssue
    """
    numeric = list(numeric_columns)
    out = []
    for kind, column, frame in _perturbations(reference, seed):
        stats = avh_statistics(
            frame,
            numeric_columns=[c for c in numeric if c in frame.columns],
            patterns=patterns,
        )
        out.append(SyntheticIssue(kind, column, {analyzer_key(a): m for a, m in stats.items()}))
    return out


# -- the program -------------------------------------------------------------------------------


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class AVHConstraint:
    """One constraint of an AVH program: ``lower <= value <= upper``.

    Attributes
    ----------
    candidate
        What is constrained (:class:`Candidate`, its history included).
    interval
        The range and its false-positive bound (:class:`~autovalidate.anomaly.avh.Interval`).
    share
        Its bound's share of the program's budget ``delta``, a fraction in [0, 1].
    """

    candidate: Candidate
    interval: Interval
    share: float

    def to_dict(self) -> dict[str, Any]:
        """The constraint as plain JSON data (infinite bounds as null).

        ``analyzer`` is the analyzer's text, for people; ``analyzer_key`` its key.
        """
        i = self.interval
        return {
            "analyzer": self.candidate.text,
            "analyzer_key": self.candidate.analyzer,
            "metric": self.candidate.name,
            "column": self.candidate.column,
            "transform": self.candidate.transform,
            "history": len(self.candidate.history),
            "lower": _finite(i.lower),
            "upper": _finite(i.upper),
            "side": i.side,
            "bound": i.bound,
            "fpr_bound": i.fpr,
            "budget_share": self.share,
            "center": i.center,
            "scale": i.scale,
            "k": i.k,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AVHConstraint:
        """Inverse of :meth:`to_dict` (the candidate's history is not kept, only its length).

        A constraint of a version 1 program has no ``analyzer_key``: its
        analyzer is its text until :meth:`AVHProgram.with_keys_of` finds the key.
        """
        try:
            lo, hi = data["lower"], data["upper"]
            interval = Interval(
                -math.inf if lo is None else float(lo),
                math.inf if hi is None else float(hi),
                float(data["fpr_bound"]),
                str(data["bound"]),
                data["side"],
                float(data["center"]),
                float(data["scale"]),
                None if data["k"] is None else float(data["k"]),
            )
            candidate = Candidate(
                str(data.get("analyzer_key", data["analyzer"])),
                str(data["metric"]),
                str(data["column"]),
                str(data["transform"]),
                (),
                str(data["analyzer"]),
            )
            return cls(candidate, interval, float(data["budget_share"]))
        except (KeyError, TypeError, ValueError) as e:
            raise ConstraintFormatError(f"not an AVH constraint: {e}") from e


@dataclass(frozen=True)
class AVHProgram:
    """A conjunction of constraints whose false-positive rate is at most ``delta``.

    Attributes
    ----------
    dataset
        The dataset whose history it was programmed from.
    delta
        The budget: bound on the probability that a clean batch is rejected,
        a fraction in (0, 1] (union bound over the constraints; Tu et al. §3).
    constraints
        The chosen constraints, in the order chosen.
    history_results
        How many earlier batches it was programmed from.
    candidates, issues, covered
        How many candidates there were, synthetic issues, and issues the
        program catches (its estimated recall is ``covered / issues``).
    """

    dataset: str
    delta: float
    constraints: tuple[AVHConstraint, ...]
    history_results: int
    candidates: int = 0
    issues: int = 0
    covered: int = 0
    issue_kinds: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def fpr_bound(self) -> float:
        """Sum of the constraints' bounds: at most ``delta``."""
        return float(sum(c.interval.fpr for c in self.constraints))

    def to_dict(self) -> dict[str, Any]:
        """The program as plain JSON data."""
        return {
            "format": PROGRAM_FORMAT,
            "version": PROGRAM_VERSION,
            "dataset": self.dataset,
            "delta": self.delta,
            "fpr_bound": self.fpr_bound,
            "history_results": self.history_results,
            "candidates": self.candidates,
            "synthetic_issues": self.issues,
            "synthetic_issues_caught": self.covered,
            "issue_kinds": {k: list(v) for k, v in self.issue_kinds.items()},
            "constraints": [c.to_dict() for c in self.constraints],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def evaluate(
        self, current: Mapping[str, Metric], previous: Mapping[str, Metric]
    ) -> list[tuple[AVHConstraint, float | None]]:
        """Each constraint with its value on a batch; ``None`` when it cannot be computed.

        Parameters
        ----------
        current
            The batch's AVH statistics by analyzer key (:func:`avh_statistics`,
            :func:`~autovalidate.metrics.codec.analyzer_key`).
        previous
            The newest history batch's: differences and distances are taken against it.
        """
        now, before = _Observation.of(current), _Observation.of(previous)
        return [(c, _value_of(c.candidate, now, before)) for c in self.constraints]

    def rejects(self, current: Mapping[str, Metric], previous: Mapping[str, Metric]) -> bool:
        """True when some constraint fails (or cannot be computed) on the batch."""
        return any(
            v is None or not c.interval.contains(v) for c, v in self.evaluate(current, previous)
        )

    def with_keys_of(self, analyzers: Iterable[Analyzer]) -> AVHProgram:
        """The program with each constraint of a version 1 program keyed by its analyzer's key.

        A version 1 constraint names its analyzer by text; the one of
        ``analyzers`` with that text (``str(analyzer)``) gives the key. A
        program with nothing to key is returned as it is.
        """
        keys = keys_by_text(analyzers)
        if not any(c.candidate.analyzer in keys for c in self.constraints):
            return self
        constraints = tuple(
            replace(c, candidate=replace(c.candidate, analyzer=keys[c.candidate.analyzer]))
            if c.candidate.analyzer in keys
            else c
            for c in self.constraints
        )
        return replace(self, constraints=constraints)

    @classmethod
    def from_dict(cls, doc: Any) -> AVHProgram:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ConstraintFormatError
            If ``doc`` is not a saved AVH program, or one of a version this
            code does not read (1 to :data:`PROGRAM_VERSION`).
        """
        if not isinstance(doc, Mapping) or doc.get("format") != PROGRAM_FORMAT:
            raise ConstraintFormatError(f"not an AVH program (format {PROGRAM_FORMAT!r})")
        version = doc.get("version")
        if type(version) is not int or not 1 <= version <= PROGRAM_VERSION:
            raise ConstraintFormatError(
                f"AVH program version {version!r}: this autovalidate reads versions "
                f"1 to {PROGRAM_VERSION} (a newer program needs a newer autovalidate)"
            )
        try:
            return cls(
                str(doc["dataset"]),
                float(doc["delta"]),
                tuple(AVHConstraint.from_dict(c) for c in doc["constraints"]),
                int(doc["history_results"]),
                int(doc.get("candidates", 0)),
                int(doc.get("synthetic_issues", 0)),
                int(doc.get("synthetic_issues_caught", 0)),
                {k: (int(v[0]), int(v[1])) for k, v in doc.get("issue_kinds", {}).items()},
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ConstraintFormatError(f"not an AVH program: {e}") from e

    @classmethod
    def load(cls, path: str | Path) -> AVHProgram:
        """Read a program saved with :meth:`to_json`.

        Raises
        ------
        ConstraintFormatError
            If the file is not a program.
        DataSourceError
            If it cannot be read.
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise DataSourceError(str(path), f"cannot read: {e}") from e
        try:
            doc = parse_json(text)
        except json.JSONDecodeError as e:
            raise ConstraintFormatError(f"{path}: not JSON: {e}") from e
        return cls.from_dict(doc)


#: Bounds whose interval narrows when given more of the budget.
_ADJUSTABLE = ("chebyshev", "cantelli", "clt")


def _spend(
    fitted: list[Interval], histories: list[tuple[float, ...]], delta: float
) -> list[Interval]:
    """The chosen intervals refitted so that their bounds use all of ``delta``.

    The selection stops when no option within the rest of the budget covers
    a synthetic issue not yet covered, often with budget left. The bounds of
    the chosen intervals that narrow with more budget (Chebyshev, Cantelli,
    CLT) are all scaled by one factor so that the program's bounds sum to
    ``delta`` (less a relative 1e-9 for rounding): each interval is narrower,
    covers every issue it covered, and the union bound still holds.
    """
    spare = delta - sum(i.fpr for i in fitted)
    total = sum(i.fpr for i in fitted if i.bound in _ADJUSTABLE)
    if spare <= 0 or total <= 0:
        return fitted
    scale = (1 + spare / total) * (1 - 1e-9)
    return [
        fit_interval(h, min(1.0, i.fpr * scale), side=i.side, clt=i.bound == "clt")
        if i.bound in _ADJUSTABLE
        else i
        for i, h in zip(fitted, histories, strict=True)
    ]


def fit_program(
    history: Sequence[AnalysisResult],
    reference: pd.DataFrame | None,
    delta: float,
    *,
    issues: Sequence[SyntheticIssue] | None = None,
    clt: bool = False,
    alpha: float = 0.05,
    seed: int = 0,
    zero_variance: ZeroVariance = "rank",
) -> AVHProgram:
    """Program the constraints of a dataset from its history (Tu et al., KDD 2023, §3).

    Parameters
    ----------
    history
        The dataset's recorded AVH statistics (:func:`record_avh_batch`), at least 3 results.
    reference
        A clean batch to derive synthetic issues from (usually the newest
        recorded one); not read when ``issues`` is given.
    delta
        Budget on the program's false-positive rate, a fraction in (0, 1].
    issues
        Synthetic issues made beforehand (:func:`synthetic_issues`), e.g. to
        program several budgets from one reference.
    clt
        Also offer normal-approximation intervals for means and completeness.
    alpha
        Significance of the trend test that decides differencing.
    seed
        Seeds the synthetic issues.
    zero_variance
        How a history without variation is bounded
        (:func:`~autovalidate.anomaly.avh.fit_interval`): ``"rank"`` (the
        default; a bound that holds) or ``"plugin"`` (the plug-in estimate
        ``sigma = 0``; not a guarantee, see :mod:`autovalidate.anomaly.avh`).

    Returns
    -------
    AVHProgram
        Its bounds sum to at most ``delta`` (to ``delta`` when a chosen
        constraint has a Chebyshev, Cantelli or CLT bound: the budget the
        selection leaves narrows those, see the module docstring).

    Raises
    ------
    InsufficientHistoryError
        If fewer than 3 results.
    ParameterError
        If ``delta`` is outside (0, 1], or neither ``reference`` nor ``issues`` is given.
    """
    if reference is None and issues is None:
        raise ParameterError("fit_program needs a reference batch or synthetic issues")
    if not 0.0 < delta <= 1.0:
        raise ParameterError(f"delta must be in (0, 1], got {delta}")
    if len(history) < 3:
        dataset = history[0].result_key.dataset if history else "?"
        raise InsufficientHistoryError(dataset, len(history), 3)
    ordered = sorted(history, key=lambda r: r.result_key.dataset_date)
    dataset = ordered[-1].result_key.dataset
    last = _Observation.of(ordered[-1].metrics)
    pool = candidates(ordered, alpha=alpha)
    if issues is None:
        assert reference is not None
        issues = synthetic_issues(
            reference,
            numeric_columns=_tracked_numeric(ordered),
            seed=seed,
            patterns=tracked_patterns(ordered),
        )
    observed = [_Observation.of(i.metrics) for i in issues]
    options: list[Option] = []
    intervals: dict[tuple[str, float], Interval] = {}
    by_key = {c.key + "|" + s: (c, s) for c in pool for s in _sides(c)}
    for key, (c, side) in by_key.items():
        values = [_value_of(c, o, last) for o in observed]
        for level in range(_LEVELS):
            interval = fit_interval(
                c.history,
                delta / 2**level,
                side=side,
                clt=_clt(c, clt),
                zero_variance=zero_variance,
            )
            if interval.fpr > delta:
                break
            covers = frozenset(
                i for i, v in enumerate(values) if v is None or not interval.contains(v)
            )
            intervals[(key, interval.fpr)] = interval
            options.append(Option(key, interval.fpr, covers))
            if interval.bound in ("rank", "constant"):  # a price that does not depend on fpr
                break
    chosen = select_constraints(options, delta)
    fitted = [intervals[(o.candidate, o.fpr)] for o in chosen]
    fitted = _spend(fitted, [by_key[o.candidate][0].history for o in chosen], delta)
    constraints = tuple(
        AVHConstraint(by_key[o.candidate][0], i, i.fpr / delta)
        for o, i in zip(chosen, fitted, strict=True)
    )
    covered = {
        k
        for o, i in zip(chosen, fitted, strict=True)
        for k, v in enumerate(_value_of(by_key[o.candidate][0], x, last) for x in observed)
        if v is None or not i.contains(v)
    }
    kinds: dict[str, tuple[int, int]] = {}
    for i, issue in enumerate(issues):
        caught, total = kinds.get(issue.kind, (0, 0))
        kinds[issue.kind] = (caught + (i in covered), total + 1)
    return AVHProgram(
        dataset, delta, constraints, len(ordered), len(by_key), len(issues), len(covered), kinds
    )


def validate_batch_avh(
    data: Any,
    repository: MetricsRepository,
    dataset: str,
    *,
    delta: float = 0.01,
    program: AVHProgram | None = None,
    reference: pd.DataFrame | None = None,
    tags: Mapping[str, str] | None = None,
    before: int | None = None,
    clt: bool = False,
    zero_variance: ZeroVariance = "rank",
) -> tuple[BatchValidationResult, AVHProgram]:
    """Accept or reject a batch by an AVH program (programmed here unless ``program`` is given).

    Parameters
    ----------
    data
        The new batch (as for :func:`avh_statistics`).
    repository
        Holds the AVH statistics of earlier, accepted batches (:func:`record_avh_batch`).
    dataset
        The dataset's name in the repository.
    delta
        Budget on the false-positive rate, a fraction in (0, 1] (ignored with ``program``).
    program
        A pinned program; its differences and distances are taken against the
        newest result of the history.
    reference
        A clean batch the synthetic issues are made from when programming
        (typically the newest recorded one); required without ``program``.
        Never the batch being validated: the program would then lean on the
        constraints that batch happens to break, and its false-positive
        bound would no longer hold.
    tags, before
        Which earlier results form the history (as for ``validate_batch``).
    clt
        Also offer normal-approximation intervals for averages.
    zero_variance
        ``"rank"`` or ``"plugin"``: how a history without variation is
        bounded when programming (:func:`fit_program`).

    Returns
    -------
    tuple
        The decision (one :class:`~autovalidate.monitor.batches.StatisticDecision`
        per constraint; ``detail`` states its bound and budget share) and the program.

    Raises
    ------
    InsufficientHistoryError
        If the history has fewer than 3 results (or none, with a program).
    ParameterError
        If ``delta`` is outside (0, 1], or neither ``program`` nor ``reference`` is given.
    RepositoryError
        If the repository cannot be read.

    References
    ----------
    Tu, He et al., "Auto-Validate by-History", KDD 2023, §3.
    """
    history = sorted(
        _history(repository, dataset, tags, before), key=lambda r: r.result_key.dataset_date
    )
    if not history:
        raise InsufficientHistoryError(dataset, 0, 1 if program is not None else 3)
    numeric = _tracked_numeric(history)
    patterns = tracked_patterns(history)
    computed = avh_statistics(data, numeric_columns=numeric, patterns=patterns)
    current = {analyzer_key(a): m for a, m in computed.items()}
    # results and programs saved before analyzer keys name the analyzers by their text
    history = [r.with_keys_of(computed) for r in history]
    if program is not None:
        program = program.with_keys_of(computed)
    if program is None:
        if reference is None:
            raise ParameterError("programming needs a clean reference batch (or pass a program)")
        program = fit_program(history, reference, delta, clt=clt, zero_variance=zero_variance)
    decisions = []
    for c, value in program.evaluate(current, history[-1].metrics):
        i = c.interval
        label = {"value": "", "difference": " (difference)", "distance": " (vs previous)"}
        bound = f"{i.bound} bound {i.fpr:.4g} ({c.share:.0%} of the budget)"
        transform = c.candidate.transform
        missing = value is None
        decisions.append(
            StatisticDecision(
                analyzer=c.candidate.text if transform == "value" else c.candidate.key,
                name=c.candidate.name + label[transform],
                column=c.candidate.column,
                value=value,
                history=len(c.candidate.history) or program.history_results,
                expected=i.center,
                lower=_finite(i.lower),
                upper=_finite(i.upper),
                status="missing"
                if missing
                else ("accepted" if value is not None and i.contains(value) else "rejected"),
                detail=f"not computed; {bound}" if missing else bound,
            )
        )
    accepted = not any(d.rejects for d in decisions)
    strategy = {"name": "avh", "delta": program.delta, "fpr_bound": program.fpr_bound}
    result = BatchValidationResult(dataset, accepted, tuple(decisions), len(history), strategy)
    return result, program
