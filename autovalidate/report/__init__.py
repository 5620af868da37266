"""A run as one self-contained HTML page: ``--html FILE`` on validate, validate-batch, suggest.

:mod:`~autovalidate.report.model` turns a command's results into plain values;
:mod:`~autovalidate.report.html` renders them with a jinja2 template (package
data) and :mod:`~autovalidate.report.charts` draws the metric history charts
as inline SVG with matplotlib. Install with ``pip install 'autovalidate-lake[report]'``.
:mod:`~autovalidate.report.junit` writes ``validate`` and ``validate-batch``
runs as JUnit XML (``--junit FILE``) for CI servers.
"""

from autovalidate.report.html import render_html
from autovalidate.report.junit import render_junit
from autovalidate.report.model import (
    Report,
    batch_report,
    pattern_report,
    suggestion_report,
    validation_report,
    validation_rows,
)

__all__ = [
    "Report",
    "batch_report",
    "pattern_report",
    "render_html",
    "render_junit",
    "suggestion_report",
    "validation_report",
    "validation_rows",
]
