"""Starting Spark the way autovalidate needs it (local mode is the embedded default).

Spark is imported lazily: importing :mod:`autovalidate` never starts a JVM.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["local_session"]


def local_session(
    app_name: str = "autovalidate",
    *,
    master: str = "local[2]",
    driver_memory: str = "4g",
    shuffle_partitions: int = 8,
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
    config
        More Spark settings, applied last (e.g. ``spark.connect.grpc.binding.port``).

    Returns
    -------
    pyspark.sql.SparkSession
        The UI is disabled and Python workers use this interpreter.
    """
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
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
