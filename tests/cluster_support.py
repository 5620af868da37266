"""A real Spark standalone cluster on 127.0.0.1 for the tests (not a test module).

The master and the workers are pyspark's own: ``$SPARK_HOME/bin/spark-class``
runs ``org.apache.spark.deploy.master.Master`` and
``org.apache.spark.deploy.worker.Worker``, with ``SPARK_HOME`` the directory of
the installed ``pyspark`` package (nothing is downloaded). Every daemon runs
in a process group of its own, with its working directory, logs, scratch and
executor directories under one root directory, on ports chosen free at start.

:func:`master_command`, :func:`worker_command` and :func:`submit_command` are
the command lines ``docs`` shows; :class:`StandaloneCluster` starts them,
waits until the workers have registered and stops everything it started.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "StandaloneCluster",
    "free_port",
    "master_command",
    "spark_home",
    "submit_command",
    "worker_command",
]

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"

#: For every JVM of the cluster (daemons, drivers, executors, the launcher): the client
#: JIT compiler only and a single-threaded GC. The JVMs live for seconds to a minute
#: and the enumeration runs in Python: on 2 shared cores, C2 compiler threads and
#: parallel GC threads cost more than they save (cluster start 16-26 s -> 8 s, a
#: small job 44-81 s -> 40-44 s, measured at load average 8-12).
JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def spark_home() -> Path:
    """The installed pyspark package's directory, which holds ``bin/`` and ``jars/``."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def master_command(home: Path, port: int, ui_port: int) -> list[str]:
    """``spark-class ... Master`` listening on 127.0.0.1:``port``, its web UI on ``ui_port``."""
    return [
        str(home / "bin" / "spark-class"),
        MASTER_CLASS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--webui-port",
        str(ui_port),
    ]


def worker_command(
    home: Path,
    master_url: str,
    *,
    cores: int,
    memory: str,
    work_dir: Path,
    ui_port: int,
) -> list[str]:
    """``spark-class ... Worker`` offering ``cores`` and ``memory`` to ``master_url``."""
    return [
        str(home / "bin" / "spark-class"),
        WORKER_CLASS,
        "--host",
        "127.0.0.1",
        "--cores",
        str(cores),
        "--memory",
        memory,
        "--work-dir",
        str(work_dir),
        "--webui-port",
        str(ui_port),
        master_url,
    ]


def submit_command(home: Path, master_url: str, script: Path, args: Sequence[str]) -> list[str]:
    """``spark-submit --master URL SCRIPT ARGS...`` (client mode: the driver runs here)."""
    return [str(home / "bin" / "spark-submit"), "--master", master_url, str(script), *args]


