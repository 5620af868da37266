"""Index reads during merges into it, and kills of its publish at every step (issue 30, item 5).

Usage::

    python3 benchmarks/index_publish_stress.py [--reads 10000] [--merges 20] [--readers 2]

1. Writes two small indexes with the local writer (``M``, the plain layout of
   every index built before versioned publishing, and a part ``P``) under
   ``benchmarks/work/index_publish_stress/``.
2. Starts ``--readers`` processes that open ``M`` (``PatternIndex.open``, the
   in-memory load: metadata, every pattern file, the row count check) in a
   loop, until ``--reads`` opens are done between them.
3. Meanwhile runs merges ``M + P -> M --overwrite``, each in a child
   process, until the readers are done and at least ``--merges`` ran; merge
   *i* kills itself (SIGKILL) at publish step ``STEPS[i % (len(STEPS) + 1)]``,
   one in every ``len(STEPS) + 1`` runs to the end. After each merge, killed
   or not, ``M`` must open. Every read thus overlaps the merges.

Writes ``benchmarks/results/index_publish_stress.json``: reads done and
failed (with the first errors), merges run, killed and completed, whether an
index was at ``M`` after every one, and the leftovers found at the end. The
target: 0 failed reads, an index after every kill.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autovalidate.index.reader import PatternIndex  # noqa: E402
from autovalidate.index.state import write_local_index  # noqa: E402

WORK = ROOT / "benchmarks" / "work" / "index_publish_stress"
RESULTS = ROOT / "benchmarks" / "results"
STEPS = [
    "staging",
    "patterns written",
    "metadata written",
    "version",
    "pointer written",
    "pointer replaced",
    "cleaned",
]
CHILD = """
import os, signal, sys
from autovalidate.index import publish
from autovalidate.index.merge import merge_indexes

target, out, part = sys.argv[1:4]

def step(name):
    if name == target:
        os.kill(os.getpid(), signal.SIGKILL)

publish._step = step
merge_indexes([out, part], out, overwrite=True, labels=[None, None])
"""


def columns(seed: int, n: int = 300) -> list[list[str]]:
    return [[f"{seed}{i:04d}-{j}" for j in range(20)] for i in range(n)] + [
        [f"AB-{i}" for i in range(seed, seed + 40)]
    ]


def merge_killed_at(step: str, out: Path, part: Path) -> subprocess.CompletedProcess:
    """Merge ``out + part -> out`` in a child process that kills itself at publish ``step``."""
    return subprocess.run(
        [sys.executable, "-c", CHILD, step, str(out), str(part)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )


def reader(out: str, budget: Any, done: Any, results: Any) -> None:
    ok = failed = 0
    errors: list[str] = []
    while True:
        with budget.get_lock():
            if budget.value <= 0:
                break
            budget.value -= 1
        try:
            with PatternIndex.open(out) as index:
                if index.size() != index.metadata.patterns:
                    raise AssertionError("rows differ from the metadata")
            ok += 1
        except Exception as exc:  # noqa: BLE001 - counted and reported
            failed += 1
            if len(errors) < 5:
                errors.append(f"{type(exc).__name__}: {exc}")
    results.put((ok, failed, errors))
    done.set()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=10_000)
    parser.add_argument("--merges", type=int, default=20)
    parser.add_argument("--readers", type=int, default=2)
    args = parser.parse_args()

    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    out, part = WORK / "m", WORK / "part"
    write_local_index(columns(1), out)
    write_local_index(columns(2), part)

    budget = multiprocessing.Value("i", args.reads)
    results: multiprocessing.Queue = multiprocessing.Queue()
    events = [multiprocessing.Event() for _ in range(args.readers)]
    procs = [
        multiprocessing.Process(target=reader, args=(str(out), budget, e, results)) for e in events
    ]
    started = time.time()
    for p in procs:
        p.start()
    merges: list[dict[str, Any]] = []
    i = -1
    while (i := i + 1) < args.merges or not all(e.is_set() for e in events):
        step = STEPS[i % (len(STEPS) + 1)] if i % (len(STEPS) + 1) < len(STEPS) else "none"
        t0 = time.time()
        run = merge_killed_at(step, out, part)
        try:
            with PatternIndex.open(out) as index:
                index_after = index.metadata.patterns > 0
        except Exception:  # noqa: BLE001 - recorded
            index_after = False
        merges.append(
            {
                "kill_at": step,
                "killed": run.returncode == -signal.SIGKILL,
                "exit": run.returncode,
                "seconds": round(time.time() - t0, 3),
                "index_after": index_after,
            }
        )
    merged_at = time.time()
    reads = [results.get(timeout=3600) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    ok = sum(r[0] for r in reads)
    failed = sum(r[1] for r in reads)
    leftovers = sorted(p.name for p in WORK.iterdir() if p.name not in ("m", "part"))
    inside = sorted(p.name for p in out.iterdir())
    report = {
        "reads": ok + failed,
        "reads_ok": ok,
        "reads_failed": failed,
        "read_errors": [e for r in reads for e in r[2]][:5],
        "readers": args.readers,
        "merges": len(merges),
        "killed": sum(m["killed"] for m in merges),
        "completed": sum(m["exit"] == 0 for m in merges),
        "index_after_every_merge": all(m["index_after"] for m in merges),
        "merge_runs": merges,
        "leftovers_beside_m": leftovers,
        "entries_in_m": inside,
        "seconds_merging": round(merged_at - started, 1),
        "seconds_total": round(time.time() - started, 1),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "load_average": os.getloadavg(),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "index_publish_stress.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "merge_runs"}, indent=2))
    return 0 if failed == 0 and report["index_after_every_merge"] else 1


if __name__ == "__main__":
    sys.exit(main())
