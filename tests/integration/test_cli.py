"""The CLI end to end on real files: build (Spark), suggest, validate; errors and exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autovalidate.cli import app

pytestmark = pytest.mark.spark
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture()
def batch(tmp_path) -> tuple[Path, Path]:
    """A training file of ids and a new batch where a third of the ids changed format."""
    train = tmp_path / "train.csv"
    train.write_text("id,note\n" + "".join(f"A-{i:04d},x\n" for i in range(300)))
    new = tmp_path / "new.csv"
    new.write_text(
        "id,note\n"
        + "".join(f"A-{i:04d},x\n" for i in range(200))
        + "".join(f"a{i},x\n" for i in range(100))
    )
    return train, new


def test_info(mini_index):
    res = run("index", "info", mini_index, "--json")
    assert res.exit_code == 0
    assert json.loads(res.output)["patterns"] > 0


def test_suggest_out_validate(mini_index, batch, tmp_path):
    train, new = batch
    suite = tmp_path / "suite.json"
    res = run(
        "suggest",
        train,
        "--column",
        "id",
        "--index",
        mini_index,
        "--r",
        "0.5",
        "--m",
        "1",
        "--out",
        suite,
        "--json",
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["constraint"]["column"] == "id" and doc["values"] == 300
    assert doc["constraint"]["regex"].startswith("\\A")
    ok = run("validate", train, "--constraints", suite)
    assert ok.exit_code == 0, ok.output
    bad = run("validate", new, "--constraints", suite, "--json")
    assert bad.exit_code == 1
    result = json.loads(bad.output)["results"][0]
    assert result["n_nonconforming"] == 100 and not result["passed"]
    assert result["examples"][0] == "a0"


def test_suggest_samples_a_large_column_and_says_so(mini_index, batch):
    train, _ = batch
    args = ["suggest", train, "--column", "id", "--index", mini_index, "--r", "0.5"]
    sampled = run(*args, "--max-values", "100", "--json")
    assert sampled.exit_code == 0, sampled.output
    doc = json.loads(sampled.output)
    assert doc["constraint"]["params"]["inferred_from"] == 100
    assert doc["constraint"]["train_n"] == 300
    shown = run(*args, "--max-values", "100")
    assert "inferred from 100 values" in shown.output
    whole = json.loads(run(*args, "--max-values", "0", "--json").output)
    assert "inferred_from" not in whole["constraint"]["params"]


def test_dirty_flights_fail_against_clean_flights(mini_index, dirty_clean, tmp_path):
    suite = tmp_path / "flights.json"
    clean, dirty = dirty_clean / "flights/clean.csv", dirty_clean / "flights/dirty.csv"
    res = run(
        "suggest",
        clean,
        "-c",
        "act_dep_time",
        "-i",
        mini_index,
        "--r",
        "0.5",
        "--m",
        "1",
        "-o",
        suite,
    )
    assert res.exit_code == 0, res.output
    if suite.exists():  # a constraint was found on the mini lake's evidence
        assert run("validate", clean, "-c", suite).exit_code == 0
        assert run("validate", dirty, "-c", suite).exit_code == 1


def test_abstention_is_not_an_error(mini_index, tmp_path):
    prose = tmp_path / "prose.csv"
    prose.write_text(
        "text\n" + "".join(f'"this is sentence number {i} of many, isn\'t it"\n' for i in range(50))
    )
    res = run("suggest", prose, "-c", "text", "-i", mini_index, "--json")
    assert res.exit_code == 0
    assert json.loads(res.output)["constraint"] is None


@pytest.mark.parametrize(
    "args,needle",
    [
        (["suggest", "{train}", "-c", "nope", "-i", "{index}"], "column 'nope' not found"),
        (["suggest", "{missing}", "-c", "id", "-i", "{index}"], "no such file"),
        (["suggest", "{empty}", "-c", "id", "-i", "{index}"], "no non-null values"),
        (["suggest", "{train}", "-c", "id", "-i", "{train}"], "no such index directory"),
        (
            ["suggest", "{train}", "-c", "id", "-i", "{index}", "--method", "x"],
            "method must be one of",
        ),
        (
            ["suggest", "{train}", "-c", "id", "-i", "{index}", "--tau", "12"],
            "exceeds the index's tau",
        ),
        (["validate", "{train}", "-c", "{train}"], "not JSON"),
        (["validate", "{train}", "-c", "{missing}"], "No such file"),
        (["index", "build", "--lake", "{missing}", "--out", "{missing}"], "no such lake directory"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(mini_index, batch, tmp_path, args, needle):
    train, _ = batch
    empty = tmp_path / "empty.csv"
    empty.write_text("id,x\n,1\n,2\n")
    names = {
        "train": train,
        "index": mini_index,
        "missing": tmp_path / "missing.csv",
        "empty": empty,
    }
    res = run(*[a.format(**names) for a in args])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert "Traceback" not in res.output
    assert lines[0].startswith("error:") and needle in " ".join(lines), res.output


def test_incompatible_index_version(mini_index, batch, tmp_path):
    import shutil

    copy = tmp_path / "old-index"
    shutil.copytree(mini_index, copy)
    meta_path = copy / "_autovalidate_index.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "format_version": 0}))
    res = run("suggest", batch[0], "-c", "id", "-i", copy)
    assert res.exit_code == 2 and "rebuild it" in res.output


def test_console_script_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "autovalidate", "--help"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "suggest" in out.stdout


@pytest.mark.parametrize(
    "command,usage",
    [
        (["validate"], "[OPTIONS] FILE"),
        (["suggest"], "[OPTIONS] FILE"),
        (["export"], "[OPTIONS] SUITE"),
        (["index", "merge"], "[OPTIONS] INDEX..."),
        (["index", "info"], "[OPTIONS] [PATH]"),
        (["metrics", "record"], "[OPTIONS] FILE"),
    ],
)
def test_help_names_arguments_plainly_and_shows_no_type_after_a_flag(command, usage):
    """Typer's rich help printed `Usage: ... {file}` and `--help <bool>` (issue 31)."""
    res = run(*command, "--help")
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0].endswith(usage), res.output
    assert "<bool>" not in res.output and "{" not in res.output.splitlines()[0]
    assert re.search(r"^  --help +Show this message and exit\.$", res.output, re.M)


