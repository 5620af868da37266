"""The default index packaged with autovalidate: versions, provenance, read-only use, fallbacks."""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
from pathlib import Path

import pytest

import autovalidate
import autovalidate.index.default as default
from autovalidate.errors import DefaultIndexError
from autovalidate.index.schema import FORMAT_VERSION, METADATA_FILE
from autovalidate.patterns.hierarchy import HIERARCHY_VERSION
from autovalidate.suggest import ConstraintSuggestionRunner
from index_jobs.build_default_index import SOURCES, least_feasible_cov

ROOT = Path(__file__).resolve().parents[3]
PACKAGED = ROOT / "autovalidate" / "data" / "default-index"
REBUILD = "python3 -m index_jobs.build_default_index"


def _metadata() -> dict:
    return json.loads((PACKAGED / METADATA_FILE).read_text())


def test_the_packaged_index_has_this_codes_hierarchy_version():
    meta = _metadata()
    assert (meta["hierarchy_version"], meta["format_version"]) == (
        HIERARCHY_VERSION,
        FORMAT_VERSION,
    ), f"the packaged default index is out of date: rebuild it with `{REBUILD}`"


def test_the_package_reads_the_index_of_this_checkout():
    assert default.default_index_path().resolve() == PACKAGED.resolve()


def test_pruned_at_the_least_cov_feasible_without_training_evidence():
    with autovalidate.open_default_index() as index:
        floor = index.metadata.build["floor"]
        # the prior is fitted on patterns of Cov_T >= 20, which pruning keeps, so the
        # packaged index's own prior tells the least Cov_T a feasible pattern has
        assert 1 <= floor <= least_feasible_cov(index)
        assert index.size() == index.metadata.patterns > 10_000
        (least,) = index._con.execute("SELECT min(cov) FROM patterns").fetchone()
        assert least >= floor
    size = sum(f.stat().st_size for f in PACKAGED.rglob("*") if f.is_file())
    assert size <= 20 * 2**20


def test_provenance_follows_the_license_decisions():
    corpus = _metadata()["corpus"]
    decided = {s.repo: s for s in SOURCES}
    shipped = {s["repo"] for s in corpus["sources"]}
    assert shipped and all(decided[repo].include for repo in shipped)
    assert all(s["license"] and s["commit"] for s in corpus["sources"])
    left_out = {s["repo"] for s in corpus["excluded_sources"]}
    assert "vincentarelbundock/Rdatasets" in left_out and not shipped & left_out
    notice = (PACKAGED / "NOTICE.md").read_text()
    for s in SOURCES:
        if s.include and s.repo in shipped:
            assert s.repo in notice
    assert "Creative Commons Attribution 4.0" in notice


def test_the_docs_table_is_the_decision_the_build_uses():
    text = (ROOT / "docs" / "default-index.md").read_text()
    row = r"^\| \[([\w.-]+/[\w.-]+)\]\([^)]*\) \| ([^|]+) \| (included|left out) \|"
    rows = re.findall(row, text, re.M)
    assert {(repo, lic.strip(), d == "included") for repo, lic, d in rows} == {
        (s.repo, s.license, s.include) for s in SOURCES
    }


def test_opening_writes_nothing_into_the_package(tmp_path):
    copy = tmp_path / "default-index"
    shutil.copytree(PACKAGED, copy)
    for f in [copy, *copy.rglob("*")]:
        f.chmod(0o555 if f.is_dir() else 0o444)

    def state():
        return sorted((p.relative_to(copy), p.stat().st_mtime_ns) for p in copy.rglob("*"))

    before = state()
    try:
        with autovalidate.PatternIndex.open(copy) as index:
            assert index.lookup(["<digit>{5}"])["<digit>{5}"].cov > 0
        assert state() == before
    finally:
        for f in [copy, *copy.rglob("*")]:
            f.chmod(0o755 if f.is_dir() else 0o644)


