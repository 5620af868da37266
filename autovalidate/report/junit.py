r"""A run as a JUnit XML file, the test-report format CI servers read (``--junit FILE``).

Jenkins, GitLab CI, Azure Pipelines, GitHub Actions' test reporters and
junit2html read the same ``<testsuites>/<testsuite>/<testcase>`` layout; the
file is written with junitparser. The mapping:

* ``validate``: a ``<testsuite>`` per check (its description; properties
  ``level`` and ``status``), a ``<testcase>`` per constraint (its label, the
  check as ``classname``). A failed constraint of an Error-level check is a
  ``<failure>`` (the constraint's message; for a pattern constraint also its
  regex, the non-conforming fraction of the batch and of training, the drift
  test's p-value and examples). A failed constraint of a Warning-level check
  passes, as the exit code does (0), with the warning in ``<system-out>``.
* ``validate-batch``: one ``<testsuite>``, a ``<testcase>`` per batch
  statistic (Redyuk et al. 2020): ``rejected`` and ``missing`` are failures,
  ``not checked`` (too little history) is ``<skipped>``.

Every text from the data is kept to the characters XML 1.0 allows: others
(control characters such as ``\x01``) are written as Python escapes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import regex
from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

from autovalidate.errors import ParameterError
from autovalidate.report.model import ConstraintRow, PatternDetails, Report, StatisticRow

__all__ = ["render_junit"]

#: Characters XML 1.0 does not allow in a document (§2.2, Char).
_NOT_XML = regex.compile(r"[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")


def _text(value: object) -> str:
    """``value`` as text an XML 1.0 document can hold: other characters as escapes."""
    return str(_NOT_XML.sub(lambda m: repr(m.group())[1:-1], str(value)))


def _pattern_lines(details: PatternDetails) -> list[str]:
    c = details.constraint
    lines = [f"regex: {c.regex}"]
    fraction = details.batch_fraction
    if fraction is not None:
        lines.append(
            f"non-conforming: {details.n_nonconforming} of {details.n_values} values "
            f"({fraction:.2%}) vs {c.train_nonconforming} of {c.train_n} in training"
        )
    if details.p_value is not None:
        lines.append(f"{c.test} test: p={details.p_value:.3g}, alpha={c.alpha}")
    if details.examples:
        lines.append("non-conforming examples: " + ", ".join(repr(e) for e in details.examples))
    return lines


def _constraint_case(row: ConstraintRow) -> TestCase:
    case = TestCase(_text(row.label), _text(row.check))
    details = [] if row.pattern is None else _pattern_lines(row.pattern)
    if row.status == "failed":
        failure = Failure(_text(row.message), "constraint failed")
        failure.text = _text("\n".join([row.message, *details]))
        case.result = [failure]
    elif row.status == "warning":
        case.system_out = _text("\n".join([f"warning: {row.message}", *details]))
    return case


def _statistic_case(row: StatisticRow) -> TestCase:
    case = TestCase(_text(f"{row.name}({row.column})"), "batch statistics")
    message = _text(
        row.detail
        or f"{row.status}: value {row.value} against the forecast {row.expected} "
        f"in [{row.lower}, {row.upper}]"
    )
    if row.status in ("rejected", "missing"):
        failure = Failure(message, f"statistic {row.status}")
        failure.text = message
        case.result = [failure]
    elif row.status == "not checked":
        case.result = [Skipped(message)]
    return case


def render_junit(report: Report) -> str:
    """The report of ``validate`` or ``validate-batch`` as a JUnit XML document.

    Parameters
    ----------
    report
        A run's report (:func:`~autovalidate.report.model.validation_report`
        or :func:`~autovalidate.report.model.batch_report`).

    Returns
    -------
    str
        The XML document, with its declaration (to be written as UTF-8).

    Raises
    ------
    ParameterError
        For a ``suggest`` report: a suggestion passes or fails nothing.
    """
    if report.command not in ("validate", "validate-batch"):
        raise ParameterError(f"a {report.command} report has no test results for JUnit XML")
    xml = JUnitXml(_text(f"autovalidate {report.command}: {report.subject}"))
    if report.command == "validate":
        suites = []
        for check in report.checks:
            suite = TestSuite(_text(check.description))
            suite.add_property("level", check.level)
            suite.add_property("status", check.status)
            suite.add_testcases([_constraint_case(row) for row in check.constraints])
            suites.append(suite)
    else:
        suite = TestSuite(_text(f"batch statistics: {report.subject}"))
        suite.add_testcases([_statistic_case(row) for row in report.statistics])
        suites = [suite]
    for suite in suites:
        suite.timestamp = report.created
        suite.add_property("file", _text(report.subject))
        suite.add_property("autovalidate", report.version)
        xml.add_testsuite(suite)
    xml.update_statistics()
    # indented for people who open the file (junitparser writes one line); the
    # standard library's tree, whichever etree junitparser runs on
    root = ET.fromstring(xml.tostring())
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
