r"""Offline stage of Auto-Validate: build the pattern index of a data lake on Spark (§2.4).

The job behind ``autovalidate index build`` and the spark-submit entry point
``index_jobs/build_index.py``. Run it on any cluster::

    spark-submit --py-files autovalidate.zip index_jobs/build_index.py \
        --lake hdfs:///lake --out hdfs:///indexes/lake-tau8

or locally through the CLI (``autovalidate index build --lake DIR --out DIR``),
which starts Spark in local mode.  The job ships the ``autovalidate`` package
to the executors itself, so ``--py-files`` is only needed where the driver
cannot read the package from its own installation.

What it does, with no step collecting the corpus to the driver:

1. read the lake's Parquet files (one row per column, ``values`` a list of
   strings; see ``shared/lake/_SOURCES.md``) and spread the rows over
   ``partitions`` tasks;
2. in each task, enumerate P(D) for every column D with within-column
   coverage (Algorithm 1, :mod:`autovalidate.patterns.enumeration`) and keep a
   partial state per pattern (Σ Imp_D(p), Cov(p) and the conditional sums,
   :class:`IndexAccumulator`);
3. let Spark add the partial states by pattern (a shuffle of partial sums,
   not of columns), keep patterns with Cov_T ≥ ``min_cov``, derive FPR_T;
   then, in a second pass, the same for the position and shape statistics
   of :mod:`autovalidate.index.generalization`;
4. write Parquet into a staging directory beside the output, then the
   metadata file, then rename the staging directory to the output path.

A failed or killed job leaves at most a staging directory
(``.NAME.tmp-*``), which no reader accepts: an index is a directory with the
metadata file, and the metadata is written last.
"""

from __future__ import annotations

import atexit
import os
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from autovalidate.engines.spark import first_error_line
from autovalidate.errors import IndexBuildError, ParameterError
from autovalidate.index.generalization import KEY_COLUMNS
from autovalidate.index.publish import check_writable, publish_staged, staging_dir
from autovalidate.index.schema import (
    GENERALIZATION_DIR,
    METADATA_FILE,
    PATTERN_COLUMNS,
    PATTERNS_DIR,
    SUM_COLUMNS,
    IndexMetadata,
)
from autovalidate.index.state import (
    GENERALIZATION_SCHEMA,
    STATE_SCHEMA,
    StatsAccumulatorParam,
    iso_time,
    partition_generalization,
    partition_states,
)
from autovalidate.patterns.enumeration import (
    DEFAULT_BUDGET,
    DEFAULT_LADDER,
    DEFAULT_TAU,
    MAX_TAU,
)

if TYPE_CHECKING:
    from pyspark.accumulators import AccumulatorParam
    from pyspark.sql import SparkSession

__all__ = ["BuildProgress", "build_index", "local_path"]

#: Columns per Arrow batch handed to a Python worker (each holds up to 1000 values).
_BATCH_COLUMNS = 256


@dataclass(frozen=True)
class BuildProgress:
    """Progress of a running build, as reported to the ``progress`` callback.

    Attributes
    ----------
    phase
        ``"read lake"``, ``"enumerate patterns"`` (the long part), ``"merge and
        write"``, ``"learn generalization"`` (the second pass over the lake,
        :mod:`autovalidate.index.generalization`), or ``"done"``.
    completed, total
        Finished and total Spark tasks of the phase's stage.
    elapsed
        Seconds since the build started.
    """

    phase: str
    completed: int
    total: int
    elapsed: float


