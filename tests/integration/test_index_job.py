"""The offline Spark job on real data, with a real local Spark session."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from autovalidate.errors import IndexBuildError, IndexNotFoundError
from autovalidate.index.build import build_index
from autovalidate.index.reader import PatternIndex
from autovalidate.index.schema import SUM_COLUMNS
from autovalidate.index.state import write_local_index

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.spark


def test_lake_mini_index(mini_index):
    with PatternIndex.open(mini_index) as idx:
        meta = idx.metadata
        assert meta.corpus["columns"] == 1821
        assert meta.tau == 8 and meta.build["engine"] == "spark"
        assert meta.patterns == idx.size() > 10_000
        assert sum(v for k, v in meta.build["rungs"].items()) == meta.corpus["columns"]
        stats = idx.lookup(["<num>", "<upper>{2}"])
        assert stats["<num>"].cov > 500 and 0.0 <= stats["<num>"].fpr <= 1.0
    assert not list(mini_index.parent.glob(".*tmp-*"))


def test_spark_and_local_builds_agree(spark, small_lake, tmp_path):
    spark_out, local_out = tmp_path / "spark", tmp_path / "local"
    events = []
    build_index(spark, str(small_lake), str(spark_out), partitions=3, progress=events.append)
    assert events and events[-1].phase == "done"
    columns = []
    for f in sorted(small_lake.glob("*.parquet")):
        columns += pq.read_table(f, columns=["values"]).column(0).to_pylist()
    write_local_index(columns, local_out)
    con = duckdb.connect()
    sums = ", ".join(f"round({c}, 9)" for c in SUM_COLUMNS)
    q = f"SELECT pattern, {sums} FROM read_parquet('{{}}/patterns/*.parquet') ORDER BY pattern"
    assert (
        con.execute(q.format(spark_out)).fetchall() == con.execute(q.format(local_out)).fetchall()
    )


def test_existing_index_is_kept_or_replaced_whole(spark, small_lake, tmp_path):
    out = tmp_path / "idx"
    build_index(spark, str(small_lake), str(out), partitions=2, tau=4)
    with pytest.raises(IndexBuildError):
        build_index(spark, str(small_lake), str(out), partitions=2)
    assert PatternIndex.open(out).tau == 4
    build_index(spark, str(small_lake), str(out), partitions=2, overwrite=True)
    assert PatternIndex.open(out).tau == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_a_failing_build_publishes_nothing(spark, tmp_path):
    lake = tmp_path / "lake"
    lake.mkdir()
    pq.write_table(
        pq.read_table(next(Path(ROOT.parent / "shared/lake-mini").glob("*.parquet")))
        .select(["source"])
        .slice(0, 5),
        lake / "x.parquet",
    )
    with pytest.raises(IndexBuildError):
        build_index(spark, str(lake), str(tmp_path / "idx"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lake"]
    with pytest.raises(IndexBuildError):
        build_index(spark, str(tmp_path / "missing"), str(tmp_path / "idx"))


def _spark_submit() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-submit")


def test_spark_submit_and_a_killed_job(lake_mini, small_lake, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    job = str(ROOT / "index_jobs" / "build_index.py")
    # 1. a job killed mid-run leaves nothing a reader accepts
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [
            _spark_submit(),
            "--master",
            "local[2]",
            job,
            "--lake",
            str(lake_mini),
            "--out",
            str(killed),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    # a slow machine may take minutes to start Spark: wait for the staging directory
    # (or for the job to end, which the assertion below then reports)
    deadline = time.time() + 900
    while (
        time.time() < deadline and proc.poll() is None and not list(tmp_path.glob(".killed.tmp-*"))
    ):
        time.sleep(0.2)
    assert list(tmp_path.glob(".killed.tmp-*")), "the job never started writing"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not killed.exists()
    for staging in tmp_path.glob(".killed.tmp-*"):
        with pytest.raises(IndexNotFoundError):
            PatternIndex.open(staging)
        shutil.rmtree(staging)
    # 2. the same entry point run to the end with spark-submit (on 150 of lake-mini's
    # columns: the job, its progress lines and its output are those of any lake; the
    # whole of lake-mini took ~40 s more in a fresh JVM)
    done = tmp_path / "done"
    result = subprocess.run(
        [
            _spark_submit(),
            "--master",
            "local[2]",
            job,
            "--lake",
            str(small_lake),
            "--out",
            str(done),
            "--tau",
            "6",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    # spark-submit's PythonRunner merges the driver's stderr into stdout
    output = result.stdout + result.stderr
    assert "enumerate patterns:" in output and "tasks" in output  # progress lines
    assert PatternIndex.open(done).tau == 6
    again = subprocess.run(
        [
            _spark_submit(),
            "--master",
            "local[1]",
            job,
            "--lake",
            str(small_lake),
            "--out",
            str(done),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = again.stdout + again.stderr
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert again.returncode == 2, output[-3000:]
    assert errors and "already exists" in errors[0], output[-3000:]
