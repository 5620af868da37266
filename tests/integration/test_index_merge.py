"""``autovalidate index merge`` and ``index build --merge-into`` end to end, real Spark builds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from autovalidate.index.build import build_index
from autovalidate.index.reader import PatternIndex
from autovalidate.index.state import write_local_index
from tests.property.test_index_merge_law import assert_same_index

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app(), [str(a) for a in args])


def app():
    from autovalidate.cli import app

    return app


@pytest.fixture(scope="module")
def lakes(tmp_path_factory, lake_mini) -> dict[str, Path]:
    """Two lakes of 60 and 40 lake-mini columns, and their union (two files)."""
    root = tmp_path_factory.mktemp("lakes")
    table = pq.read_table(next(lake_mini.glob("*.parquet")))
    old, new = table.slice(0, 60), table.slice(1200, 40)
    for name, parts in {"old": [old], "new": [new], "all": [old, new]}.items():
        (root / name).mkdir()
        for i, part in enumerate(parts):
            pq.write_table(part, root / name / f"part-{i:03d}.parquet")
    return {name: root / name for name in ("old", "new", "all")}


def values_of(lake: Path) -> list[list[str | None]]:
    columns = []
    for f in sorted(lake.glob("*.parquet")):
        columns += pq.read_table(f, columns=["values"]).column(0).to_pylist()
    return columns


def test_cli_merge_and_info(lakes, tmp_path):
    write_local_index(values_of(lakes["old"]), tmp_path / "old", corpus_path="old")
    write_local_index(values_of(lakes["new"]), tmp_path / "new", corpus_path="new")
    write_local_index(values_of(lakes["all"]), tmp_path / "all")
    res = run("index", "merge", tmp_path / "old", tmp_path / "new", "--out", tmp_path / "m")
    assert res.exit_code == 0, res.output
    *progress, last = res.output.strip().splitlines()
    assert last.startswith("merged") and "from 2 lakes, 100 columns" in last
    # off a terminal, the merge step is a progress line with its counts and elapsed time
    line = r"\[ *\d+\.\d s\] sum [\d,]+ patterns of 2 indexes \(100 columns\)"
    assert re.fullmatch(line, progress[0]), res.output
    seconds = json.loads((tmp_path / "m" / "_autovalidate_index.json").read_text())["build"][
        "wall_seconds"
    ]
    assert last.endswith(f" in {seconds:.1f} s")  # the duration `index info` shows
    assert_same_index(tmp_path / "m", tmp_path / "all")
    info = run("index", "info", tmp_path / "m")
    assert info.exit_code == 0, info.output
    shown = " ".join(info.output.split())  # rich wraps long rows
    assert "old + new: 100 columns" in shown
    assert f" in {seconds:.1f} s on " in shown  # one duration, the same as merge printed
    assert shown.count(" lake ") == 2 and f"from index {tmp_path / 'new'}" in shown
    as_json = json.loads(run("index", "info", tmp_path / "m", "--json").output)
    assert [lake["path"] for lake in as_json["corpus"]["lakes"]] == ["old", "new"]


def test_cli_refuses_incompatible_inputs_in_one_line(lakes, tmp_path):
    write_local_index(values_of(lakes["old"]), tmp_path / "old")
    write_local_index(values_of(lakes["new"]), tmp_path / "new", tau=6)
    for args in (
        ["index", "merge", tmp_path / "old", tmp_path / "new", "--out", tmp_path / "m"],
        ["index", "merge", tmp_path / "old", tmp_path / "missing", "--out", tmp_path / "m"],
        ["index", "merge", tmp_path / "old", tmp_path / "old", "--out", tmp_path / "m"],
        ["index", "merge", tmp_path / "old", tmp_path / "old", "--out", tmp_path / "old"],
    ):
        res = run(*args)
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error:"), res.output
    res = run("index", "merge", tmp_path / "old", tmp_path / "new", "--out", tmp_path / "m")
    assert "cannot merge: built with tau=6, the merge needs tau=8" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "old"]


def build_into(lake: Path, existing: Path, out: Path, *options: str):
    """``index build --lake LAKE --merge-into EXISTING --out OUT`` on two partitions."""
    return run(
        "index", "build", "--lake", lake, "--merge-into", existing, "--out", out,
        "--partitions", "2", *options,
    )  # fmt: skip


@pytest.mark.spark
def test_spark_builds_merge_like_the_spark_build_of_the_union(spark, lakes, tmp_path):
    """build --lake NEW --merge-into spark(OLD) == spark(OLD ∪ NEW): the merge law on Spark."""
    build_index(spark, str(lakes["old"]), str(tmp_path / "old"), partitions=2)
    build_index(spark, str(lakes["all"]), str(tmp_path / "all"), partitions=3)
    res = build_into(lakes["new"], tmp_path / "old", tmp_path / "old", "--overwrite", "--json")
    assert res.exit_code == 0, res.output
    meta = json.loads(res.output)
    assert meta["build"]["engine"] == "merge" and meta["corpus"]["columns"] == 100
    lakes_meta = meta["corpus"]["lakes"]
    assert [lake["path"] for lake in lakes_meta] == [str(lakes["old"]), str(lakes["new"])]
    assert [lake.get("index") for lake in lakes_meta] == [str(tmp_path / "old"), None]
    assert {lake["engine"] for lake in lakes_meta} == {"spark"}
    assert_same_index(tmp_path / "old", tmp_path / "all")
    with PatternIndex.open(tmp_path / "old") as merged, PatternIndex.open(tmp_path / "all") as all_:
        for key in ("files", "columns", "columns_indexed", "values"):
            assert merged.metadata.corpus[key] == all_.metadata.corpus[key], key
        assert merged.metadata.build["rungs"] == all_.metadata.build["rungs"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all", "old"]  # no staging left
    # a build whose parameters differ is refused before it starts
    res = build_into(lakes["new"], tmp_path / "old", tmp_path / "x", "--tau", "6")
    assert res.exit_code == 2 and "cannot merge" in res.output, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all", "old"]
