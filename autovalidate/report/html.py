r"""A report as one self-contained HTML page (jinja2), viewable with no network access.

The page has no script and loads nothing: styles are inline, charts are
inline SVG (:mod:`autovalidate.report.charts`), and a Content-Security-Policy
forbids any other source. Every text from the data (values, column names,
check descriptions, messages, regexes) is escaped by jinja2's autoescaping,
its control characters shown as escapes (``\x1b``,
:func:`~autovalidate.wording.printable`: HTML does not allow them, and ``cat
report.html`` would send them to a terminal); only the SVG that autovalidate
draws itself is inserted as markup.
"""

from __future__ import annotations

import math
import re
from typing import Any

from autovalidate._version import install_hint
from autovalidate.errors import ParameterError
from autovalidate.report.model import Report
from autovalidate.wording import printable

__all__ = ["render_html"]


def _number(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return f"{value:.4g}" if isinstance(value, float) else f"{value:,}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-")


def render_html(report: Report) -> str:
    """The report as an HTML page.

    Raises
    ------
    ParameterError
        If jinja2 or matplotlib (the ``report`` extra) is not installed.
    """
    try:
        from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
        from markupsafe import Markup

        from autovalidate.report.charts import statistic_chart
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ParameterError(
            f"an HTML report needs the report extra ({exc.name} is missing): "
            + install_hint("report")
        ) from exc
    env = Environment(
        loader=PackageLoader("autovalidate.report", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # the text of data, not the markup autovalidate draws (a Markup is a str too)
        finalize=lambda v: printable(v) if type(v) is str else v,
    )
    env.filters.update(
        number=_number,
        pct=lambda x: f"{x:.2%}",
        pvalue=lambda x: f"{x:.3g}",
        pyrepr=repr,
        slug=_slug,
    )
    charts = []
    for i, row in enumerate(report.statistics):
        if row.status != "not checked" and (svg := statistic_chart(row)) is not None:
            charts.append((i, Markup(svg)))  # noqa: S704 - drawn by matplotlib from numbers only
    return env.get_template("report.html.j2").render(report=report, charts=charts)
