"""Every metrics repository: keys, replacement, queries by dataset, tags, analyzers and dates."""

from __future__ import annotations

import datetime as dt
import urllib.parse

import pandas as pd
import pytest

from autovalidate.analysis import AnalysisRunner
from autovalidate.errors import ParameterError, RepositoryError
from autovalidate.metrics import Completeness, Histogram, Mean, PatternConformance, Size
from autovalidate.metrics.codec import analyzer_key
from autovalidate.repository import (
    DuckDBMetricsRepository,
    FileSystemMetricsRepository,
    InMemoryMetricsRepository,
    ResultKey,
    date_to_ms,
    open_repository,
)


@pytest.fixture(params=["duckdb", "json", "parquet", "memory"])
def repository(request, tmp_path):
    if request.param == "duckdb":
        return open_repository(tmp_path / "metrics.duckdb")
    if request.param == "memory":
        return InMemoryMetricsRepository()
    return open_repository(tmp_path / "metrics", file_format=request.param)


ANALYZERS = [Size(), Completeness("a"), Mean("a"), Histogram("b"), PatternConformance("b", "x")]


def metrics_of(values: list[float | None]):
    frame = pd.DataFrame({"a": values, "b": ["x" if v else "y" for v in values]})
    return AnalysisRunner.on_data(frame).add_analyzers(ANALYZERS).run()


def test_open_repository_picks_the_store(tmp_path):
    assert isinstance(open_repository(tmp_path / "m.duckdb"), DuckDBMetricsRepository)
    assert isinstance(open_repository(tmp_path / "m.db"), DuckDBMetricsRepository)
    assert isinstance(open_repository(tmp_path / "dir"), FileSystemMetricsRepository)
    with pytest.raises(ParameterError):
        open_repository(tmp_path / "dir", file_format="csv")


def test_round_trip_of_every_kind_of_metric(repository):
    context = metrics_of([1.0, None, 3.0, 4.0])
    key = ResultKey.at("orders", "2024-01-01", {"region": "eu"})
    repository.save(key, context)
    loaded = repository.load_by_key(key)
    assert loaded is not None and loaded.result_key == key
    for analyzer in ANALYZERS:
        assert loaded.metric(analyzer).value == context.metric(analyzer).value, analyzer
        assert loaded.metric(str(analyzer)).name == context.metric(analyzer).name
    assert loaded.value(Completeness("a")) == 0.75
    assert loaded.value(Histogram("b")) is None  # not a number
    assert repository.load_by_key(ResultKey.at("orders", "2024-01-02", {"region": "eu"})) is None
    assert repository.load_by_key(ResultKey.at("orders", "2024-01-01")) is None  # other tags


def test_saving_a_key_again_replaces_it(repository):
    key = ResultKey.at("orders", "2024-01-01")
    repository.save(key, metrics_of([1.0, 2.0]))
    repository.save(key, {Mean("a"): metrics_of([5.0, 7.0]).metric(Mean("a"))})
    results = repository.load().for_dataset("orders").get()
    assert len(results) == 1
    assert set(results[0].metrics) == {analyzer_key(Mean("a"))}
    assert results[0].description(analyzer_key(Mean("a"))) == str(Mean("a"))
    assert results[0].value(Mean("a")) == 6.0


def test_failed_metrics_are_not_stored_and_an_empty_save_is_refused(repository):
    frame = pd.DataFrame({"a": [None, None]}, dtype="float64")
    context = AnalysisRunner.on_data(frame).add_analyzers([Mean("a"), Size()]).run()
    key = ResultKey.at("orders", "2024-01-01")
    repository.save(key, context)
    assert set(repository.load_by_key(key).metrics) == {analyzer_key(Size())}
    with pytest.raises(ParameterError, match="nothing to save"):
        repository.save(key, {Mean("a"): context.metric(Mean("a"))})


def test_queries_filter_by_dataset_tags_dates_and_analyzers(repository):
    for day in range(1, 6):
        for region in ("eu", "us"):
            key = ResultKey.at("orders", f"2024-01-0{day}", {"region": region, "shop": "web"})
            repository.save(key, metrics_of([float(day), 1.0 if region == "eu" else 2.0]))
    repository.save(ResultKey.at("users", "2024-01-03"), metrics_of([1.0]))
    orders = repository.load().for_dataset("orders")
    assert len(orders.get()) == 10
    eu = repository.load().for_dataset("orders").with_tag_values({"region": "eu"})
    series = eu.series(Mean("a"))
    assert [p.value for p in series] == [(d + 1) / 2 for d in range(1, 6)]
    assert [p.time for p in series] == sorted(p.time for p in series)
    window = (
        repository.load()
        .for_dataset("orders")
        .with_tag_values({"region": "us", "shop": "web"})
        .after("2024-01-02")
        .before(dt.date(2024, 1, 4))
        .get()
    )
    assert [r.result_key.date.day for r in window] == [2, 3, 4]  # both ends included
    only = repository.load().for_dataset("orders").for_analyzers([Size()]).get()
    assert all(set(r.metrics) == {analyzer_key(Size())} for r in only)
    assert len(repository.load().get()) == 11  # every dataset
    assert repository.load().with_tag_values({"region": "mars"}).get() == []