def build_index(
    spark: SparkSession,
    lake: str,
    out: str,
    *,
    tau: int = DEFAULT_TAU,
    budget: int = DEFAULT_BUDGET,
    ladder: tuple[float, ...] = DEFAULT_LADDER,
    min_cov: int = 1,
    partitions: int | None = None,
    overwrite: bool = False,
    progress: Callable[[BuildProgress], None] | None = None,
) -> IndexMetadata:
    """Build a pattern index of ``lake`` at ``out`` with Spark.

    Parameters
    ----------
    spark
        A session on any master; executors need Python with ``regex``.
    lake
        Directory (local or any Hadoop filesystem URI) of lake Parquet files.
    out
        Index directory to publish.
    tau
        Token limit τ in [1, 13]: values with more tokens generate no patterns.
    budget, ladder
        Per-column pattern budget and coverage thresholds (Algorithm 1).
    min_cov
        Patterns matching fewer corpus columns are left out (≥ 1).
    partitions
        Enumeration tasks; by default 16 per available core, at least 16.
    overwrite
        Replace an existing index at ``out`` (after the new one is complete).
    progress
        Called about twice a second with a :class:`BuildProgress`.

    Returns
    -------
    IndexMetadata
        The record written as ``out/_autovalidate_index.json``.

    Raises
    ------
    ParameterError
        If a parameter is out of range.
    IndexBuildError
        If ``spark`` is a Spark Connect session (see below), the lake cannot be
        read, ``out`` exists without ``overwrite``, or Spark fails; nothing is
        published then.

    Notes
    -----
    The job needs a classic session: it lists files and publishes through
    Hadoop's FileSystem API and sums statistics in an accumulator, both over
    the JVM gateway, which Spark Connect does not have. Run it with
    ``spark-submit`` (any master) or ``autovalidate index build``.

    References
    ----------
    Song & He, SIGMOD 2021, §2.4 (offline stage), Eq. (1), (4), Algorithm 1.
    """
    if type(spark).__module__.startswith("pyspark.sql.connect."):
        raise IndexBuildError(
            "the index job cannot run through Spark Connect (it needs the JVM gateway for "
            "Hadoop file-system calls and accumulators): run it with spark-submit "
            "index_jobs/build_index.py on any master, or `autovalidate index build`"
        )
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException
    from pyspark.sql import functions as F

    if not 1 <= tau <= MAX_TAU:
        raise ParameterError(f"tau must be in [1, {MAX_TAU}], got {tau}")
    if min_cov < 1:
        raise ParameterError(f"min_cov must be at least 1, got {min_cov}")
    if budget < 1:
        raise ParameterError(f"budget must be at least 1, got {budget}")
    started = time.time()
    fs = _HadoopFs(spark)
    lake_uri, out_uri = fs.qualify(lake), fs.qualify(out)
    if not fs.exists(lake_uri):
        raise IndexBuildError(f"{lake}: no such lake directory")
    if fs.exists(out_uri) and not overwrite:
        raise IndexBuildError(f"{out}: already exists; pass overwrite=True (--overwrite)")
    local = local_path(out_uri)
    if local is not None:
        check_writable(local)  # before any Spark work: a read-only OUT fails now, not in minutes
    files = [f for f in fs.list_files(lake_uri) if f.endswith(".parquet")]
    if not files:
        raise IndexBuildError(f"{lake}: no .parquet files")

    sc = spark.sparkContext
    _ship_package(sc)
    cores = max(1, sc.defaultParallelism)
    partitions = partitions or max(16, 16 * cores)
    stats_acc = sc.accumulator(
        {}, cast("AccumulatorParam[dict[str, Any]]", StatsAccumulatorParam())
    )
    held: int | None = None
    if local is not None:  # locked while this driver lives, so that no clean-up takes it
        local_staging, held = staging_dir(local)
        staging = "file://" + str(local_staging)
    else:
        staging = fs.sibling(out_uri, f".{fs.name(out_uri)}.tmp-{uuid.uuid4().hex[:12]}")

    def enumerate_partition(batches: Iterator[Any]) -> Iterator[Any]:
        return partition_states(batches, tau=tau, budget=budget, ladder=ladder, stats=stats_acc)

    watcher = _ProgressWatcher(sc, started, partitions, progress) if progress else None
    previous_batch = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch", None)
    try:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(_BATCH_COLUMNS))
        if watcher:
            watcher.start()
        sc.setJobDescription(f"autovalidate: pattern index of {lake}")
        lake_df = spark.read.parquet(*files).select("values").repartition(partitions)
        partial = lake_df.mapInArrow(enumerate_partition, STATE_SCHEMA)
        merged = (
            partial.groupBy("pattern_id", "pattern")
            .agg(*(F.sum(c).alias(c) for c in SUM_COLUMNS))
            .where(F.col("cov") >= min_cov)
            .withColumn("fpr", F.col("imp_sum") / F.col("cov"))
            .select(*PATTERN_COLUMNS)
            .sortWithinPartitions("pattern_id")
        )
        merged.write.option("compression", "zstd").parquet(f"{staging}/{PATTERNS_DIR}")
        n_patterns = spark.read.parquet(f"{staging}/{PATTERNS_DIR}").count()
        # how formats generalized from each column's first tenth to its rest: a
        # second pass over the lake, a few hundred keys of sums in one file
        (
            lake_df.mapInArrow(partition_generalization, GENERALIZATION_SCHEMA)
            .groupBy(*KEY_COLUMNS)
            .agg(*(F.sum(c).alias(c) for c in ("columns", "share_sum", "failed")))
            .coalesce(1)
            .write.option("compression", "zstd")
            .parquet(f"{staging}/{GENERALIZATION_DIR}")
        )
        stats = stats_acc.value
        finished = time.time()
        meta = IndexMetadata(
            tau=tau,
            corpus={
                "path": lake,
                "files": len(files),
                "columns": stats.get("columns", 0),
                "columns_indexed": stats.get("columns_indexed", 0),
                "values": stats.get("values", 0),
            },
            build={
                "engine": "spark",
                "master": sc.master,
                "spark_version": spark.version,
                "partitions": partitions,
                "budget": budget,
                "ladder": list(ladder),
                "min_cov": min_cov,
                "rungs": stats.get("rungs", {}),
                "started": iso_time(started),
                "finished": iso_time(finished),
                "wall_seconds": round(finished - started, 3),
            },
            patterns=int(n_patterns),
        )
        if local is not None:  # versions and a pointer: readers never see a missing index
            # written here, not through Hadoop's local file system, which adds a
            # checksum file (.NAME.crc) beside it that outlives the metadata
            (local_staging / METADATA_FILE).write_text(meta.to_json(), encoding="utf-8")
            publish_staged(local_staging, local, overwrite=overwrite)
        else:
            fs.write_text(f"{staging}/{METADATA_FILE}", meta.to_json())
            fs.publish(staging, out_uri, overwrite=overwrite)
    except (PySparkException, Py4JError) as exc:
        fs.delete(staging)
        raise IndexBuildError(f"index build of {lake} failed: {first_error_line(exc)}") from exc
    except BaseException:
        fs.delete(staging)
        raise
    finally:
        if held is not None:
            os.close(held)
        if watcher:
            watcher.stop()
        if previous_batch is None:
            spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
        else:
            spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", previous_batch)
        sc.setJobDescription(None)  # type: ignore[arg-type]  # None clears the description
    if progress:
        progress(BuildProgress("done", 1, 1, time.time() - started))
    return meta


