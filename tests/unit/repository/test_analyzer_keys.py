"""Histories keyed by the analyzers' stable keys; stores written before the keys keep loading."""

from __future__ import annotations

import json

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from autovalidate.analysis import AnalysisRunner
from autovalidate.cli import app
from autovalidate.metrics import Compliance, Mean
from autovalidate.metrics import expressions as E
from autovalidate.metrics.codec import analyzer_key
from autovalidate.repository import ResultKey, date_to_ms, open_repository

#: The text ``Mean("a")`` was stored under before analyzers had keys.
OLD_TEXT = "Mean(a,None)"


def old_row(day: int, value: float) -> dict:
    """A row as stores wrote it before analyzer keys: no ``analyzer_key``."""
    return {
        "dataset": "orders",
        "dataset_date": date_to_ms(f"2024-01-0{day}"),
        "tags": "{}",
        "analyzer": OLD_TEXT,
        "entity": "Column",
        "instance": "a",
        "name": "Mean",
        "value": value,
        "value_json": None,
        "saved_at_ns": day,
        "save_id": f"old{day}",
    }


def write_old_store(kind: str, location, rows: list[dict]) -> None:
    """The store's format before keys, written directly (not through this version's code)."""
    if kind == "duckdb":
        con = duckdb.connect(str(location))
        con.execute(
            "CREATE TABLE autovalidate_metrics (dataset VARCHAR, dataset_date BIGINT, "
            "tags VARCHAR, analyzer VARCHAR, entity VARCHAR, instance VARCHAR, name VARCHAR, "
            "value DOUBLE, value_json VARCHAR, saved_at_ns BIGINT, save_id VARCHAR)"
        )
        con.executemany(
            "INSERT INTO autovalidate_metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [list(r.values()) for r in rows],
        )
        con.close()
        return
    (location / "orders").mkdir(parents=True)
    for r in rows:
        path = location / "orders" / f"{r['dataset_date']}-{r['save_id']}.{kind}"
        if kind == "json":
            key = {"dataset": "orders", "dataset_date": r["dataset_date"], "tags": {}}
            path.write_text(json.dumps({"key": key, "rows": [r]}))
        else:
            pq.write_table(pa.Table.from_pylist([r]), path)


def mean_of(values: list[float]):
    return AnalysisRunner.on_data(pd.DataFrame({"a": values})).add_analyzer(Mean("a")).run()


@pytest.mark.parametrize("kind", ["duckdb", "json", "parquet"])
def test_a_store_written_before_keys_keeps_its_histories(kind, tmp_path):
    assert str(Mean("a")) == OLD_TEXT  # the text the old rows were found by
    location = tmp_path / ("metrics.duckdb" if kind == "duckdb" else "metrics")
    write_old_store(kind, location, [old_row(1, 2.0), old_row(2, 3.0)])
    repository = open_repository(location, file_format="json" if kind == "json" else "parquet")

    assert [p.value for p in repository.load().series(Mean("a"))] == [2.0, 3.0]
    repository.save(ResultKey.at("orders", "2024-01-03"), mean_of([4.0, 4.0]))
    history = repository.load().for_dataset("orders")
    assert [p.value for p in history.series(Mean("a"))] == [2.0, 3.0, 4.0]
    results = history.for_analyzers([Mean("a")]).get()
    assert [set(r.metrics) for r in results] == [{OLD_TEXT}, {OLD_TEXT}, {analyzer_key(Mean("a"))}]
    assert all(
        set(r.with_keys_of([Mean("a")]).metrics) == {analyzer_key(Mean("a"))} for r in results
    )
    assert [r.to_dict()["metrics"][0]["analyzer"] for r in results] == [OLD_TEXT] * 3
    if kind == "duckdb":  # the first save added the key column; the old rows keep their text only
        with duckdb.connect(str(location), read_only=True) as con:
            rows = con.execute(
                "SELECT analyzer, analyzer_key FROM autovalidate_metrics ORDER BY dataset_date"
            ).fetchall()
        assert rows == [(OLD_TEXT, None), (OLD_TEXT, None), (OLD_TEXT, analyzer_key(Mean("a")))]


def test_a_history_survives_a_change_in_how_its_sql_is_rendered(tmp_path, monkeypatch):
    positive = Compliance("positive", E.gt(E.col("a"), E.lit(0)))
    repository = open_repository(tmp_path / "metrics.duckdb")
    for day, values in ((1, [1.0, -1.0]), (2, [1.0, 1.0])):
        context = AnalysisRunner.on_data(pd.DataFrame({"a": values})).add_analyzer(positive).run()
        repository.save(ResultKey.at("orders", f"2024-01-0{day}"), context)
    text = str(positive)
    monkeypatch.setitem(E._SQL, "gt", lambda a: f"({a[1]} < {a[0]})")  # a later renderer
    assert str(positive) != text
    assert [p.value for p in repository.load().series(positive)] == [0.5, 1.0]


def test_outputs_print_the_analyzers_text_not_its_key(tmp_path):
    location = tmp_path / "metrics.duckdb"
    write_old_store("duckdb", location, [old_row(1, 2.0)])
    open_repository(location).save(ResultKey.at("orders", "2024-01-02"), mean_of([4.0]))
    result = CliRunner().invoke(
        app, ["metrics", "history", "-r", str(location), "-d", "orders", "--json"]
    )
    assert result.exit_code == 0, result.output
    history = json.loads(result.output)["history"]
    assert [(h["analyzer"], h["value"]) for h in history] == [(OLD_TEXT, 2.0), (OLD_TEXT, 4.0)]
