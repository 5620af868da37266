"""Scan sharing, incremental runs, stored states and partitions (DuckDB engine)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from autovalidate.analysis import (
    AnalysisRunner,
    InMemoryStateProvider,
    LocalDirectoryStateProvider,
    PartitionedStates,
)
from autovalidate.errors import DataSourceError, ParameterError
from autovalidate.metrics import (
    ApproxCountDistinct,
    ApproxQuantile,
    Completeness,
    Correlation,
    CountDistinct,
    DataType,
    Distinctness,
    Entropy,
    FrequenciesState,
    Histogram,
    MaxLength,
    Mean,
    Minimum,
    MutualInformation,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
    Uniqueness,
)
from tests.deequ_support import arrow, run, same_value, states

A = arrow({"k": ["a", "b", "a", None, "c"], "x": [1.0, 2.0, None, 4.0, 5.0], "y": [1, 2, 3, 4, 5]})
B = arrow({"k": ["c", "d", None, "a"], "x": [7.0, None, 9.0, 1.0], "y": [6, 7, 8, 9]})
C = arrow({"k": ["e", "e"], "x": [0.5, -2.0], "y": [10, 11]})

ANALYZERS = [
    Size(),
    Completeness("x"),
    Mean("x"),
    Sum("x"),
    Minimum("x"),
    StandardDeviation("x"),
    Correlation("x", "y"),
    ApproxQuantile("y", 0.5),
    ApproxCountDistinct("k"),
    DataType("k"),
    PatternMatch("k", "[a-c]"),
    MaxLength("k"),
    Uniqueness("k"),
    Distinctness("k"),
    CountDistinct("k"),
    Entropy("k"),
    MutualInformation(["k", "y"]),
    Histogram("k"),
]


def _union(*tables: pa.Table) -> pa.Table:
    return pa.concat_tables(tables)


def _assert_same_metrics(left, right, analyzers=ANALYZERS):
    for analyzer in analyzers:
        a, b = left.metric(analyzer), right.metric(analyzer)
        assert same_value(a.value, b.value), (analyzer, a.value, b.value)
        assert (a.error is None) == (b.error is None), analyzer


def test_one_query_for_scan_shareable_analyzers_and_one_per_grouping():
    scanning = [Size(), Completeness("x"), Mean("x"), ApproxCountDistinct("k"), DataType("k")]
    grouped = [Uniqueness("k"), Distinctness("k"), Entropy("k")]  # one grouping, one query
    histogram = [Histogram("x")]  # its own grouping, materialized: needs two queries
    context = run(A, scanning + grouped + histogram)
    # two groupings: their columns are read once (held), then grouped in memory
    assert context.stats.scans == 2
    assert context.stats.queries == 6
    assert sum(line.startswith("scan: aggregate") for line in context.stats.log) == 1
    assert sum(line.startswith("scan: hold 2 columns") for line in context.stats.log) == 1


def test_without_scan_sharing_every_analyzer_scans():
    analyzers = [Size(), Completeness("x"), Mean("x"), Uniqueness("k"), Distinctness("k")]
    shared, alone = run(A, analyzers), run(A, analyzers, share_scans=False)
    assert (shared.stats.scans, alone.stats.scans) == (2, 5)
    _assert_same_metrics(shared, alone, analyzers)


def test_repeated_analyzers_are_computed_once():
    context = run(A, [Size(), Size(), Completeness("x"), Completeness("x")])
    assert len(context.metrics) == 2 and context.stats.scans == 1


def test_metrics_rows_and_json():
    context = run(A, [Size(), Histogram("k", max_detail_bins=1), Completeness("nope")])
    rows = context.metrics_as_rows()
    assert {"entity": "Dataset", "instance": "*", "name": "Size", "value": 5.0} in rows
    assert {"entity": "Column", "instance": "k", "name": "Histogram.abs.a", "value": 2.0} in rows
    assert not any(r["instance"] == "nope" for r in rows)
    parsed = json.loads(context.to_json())
    failed = [m for m in parsed["metrics"] if m["error"]]
    assert [m["instance"] for m in failed] == ["nope"]


def test_appending_with_stored_states_equals_recomputing():
    first, second = InMemoryStateProvider(), InMemoryStateProvider()
    run(A, ANALYZERS, save_states_with=first)
    incremental = run(B, ANALYZERS, aggregate_with=first, save_states_with=second)
    _assert_same_metrics(incremental, run(_union(A, B), ANALYZERS))
    # and again, from the stored states of A ∪ B
    again = run(C, ANALYZERS, aggregate_with=second)
    _assert_same_metrics(again, run(_union(A, B, C), ANALYZERS))


def test_metrics_from_stored_states_read_no_data(tmp_path):
    providers = []
    for i, table in enumerate((A, B, C)):
        provider = LocalDirectoryStateProvider(tmp_path / f"part{i}")
        run(table, ANALYZERS, save_states_with=provider)
        providers.append(provider)
    context = AnalysisRunner.run_on_aggregated_states(ANALYZERS, providers)
    assert context.stats.scans == 0
    assert context.stats.queries >= 1  # frequency metrics query the stored tables
    _assert_same_metrics(context, run(_union(A, B, C), ANALYZERS))


def test_every_state_round_trips_through_a_directory(tmp_path):
    _, computed = states(_union(A, B), ANALYZERS)
    provider = LocalDirectoryStateProvider(tmp_path)
    for analyzer, state in computed.items():
        provider.persist(analyzer, state)
    for analyzer, state in computed.items():
        loaded = provider.load(analyzer)
        if isinstance(state, FrequenciesState):
            assert loaded.table.equals(state.table)
        else:
            assert loaded == state, analyzer
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temporary files


def test_a_state_file_of_another_analyzer_is_refused(tmp_path):
    provider = LocalDirectoryStateProvider(tmp_path)
    provider.persist(Size(), states(A, [Size()])[1][Size()])
    (path,) = tmp_path.glob("*.json")
    meta = json.loads(path.read_text())
    meta["state_key"] = "something else"
    path.write_text(json.dumps(meta))
    with pytest.raises(DataSourceError):
        provider.load(Size())
    path.write_text("{not json")
    with pytest.raises(DataSourceError):
        provider.load(Size())
    assert provider.load(Completeness("x")) is None


def test_partitions_views_and_replacement(tmp_path):
    store = PartitionedStates(tmp_path / "states")
    for name, table in (("2024-01", A), ("2024/02", B), ("2024-03", C)):
        store.update(name, table, ANALYZERS)
    assert store.partitions() == ["2024-01", "2024-03", "2024/02"]
    # a view over some partitions
    _assert_same_metrics(
        store.metrics(ANALYZERS, ["2024-01", "2024-03"]), run(_union(A, C), ANALYZERS)
    )
    # replace one partition: the table's metrics follow without re-reading the others
    replacement = arrow({"k": ["z", "z", "a"], "x": [3.0, 3.0, None], "y": [0, 1, 2]})
    store.update("2024/02", replacement, ANALYZERS)
    _assert_same_metrics(store.metrics(ANALYZERS), run(_union(A, replacement, C), ANALYZERS))
    store.remove("2024-03")
    assert store.partitions() == ["2024-01", "2024/02"]
    with pytest.raises(ParameterError):
        store.metrics(ANALYZERS, ["2024-03"])


def test_a_failed_partition_update_keeps_the_old_states(tmp_path):
    store = PartitionedStates(tmp_path)
    store.update("p", A, ANALYZERS)
    before = store.metrics(ANALYZERS)
    with pytest.raises(DataSourceError):
        store.update("p", tmp_path / "missing.parquet", ANALYZERS)
    _assert_same_metrics(store.metrics(ANALYZERS), before)
    assert store.partitions() == ["p"]
