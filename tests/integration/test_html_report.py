"""The HTML reports rendered in a real headless Chromium (Debian's chromium, driven by WebDriver).

Each test runs the CLI with ``--html``, opens the page in the browser, and
asserts on the rendered DOM: the checks and constraints with the statuses the
run's JSON gives, the pattern constraint's numbers, the charts drawn with a
size, nothing loaded from anywhere, and data text shown as text, never run.
The dirty hospital batch's report is also saved as a full-page screenshot
(``AUTOVALIDATE_SCREENSHOTS=DIR`` keeps it there; docs/ has the committed one).
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from autovalidate import PatternIndex
from autovalidate.checks.spec import CheckSpec, ConstraintSuite
from autovalidate.cli import app
from autovalidate.engines.io import column_values
from autovalidate.pattern_inference import suggest_pattern
from autovalidate.suggest.runner import ConstraintSuggestionRunner

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
]
RED = "rgba(207, 34, 46, 1)"  # the failed badge's colour (#cf222e), as WebDriver reports it

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for program in (CHROMIUM, CHROMEDRIVER):
        if not program.exists():
            pytest.fail(
                f"{program} is missing: run `bash tests/install.sh` (README's test command)"
            )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _open(browser, page: Path):
    from selenium.webdriver.common.by import By

    browser.get(page.resolve().as_uri())
    assert browser.find_elements(By.TAG_NAME, "script") == []
    # nothing fetched: no stylesheet, font, image or script from anywhere
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    return By


def _screenshot(browser, name: str, tmp_path: Path) -> Path:
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(int(height) + 40, 8000))
    png = tmp_path / name
    assert browser.save_screenshot(str(png))
    width, tall = struct.unpack(">II", png.read_bytes()[16:24])  # the PNG header's size
    assert width >= 1000 and tall >= 600 and png.stat().st_size > 20_000
    keep = os.environ.get("AUTOVALIDATE_SCREENSHOTS")
    if keep:
        shutil.copy(png, Path(keep) / name)
    browser.set_window_size(1280, 900)
    return png


@pytest.fixture(scope="module")
def hospital(dirty_clean, mini_index, tmp_path_factory):
    """The suite suggest learns on the clean table plus ZipCode's pattern; dirty's renames."""
    clean, dirty = (dirty_clean / "hospital" / f"{b}.csv" for b in ("clean", "dirty"))
    with PatternIndex.open(mini_index) as index:
        suggested = ConstraintSuggestionRunner.on_data(str(clean)).with_pattern_index(index).run()
        zip_code = suggest_pattern(column_values(str(clean), "ZipCode"), index, column="ZipCode")
    checks = suggested.to_suite().checks + (
        CheckSpec("zip codes", suggested.to_suite().checks[0].level, (zip_code,)),
    )
    path = tmp_path_factory.mktemp("hospital") / "hospital-suite.json"
    path.write_text(ConstraintSuite(checks).to_json())
    names = zip(
        pd.read_csv(clean, nrows=0).columns, pd.read_csv(dirty, nrows=0).columns, strict=True
    )
    rename = [arg for a, b in names if a != b for arg in ("--rename", f"{a}={b}")]
    return path, dirty, rename


def test_validate_report_of_the_dirty_hospital_batch(browser, hospital, tmp_path):
    suite, dirty, rename = hospital
    page = tmp_path / "report.html"
    res = run("validate", dirty, "-c", suite, *rename, "--json", "--html", page)
    assert res.exit_code == 1, res.output
    rows = json.loads(res.stdout)["results"]
    By = _open(browser, page)
    assert browser.title == f"autovalidate validate: {dirty}"
    verdict = browser.find_element(By.CSS_SELECTOR, "#verdict .status")
    assert verdict.get_attribute("data-status") == "failed" and verdict.text == "failed"

    # every check with its status, as the run's JSON has them
    expected: dict[str, str] = {}
    for row in rows:
        failed = not row["passed"] and row["check_level"] == "Error"
        warned = not row["passed"] and row["check_level"] == "Warning"
        before = expected.get(row["check"], "Success")
        expected[row["check"]] = (
            "Error" if failed or before == "Error" else ("Warning" if warned else before)
        )
    shown = {
        tr.find_element(By.CSS_SELECTOR, ".check-name").text: tr.get_attribute("data-status")
        for tr in browser.find_elements(By.CSS_SELECTOR, "tr.check")
    }
    assert shown == expected
    constraints = browser.find_elements(By.CSS_SELECTOR, "tr.constraint")
    assert [tr.get_attribute("data-status") for tr in constraints] == [
        "passed" if r["passed"] else ("failed" if r["check_level"] == "Error" else "warning")
        for r in rows
    ]
    badge = browser.find_element(By.CSS_SELECTOR, "tr.constraint[data-status='failed'] .status")
    assert badge.is_displayed() and badge.value_of_css_property("color") == RED

    # the zip code's pattern constraint: its fractions, Fisher's p, alpha and the typos
    block = browser.find_element(By.CSS_SELECTOR, ".pattern[data-column='ZipCode']")
    assert block.get_attribute("data-passed") == "false"
    assert block.find_element(By.CSS_SELECTOR, ".pattern-text").text == "<digit>{5}"
    assert block.find_element(By.CSS_SELECTOR, ".regex").text == r"\A(?:[0-9]{5})\z"
    assert block.find_element(By.CSS_SELECTOR, ".batch-fraction").text.startswith("3.00%")
    assert block.find_element(By.CSS_SELECTOR, ".train-fraction").text.startswith("0.00%")
    assert float(block.find_element(By.CSS_SELECTOR, ".p-value").text) < 0.01
    examples = [e.text for e in block.find_elements(By.CSS_SELECTOR, ".examples code")]
    assert examples and all("x" in e for e in examples)
    segments = block.find_elements(By.CSS_SELECTOR, "table.segments tbody tr")
    assert [s.find_elements(By.TAG_NAME, "td")[0].text for s in segments] == ["<digit>{5}"]
    _screenshot(browser, "report-hospital-dirty.png", tmp_path)


def test_validate_batch_report_charts_each_statistic(browser, hospital_history, tmp_path):
    repo, new = hospital_history
    page = tmp_path / "batch.html"
    res = run("validate-batch", new, "-r", repo, "-d", "h", "--json", "--html", page)
    decision = json.loads(res.stdout)
    assert res.exit_code == (0 if decision["accepted"] else 1)
    By = _open(browser, page)
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.statistic")
    assert [r.get_attribute("data-status") for r in rows] == [
        s["status"] for s in decision["statistics"]
    ]
    decided = [s for s in decision["statistics"] if s["status"] != "not checked"]
    charts = browser.find_elements(By.CSS_SELECTOR, "figure.chart")
    assert len(charts) == len(decided) > 0
    for chart, s in zip(charts, decided, strict=True):
        assert chart.get_attribute("data-status") == s["status"]
        box = chart.find_element(By.TAG_NAME, "svg").rect
        assert box["width"] > 200 and box["height"] > 80
    rejected = [s for s in decision["statistics"] if s["status"] == "rejected"]
    verdict = browser.find_element(By.CSS_SELECTOR, "#verdict .status").text
    assert verdict == ("rejected" if rejected else "accepted")
    _screenshot(browser, "report-validate-batch.png", tmp_path)


def test_data_text_is_shown_as_text_never_run(browser, tmp_path):
    hostile = "<img src=x onerror=\"document.title='pwned'\">"
    data = tmp_path / "data.csv"
    pd.DataFrame({"code": ["AB-1", "AB-2", hostile, "</td><script>x()</script>"]}).to_csv(
        data, index=False
    )
    suite = tmp_path / "suite.json"
    constraint = {
        "kind": "autovalidate-pattern",
        "version": 1,
        "regex": r"\A(?:\p{Lu}{2}\-[0-9]+)\z",
        "pattern": "<upper>{2}-<digit>+",
        "segments": [],
        "fpr": 0.01,
        "method": "fmdv",
        "test": "strict",
        "alpha": 0.01,
        "train_n": 10,
        "train_nonconforming": 0,
        "column": "code",
    }
    description = "<script>document.title='pwned'</script>"
    suite.write_text(
        json.dumps(
            {
                "format": "autovalidate-suite",
                "version": 2,
                "checks": [
                    {"description": description, "level": "Error", "constraints": [constraint]}
                ],
            }
        )
    )
    page = tmp_path / "hostile.html"
    assert run("validate", data, "-c", suite, "--html", page).exit_code == 1
    By = _open(browser, page)
    assert browser.title.startswith("autovalidate validate")
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert browser.find_element(By.CSS_SELECTOR, ".check-name").text == description
    examples = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".examples code")]
    assert repr(hostile) in examples


def test_suggest_report_lists_every_suggestion(browser, dirty_clean, mini_index, tmp_path):
    clean = dirty_clean / "hospital" / "clean.csv"
    page = tmp_path / "suggest.html"
    res = run("suggest", clean, "--index", mini_index, "--json", "--html", page)
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    By = _open(browser, page)
    rows = browser.find_elements(By.CSS_SELECTOR, "tr.suggestion")
    assert len(rows) == len(doc["suggestions"]) + len(doc["dropped"])
    patterns = browser.find_elements(By.CSS_SELECTOR, ".pattern")
    suggested = [s for s in doc["suggestions"] if "pattern" in s["code"]]
    assert len(patterns) == len(suggested) > 0


def test_segments_read_out_with_their_format(browser, flights_csv, tmp_path):
    """A vertical cut's table names each segment's format and reads its separators out."""
    data = flights_csv
    seen = set()
    for column in ("flight", "when"):
        page = tmp_path / f"{column}.html"
        res = run("suggest", data, "-c", column, "--json", "--html", page)
        assert res.exit_code == 0, res.output
        segments = json.loads(res.stdout)["constraint"]["segments"]
        By = _open(browser, page)
        table = browser.find_element(By.CSS_SELECTOR, "table.segments")
        head = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        formats = len({s.get("branch", 0) for s in segments})
        assert (head[0] == "format") == (formats > 1)
        rows = [
            [td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]
        assert len(rows) == len(segments)
        for row, s in zip(rows, segments, strict=True):
            cells = dict(zip(head, row, strict=True))
            if formats > 1:
                assert cells["format"] == str(s.get("branch", 0) + 1)
                seen.add("formats")
            if s["evidence"] == "literal":  # a separator: quoted text, not blank space
                assert cells["reads"] == repr(s["pattern"]) and cells["Cov_T"] == "literal"
                seen.add("literal")
            elif s["evidence"] == "positions":  # priced by the corpus's positions
                assert cells["reads"] and cells["Cov_T"] == "positions"
            else:
                assert cells["reads"] and cells["Cov_T"] == str(s["cov"])
    assert seen == {"formats", "literal"}


def test_control_characters_of_data_text_are_shown_as_escapes(tmp_path):
    data = tmp_path / "data.csv"
    pd.DataFrame({"code": ["AB-1", "\x1b[31mAB-2", "\x07x\x9b"]}).to_csv(data, index=False)
    suite = tmp_path / "suite.json"
    constraint = {"kind": "deequ", "constraint": "is_complete", "column": "code"}
    check = {"description": "\x1b[2J\x1b[31mPWNED\r", "level": "Error"}
    check["constraints"] = [
        constraint,
        {"kind": "deequ", "constraint": "has_max_length", "column": "code"}
        | {"assertion": {"op": "<=", "value": 4}},
    ]
    suite.write_text(json.dumps({"format": "autovalidate-suite", "version": 2, "checks": [check]}))
    page = tmp_path / "report.html"
    assert run("validate", data, "-c", suite, "--html", page).exit_code == 1
    html = page.read_text()
    assert not any(c in html for c in "\x1b\x07\x9b\r")
    assert "\\x1b[2J\\x1b[31mPWNED\\x0d" in html
