"""Defects the ported Deequ cases found, on DuckDB and on Spark (issue 33).

Each test fails on the code before its fix: MutualInformation of a column with
itself refused by Spark, entropy and mutual information an ulp off an exact
zero, length and pattern metrics computed on numbers, and a Spark SQL
``where`` refused by DuckDB.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from autovalidate.errors import DataError
from autovalidate.metrics import (
    Entropy,
    MaxLength,
    MinLength,
    MutualInformation,
    PatternMatch,
    Size,
)
from tests.deequ_support import run

ENGINES = ["duckdb", "spark"]


def _on(engine: str, table: pa.Table, request: pytest.FixtureRequest) -> Any:
    if engine == "duckdb":
        return table
    spark = request.getfixturevalue("spark")
    return spark.createDataFrame(table.to_pylist(), schema=_spark_schema(table))


def _spark_schema(table: pa.Table) -> str:
    kinds = {pa.string(): "string", pa.int64(): "bigint", pa.float64(): "double"}
    return ", ".join(f"`{f.name}` {kinds[f.type]}" for f in table.schema)


@pytest.mark.parametrize("engine", ENGINES)
def test_mutual_information_of_a_column_with_itself_is_its_entropy(engine, request):
    data = _on(engine, pa.table({"a": ["x", "y", "y", "z", "z", "z", None]}), request)
    context = run(data, [MutualInformation(["a", "a"]), Entropy("a")])
    mi = context.metric(MutualInformation(["a", "a"]))
    assert mi.error is None, mi.error
    assert mi.value == pytest.approx(context.metric(Entropy("a")).value, rel=1e-12)
    assert mi.value == pytest.approx(1.0114042647, rel=1e-9)  # -(1/6 ln 1/6 + ...)


#: Row counts where ``ln N - N ln N / N`` is not 0.0 in floating point, with
#: Python's ``ln`` (DuckDB's) or Java's (Spark's).
ONE_VALUED_SIZES = (3, 6, 22, 46)


@pytest.mark.parametrize("engine", ENGINES)
def test_entropy_and_mutual_information_are_exactly_zero_where_they_are_zero(engine, request):
    rows = max(ONE_VALUED_SIZES)
    one_valued = {f"one_{n}": ["v"] * n + [None] * (rows - n) for n in ONE_VALUED_SIZES}
    # x and y independent in the data: c_xy * N == c_x * c_y for each of the 4 pairs
    pairs = [("a", "p")] + [("a", "q")] * 3 + [("b", "p")] * 2 + [("b", "q")] * 6
    independent = {
        "x": [x for x, _ in pairs] + [None] * (rows - len(pairs)),
        "y": [y for _, y in pairs] + [None] * (rows - len(pairs)),
    }
    data = _on(engine, pa.table({**one_valued, **independent}), request)
    entropies = [Entropy(c) for c in one_valued]
    mi = MutualInformation(["x", "y"])
    context = run(data, [*entropies, mi, Entropy("x")])
    assert [context.metric(e).value for e in entropies] == [0.0] * len(ONE_VALUED_SIZES)
    assert context.metric(mi).value == 0.0
    assert context.metric(Entropy("x")).value > 0.6  # not zero where it is not


@pytest.mark.parametrize("engine", ENGINES)
def test_length_and_pattern_metrics_refuse_non_text_columns(engine, request):
    table = pa.table({"n": [1, 22, 333], "d": [1.5, 2.0, None], "s": ["1", "22", "333"]})
    data = _on(engine, table, request)
    refused = [MinLength("n"), MaxLength("d"), PatternMatch("n", "[0-9]+")]
    accepted = [MinLength("s"), MaxLength("s"), PatternMatch("s", "[0-9]+")]
    context = run(data, [*refused, *accepted])
    for analyzer in refused:
        error = context.metric(analyzer).error
        assert isinstance(error, DataError), analyzer
        assert "needs a text column" in str(error)
    assert [context.metric(a).value for a in accepted] == [1.0, 3.0, 1.0]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_where_filter_is_spark_sql_on_both_engines(engine, request):
    table = pa.table(
        {
            "item": ["1", "2", "10", "4", None],  # text: compared with 3 as a number
            "unique": [1, 0, 1, 1, 0],  # a word DuckDB reserves
            "name": ["a", "b", "c", "d", "e"],
        }
    )
    data = _on(engine, table, request)
    filters = {
        "item > 3": 2,  # "10" and "4" (as text, "2" > "10")
        "unique = 1 AND `name` <> 'a'": 2,
        "item IN (1, 2)": 2,
        "nvl(item, '0') = '10'": 1,
    }
    context = run(data, [Size(w) for w in filters])
    assert {w: context.metric(Size(w)).value for w in filters} == {
        w: float(n) for w, n in filters.items()
    }
