"""The Spark engine on a real local session: same metrics as DuckDB, counted queries, no leaks."""

from __future__ import annotations

import pyarrow as pa
import pytest

from autovalidate.analysis import InMemoryStateProvider
from autovalidate.engines.spark import SparkEngine, is_spark_dataframe
from autovalidate.errors import EngineError
from autovalidate.metrics import (
    ApproxCountDistinct,
    ApproxQuantiles,
    Completeness,
    Compliance,
    Correlation,
    CountDistinct,
    DataType,
    Entropy,
    ExactQuantile,
    Histogram,
    InterquartileRange,
    MaxLength,
    Mean,
    MutualInformation,
    PatternConformance,
    PatternMatch,
    Range,
    Size,
    StandardDeviation,
    Uniqueness,
)
from autovalidate.metrics import expressions as E
from autovalidate.metrics.base import ColumnKind
from tests.deequ_support import arrow, run, same_value

pytestmark = pytest.mark.spark

TABLE = arrow(
    {
        "id": [1, 2, 3, 4, 5, 6, 7, 8],
        "odd `name`": ["a", "b", "a", None, "c", "a", "b", "ä"],
        "amount": [1.5, -2.0, None, 4.25, 10.0, 0.0, None, 3.0],
        "code": ["AB-12", "AB-1", "XY-99", "ab-12", None, "AB-12", "1e5", "true"],
    }
)

ANALYZERS = [
    Size(),
    Size(where="id > 3"),
    Completeness("amount"),
    Compliance("positive", "amount > 0"),
    Mean("amount"),
    StandardDeviation("amount"),
    Correlation("id", "amount"),
    ApproxQuantiles("amount", [0.0, 0.5, 0.9, 1.0]),
    ApproxCountDistinct("code"),
    DataType("code"),
    PatternMatch("code", r"[A-Z]{2}-[0-9]{2}"),
    PatternConformance("code", r"[A-Z]{2}-[0-9]{1,2}"),
    MaxLength("odd `name`"),
    Uniqueness("odd `name`"),
    CountDistinct(["odd `name`", "code"]),
    Entropy("odd `name`"),
    MutualInformation(["odd `name`", "code"]),
    Histogram("odd `name`"),
]


@pytest.fixture(scope="module")
def frame(spark):
    return spark.createDataFrame(TABLE)


@pytest.fixture(scope="module")
def spark_states(frame):
    provider = InMemoryStateProvider()
    context = run(frame, ANALYZERS, save_states_with=provider)
    return context, provider


def test_spark_dataframes_are_recognized(frame):
    assert is_spark_dataframe(frame) and not is_spark_dataframe(TABLE)
    assert SparkEngine(frame).schema() == {
        "id": ColumnKind.NUMERIC,
        "odd `name`": ColumnKind.STRING,
        "amount": ColumnKind.NUMERIC,
        "code": ColumnKind.STRING,
    }


def test_spark_and_duckdb_compute_the_same_metrics_and_states(spark_states):
    spark_context, spark_provider = spark_states
    duck_provider = InMemoryStateProvider()
    duck_context = run(TABLE, ANALYZERS, save_states_with=duck_provider)
    for analyzer in ANALYZERS:
        s, d = spark_context.metric(analyzer), duck_context.metric(analyzer)
        assert s.error is None and d.error is None, (analyzer, s.error, d.error)
        assert same_value(s.value, d.value, rel=1e-12), (analyzer, s.value, d.value)
    # the sketches are computed by the same arithmetic: identical states
    for analyzer in (ApproxCountDistinct("code"), ApproxQuantiles("amount", [0.5])):
        assert spark_provider.load(analyzer) == duck_provider.load(analyzer)


def test_spark_runs_scan_sharing(spark_states):
    context, _ = spark_states
    # two aggregations (the compiled aggregates, and in a job of their own those Spark runs
    # interpreted: collect_set of the HyperLogLog codes, percentile_approx), and three
    # groupings (the name; name and code; the name's text for the histogram); states were
    # requested, so each grouping is persisted once
    groupings = {a.grouping for a in ANALYZERS if hasattr(a, "grouping")}
    assert context.stats.scans == 2 + len(groupings) == 5
    aggregations = [line for line in context.stats.log if line.startswith("scan: aggregate")]
    assert aggregations == ["scan: aggregate 23", "scan: aggregate 2"]


def test_exact_quantiles_and_ranges_on_spark_are_duckdbs_from_the_same_states(frame):
    analyzers = [
        ExactQuantile("amount", 0.5),
        ExactQuantile("id", 0.3, where="amount > 0"),
        InterquartileRange("amount"),
        Range("amount"),
        Range("id", where="id < 5"),
    ]
    spark_provider, duck_provider = InMemoryStateProvider(), InMemoryStateProvider()
    on_spark = run(frame, analyzers, save_states_with=spark_provider)
    on_duckdb = run(TABLE, analyzers, save_states_with=duck_provider)
    stateless = run(frame, analyzers)  # the frequencies queried where they are, not fetched
    for analyzer in analyzers:
        s, d = on_spark.metric(analyzer), on_duckdb.metric(analyzer)
        assert s.error is None and d.error is None, (analyzer, s.error, d.error)
        assert s.value == d.value == stateless.metric(analyzer).value, (analyzer, s.value, d.value)
    # the same states: frequencies of the values as floats, and the extremes
    for analyzer in analyzers:
        spark_state, duck_state = spark_provider.load(analyzer), duck_provider.load(analyzer)
        if isinstance(analyzer, Range):
            assert spark_state == duck_state
        else:
            assert (
                spark_state.table.sort_by(analyzer.column).to_pylist()
                == duck_state.table.sort_by(analyzer.column).to_pylist()
            )