class StandaloneCluster:
    """A master and ``workers`` workers on 127.0.0.1, started by :meth:`start`.

    Parameters
    ----------
    root
        An empty directory for everything the cluster writes: ``logs/``
        (each daemon's stdout and stderr), ``local/`` (``SPARK_LOCAL_DIRS``),
        ``tmp/`` (``TMPDIR``),
        ``work-N/`` (each worker's executor directories), ``conf/``
        (``SPARK_CONF_DIR``: a ``spark-defaults.conf`` with :data:`JAVA_OPTIONS`
        for drivers and executors).
    workers, cores, memory
        Workers to start and what each offers to applications.
    """

    def __init__(self, root: Path, *, workers: int = 2, cores: int = 1, memory: str = "1g"):
        self.root = root
        self.home = spark_home()
        self.workers = workers
        self.cores = cores
        self.memory = memory
        self.port = free_port()
        self.ui_port = free_port()
        self.master_url = f"spark://127.0.0.1:{self.port}"
        self.ui_url = f"http://127.0.0.1:{self.ui_port}"
        self._procs: list[subprocess.Popen[bytes]] = []

    def env(self, **extra: str) -> dict[str, str]:
        """This process's environment with the cluster's Spark settings (and ``extra``)."""
        return {
            **os.environ,
            "SPARK_HOME": str(self.home),
            "SPARK_CONF_DIR": str(self.root / "conf"),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_LOCAL_DIRS": str(self.root / "local"),
            "SPARK_DAEMON_MEMORY": "512m",
            "SPARK_DAEMON_JAVA_OPTS": JAVA_OPTIONS,
            "SPARK_LAUNCHER_OPTS": JAVA_OPTIONS,
            "TMPDIR": str(self.root / "tmp"),
            "PYSPARK_PYTHON": sys.executable,
            **extra,
        }

    def start(self, timeout: float = 120.0) -> StandaloneCluster:
        """Start the master and the workers; return once every worker is ALIVE on the master.

        Raises
        ------
        TimeoutError
            If the workers have not all registered within ``timeout`` seconds
            (the cluster is stopped first; the message ends with the log tails).
        RuntimeError
            If a daemon exits while starting (likewise).
        """
        for sub in ("logs", "local", "conf", "tmp"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        (self.root / "conf" / "spark-defaults.conf").write_text(
            f"spark.driver.extraJavaOptions {JAVA_OPTIONS}\n"
            f"spark.executor.extraJavaOptions {JAVA_OPTIONS}\n"
        )
        try:
            self._spawn("master", master_command(self.home, self.port, self.ui_port))
            for i in range(self.workers):
                work = self.root / f"work-{i}"
                work.mkdir(exist_ok=True)
                cmd = worker_command(
                    self.home,
                    self.master_url,
                    cores=self.cores,
                    memory=self.memory,
                    work_dir=work,
                    ui_port=free_port(),
                )
                self._spawn(f"worker-{i}", cmd)
            self._wait_for_workers(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn(self, name: str, cmd: list[str]) -> None:
        log = (self.root / "logs" / f"{name}.log").open("wb")
        with log:
            proc = subprocess.Popen(
                cmd,
                cwd=self.root,
                env=self.env(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop() signals the group
            )
        self._procs.append(proc)

    def state(self) -> dict[str, Any]:
        """The master's status (``/json/`` of its web UI): workers, applications, cores."""
        no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with no_proxy.open(f"{self.ui_url}/json/", timeout=5) as resp:
            return dict(json.load(resp))

    def _wait_for_workers(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        alive = 0
        while time.monotonic() < deadline:
            for proc in self._procs:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"a Spark daemon exited with {proc.returncode} while starting: "
                        f"{proc.args}\n{self.log_tails()}"
                    )
            try:
                workers = self.state().get("workers", [])
            except (urllib.error.URLError, OSError, ValueError):
                workers = []  # the master's UI is not up yet
            alive = sum(1 for w in workers if w.get("state") == "ALIVE")
            if alive >= self.workers:
                return
            time.sleep(0.25)
        raise TimeoutError(
            f"{alive} of {self.workers} Spark workers registered with {self.master_url} "
            f"within {timeout:.0f} s\n{self.log_tails()}"
        )

    def log_tails(self, lines: int = 15) -> str:
        """The last lines of every daemon's log, for failure messages."""
        parts = []
        for log in sorted((self.root / "logs").glob("*.log")):
            tail = log.read_text(errors="replace").splitlines()[-lines:]
            parts.append(f"--- {log.name}\n" + "\n".join(tail))
        return "\n".join(parts)

    def submit(
        self, script: Path, args: Sequence[str] = (), *, timeout: float = 300.0, **env: str
    ) -> subprocess.CompletedProcess[str]:
        """Run ``spark-submit --master <this cluster> script args`` to the end; return it.

        ``env`` adds to :meth:`env` (e.g. ``PYTHONPATH``); the driver's scratch
        space is under the cluster's root.
        """
        return subprocess.run(
            submit_command(self.home, self.master_url, script, args),
            cwd=self.root,
            env=self.env(**env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )

    def leftovers(self) -> list[int]:
        """Pids of live processes working under the cluster's root (executors, Python workers).

        The daemons, the executors they launch and the executors' Python
        workers all run in a directory under ``root``; nothing else does.
        """
        root = str(self.root.resolve())
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cwd = os.readlink(entry / "cwd")
                status = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue  # gone, or not ours to inspect
            if status != "Z" and (cwd == root or cwd.startswith(root + os.sep)):
                found.append(int(entry.name))
        return found

    def stop(self, grace: float = 15.0) -> None:
        """Stop the workers, then the master: SIGTERM to each process group, SIGKILL if needed.

        Processes left under the root afterwards (an executor's Python workers
        in a group of their own) get SIGKILL too.
        """
        for proc in reversed(self._procs):
            _signal_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        for proc in reversed(self._procs):
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(proc.pid, signal.SIGKILL)
                proc.wait()
            _signal_group(proc.pid, signal.SIGKILL)  # whatever the daemon left in its group
        self._procs.clear()
        deadline = time.monotonic() + grace
        while (pids := self.leftovers()) and time.monotonic() < deadline:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send ``sig`` to a process group, if it still exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass
