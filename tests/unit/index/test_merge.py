"""merge_indexes: sums, provenance, refusals, atomic publication (local builder, real DuckDB)."""

from __future__ import annotations

import json

import pytest

from autovalidate.errors import (
    IndexBuildError,
    IndexMergeError,
    IndexNotFoundError,
    IndexSchemaError,
    ParameterError,
)
from autovalidate.index.merge import merge_indexes
from autovalidate.index.reader import PatternIndex
from autovalidate.index.schema import METADATA_FILE
from autovalidate.index.state import write_local_index

A = [["ab", "cd"], ["AB", "x"], ["12", "1.5", None]]
B = [["ab", "ef"], ["2020-01-02", "2021-03-04"]]


@pytest.fixture()
def two(tmp_path):
    write_local_index(A, tmp_path / "a", corpus_path="lake-a")
    write_local_index(B, tmp_path / "b", corpus_path="lake-b")
    return tmp_path / "a", tmp_path / "b"


def test_sums_and_provenance(two, tmp_path):
    a, b = two
    write_local_index(A + B, tmp_path / "whole")
    meta = merge_indexes([a, b], tmp_path / "m")
    with PatternIndex.open(tmp_path / "m") as m, PatternIndex.open(tmp_path / "whole") as w:
        assert m.size() == w.size() == meta.patterns
        assert m.lookup(["<lower>{2}"])["<lower>{2}"].cov == 2  # "ab"/"cd" and "ab"/"ef"
        assert m.metadata == meta
    assert meta.corpus["columns"] == 5 and meta.corpus["values"] == 10
    assert meta.corpus["path"] == "lake-a + lake-b"
    assert [(lake["path"], lake["index"], lake["engine"]) for lake in meta.corpus["lakes"]] == [
        ("lake-a", str(a), "local"),
        ("lake-b", str(b), "local"),
    ]
    assert meta.build["engine"] == "merge" and sum(meta.build["rungs"].values()) == 5
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


def test_a_merge_of_merges_flattens_the_lakes(two, tmp_path):
    a, b = two
    write_local_index([["x-1"]], tmp_path / "c", corpus_path="lake-c")
    merge_indexes([a, b], tmp_path / "ab")
    meta = merge_indexes([tmp_path / "ab", tmp_path / "c"], tmp_path / "abc")
    assert [lake["path"] for lake in meta.corpus["lakes"]] == ["lake-a", "lake-b", "lake-c"]
    assert meta.corpus["columns"] == 6


def test_an_input_may_be_replaced_by_the_merge(two, tmp_path):
    a, b = two
    with pytest.raises(IndexBuildError, match="already exists"):
        merge_indexes([a, b], a)
    meta = merge_indexes([a, b], a, overwrite=True)
    assert PatternIndex.open(a).metadata == meta and meta.corpus["columns"] == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"tau": 6}, "tau"),
        ({"budget": 100}, "budget"),
        ({"ladder": (0.1, 0.5, 1.0)}, "ladder"),
        ({"min_cov": 2}, "min_cov"),
    ],
)
def test_incompatible_inputs_are_refused(two, tmp_path, kwargs, parameter):
    a, _ = two
    write_local_index(B, tmp_path / "odd", **kwargs)
    with pytest.raises(IndexMergeError) as info:
        merge_indexes([a, tmp_path / "odd"], tmp_path / "m")
    assert info.value.parameter == parameter and info.value.path == str(tmp_path / "odd")
    assert "cannot merge" in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "m").exists()


def test_missing_broken_and_repeated_inputs_are_refused(two, tmp_path):
    a, b = two
    with pytest.raises(IndexNotFoundError):
        merge_indexes([a, tmp_path / "nothing"], tmp_path / "m")
    with pytest.raises(ParameterError, match="given twice"):
        merge_indexes([a, b, tmp_path / "a"], tmp_path / "m")
    with pytest.raises(ParameterError):
        merge_indexes([], tmp_path / "m")
    meta = json.loads((b / METADATA_FILE).read_text())
    (b / METADATA_FILE).write_text(json.dumps({**meta, "patterns": meta["patterns"] + 1}))
    with pytest.raises(IndexSchemaError, match="incomplete index"):
        merge_indexes([a, b], tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]


def test_a_failed_write_publishes_nothing(two, tmp_path, monkeypatch):
    a, b = two
    import autovalidate.index.merge as merge_module

    def broken(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(merge_module, "_merged_metadata", broken)
    with pytest.raises(KeyboardInterrupt):
        merge_indexes([a, b], tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]


def test_empty_inputs_merge(tmp_path):
    write_local_index([], tmp_path / "e", corpus_path="empty")
    write_local_index([["ab"]], tmp_path / "f")
    meta = merge_indexes([tmp_path / "e", tmp_path / "f"], tmp_path / "m")
    assert meta.patterns == PatternIndex.open(tmp_path / "f").metadata.patterns > 0
