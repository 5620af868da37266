"""``--junit FILE``: validate and validate-batch runs as JUnit XML, read back by a real consumer.

Each test runs the CLI with ``--junit`` and ``--json``, parses the file with
the standard library's strict XML parser, and checks it against the run's own
JSON: a test case per constraint or statistic, a failure exactly where the
run failed one. junit2html, a report tool CI users run on such files, reads
them too, and its ``--max-failures`` gate agrees with autovalidate's exit code.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autovalidate.checks.check import CheckLevel
from autovalidate.checks.spec import CheckSpec, ConstraintSuite
from autovalidate.cli import app
from autovalidate.errors import ParameterError
from autovalidate.report import Report, render_junit

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def junit2html(*args: object) -> subprocess.CompletedProcess[str]:
    """junit2html, the JUnit report tool, run as CI users run it."""
    return subprocess.run(
        [sys.executable, "-m", "junit2htmlreport", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def gate(report: Path) -> subprocess.CompletedProcess[str]:
    """junit2html's text summary of ``report``, exiting non-zero on one failed test case or more."""
    return junit2html("--summary-matrix", "--max-failures", "1", report)


def cases(report: Path) -> list[ET.Element]:
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites"
    return root.findall("./testsuite/testcase")


@pytest.fixture(scope="module")
def zip_suite(dirty_clean, tmp_path_factory) -> Path:
    """ZipCode's pattern constraint, suggested on the clean hospital table (default index)."""
    out = tmp_path_factory.mktemp("junit") / "zip.json"
    clean = dirty_clean / "hospital" / "clean.csv"
    assert run("suggest", clean, "--column", "ZipCode", "--out", out).exit_code == 0
    return out


def test_a_failed_pattern_constraint_is_a_failure_with_its_evidence(
    dirty_clean, zip_suite, tmp_path
):
    dirty = dirty_clean / "hospital" / "dirty.csv"
    report = tmp_path / "dirty.xml"
    res = run(
        "validate", dirty, "-c", zip_suite, "--rename", "ZipCode=zip", "--json", "--junit", report
    )
    assert res.exit_code == 1, res.output
    (row,) = json.loads(res.stdout)["results"]
    (case,) = cases(report)
    assert case.get("name") == row["label"] and case.get("classname") == row["check"]
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == row["constraint_message"]
    text = failure.text or ""
    (constraint,) = ConstraintSuite.load(zip_suite).checks[0].constraints
    assert f"regex: {constraint.regex}" in text
    assert f"{row['n_nonconforming']} of {row['n_values']} values" in text
    assert row["examples"] and all(repr(e) in text for e in row["examples"])
    root = ET.parse(report).getroot()
    assert (root.get("tests"), root.get("failures")) == ("1", "1")

    # a consumer CI users run: its failure gate fails this report, naming the
    # constraint, and its HTML page shows the examples
    gated = gate(report)
    assert gated.returncode != 0, gated.stdout + gated.stderr
    assert f"{row['label']}  f  f Failed" in gated.stdout
    page = tmp_path / "dirty.html"
    assert junit2html(report, page).returncode == 0
    assert "non-conforming examples: &#39;x5957&#39;" in page.read_text()


def test_a_passing_run_has_no_failure_and_passes_the_consumer_gate(
    dirty_clean, zip_suite, tmp_path
):
    clean = dirty_clean / "hospital" / "clean.csv"
    report = tmp_path / "clean.xml"
    assert run("validate", clean, "-c", zip_suite, "--junit", report).exit_code == 0
    (case,) = cases(report)
    assert list(case) == []  # no failure, skipped or output: a plain pass
    gated = gate(report)
    assert gated.returncode == 0, gated.stdout + gated.stderr


