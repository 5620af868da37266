"""The index job and validate_spark on a real Spark standalone cluster (a master, two workers).

One cluster serves the module (:mod:`tests.cluster_support`): pyspark's own
master and workers on 127.0.0.1, one core and 1 GiB each, started with
``spark-class`` and stopped by the fixture's finalizer. Jobs reach it only
through ``spark-submit --master spark://...``, as on any cluster.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from autovalidate.index.reader import PatternIndex
from autovalidate.index.schema import PATTERN_COLUMNS
from tests.cluster_support import StandaloneCluster
from tests.spark_support import CODE_CONSTRAINT

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.spark

CONSTRAINT = CODE_CONSTRAINT

#: 400 codes that conform, and nulls, which are not values
CLEAN = [f"{i % 100:02d}-{chr(65 + i % 26)}{chr(65 + i // 26 % 26)}" for i in range(400)]
CLEAN_BATCH = [*CLEAN, *[None] * 20]
#: 40 codes that do not: a digit short, lower case, three digits, a letter short, a '_'
BAD = ["1-AB", "12-ab", "123-AB", "12-A", "12_AB"] * 8
DIRTY_BATCH = [*CLEAN_BATCH, *BAD]

#: A job run by spark-submit: CONSTRAINT_JSON OUT_JSON NAME=BATCH...; each batch is a
#: directory of JSON lines files of a column `code`, read by the executors and validated
#: with validate_spark.
DRIVER = '''\
"""Validate batch directories on the cluster with validate_spark; write the results as JSON."""
import json
import sys

from pyspark.sql import SparkSession

from autovalidate import PatternConstraint, validate_spark

constraint_file, out_file, *batches = sys.argv[1:]
spark = SparkSession.builder.appName("autovalidate-validate-on-cluster").getOrCreate()
with open(constraint_file) as f:
    constraint = PatternConstraint.from_dict(json.load(f))
results = {"master": spark.sparkContext.master}
for batch in batches:
    name, path = batch.split("=", 1)
    df = spark.read.schema("code string").json(path)
    results[name] = validate_spark(df, constraint).to_dict()
with open(out_file, "w") as f:
    json.dump(results, f)
spark.stop()
'''


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[StandaloneCluster]:
    """A running standalone cluster, stopped (no process left behind) after the module."""
    spark_cluster = StandaloneCluster(tmp_path_factory.mktemp("cluster"))
    spark_cluster.start()
    try:
        yield spark_cluster
    finally:
        spark_cluster.stop()
        assert spark_cluster.leftovers() == [], "processes of the cluster outlived it"


def _completed_app(cluster: StandaloneCluster, name: str) -> dict:
    """The master's record of the finished application ``name``."""
    apps = [a for a in cluster.state()["completedapps"] if a["name"] == name]
    assert len(apps) == 1, cluster.state()
    return apps[0]


def test_index_built_on_the_cluster_equals_the_local_build(cluster, lake_mini, mini_index):
    out = cluster.root / "lake-mini-index"
    result = cluster.submit(
        ROOT / "index_jobs" / "build_index.py",
        ["--lake", str(lake_mini), "--out", str(out), "--partitions", "8"],
        PYTHONPATH=str(ROOT),
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    app = _completed_app(cluster, "autovalidate-index-build")
    assert app["state"] == "FINISHED" and app["cores"] == 2  # one executor on each worker

    with PatternIndex.open(out) as remote, PatternIndex.open(mini_index) as local:
        got, want = remote.metadata, local.metadata
    assert got.build["master"] == cluster.master_url and want.build["master"] == "local[2]"
    assert (got.tau, got.corpus, got.patterns) == (want.tau, want.corpus, want.patterns)
    params = ("budget", "ladder", "min_cov", "rungs")
    assert {k: got.build[k] for k in params} == {k: want.build[k] for k in params}

    columns = ", ".join(
        f"round({c}, 9)" if t == "DOUBLE" else c for c, t in PATTERN_COLUMNS.items()
    )
    query = f"SELECT {columns} FROM read_parquet('{{}}/patterns/*.parquet') ORDER BY pattern"
    con = duckdb.connect()
    rows = con.execute(query.format(out)).fetchall()
    assert len(rows) == got.patterns > 10_000
    assert rows == con.execute(query.format(mini_index)).fetchall()


def test_validate_spark_in_a_job_on_the_cluster(cluster, tmp_path):
    driver, constraint, out = tmp_path / "job.py", tmp_path / "code.json", tmp_path / "out.json"
    driver.write_text(DRIVER)
    constraint.write_text(CONSTRAINT.to_json())
    batches = []
    for name, values in {"clean": CLEAN_BATCH, "dirty": DIRTY_BATCH}.items():
        (tmp_path / name).mkdir()
        for part, rows in enumerate((values[::2], values[1::2])):  # two files: two tasks
            lines = "".join(json.dumps({"code": v}) + "\n" for v in rows)
            (tmp_path / name / f"part-{part}.json").write_text(lines)
        batches.append(f"{name}={tmp_path / name}")
    result = cluster.submit(driver, [str(constraint), str(out), *batches], PYTHONPATH=str(ROOT))
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert _completed_app(cluster, "autovalidate-validate-on-cluster")["cores"] == 2

    got = json.loads(out.read_text())
    assert got["master"] == cluster.master_url
    clean, dirty = got["clean"], got["dirty"]
    assert clean["passed"] is True
    assert (clean["n_values"], clean["n_nonconforming"], clean["examples"]) == (400, 0, [])
    assert dirty["passed"] is False
    assert (dirty["n_values"], dirty["n_nonconforming"]) == (440, 40)
    assert dirty["examples"] and set(dirty["examples"]) <= set(BAD)
    # the executors' java.util.regex and this process's `regex` module agree
    local = CONSTRAINT.validate(DIRTY_BATCH)
    assert (local.n_values, local.n_nonconforming, local.passed) == (440, 40, False)