def test_index_build_output_holds_no_spark_log_lines(small_lake, tmp_path):
    """A fresh JVM's warnings and Spark's log lines go to the log file, not the terminal.

    Off a terminal (here a pipe, as in CI or `| tee`) the build prints progress
    lines instead of a bar: the phases with their task counts and elapsed time.
    On 150 of lake-mini's columns: what a fresh JVM prints does not depend on the
    lake's size (the whole of lake-mini took ~20 s more).
    """
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "autovalidate",
            "index",
            "build",
            "--lake",
            str(small_lake),
            "--out",
            str(tmp_path / "index"),
            "--tau",
            "4",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    shown = out.stdout + out.stderr
    assert "built" in shown
    for noise in ("WARN", "log4j", "Using incubator modules", "SparkContext"):
        assert noise not in shown, shown
    *progress, last = out.stdout.strip().splitlines()
    first = re.fullmatch(r"\[ *0\.\d s\] starting Spark \(its log: (.+)\)", progress[0])
    assert first, out.stdout
    log = Path(first.group(1))
    assert re.fullmatch(r"autovalidate-spark-\d+\.log", log.name)  # a log per build process
    assert "log4j" in log.read_text()  # the JVM did talk: into the log
    assert any(
        re.fullmatch(r"\[ *\d+\.\d s\] enumerate patterns: \d+/\d+ tasks", line)
        for line in progress
    ), out.stdout
    seconds = json.loads((tmp_path / "index" / "_autovalidate_index.json").read_text())
    assert re.search(
        rf" in {seconds['build']['wall_seconds']:.1f} s, after \d+\.\d s starting Spark$", last
    ), last
