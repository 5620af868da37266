"""The core install, without the ``spark`` extra: suggest and validate work without Spark.

Each command runs in a fresh interpreter in which ``pyspark`` and ``py4j``
cannot be imported, as after ``pip install autovalidate-lake`` without ``[spark]``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
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


def cli_without_spark(*args: object, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``autovalidate ARGS`` from this checkout, run in ``cwd``, with Spark unimportable."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_SPARK, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def _quick_start() -> tuple[list[str], str]:
    """The README quick start's commands and the output pasted under them."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    pasted = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    return commands.splitlines(), pasted


def _pasted_under(pasted: str, command: str) -> list[str]:
    """The README's output lines under ``$ COMMAND``, without the elided ``...``."""
    section = pasted.split(f"$ {command}\n", 1)[1].split("\n$ ", 1)[0]
    lines = [ln.rstrip() for ln in section.splitlines() if ln.strip() not in ("", "...")]
    assert lines, command
    return lines


def test_readme_quick_start_runs_with_the_default_index_and_no_spark(dirty_clean, tmp_path):
    """Every `autovalidate` line of the quick start, in a directory with the two CSV files."""
    lines, pasted = _quick_start()
    for name in ("clean.csv", "dirty.csv"):
        shutil.copy(dirty_clean / "hospital" / name, tmp_path / name)
    ran = 0
    for line in lines:
        if not line.startswith("autovalidate "):
            continue
        command, _, comment = line.partition("#")
        expected = int(m.group(1)) if (m := re.search(r"exit (\d)", comment)) else 0
        res = cli_without_spark(*shlex.split(command)[1:], cwd=tmp_path)
        assert res.returncode == expected, (line, res.stdout + res.stderr)
        # and prints what the README shows under it (the reason of a failure included)
        shown = [ln.rstrip() for ln in res.stdout.splitlines()]
        for want in _pasted_under(pasted, command.strip()):
            pattern = re.sub(r"\d+\\ ms$", r"\\d+\\ ms", re.escape(want))
            assert any(re.fullmatch(pattern, got) for got in shown), (want, res.stdout)
        if "suggest" in command:
            assert "default index: public corpus" in res.stdout
            pattern = re.search(r"pattern +(\S+)", res.stdout).group(1)
            assert re.search(rf"pattern +{re.escape(pattern)}", pasted), res.stdout
        ran += 1
    assert ran == 3


def test_index_build_says_in_one_line_what_to_install(lake_mini, tmp_path):
    res = cli_without_spark("index", "build", "--lake", lake_mini, "--out", tmp_path / "i")
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert "pip install 'autovalidate-lake[spark]'" in lines[0]
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


@pytest.mark.slow  # builds the wheel and installs it with its dependencies: minutes
def test_the_wheel_suggests_with_its_default_index_in_a_fresh_venv(dirty_clean, tmp_path):
    """Issue 13's done-when: a fresh venv, the wheel, no ../shared, no Spark, no checkout."""
    dist, venv, work = tmp_path / "dist", tmp_path / "venv", tmp_path / "work"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(dist)],
        check=True,
        timeout=600,
    )
    (wheel,) = dist.glob("autovalidate_lake-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([venv / "bin" / "pip", "install", "-q", wheel], check=True, timeout=900)
    work.mkdir()
    for name in ("clean.csv", "dirty.csv"):
        shutil.copy(dirty_clean / "hospital" / name, work / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cli = str(venv / "bin" / "autovalidate")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [cli, *args], cwd=work, env=env, capture_output=True, text=True, timeout=300
        )

    made = run("suggest", "clean.csv", "--column", "ZipCode", "--out", "zip.json")
    assert made.returncode == 0 and "default index: public corpus" in made.stdout, made.stderr
    assert "<digit>" in made.stdout and "site-packages" in run("index", "info", "--default").stdout
    assert run("validate", "clean.csv", "--constraints", "zip.json").returncode == 0
    failed = run("validate", "dirty.csv", "--constraints", "zip.json", "--rename", "ZipCode=zip")
    assert failed.returncode == 1, failed.stdout + failed.stderr