def local_path(uri: str) -> Path | None:
    """The local path of a ``file:`` URI, ``None`` for other file systems (HDFS, S3...)."""
    if uri.startswith("file://"):
        return Path(uri[len("file://") :])
    if uri.startswith("file:"):
        return Path(uri[len("file:") :])
    return None


def _ship_package(sc: Any) -> None:
    """Send this process's ``autovalidate`` package to the executors (once per context)."""
    if getattr(sc, "_autovalidate_shipped", False):
        return
    root = Path(__file__).resolve().parents[1]  # autovalidate/, this module being index/build.py
    fd, zpath = tempfile.mkstemp(prefix="autovalidate-", suffix=".zip")
    os.close(fd)
    # the context serves the file from this path for as long as it runs: removed at exit
    atexit.register(Path(zpath).unlink, missing_ok=True)
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in root.rglob("*.py"):
            zf.write(f, Path("autovalidate") / f.relative_to(root))
    sc.addPyFile(zpath)
    sc._autovalidate_shipped = True


class _HadoopFs:
    """The few filesystem calls the job needs, through Hadoop's API (local, HDFS, S3...)."""

    def __init__(self, spark: SparkSession) -> None:
        jvm = spark.sparkContext._jvm
        assert jvm is not None, "a classic (non-Connect) Spark session is needed"
        self._jvm = jvm
        self._conf = spark.sparkContext._jsc.hadoopConfiguration()

    def _path(self, uri: str) -> Any:
        return self._jvm.org.apache.hadoop.fs.Path(uri)

    def _fs(self, uri: str) -> Any:
        return self._path(uri).getFileSystem(self._conf)

    def qualify(self, path: str) -> str:
        if "://" in path or path.startswith("file:"):
            return path
        return "file://" + str(Path(path).resolve())

    def exists(self, uri: str) -> bool:
        return bool(self._fs(uri).exists(self._path(uri)))

    def name(self, uri: str) -> str:
        return str(self._path(uri).getName())

    def sibling(self, uri: str, name: str) -> str:
        return str(self._path(uri).getParent().toString()) + "/" + name

    def list_files(self, uri: str) -> list[str]:
        statuses = self._fs(uri).listStatus(self._path(uri))
        names = []
        for st in statuses:
            p = st.getPath()
            if st.isFile() and not p.getName().startswith(("_", ".")):
                names.append(str(p.toString()))
        return sorted(names)

    def write_text(self, uri: str, text: str) -> None:
        stream = self._fs(uri).create(self._path(uri), True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()

    def delete(self, uri: str) -> None:
        try:
            self._fs(uri).delete(self._path(uri), True)
        except Exception:  # noqa: BLE001 - best-effort clean-up on a failure path
            pass

    def publish(self, staging: str, out: str, *, overwrite: bool) -> None:
        fs = self._fs(out)
        target = self._path(out)
        parent = target.getParent()
        if not fs.exists(parent):
            fs.mkdirs(parent)
        old = None
        if fs.exists(target):
            if not overwrite:
                raise IndexBuildError(f"{out}: appeared while building; not replaced")
            old = self._path(self.sibling(out, f".{target.getName()}.old-{uuid.uuid4().hex[:12]}"))
            if not fs.rename(target, old):
                raise IndexBuildError(f"{out}: cannot move the previous index aside")
        if not fs.rename(self._path(staging), target):
            if old is not None:
                fs.rename(old, target)
            raise IndexBuildError(f"{out}: cannot rename the finished index into place")
        if old is not None:
            fs.delete(old, True)


class _ProgressWatcher:
    """Polls Spark's status tracker and reports the running stage's tasks by phase.

    With adaptive query execution Spark runs each shuffle stage as a job of
    its own, so phases are told apart by what is known for sure: the
    enumeration stage has exactly ``partitions`` tasks (the job repartitions
    the lake to that); stages before it read the lake, stages after it merge
    partial states and write.
    """

    def __init__(
        self, sc: Any, started: float, partitions: int, callback: Callable[[BuildProgress], None]
    ):
        self._tracker = sc.statusTracker()
        self._started = started
        self._partitions = partitions
        self._callback = callback
        self._enumerated = False
        self._enumeration: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="index-progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self._poll()
            except Exception:  # noqa: BLE001 - the JVM may be shutting down
                return

    def _poll(self) -> None:
        stages = [self._tracker.getStageInfo(s) for s in sorted(self._tracker.getActiveStageIds())]
        stages = [s for s in stages if s is not None and s.numTasks > 0]
        if not stages:
            return
        enumerating = [s for s in stages if s.numTasks == self._partitions]
        if enumerating:
            self._enumerated = True
            stage = enumerating[0]
            if self._enumeration is None:
                self._enumeration = stage.stageId
            # the second pass over the lake (the generalization statistics) is another stage
            phase = (
                "enumerate patterns"
                if stage.stageId == self._enumeration
                else "learn generalization"
            )
        else:
            stage, phase = stages[0], ("merge and write" if self._enumerated else "read lake")
        elapsed = time.time() - self._started
        self._callback(BuildProgress(phase, stage.numCompletedTasks, stage.numTasks, elapsed))