def test_a_warning_level_failure_passes_as_the_exit_code_does(dirty_clean, zip_suite, tmp_path):
    (check,) = ConstraintSuite.load(zip_suite).checks
    suite = tmp_path / "warn.json"
    warned = CheckSpec("zip codes, warning only", CheckLevel.WARNING, check.constraints)
    suite.write_text(ConstraintSuite((check, warned)).to_json())
    report = tmp_path / "warn.xml"
    dirty = dirty_clean / "hospital" / "dirty.csv"
    res = run(
        "validate", dirty, "-c", suite, "--rename", "ZipCode=zip", "--json", "--junit", report
    )
    assert res.exit_code == 1  # the Error-level check fails
    error_case, warning_case = cases(report)
    assert error_case.find("failure") is not None
    assert warning_case.find("failure") is None
    out = warning_case.findtext("system-out") or ""
    assert out.startswith("warning: ") and "non-conforming examples: 'x5957'" in out
    suites = ET.parse(report).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == [check.description, warned.description]
    assert [s.get("failures") for s in suites] == ["1", "0"]
    levels = [s.find("properties/property[@name='level']").get("value") for s in suites]
    assert levels == ["Error", "Warning"]

    # the Warning-level check alone: exit 0, and the report has no failure
    suite.write_text(ConstraintSuite((warned,)).to_json())
    res = run("validate", dirty, "-c", suite, "--rename", "ZipCode=zip", "--junit", report)
    assert res.exit_code == 0
    assert ET.parse(report).getroot().get("failures") == "0"


def test_control_characters_are_escaped_into_well_formed_xml(zip_suite, tmp_path):
    """Values, a column name and a check description with characters XML 1.0 forbids."""
    (check,) = ConstraintSuite.load(zip_suite).checks
    (constraint,) = check.constraints
    column = "code\x01"
    description = "codes \x1b[31mfrom a terminal\x1b[0m"  # colours pasted into a suite
    suite = tmp_path / "code.json"
    renamed = CheckSpec(description, check.level, (replace(constraint, column=column),))
    suite.write_text(ConstraintSuite((renamed,)).to_json())
    data = tmp_path / "codes.csv"
    rows = [f"{10000 + i}" for i in range(50)] + ["12\x0134", "9\x1b99"]
    data.write_text(f"{column}\n" + "".join(f"{r}\n" for r in rows))
    report = tmp_path / "codes.xml"
    assert run("validate", data, "-c", suite, "--junit", report).exit_code == 1
    (case,) = cases(report)  # ET.parse raises on a character XML 1.0 does not allow
    assert case.get("classname") == "codes \\x1b[31mfrom a terminal\\x1b[0m"
    assert case.get("name") == "pattern('code\\x01', <digit>{5})"
    text = case.find("failure").text
    assert "'12\\x0134'" in text and "'9\\x1b99'" in text


def test_validate_batch_has_a_test_case_per_statistic(hospital_history, tmp_path):
    repo, new = hospital_history
    report = tmp_path / "batch.xml"
    res = run("validate-batch", new, "-r", repo, "-d", "h", "--json", "--junit", report)
    decision = json.loads(res.stdout)
    assert res.exit_code == (0 if decision["accepted"] else 1)
    statistics = decision["statistics"]
    found = cases(report)
    assert [c.get("name") for c in found] == [f"{s['name']}({s['column']})" for s in statistics]
    for case, s in zip(found, statistics, strict=True):
        failed = s["status"] in ("rejected", "missing")
        assert (case.find("failure") is not None) == failed, s
        assert (case.find("skipped") is not None) == (s["status"] == "not checked"), s
    assert any(s["status"] == "rejected" for s in statistics)  # the dirty rows move some
    assert (gate(report).returncode != 0) == (not decision["accepted"])


def test_a_suggest_report_has_no_test_results():
    with pytest.raises(ParameterError, match="no test results"):
        render_junit(Report("suggest", "t.csv", "suggested", "3 suggestions"))


def test_every_file_written_is_named_as_out_is(dirty_clean, zip_suite, hospital_history, tmp_path):
    """--html, --junit and --failed-rows wrote silently while --out said `wrote FILE` (issue 31)."""
    dirty = dirty_clean / "hospital" / "dirty.csv"
    html, xml, rows = tmp_path / "r.html", tmp_path / "r.xml", tmp_path / "failed.parquet"
    args = ["--html", html, "--junit", xml, "--failed-rows", rows]
    res = run("validate", dirty, "-c", zip_suite, "--rename", "ZipCode=zip", *args)
    assert res.exit_code == 1, res.output
    assert res.output.splitlines()[-3:] == [f"wrote {html}", f"wrote {xml}", f"wrote {rows}"]
    assert html.exists() and xml.exists() and rows.exists()
    as_json = run("validate", dirty, "-c", zip_suite, "--rename", "ZipCode=zip", "--json", *args)
    assert json.loads(as_json.output)["passed"] is False  # stdout holds the JSON alone
    repo, new = hospital_history
    res = run("validate-batch", new, "-r", repo, "-d", "h", "--html", html, "--junit", xml)
    assert res.output.splitlines()[-2:] == [f"wrote {html}", f"wrote {xml}"], res.output
