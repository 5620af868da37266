"""Running analyzers: Algorithm 1 of Schelter et al., ICDE 2019, once for every engine.

:func:`run_analyzers` schedules a set of analyzers on an engine so that the
data is read as few times as possible:

1. the aggregations of every scan-shareable analyzer go into one query;
2. the frequency-based analyzers are grouped by their :class:`~autovalidate.metrics.base.Grouping`,
   and each distinct grouping is computed once; the aggregations of the
   scan-shareable frequency analyzers of a grouping then run in one query
   over the grouped data, the others (MutualInformation, Histogram) query it
   in turn, in which case the grouping is materialized first. When states are
   loaded or stored, the grouping is fetched once as Arrow (its state), merged,
   and queried there.

So a run reads the data ``1 + number of distinct groupings`` times (no
scan-shareable analyzer: one less; on Spark one more when the aggregations mix
ones Spark compiles with ones it cannot, which run in a job of their own:
:meth:`autovalidate.engines.spark.SparkEngine.aggregate`). With more than one grouping, the engine
is first told to :meth:`~autovalidate.engines.Engine.hold` the columns they
read: DuckDB reads them once into memory (when they fit), so that the
groupings cost no scan each, and a grouping's query costs the same however
wide the data. On data without declared types (CSV read
as text, :attr:`~autovalidate.engines.Engine.untyped`), the analyzers that read
text columns as numbers (minimum, maximum, mean, sum, standard deviation,
quantiles, correlation) read them cast to numbers inside their aggregations,
in the same shared scan (a value that is not a number is null there, as
Deequ's column profiler casts a string column it inferred numeric); a
comparison with a number (``is_in_range``) compares the cast value, so that
a text that is not a number fails it as in Deequ on Spark. Those with a
``where`` filter, and the others, run on the engine's numeric view of the
columns instead, one more scan. With
``share_scans=False`` every analyzer runs alone instead, for comparison.
Each state is merged with the state a loader holds for it (appending data to
what was analyzed before) and stored with a persister when given, before the
metric is computed from it.
:func:`metrics_from_states` computes metrics from stored states alone, without
reading any data: the metrics of any set of partitions, or of a table after
one partition was replaced.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from autovalidate.analysis.state_provider import StateLoader, StatePersister
from autovalidate.engines import Engine, ExecutionStats, open_engine
from autovalidate.errors import (
    AutovalidateError,
    DataSourceError,
    EngineError,
    QueryError,
    UnsafeInputError,
)
from autovalidate.metrics.base import (
    Analyzer,
    ColumnKind,
    EngineAnalyzer,
    FrequencyBasedAnalyzer,
    FrequencyTable,
    Metric,
    ScanShareableAnalyzer,
    ScanShareableFrequencyBasedAnalyzer,
    Schema,
    State,
    merge_states,
)
from autovalidate.metrics.expressions import Expr
from autovalidate.metrics.frequencies import FrequenciesState
from autovalidate.metrics.schema import ColumnTypes
from autovalidate.metrics.sketches import narrowed_quantile_grids, spread_quantile_grid

__all__ = [
    "AnalysisRunBuilder",
    "AnalysisRunner",
    "AnalyzerContext",
    "RunBuilder",
    "metric_from_state",
    "metrics_from_states",
    "run_analyzers",
]


@dataclass
class AnalyzerContext:
    """The metrics of one analysis run (Deequ's ``AnalyzerContext``).

    Attributes
    ----------
    metrics
        Analyzer -> metric (a failed metric carries its error).
    stats
        The queries the run issued.
    """

    metrics: dict[Analyzer, Metric]
    stats: ExecutionStats = field(default_factory=ExecutionStats)

    def metric(self, analyzer: Analyzer) -> Metric:
        """Return the metric of ``analyzer``.

        Raises
        ------
        KeyError
            If the run did not include the analyzer.
        """
        return self.metrics[analyzer]

    def metrics_as_rows(self) -> list[dict[str, Any]]:
        """Successful metrics as rows ``entity, instance, name, value`` (Deequ's layout)."""
        return [
            {"entity": m.entity.value, "instance": m.instance, "name": name, "value": value}
            for m in self.metrics.values()
            for name, value in m.flatten()
        ]

    def to_json(self) -> str:
        """Return the metrics as JSON: successes with values, failures with their error."""
        rows = [{"analyzer": str(a), **m.to_dict()} for a, m in self.metrics.items()]
        return json.dumps({"metrics": rows})


class _StateIO:
    """Loading and persisting states once per state key within a run."""

    def __init__(self, loader: StateLoader | None, persister: StatePersister | None) -> None:
        self.loader = loader
        self.persister = persister
        self._loaded: dict[str, State | None] = {}
        self._persisted: set[str] = set()

    @property
    def active(self) -> bool:
        return self.loader is not None or self.persister is not None

    def combine(self, analyzer: Analyzer, state: State | None) -> State | None:
        """Merge with the loaded state and persist the result."""
        key = analyzer.state_key
        if self.loader is not None:
            if key not in self._loaded:
                self._loaded[key] = self.loader.load(analyzer)
            state = merge_states(state, self._loaded[key])
        if self.persister is not None and state is not None and key not in self._persisted:
            self.persister.persist(analyzer, state)
            self._persisted.add(key)
        return state


def fails_the_run(exc: AutovalidateError) -> bool:
    """Whether an error fails the whole run rather than the metrics of one query.

    Input that cannot be read, a failure of the engine itself and user code
    refused before it ran fail the run; an error in one query's expressions
    (:class:`~autovalidate.errors.QueryError`, a missing column...) fails
    that query's metrics, a value as in Deequ.
    """
    return isinstance(exc, (DataSourceError, EngineError, UnsafeInputError)) and not isinstance(
        exc, QueryError
    )


def _unique_exprs(analyzers_exprs: Iterable[Sequence[Expr]]) -> list[Expr]:
    return list(dict.fromkeys(e for exprs in analyzers_exprs for e in exprs))


def _pick(values: Sequence[Any], positions: Mapping[Expr, int], exprs: Sequence[Expr]) -> list[Any]:
    return [values[positions[e]] for e in exprs]


def _scanning_metrics(
    engine: Engine,
    analyzers: Sequence[ScanShareableAnalyzer],
    io: _StateIO,
    aggregations: Mapping[Analyzer, tuple[Expr, ...]],
) -> dict[Analyzer, Metric]:
    """Metrics of analyzers from one query of all their aggregations (``aggregations`` if there)."""

    def of(analyzer: ScanShareableAnalyzer) -> tuple[Expr, ...]:
        return aggregations[analyzer] if analyzer in aggregations else analyzer.aggregations()

    metrics: dict[Analyzer, Metric] = {}
    exprs = _unique_exprs(of(a) for a in analyzers)
    # States kept for later need whole quantile grids; metrics alone need fewer points.
    narrowed = {} if io.active else narrowed_quantile_grids((a, of(a)) for a in analyzers)
    try:
        values = engine.aggregate([narrowed.get(e, e) for e in exprs])
    except AutovalidateError as exc:
        if fails_the_run(exc):
            raise
        if len(analyzers) == 1:
            return {analyzers[0]: analyzers[0].failure(exc)}
        # One bad analyzer (a broken where filter, say) fails the shared query: rerun
        # each alone so that only the broken ones fail.
        for analyzer in analyzers:
            metrics.update(_scanning_metrics(engine, [analyzer], io, aggregations))
        return metrics
    values = [
        spread_quantile_grid(narrowed[e], v) if e in narrowed else v
        for e, v in zip(exprs, values, strict=True)
    ]
    positions = {e: i for i, e in enumerate(exprs)}
    for analyzer in analyzers:
        try:
            state = analyzer.state_from_aggregates(_pick(values, positions, of(analyzer)))
        except Exception as exc:  # noqa: BLE001 - Deequ's Try: a failed metric is a value
            metrics[analyzer] = analyzer.failure(exc)
            continue
        metrics[analyzer] = analyzer.metric_from_state(io.combine(analyzer, state))
    return metrics


def metric_from_state(analyzer: Analyzer, state: State | None) -> Metric:
    """The metric of the data a stored state summarizes, reading no data.

    A frequency state is queried as Arrow through DuckDB (the one analyzer
    family whose metric needs an engine); any other state gives its metric
    directly.

    Returns
    -------
    Metric
        A failure metric for a ``None`` (empty) state or on any error.
    """
    if isinstance(analyzer, ScanShareableAnalyzer):
        return analyzer.metric_from_state(state)
    if state is None:
        return analyzer.empty()
    assert isinstance(analyzer, FrequencyBasedAnalyzer) and isinstance(state, FrequenciesState)
    from autovalidate.engines.duckdb import ArrowFrequencyTable

    try:
        return _frequency_metrics([analyzer], ArrowFrequencyTable(state.table))[analyzer]
    except Exception as exc:  # noqa: BLE001 - Deequ's Try: a failed metric is a value
        return analyzer.failure(exc)


def _frequency_metrics(
    analyzers: Sequence[FrequencyBasedAnalyzer], table: FrequencyTable
) -> dict[Analyzer, Metric]:
    """Metrics of analyzers sharing one frequency table: one query for the shareable ones."""
    metrics: dict[Analyzer, Metric] = {}
    shareable = [a for a in analyzers if isinstance(a, ScanShareableFrequencyBasedAnalyzer)]
    if shareable:
        exprs = _frequency_exprs(shareable)
        try:
            values = table.aggregate(exprs)
        except AutovalidateError as exc:
            if fails_the_run(exc):
                raise
            metrics.update({a: a.failure(exc) for a in shareable})
        else:
            metrics.update(_metrics_from_frequency_aggregates(shareable, exprs, values))
    for analyzer in analyzers:
        if analyzer not in metrics:
            try:
                metrics[analyzer] = analyzer.metric_from_frequencies(table)
            except AutovalidateError as exc:
                if fails_the_run(exc):
                    raise
                metrics[analyzer] = analyzer.failure(exc)
    return metrics


def _frequency_exprs(analyzers: Sequence[ScanShareableFrequencyBasedAnalyzer]) -> list[Expr]:
    """The aggregations scan-shareable analyzers of one grouping run over its frequencies."""
    return _unique_exprs(a.frequency_aggregations() for a in analyzers)


def _metrics_from_frequency_aggregates(
    analyzers: Sequence[ScanShareableFrequencyBasedAnalyzer],
    exprs: Sequence[Expr],
    values: Sequence[Any],
) -> dict[Analyzer, Metric]:
    positions = {e: i for i, e in enumerate(exprs)}
    return {
        a: a.metric_from_aggregates(_pick(values, positions, a.frequency_aggregations()))
        for a in analyzers
    }


def _groupings_together(
    engine: Engine, groups: Sequence[Sequence[FrequencyBasedAnalyzer]]
) -> dict[Analyzer, Metric]:
    """Metrics of groupings whose analyzers all aggregate their frequencies, grouped in one scan.

    Beyond Deequ, which groups once per grouping: the engine groups several
    at once where it can (:meth:`~autovalidate.engines.Engine.aggregate_groupings`).
    Where it cannot, or the joint queries fail (each grouping then runs on
    its own, so that a failure is its analyzers' alone), no metric comes
    from here.
    """
    eligible = [
        [a for a in members if isinstance(a, ScanShareableFrequencyBasedAnalyzer)]
        for members in groups
    ]
    eligible = [
        shareable
        for shareable, members in zip(eligible, groups, strict=True)
        if len(shareable) == len(members)
    ]
    requests = [(members[0].grouping, _frequency_exprs(members)) for members in eligible]
    try:
        answers = engine.aggregate_groupings(requests)
    except AutovalidateError as exc:
        if fails_the_run(exc):
            raise
        return {}
    metrics: dict[Analyzer, Metric] = {}
    for members, (_, exprs), values in zip(eligible, requests, answers or [], strict=False):
        metrics.update(_metrics_from_frequency_aggregates(members, exprs, values))
    return metrics


def _queries_on_frequencies(analyzers: Sequence[FrequencyBasedAnalyzer]) -> int:
    shared = any(isinstance(a, ScanShareableFrequencyBasedAnalyzer) for a in analyzers)
    return int(shared) + sum(
        a.frequency_queries
        for a in analyzers
        if not isinstance(a, ScanShareableFrequencyBasedAnalyzer)
    )


def _grouping_metrics(
    engine: Engine, analyzers: Sequence[FrequencyBasedAnalyzer], io: _StateIO
) -> dict[Analyzer, Metric]:
    from autovalidate.engines.duckdb import ArrowFrequencyTable

    grouping = analyzers[0].grouping
    table: FrequencyTable
    try:
        if io.active:
            # The state is fetched as Arrow anyway: merge it, and query it there.
            fetched = engine.frequencies(grouping, materialize=False).to_arrow()
            state = io.combine(analyzers[0], FrequenciesState(fetched))
            assert isinstance(state, FrequenciesState)
            table = ArrowFrequencyTable(state.table, engine.stats)
        else:
            materialize = _queries_on_frequencies(analyzers) > 1
            table = engine.frequencies(grouping, materialize=materialize)
    except AutovalidateError as exc:
        if fails_the_run(exc):
            raise
        return {a: a.failure(exc) for a in analyzers}
    return _frequency_metrics(analyzers, table)


def run_analyzers(
    engine: Engine,
    analyzers: Iterable[Analyzer],
    *,
    aggregate_with: StateLoader | None = None,
    save_states_with: StatePersister | None = None,
    share_scans: bool = True,
) -> AnalyzerContext:
    """Compute the metrics of ``analyzers`` on the engine's data (ICDE 2019, Algorithm 1).

    Parameters
    ----------
    engine
        The data and how to query it.
    analyzers
        The analyzers; duplicates are computed once.
    aggregate_with
        Earlier states to merge with (the analyzed data is appended to theirs).
    save_states_with
        Where to store the (merged) states.
    share_scans
        ``False`` runs every analyzer in its own queries (for comparison).

    Returns
    -------
    AnalyzerContext
        A metric for every analyzer; failures (missing column, wrong type,
        empty state, engine error) are failed metrics. ``stats`` counts the
        queries of this run.
    """
    unique = list(dict.fromkeys(analyzers))
    start = engine.stats.queries
    io = _StateIO(aggregate_with, save_states_with)
    schema = engine.schema()
    cast = _text_read_as_numbers(engine, unique, schema)
    inline: dict[Analyzer, tuple[Expr, ...]] = {}
    for analyzer, columns in cast.items():
        if isinstance(analyzer, ScanShareableAnalyzer):
            exprs = analyzer.aggregations_reading_text(columns)
            if exprs is not None:
                inline[analyzer] = exprs
    on_view = {a: columns for a, columns in cast.items() if a not in inline}
    numeric = {a: _read_as_numbers(schema, cast[a]) for a in inline}
    here = [a for a in unique if a not in on_view]
    metrics = _run(engine, schema, here, io, share_scans, inline, numeric)
    if on_view:
        view = engine.numeric_view(sorted({c for columns in on_view.values() for c in columns}))
        metrics.update(_run(view, view.schema(), list(on_view), io, share_scans))
    return AnalyzerContext({a: metrics[a] for a in unique}, engine.stats.since(start))


def _read_as_numbers(schema: Schema, columns: Sequence[str]) -> Schema:
    """``schema`` with ``columns`` numeric: what an analyzer reading them as numbers sees."""
    return {**schema, **dict.fromkeys(columns, ColumnKind.NUMERIC)}


def _text_read_as_numbers(
    engine: Engine, analyzers: Sequence[Analyzer], schema: Schema
) -> dict[Analyzer, list[str]]:
    """Analyzer -> the text columns it reads as numbers, on an untyped engine (else none).

    A scan-shareable analyzer reads them cast inside its own aggregations
    (:meth:`~autovalidate.metrics.base.ScanShareableAnalyzer.aggregations_reading_text`),
    in the one shared scan; the others (and those with a ``where`` filter)
    run on the engine's numeric view of the columns, one more scan.
    """
    if not engine.untyped:
        return {}
    cast = {
        a: [c for c in a.numeric_columns() if schema.get(c) is ColumnKind.STRING] for a in analyzers
    }
    return {a: columns for a, columns in cast.items() if columns}


def _own_queries_metric(engine: Engine, analyzer: EngineAnalyzer) -> Metric:
    """The analyzer's metric from its own queries (a second data set, a sort)."""
    try:
        return analyzer.metric_from_engine(engine)
    except AutovalidateError as exc:
        if fails_the_run(exc):
            raise
        return analyzer.failure(exc)


def _run(
    engine: Engine,
    schema: Schema,
    analyzers: Sequence[Analyzer],
    io: _StateIO,
    share_scans: bool,
    aggregations: Mapping[Analyzer, tuple[Expr, ...]] | None = None,
    schemas: Mapping[Analyzer, Schema] | None = None,
) -> dict[Analyzer, Metric]:
    """Metrics of ``analyzers`` on the engine.

    ``aggregations`` replaces the aggregations of some scan-shareable
    analyzers (text read as numbers), and ``schemas`` the schema their
    preconditions see.
    """
    metrics: dict[Analyzer, Metric] = {}
    runnable: list[Analyzer] = []
    for analyzer in analyzers:
        error = analyzer.check_preconditions((schemas or {}).get(analyzer, schema))
        if isinstance(analyzer, ColumnTypes):  # read from the schema, no query
            metrics[analyzer] = analyzer.metric_from_columns(engine.column_types())
        elif error is None and isinstance(analyzer, EngineAnalyzer):
            metrics[analyzer] = _own_queries_metric(engine, analyzer)
        elif error is None:
            runnable.append(analyzer)
        else:
            metrics[analyzer] = analyzer.failure(error)

    scanning = [a for a in runnable if isinstance(a, ScanShareableAnalyzer)]
    batches = [scanning] if share_scans else [[a] for a in scanning]
    for batch in batches:
        if batch:
            metrics.update(_scanning_metrics(engine, batch, io, aggregations or {}))

    groups: dict[Any, list[FrequencyBasedAnalyzer]] = {}
    for analyzer in runnable:
        if isinstance(analyzer, FrequencyBasedAnalyzer):
            key = analyzer.grouping if share_scans else analyzer
            groups.setdefault(key, []).append(analyzer)
    if share_scans and len(groups) > 1:  # a query per grouping: read their columns once
        engine.hold(c for members in groups.values() for c in members[0].grouping.columns or ())
    if share_scans and not io.active and len(groups) > 1:
        metrics.update(_groupings_together(engine, list(groups.values())))
    for members in groups.values():
        if members[0] not in metrics:
            metrics.update(_grouping_metrics(engine, members, io))
    return metrics


def metrics_from_states(
    analyzers: Iterable[Analyzer],
    loaders: Sequence[StateLoader],
    *,
    save_states_with: StatePersister | None = None,
) -> AnalyzerContext:
    """Metrics of the union of the data sets whose states the loaders hold, reading no data.

    Deequ's ``runOnAggregatedStates``: each analyzer's states are merged across
    the loaders (the partitions of a table, or a table and its appended
    deltas), optionally stored with ``save_states_with``, and the metric comes
    from the merged state. An analyzer without any stored state gets an
    empty-state failure.

    Returns
    -------
    AnalyzerContext
        ``stats.scans`` is 0; ``stats.queries`` counts the queries over
        stored frequency tables.
    """
    from autovalidate.engines.duckdb import ArrowFrequencyTable

    unique = list(dict.fromkeys(analyzers))
    stats = ExecutionStats()
    merged: dict[str, State | None] = {}
    for analyzer in unique:
        if analyzer.state_key not in merged:
            state = merge_states(*(loader.load(analyzer) for loader in loaders))
            merged[analyzer.state_key] = state
            if save_states_with is not None and state is not None:
                save_states_with.persist(analyzer, state)

    metrics: dict[Analyzer, Metric] = {}
    groups: dict[str, list[FrequencyBasedAnalyzer]] = {}
    for analyzer in unique:
        if isinstance(analyzer, FrequencyBasedAnalyzer):
            groups.setdefault(analyzer.state_key, []).append(analyzer)
        else:
            metrics[analyzer] = metric_from_state(analyzer, merged[analyzer.state_key])
    for key, members in groups.items():
        state = merged[key]
        if state is None:
            metrics.update({a: a.empty() for a in members})
            continue
        assert isinstance(state, FrequenciesState)
        metrics.update(_frequency_metrics(members, ArrowFrequencyTable(state.table, stats)))
    return AnalyzerContext({a: metrics[a] for a in unique}, stats)


B = TypeVar("B", bound="RunBuilder")


class RunBuilder:
    """What every run on data takes: the data, state loading and storing, scan sharing.

    Holds the analyzers to run; :class:`AnalysisRunBuilder` and the checks'
    ``VerificationRunBuilder`` add their own entry points.
    """

    def __init__(self, data: Any) -> None:
        self._data = data
        self._analyzers: list[Analyzer] = []
        self._loader: StateLoader | None = None
        self._persister: StatePersister | None = None
        self._share_scans = True

    def aggregate_with(self: B, loader: StateLoader) -> B:
        """Merge the computed states with those ``loader`` holds (append to earlier data)."""
        self._loader = loader
        return self

    def save_states_with(self: B, persister: StatePersister) -> B:
        """Store the (merged) states with ``persister``."""
        self._persister = persister
        return self

    def share_scans(self: B, enabled: bool) -> B:
        """Turn scan sharing off (``False``) to run every analyzer alone."""
        self._share_scans = enabled
        return self

    def _run_analyzers(self, analyzers: Iterable[Analyzer]) -> AnalyzerContext:
        with open_engine(self._data) as engine:
            return run_analyzers(
                engine,
                analyzers,
                aggregate_with=self._loader,
                save_states_with=self._persister,
                share_scans=self._share_scans,
            )


class AnalysisRunBuilder(RunBuilder):
    """Collects the analyzers of a run; :meth:`run` runs them."""

    def add_analyzer(self, analyzer: Analyzer) -> AnalysisRunBuilder:
        """Add an analyzer."""
        self._analyzers.append(analyzer)
        return self

    def add_analyzers(self, analyzers: Iterable[Analyzer]) -> AnalysisRunBuilder:
        """Add analyzers."""
        self._analyzers.extend(analyzers)
        return self

    def run(self) -> AnalyzerContext:
        """Run the analysis (see :func:`run_analyzers`).

        Raises
        ------
        DataSourceError, DataError
            If the data cannot be read at all.
        """
        return self._run_analyzers(self._analyzers)


class AnalysisRunner:
    """Entry point for analyses (Deequ's ``AnalysisRunner``).

    Examples
    --------
    >>> import pandas as pd
    >>> from autovalidate.analysis import AnalysisRunner
    >>> from autovalidate.metrics import Completeness, Size
    >>> data = pd.DataFrame({"a": [1, None, 3, 4]})
    >>> context = AnalysisRunner.on_data(data).add_analyzer(Size()).add_analyzer(
    ...     Completeness("a")).run()
    >>> context.metric(Completeness("a")).value
    0.75
    >>> context.stats.scans
    1
    """

    @staticmethod
    def on_data(data: Any) -> AnalysisRunBuilder:
        """Start a run on ``data``.

        ``data`` is a pandas DataFrame, a path (CSV read as text, see
        :func:`run_analyzers`), an Arrow table or a DuckDB relation (the DuckDB
        engine), a PySpark DataFrame (the Spark engine), or an
        :class:`~autovalidate.engines.Engine`.
        """
        return AnalysisRunBuilder(data)

    @staticmethod
    def run_on_aggregated_states(
        analyzers: Iterable[Analyzer],
        loaders: Sequence[StateLoader],
        *,
        save_states_with: StatePersister | None = None,
    ) -> AnalyzerContext:
        """Metrics from stored states only (see :func:`metrics_from_states`)."""
        return metrics_from_states(analyzers, loaders, save_states_with=save_states_with)
