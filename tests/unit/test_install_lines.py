"""Every install line of the README and the docs installs this project (issue 31).

PyPI's ``autovalidate`` is an unrelated project (a YAML/JSON validator with its
own ``autovalidate`` command): ``pip install autovalidate`` installed it, and the
next line of the quick start failed. The distribution is named in
``pyproject.toml``; the import package and the command stay ``autovalidate``.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from autovalidate._version import DISTRIBUTION, install_hint
from autovalidate.errors import MissingDependencyError

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _project_name() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return re.search(r'^name = "([^"]+)"', project, re.M).group(1)


def _install_commands() -> list[tuple[str, str]]:
    """(document, command) for every ``pip install ...`` in a line of README.md and docs/."""
    found = []
    for doc in DOCUMENTS:
        for line in doc.read_text().splitlines():
            for m in re.finditer(r"pip install ([^`#;&|]*)", line):
                found.append((doc.name, m.group(1).strip()))
    return found


def _installed(command: str) -> list[str]:
    """The requirements a ``pip install`` command names (options left out)."""
    return [a for a in shlex.split(command) if not a.startswith("-")]


def test_the_distribution_is_ours_and_named_once():
    assert _project_name() == DISTRIBUTION
    assert _canonical(DISTRIBUTION) != "autovalidate"  # PyPI's autovalidate is another project


def test_the_extras_that_install_the_project_itself_name_it():
    text = (ROOT / "pyproject.toml").read_text()
    self_references = re.findall(r'"([\w.-]+)\[[\w,]+\]"', text)
    assert self_references, "the test and dev extras install the project's other extras"
    for name in self_references:
        if _canonical(name).startswith("autovalidate"):
            assert _canonical(name) == _canonical(DISTRIBUTION), name


def test_every_install_line_names_the_distribution():
    commands = _install_commands()
    assert len(commands) >= 8, commands
    for doc, command in commands:
        for requirement in _installed(command):
            if requirement.startswith("."):  # the checkout itself, as in `-e '.[test]'`
                continue
            if requirement.endswith(".whl"):  # the checkout's wheel: name-version-...whl
                assert Path(requirement).name.startswith(DISTRIBUTION.replace("-", "_") + "-"), (
                    doc,
                    command,
                )
                continue
            name = re.split(r"[\[<>=!~ ]", requirement, maxsplit=1)[0]
            assert _canonical(name) == _canonical(DISTRIBUTION), (doc, command)


def test_the_quick_start_installs_the_checkouts_wheel_first():
    section = (ROOT / "README.md").read_text().split("## Quick start", 1)[1]
    first = re.search(r"```bash\n(.*?)\n", section).group(1)
    assert "pip wheel . " in first and "pip install dist/" in first, first


@pytest.mark.parametrize("extra", ["spark", "report", "connect"])
def test_error_messages_name_the_distribution_and_the_checkouts_form(extra):
    message = str(MissingDependencyError("this feature", "somepackage", extra))
    assert f"pip install '{DISTRIBUTION}[{extra}]'" in message
    # not on PyPI yet: the form that works from a checkout is given too
    assert message.endswith(f"(from a checkout: pip install -e '.[{extra}]')")
    assert install_hint(extra) in message


def test_an_html_report_without_the_report_extra_says_how_to_install_it(monkeypatch):
    from autovalidate.errors import ParameterError
    from autovalidate.report import render_html

    monkeypatch.setitem(sys.modules, "jinja2", None)  # as if the extra were not installed
    with pytest.raises(ParameterError) as caught:
        render_html(None)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "needs the report extra (jinja2 is missing)" in message
    assert message.endswith(
        f"pip install '{DISTRIBUTION}[report]' (from a checkout: pip install -e '.[report]')"
    )