def test_suggest_pattern_without_an_index_uses_the_default():
    zips = [f"{35000 + 37 * i:05d}" for i in range(200)]
    constraint = autovalidate.suggest_pattern(zips)
    assert constraint is not None and constraint.validate(zips).passed
    assert constraint.index["default"] is True
    assert not constraint.validate([*zips[:100], "x5957", "3595x", "36x49"] * 10).passed


def test_a_given_index_wins(small_index):
    constraint = autovalidate.suggest_pattern(["A-0001", "A-0002"] * 50, small_index, m=1, r=0.5)
    assert constraint is None or constraint.index["default"] is False
    result = ConstraintSuggestionRunner.on_data(_frame()).with_pattern_index(small_index).run()
    assert result.pattern_index == f"index {small_index.path}, {small_index.size():,} patterns"


def _frame():
    import pandas as pd

    return pd.DataFrame({"day": [f"2019-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(100)]})


def test_the_runner_uses_the_default_and_says_so():
    result = ConstraintSuggestionRunner.on_data(_frame()).run()
    assert result.pattern_rule == "applied"
    assert re.fullmatch(r"default index: public corpus, [\d,]+ patterns", result.pattern_index)
    assert result.to_dict()["pattern_index"] == result.pattern_index
    assert "AutoValidatePatternRule" in {s.rule for s in result.suggestions}
    skipped = ConstraintSuggestionRunner.on_data(_frame()).with_pattern_index(None).run()
    assert skipped.pattern_rule.startswith("skipped") and skipped.pattern_index is None


@pytest.fixture
def refused_default(tmp_path, monkeypatch):
    """The packaged index as a newer hierarchy would see it: built with another version."""
    copy = tmp_path / "default-index"
    shutil.copytree(PACKAGED, copy)
    meta = json.loads((copy / METADATA_FILE).read_text())
    meta["hierarchy_version"] = HIERARCHY_VERSION - 1
    (copy / METADATA_FILE).write_text(json.dumps(meta))
    monkeypatch.setattr(default, "default_index_path", lambda: copy)
    monkeypatch.setattr(default, "_shared", None)
    return copy


def test_a_refused_default_index_is_said_not_silent(refused_default):
    with pytest.raises(DefaultIndexError, match="hierarchy") as caught:
        autovalidate.suggest_pattern(["12345", "23456"] * 20)
    assert REBUILD in str(caught.value) and "--index" in str(caught.value)
    result = ConstraintSuggestionRunner.on_data(_frame()).run()
    assert result.pattern_rule.startswith("skipped: the default index packaged")
    assert "hierarchy" in result.pattern_rule and result.pattern_index is None


def test_every_file_of_the_index_is_package_data():
    """The wheel and the sdist carry what the package-data globs of pyproject.toml name."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["autovalidate"]
    package = ROOT / "autovalidate"
    files = [f.relative_to(package).as_posix() for f in PACKAGED.rglob("*") if f.is_file()]
    assert len(files) == 4  # metadata, NOTICE, the patterns and the generalization table
    for f in files:
        assert any(fnmatch.fnmatch(f, g) and f.count("/") == g.count("/") for g in globs), f


def test_a_lake_merged_into_the_default_keeps_its_floor(tmp_path):
    from autovalidate.index.merge import merge_indexes
    from autovalidate.index.state import write_local_index

    mine = tmp_path / "mine"
    write_local_index([["A-1", "B-2"], ["C-3", "D-4"]] * 3, mine)
    merged = merge_indexes([PACKAGED, mine], tmp_path / "merged")
    with autovalidate.open_default_index() as index:
        floor = index.metadata.build["floor"]
        assert floor > 1
    # the default lacks its patterns below the floor: the merge says it is pruned
    assert merged.build["floor"] == floor
    with autovalidate.PatternIndex.open(tmp_path / "merged") as index:
        assert index.lookup(["<upper>{1}-<digit>{1}"])["<upper>{1}-<digit>{1}"].cov >= 6
