"""What every peer runner shares: its arguments, and the JSON it prints.

A runner is started as ``python RUNNER.py CHECKS.json FORMAT PATH [OPTION]`` in
its tool's own interpreter (a virtualenv for the peers); it validates the file
and prints ``{"verdicts": {check id: passed}, "values": {...}, "seconds": ...,
"cpu_seconds": ..., "max_rss_bytes": ...}``. ``seconds`` is the wall time from
reading the file to the verdicts, inside the process (interpreter start-up and
imports excluded); the process wall time is measured by ``peers.py``.
"""

import json
import resource
import sys
import time


def spark_session():
    """A local[2] Spark session with the settings of autovalidate's ``local_session``.

    The same driver memory, shuffle partitions, Arrow transfer and no UI, so
    that the Spark peers run on the Spark autovalidate runs on.
    """
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.appName("peers")
        .master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def spark_frame(spark, fmt, path):
    """The file as a Spark DataFrame: Parquet as is, CSV with a header and inferred types."""
    if fmt == "parquet":
        return spark.read.parquet(path)
    return spark.read.csv(path, header=True, inferSchema=True)


def arguments():
    """The checks (a list of dicts), the format (csv or parquet), the path and the option."""
    checks = json.loads(open(sys.argv[1]).read())
    option = sys.argv[4] if len(sys.argv) > 4 else None
    return checks, sys.argv[2], sys.argv[3], option


def _peak_rss():
    """Peak resident memory of this process, in bytes: ``VmHWM``, which exec resets.

    ``ru_maxrss`` keeps the high-water mark of the parent the process was forked
    from. Processes this one starts (Spark's JVM) are not included.
    """
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return None


def report(run):
    """Time ``run()`` (returning verdicts and values) and print the runner's JSON."""
    start = time.perf_counter()
    verdicts, values = run()
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    json.dump(
        {
            "verdicts": verdicts,
            "values": {k: (None if v is None else float(v)) for k, v in values.items()},
            "seconds": seconds,
            "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "max_rss_bytes": _peak_rss(),
        },
        sys.stdout,
    )
