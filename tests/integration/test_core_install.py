"""The core install, without the ``spark`` extra: suggest and validate work without Spark.

Each command runs in a fresh interpreter in which ``pyspark`` and ``py4j``
cannot be imported, as after ``pip install autovalidate`` without ``[spark]``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Runs the CLI with pyspark and py4j made unimportable.
WITHOUT_SPARK = """
import sys

class NoSpark:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pyspark", "py4j"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoSpark())
from autovalidate.cli import main
sys.argv = ["autovalidate", *sys.argv[1:]]
main()
"""


def cli_without_spark(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_SPARK, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_index_build_says_in_one_line_what_to_install(lake_mini, tmp_path):
    res = cli_without_spark("index", "build", "--lake", lake_mini, "--out", tmp_path / "i")
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert "pip install 'autovalidate[spark]'" in lines[0]
    assert not (tmp_path / "i").exists()


@pytest.mark.spark  # the index is built once per run, on Spark, in this process
def test_suggest_and_validate_need_no_spark(mini_index, tmp_path):
    train = tmp_path / "train.csv"
    train.write_text("id\n" + "".join(f"A-{i:04d}\n" for i in range(300)))
    suite = tmp_path / "suite.json"
    made = cli_without_spark("suggest", train, "-c", "id", "-i", mini_index, "-o", suite)
    assert made.returncode == 0, made.stderr
    assert suite.exists()
    ok = cli_without_spark("validate", train, "--constraints", suite)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("id\n" + "".join(f"a{i}\n" for i in range(300)))
    failed = cli_without_spark("validate", bad, "--constraints", suite)
    assert failed.returncode == 1, failed.stdout + failed.stderr