def test_date_to_ms():
    assert date_to_ms("1970-01-02") == 86_400_000
    assert date_to_ms(dt.datetime(1970, 1, 1, 0, 0, 1)) == 1000
    assert date_to_ms("1970-01-01T01:00:00+01:00") == 0
    assert date_to_ms(1234) == 1234
    with pytest.raises(ParameterError):
        date_to_ms("yesterday")
    with pytest.raises(ParameterError):
        ResultKey("", 0)


def test_filesystem_store_ignores_partial_files_and_reports_broken_ones(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path / "m")
    key = ResultKey.at("orders", "2024-01-01")
    repo.save(key, metrics_of([1.0]))
    directory = tmp_path / "m" / "orders"
    (directory / ".tmp-123.part").write_text("{half")
    assert repo.load_by_key(key) is not None
    (directory / f"{key.dataset_date}-broken.json").write_text("{half")
    with pytest.raises(RepositoryError, match="unreadable"):
        repo.load().get()


def test_dataset_names_with_slashes_stay_inside_the_directory(tmp_path):
    repo = FileSystemMetricsRepository(tmp_path / "m")
    repo.save(ResultKey.at("../lake/orders", 0), metrics_of([1.0]))
    assert [p.parent.parent for p in (tmp_path / "m").glob("*/*.json")] == [tmp_path / "m"]
    assert repo.load().for_dataset("../lake/orders").get()[0].result_key.dataset == "../lake/orders"


@pytest.mark.parametrize("file_format", ["json", "parquet"])
def test_dataset_names_of_dots_stay_inside_the_directory_each_in_its_own(tmp_path, file_format):
    """A suite's has_no_anomalies names any dataset: ``..`` saved into, and read, the parent."""
    repo = FileSystemMetricsRepository(tmp_path / "m", file_format=file_format)
    names = [".", "..", "...", "orders", "%2E", "%2E%2E"]
    for i, name in enumerate(names):
        repo.save(ResultKey.at(name, 0), metrics_of([1.0] * (i + 1)))
    assert [p.name for p in tmp_path.iterdir()] == ["m"]  # nothing written beside it
    assert all(p.is_dir() for p in (tmp_path / "m").iterdir())  # nor in it, but a dataset's
    saved = sorted((tmp_path / "m").glob(f"*/*.{file_format}"))
    assert len(saved) == len(names) and len({p.parent for p in saved}) == len(names)
    assert {urllib.parse.unquote(p.parent.name) for p in saved} == set(names)
    for i, name in enumerate(names):
        results = repo.load().for_dataset(name).get()
        assert [(r.result_key.dataset, r.value(Size())) for r in results] == [(name, i + 1)]
    assert sorted(r.result_key.dataset for r in repo.load().get()) == sorted(names)
    assert repo.load().for_dataset("").get() == []  # no name, no directory: not the root's
    assert [p.name for p in tmp_path.iterdir()] == ["m"]


def test_a_directory_repository_written_before_dots_were_encoded_still_reads(tmp_path):
    """Only ``.`` and ``..`` changed directory: a name's files from before are where they were."""
    repo = FileSystemMetricsRepository(tmp_path / "m")
    key = ResultKey.at("orders/eu ...", "2024-01-01")
    repo.save(key, metrics_of([1.0, 2.0]))
    (old,) = (tmp_path / "m").glob("*/*.json")
    # as the repository wrote it before: the name through urllib.parse.quote, nothing else
    assert old.parent == tmp_path / "m" / urllib.parse.quote("orders/eu ...", safe="")
    moved = tmp_path / "old" / "orders%2Feu%20..." / old.name
    moved.parent.mkdir(parents=True)
    old.rename(moved)
    loaded = FileSystemMetricsRepository(tmp_path / "old").load_by_key(key)
    assert loaded is not None and loaded.value(Size()) == 2


def test_a_dataset_name_too_long_for_a_file_name_is_a_repository_error(tmp_path):
    """A suite's has_no_anomalies names any dataset: 300 characters raised an OSError."""
    repo = FileSystemMetricsRepository(tmp_path / "m")
    repo.save(ResultKey.at("orders", 0), metrics_of([1.0]))
    with pytest.raises(RepositoryError, match="cannot read: .*File name too long"):
        repo.load().for_dataset("x" * 300).get()


def test_duckdb_store_reports_an_unusable_file(tmp_path):
    path = tmp_path / "m.duckdb"
    path.write_text("not a database")
    with pytest.raises(RepositoryError):
        DuckDBMetricsRepository(path, timeout=0.5).load().get()
