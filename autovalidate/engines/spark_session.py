"""Starting Spark the way autovalidate needs it (local mode is the embedded default).

Spark is imported lazily: importing :mod:`autovalidate` never starts a JVM.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from autovalidate.errors import MissingDependencyError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["local_session", "require_pyspark"]


def require_pyspark(feature: str) -> None:
    """Raise :class:`MissingDependencyError` if pyspark cannot be imported.

    pyspark (and the JVM it drives) is the ``spark`` extra: the core install
    suggests and validates with DuckDB alone.

    Parameters
    ----------
    feature
        What needs Spark, for the message (``"autovalidate index build"``).

    Raises
    ------
    MissingDependencyError
        If pyspark is not installed; the message says ``pip install 'autovalidate-lake[spark]'``.
    """
    try:
        import pyspark  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(feature, "pyspark", "spark") from exc


def local_session(
    app_name: str = "autovalidate",
    *,
    master: str = "local[2]",
    driver_memory: str = "4g",
    shuffle_partitions: int = 8,
    log_file: str | Path | None = None,
    config: Mapping[str, str] | None = None,
) -> SparkSession:
    """Get or create a Spark session for local work.

    Parameters
    ----------
    app_name
        Spark application name.
    master
        Spark master URL; ``local[N]`` runs N worker threads in this process's JVM.
    driver_memory
        JVM heap of the driver (which also runs the executors in local mode).
    shuffle_partitions
        ``spark.sql.shuffle.partitions``; the default 200 is wasteful on small machines.
    log_file
        Where the JVM's own output (its start-up warnings and Spark's log lines)
        goes, when this call starts the JVM; ``None`` leaves it on this process's
        stdout and stderr.  The JVM keeps writing there for its whole life.
    config
        More Spark settings, applied last (e.g. ``spark.connect.grpc.binding.port``).

    Returns
    -------
    pyspark.sql.SparkSession
        The UI is disabled and Python workers use this interpreter.

    Raises
    ------
    MissingDependencyError
        If pyspark is not installed (the ``spark`` extra).
    """
    require_pyspark(f"Spark ({master})")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.appName(app_name)
        .master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.python.worker.reuse", "true")
        .config("spark.sql.session.timeZone", "UTC")
    )
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    if log_file is None:
        session = builder.getOrCreate()
    else:
        with _output_to(Path(log_file)):
            session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


@contextmanager
def _output_to(path: Path) -> Iterator[None]:
    """Point file descriptors 1 and 2 at ``path`` for the block.

    A JVM started inside the block inherits them: pyspark launches it with no
    redirection of its own, so this is the one way to keep its log lines out of
    a command's output.  This process's own streams are restored afterwards.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    saved = [os.dup(1), os.dup(2)]
    try:
        os.dup2(log, 1)
        os.dup2(log, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, log):
            os.close(fd)
