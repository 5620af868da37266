"""Shared fixtures: one real local Spark session per test run, real DuckDB, the shared data."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.cluster_support import JAVA_OPTIONS

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
LAKE = SHARED / "lake"
LAKE_MINI = SHARED / "lake-mini"
DIRTY_CLEAN = SHARED / "dirty-clean"


@pytest.fixture(scope="session")
def spark():
    """A real local[2] Spark session, started once and stopped at the end of the run.

    Its JVM can also serve Spark Connect (:func:`spark_connect`): on loopback
    only, on a free port.
    """
    from autovalidate.engines.spark_session import local_session

    session = local_session(
        "autovalidate-tests",
        master="local[2]",
        config={
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": "0",
        },
    )
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark_connect(spark):
    """A real Spark Connect session (gRPC client), served by the test JVM.

    The Spark Connect server runs in the JVM of the classic :func:`spark`
    session (no second JVM); the client is PySpark's Connect client, built
    without switching the process to Connect mode, so classic and Connect
    DataFrames are used side by side, as the engine allows.
    """
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    service_class = getattr(spark._jvm.org.apache.spark.sql.connect.service, "SparkConnectService$")
    service = getattr(service_class, "MODULE$")
    service.start(spark._jsc.sc())
    session = ConnectSession.builder.remote(f"sc://127.0.0.1:{service.localPort()}").getOrCreate()
    yield session
    session.stop()


@pytest.fixture(scope="session")
def lake_mini() -> Path:
    if not LAKE_MINI.exists():
        pytest.fail(f"{LAKE_MINI} is missing: the tests need ../shared beside the repository")
    return LAKE_MINI


@pytest.fixture(scope="session")
def small_lake(tmp_path_factory, lake_mini) -> Path:
    """The first 150 columns of lake-mini as a lake of two files (and a file that is not Parquet).

    For the builds whose result is not compared with lake-mini's: a fresh JVM builds
    it in a fraction of lake-mini's time.
    """
    import pyarrow.parquet as pq

    out = tmp_path_factory.mktemp("lake")
    table = pq.read_table(next(lake_mini.glob("*.parquet")))
    pq.write_table(table.slice(0, 80), out / "a-000.parquet")
    pq.write_table(table.slice(80, 70), out / "b-000.parquet")
    (out / "_SOURCES.md").write_text("not parquet: skipped by the job\n")
    return out


@pytest.fixture(scope="session")
def mini_index(spark, lake_mini, tmp_path_factory) -> Path:
    """The lake-mini index, built once per run through the CLI (``autovalidate index build``)."""
    from typer.testing import CliRunner

    from autovalidate.cli import app

    out = tmp_path_factory.mktemp("mini") / "index"
    result = CliRunner().invoke(
        app, ["index", "build", "--lake", str(lake_mini), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture()
def flights_csv(tmp_path) -> Path:
    """A CSV whose ``flight`` column is a composite cut at literal ``-`` and whose ``when``
    column has two date formats (ISO and US), 300 rows: vertical cuts and a multi-format
    pattern, on the default index."""
    path = tmp_path / "flights.csv"
    rows = (
        f"AA-{100 + 37 * i % 9000}-BOS-ORD,"
        + (
            f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}"
            if i % 2
            else f"{1 + i % 12}/{1 + i % 28}/2024"
        )
        for i in range(300)
    )
    path.write_text("flight,when\n" + "".join(f"{row}\n" for row in rows))
    return path


@pytest.fixture(scope="session")
def dirty_clean() -> Path:
    if not DIRTY_CLEAN.exists():
        pytest.fail(f"{DIRTY_CLEAN} is missing: the tests need ../shared beside the repository")
    return DIRTY_CLEAN


@pytest.fixture()
def hospital_history(dirty_clean, tmp_path) -> tuple[Path, Path]:
    """A metrics repository of five clean hospital batches, and a new batch of dirty rows.

    The 1,000 rows are shuffled (seeded): five batches of 150 clean rows are
    recorded as dataset ``h`` on 2024-05-01 to 05 (``autovalidate metrics
    record``), and the remaining 250 rows, taken from the dirty table under
    the clean table's column names, are the new batch. Returns the
    repository's path and the new batch's.
    """
    import numpy as np
    import pandas as pd
    from typer.testing import CliRunner

    from autovalidate.cli import app

    clean = pd.read_csv(dirty_clean / "hospital" / "clean.csv", dtype=str, keep_default_na=False)
    dirty = pd.read_csv(dirty_clean / "hospital" / "dirty.csv", dtype=str, keep_default_na=False)
    dirty.columns = clean.columns
    perm = np.random.default_rng(3).permutation(len(clean))
    repo = tmp_path / "metrics.duckdb"
    for day in range(1, 6):
        path = tmp_path / f"batch{day}.csv"
        clean.iloc[perm[(day - 1) * 150 : day * 150]].to_csv(path, index=False)
        args = ["metrics", "record", str(path), "-r", str(repo), "-d", "h"]
        res = CliRunner().invoke(app, [*args, "--date", f"2024-05-0{day}"])
        assert res.exit_code == 0, res.output
    new = tmp_path / "new.csv"
    dirty.iloc[perm[750:]].to_csv(new, index=False)
    return repo, new


os.environ.setdefault("PYSPARK_PYTHON", os.environ.get("PYSPARK_PYTHON", "python3"))

# Every JVM the run starts through spark-submit (the session's, `spark-submit` and
# `python -m autovalidate index build` subprocesses inherit this environment) gets the
# standalone cluster's options: the client JIT compiler only and a single-threaded GC.
# The JVMs live seconds to minutes on 2 shared cores, where C2 compiler threads and
# parallel GC threads cost more than they save (the Spark test files: 114 s -> 80 s;
# the spark-submit test: 100 s -> 69 s). Neither option changes what a job computes.
for _var in ("SPARK_SUBMIT_OPTS", "SPARK_LAUNCHER_OPTS"):
    os.environ.setdefault(_var, JAVA_OPTIONS)


# A small real index of a synthetic corpus (local writer, real Parquet, real DuckDB).
def corpus() -> list[list[str]]:
    rng = random.Random(7)
    cols: list[list[str]] = []
    for _ in range(30):  # dates, always MM/DD/YYYY
        cols.append(
            [
                f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(1990, 2020)}"
                for _ in range(50)
            ]
        )
    for _ in range(30):  # times HH:MM:SS
        cols.append(
            [
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
                for _ in range(50)
            ]
        )
    for _ in range(30):  # decimals with one digit after the point
        cols.append([f"{rng.randint(0, 9)}.{rng.randint(0, 9)}" for _ in range(50)])
    for _ in range(30):  # camel-case status words
        cols.append([rng.choice(["OnBooking", "Cancelled", "Closed", "Open"]) for _ in range(50)])
    for _ in range(20):  # comma-separated numbers (Fig. 9), some with a '-' special value
        col = [",".join(str(rng.randint(0, 99)) for _ in range(3)) for _ in range(50)]
        cols.append(col)
    for _ in range(20):  # 2-digit and 3-digit numbers mixed: <digit>{2} is impure
        cols.append([str(rng.randint(10, 999)) for _ in range(50)])
    for _ in range(20):  # upper-case 3-letter codes
        cols.append(
            ["".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3)) for _ in range(50)]
        )
    return cols


@pytest.fixture(scope="session")
def small_index(tmp_path_factory):
    from autovalidate.index.reader import PatternIndex
    from autovalidate.index.state import write_local_index

    out = tmp_path_factory.mktemp("idx") / "index"
    write_local_index(corpus(), out, budget=200_000)
    with PatternIndex.open(out) as idx:
        yield idx