def test_spark_without_scan_sharing(frame):
    analyzers = [Size(), Completeness("amount"), Mean("amount"), Uniqueness("code")]
    shared, alone = run(frame, analyzers), run(frame, analyzers, share_scans=False)
    assert (shared.stats.scans, alone.stats.scans) == (2, 4)
    for analyzer in analyzers:
        assert shared.metric(analyzer).value == alone.metric(analyzer).value


def test_persisted_groupings_are_released(spark, frame):
    jsc = spark.sparkContext._jsc
    before = len(jsc.getPersistentRDDs())
    run(frame, [Histogram("code"), MutualInformation(["id", "code"])])
    assert len(jsc.getPersistentRDDs()) == before


def test_spark_errors_become_failed_metrics(frame):
    bad = Compliance("bad", "no_such_column > 1")
    context = run(frame, [bad, Size()])
    assert isinstance(context.metric(bad).error, EngineError)
    assert context.metric(Size()).value == 8.0
    with pytest.raises(EngineError):
        SparkEngine(frame).aggregate([E.sql("no_such_column")])


TRICKY = [
    *["", " ", "\t\n", "\x0b\x0c\r ", "   x", "x  ", "\x01", "!", " !"],  # blank or not
    *["NA", "NA ", "na", "N/A", "#N/A N/A", "#N/A N/Ax", "null", "NULL", "-", "--"],  # tokens
    *["é", "Ñ/A", "\u00a0", "12345", "1234", None],
]


@pytest.mark.parametrize(
    "pattern",
    [
        r"[0-9]{5}",  # matches no missing value: missing ones are looked for among failures
        r"[^\p{L}0-9]*",  # matches blanks and "-": present values are counted directly
        r"\p{Lu}{2}|[0-9]{5}",  # matches the token NA
    ],
)
def test_missing_values_are_the_same_on_both_engines_and_in_python(spark, pattern):
    import regex

    from autovalidate.nulls import DEFAULT_NULL_TOKENS, drop_missing, may_match_missing

    table = arrow({"v": TRICKY}, {"v": pa.string()})
    assert may_match_missing(pattern) is (pattern != r"[0-9]{5}")
    for tokens in (tuple(DEFAULT_NULL_TOKENS), ("NA ", "é"), ()):
        present = list(drop_missing([v for v in TRICKY if v is not None], tokens))
        analyzer = PatternConformance("v", pattern, null_tokens=tokens)
        expected = {
            "num_matching": float(sum(bool(regex.fullmatch(pattern, v)) for v in present)),
            "num_values": float(len(present)),
        }
        for data in (table, spark.createDataFrame(table)):
            got = run(data, [analyzer]).metric(analyzer)
            assert got.error is None and got.value == expected, (tokens, got)


@pytest.mark.parametrize(
    ("values", "allowed", "arrow_type"),
    [
        (
            ["k0", "ä😀", "tab\there", "x", None] * 30,
            [f"k{i}" for i in range(150)] + ["ä😀", "tab\there", 'd"q'],
            None,
        ),
        # a quote or a backslash: the values go through isin, with the same answer
        (
            ["it's", "back\\slash", "x"] * 50,
            [f"k{i}" for i in range(150)] + ["it's", "back\\slash"],
            None,
        ),
        ([1, 2, 3_000_000_000, -1, None] * 30, list(range(200)) + [3_000_000_000], pa.int64()),
        ([0.1, 0.25, 1e300, None] * 30, [i / 4 for i in range(200)] + [0.1, 1e300], pa.float64()),
        ([True, False, None] * 50, [True] * 150, pa.bool_()),
    ],
)
def test_a_long_in_list_has_the_truth_values_of_isin(spark, values, allowed, arrow_type):
    data = arrow({"odd `c`": values}, {"odd `c`": arrow_type} if arrow_type else None)
    frame = spark.createDataFrame(data)
    analyzer = Compliance("in", E.is_in(E.col("odd `c`"), allowed), None, ("odd `c`",))
    wanted = set(allowed)
    expected = sum(v is not None and v in wanted for v in values) / len(values)
    assert run(frame, [analyzer]).metric(analyzer).value == pytest.approx(expected)


def test_long_in_list_constants_are_spark_literals_of_the_types_lit_gives():
    from autovalidate.engines.spark import _spark_literals

    texts = _spark_literals(["a b", 'd"q', 1, -(2**31), 2**40, 0.5, True])
    assert texts == "'a b', 'd\"q', 1, -2147483648, 1099511627776L, 0.5D, TRUE"
    assert _spark_literals(["it's"]) is None and _spark_literals(["a\\b"]) is None
    assert _spark_literals([1.0, float("nan")]) is None
    assert _spark_literals([1, None]) is None
    assert _spark_literals([2**63]) is None
