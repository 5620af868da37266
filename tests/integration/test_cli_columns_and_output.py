"""Issue 10 as a user meets it: renamed columns, missing columns, readable output.

Real files, a real index (the lake-mini index built by local Spark), the real
CLI through typer's runner.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autovalidate.checks.spec import ConstraintSuite
from autovalidate.cli import app
from autovalidate.cli.common import console
from autovalidate.errors import ColumnNotFoundError

pytestmark = pytest.mark.spark
runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture()
def renamed_batch(mini_index, tmp_path) -> tuple[Path, Path, Path]:
    """A suite learned on `order_id`, and a batch that calls it `orderId`, with bad ids."""
    train = tmp_path / "train.csv"
    train.write_text("order_id,note\n" + "".join(f"A-{i:04d},x\n" for i in range(300)))
    batch = tmp_path / "batch.csv"
    batch.write_text(
        "orderId,note\n"
        + "".join(f"A-{i:04d},x\n" for i in range(200))
        + "".join(f"a{i},x\n" for i in range(100))
    )
    suite = tmp_path / "suite.json"
    res = run(
        "suggest", train, "-c", "order_id", "-i", mini_index, "--r", "0.5", "--m", "1", "-o", suite
    )
    assert res.exit_code == 0 and suite.exists(), res.output
    return train, batch, suite


def test_a_missing_column_is_exit_2_naming_the_closest(renamed_batch):
    _, batch, suite = renamed_batch
    res = run("validate", batch, "-c", suite)
    assert res.exit_code == 2, res.output
    line = res.output.strip()
    assert line.startswith("error:") and "\n" not in line
    assert "'order_id' not found" in line and "closest: 'orderId'" in line


def test_rename_checks_the_suite_column_on_the_batch_column(renamed_batch):
    train, batch, suite = renamed_batch
    res = run("validate", batch, "-c", suite, "--rename", "order_id=orderId")
    assert res.exit_code == 1, res.output
    assert "non-conforming examples: 'a0'" in res.output  # shown without --json
    assert "33.33% non-conforming" in res.output
    doc = json.loads(
        run("validate", batch, "-c", suite, "--rename", "order_id=orderId", "--json").output
    )
    assert doc["results"][0]["examples"][0] == "a0"
    # a rename does not hide a pass: the training file under another name passes
    renamed_train = train.with_name("renamed.csv")
    renamed_train.write_text(train.read_text().replace("order_id,", "orderId,", 1))
    assert (
        run("validate", renamed_train, "-c", suite, "--rename", "order_id=orderId").exit_code == 0
    )


@pytest.mark.parametrize("pair", ["order_id", "=orderId", "order_id=nope"])
def test_a_bad_rename_is_exit_2(renamed_batch, pair):
    _, batch, suite = renamed_batch
    res = run("validate", batch, "-c", suite, "--rename", pair)
    assert res.exit_code == 2 and res.output.startswith("error:"), res.output


def test_python_suite_run_raises_on_a_missing_column_and_renames(renamed_batch):
    _, batch, suite_path = renamed_batch
    suite = ConstraintSuite.load(suite_path)
    with pytest.raises(ColumnNotFoundError) as caught:
        suite.run(str(batch))
    assert caught.value.column == "order_id" and caught.value.closest == ["orderId"]
    result = suite.run(str(batch), rename={"order_id": "orderId"})
    assert result.status.value == "Error"


def test_text_from_the_data_is_never_read_as_markup(mini_index, tmp_path):
    folder = tmp_path / "runs[final]"
    folder.mkdir()
    data = folder / "report[final].csv"
    data.write_text("code[/],[red]n[/red]\n" + "".join(f"[{i}],[final]\n" for i in range(200)))
    suite = tmp_path / "s.json"
    res = run(
        "suggest", data, "-c", "code[/]", "-i", mini_index, "--r", "0.5", "--m", "1", "-o", suite
    )
    assert res.exit_code == 0, res.output
    assert "code[/]" in res.output
    if suite.exists():  # a pattern for `[0]`..`[199]`: its regex is shown as written
        regex = ConstraintSuite.load(suite).pattern_constraints()[0].regex
        assert regex in res.output.replace("\n", "")
        ok = run("validate", data, "-c", suite)
        assert ok.exit_code == 0 and "Traceback" not in ok.output, ok.output
    missing = run("validate", folder / "gone[final].csv", "-c", suite)
    assert missing.exit_code == 2 and "gone[final].csv" in missing.output, missing.output


def _field(output: str, name: str) -> str:
    """The value of one field of ``suggest --column``'s table, its folded lines joined."""
    lines = output.splitlines()
    first = next(i for i, line in enumerate(lines) if line.split()[:1] == [name])
    start = lines[first].index(name) + len(name)
    start += len(lines[first][start:]) - len(lines[first][start:].lstrip())
    value = lines[first][start:].rstrip()
    for line in lines[first + 1 :]:
        if line[:start].strip():
            break
        value += line[start:].rstrip()
    return value


def test_a_long_pattern_is_shown_whole_with_its_segments_read_out(flights_csv, monkeypatch):
    """At 80 columns the regex and pattern fold, never end in an ellipsis; separators read."""
    monkeypatch.setattr(console, "width", 80)  # a terminal's: off one, lines are never cut
    data = flights_csv
    seen = set()
    for column in ("flight", "when"):
        as_json = run("suggest", data, "-c", column, "--json")
        assert as_json.exit_code == 0, as_json.output
        constraint = json.loads(as_json.output)["constraint"]
        res = run("suggest", data, "-c", column)
        assert res.exit_code == 0, res.output
        assert "…" not in res.output
        assert _field(res.output, "regex") == constraint["regex"]
        assert _field(res.output, "pattern") == constraint["pattern"]
        segments = constraint["segments"]
        if len(segments) > 1:
            assert "vertical cuts" in res.output
            formats = {s.get("branch", 0) for s in segments}
            assert ("┃ format" in res.output) == (len(formats) > 1)
            seen |= {"formats"} if len(formats) > 1 else set()
            for s in segments:
                if s["evidence"] == "literal":  # a separator reads as its quoted text
                    assert f"│ {s['pattern']!r}" in res.output
                    seen.add("literal")
    # the data makes both cases happen: a separator cut out, a column of two formats
    assert seen == {"formats", "literal"}


def test_the_validate_table_keeps_status_and_value_beside_a_long_constraint(
    flights_csv, tmp_path, monkeypatch
):
    """At 80 columns a long pattern label is shortened, never the status and value cropped."""
    monkeypatch.setattr(console, "width", 80)  # a terminal's: off one, lines are never cut
    suite = tmp_path / "when.json"
    assert run("suggest", flights_csv, "-c", "when", "-o", suite).exit_code == 0
    drifted = tmp_path / "drifted.csv"
    drifted.write_text(flights_csv.read_text().replace("-", "."))
    res = run("validate", drifted, "-c", suite)
    assert res.exit_code == 1, res.output
    rows = [line for line in res.output.splitlines() if line.startswith("│")]
    assert len(rows) == 1 and len(rows[0]) <= 80, res.output
    cells = [c.strip() for c in rows[0].strip("│").split("│")]
    assert cells[2] == "FAILED" and cells[3] == "non-conforming" and float(cells[4]) > 0.4
    assert cells[1].endswith("…")  # the label did need shortening at this width
