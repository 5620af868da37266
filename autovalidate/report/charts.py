"""Charts of a report as inline SVG (matplotlib), with no text taken from the data.

A statistic's chart shows its history (the values of earlier batches in date
order), the new batch's value, and the forecast with its interval at the new
batch (Redyuk et al. 2020). Titles and labels stay in the page's HTML, where
they are escaped; the SVG holds only numbers and dates.
"""

from __future__ import annotations

import io
from datetime import datetime, timezone

from autovalidate.report.model import StatisticRow

__all__ = ["statistic_chart"]

_ACCEPTED, _REJECTED, _HISTORY = "#1a7f37", "#cf222e", "#57606a"


def statistic_chart(row: StatisticRow) -> str | None:
    """An ``<svg>`` element: history, forecast interval and the batch's value.

    Returns
    -------
    str or None
        SVG markup, or ``None`` when there is no history to draw.
    """
    if not row.history:
        return None
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    figure = Figure(figsize=(3.6, 1.7), dpi=96)
    axes = figure.add_axes((0.16, 0.2, 0.8, 0.72))
    xs = list(range(len(row.history)))
    ys = [v for _, v in row.history]
    axes.plot(xs, ys, marker="o", markersize=3, color=_HISTORY, linewidth=1)
    new_x = len(xs)
    if row.lower is not None or row.upper is not None:
        low = row.lower if row.lower is not None else min(ys)
        high = row.upper if row.upper is not None else max(ys)
        axes.fill_between([new_x - 0.3, new_x + 0.3], low, high, color="#0969da", alpha=0.18)
        if row.expected is not None:
            axes.plot([new_x - 0.3, new_x + 0.3], [row.expected] * 2, color="#0969da", linewidth=1)
    if row.value is not None:
        colour = _REJECTED if row.status in ("rejected", "missing") else _ACCEPTED
        axes.plot([new_x], [row.value], marker="D", markersize=5, color=colour)
    plotted = [*ys, *(v for v in (row.value, row.lower, row.upper) if v is not None)]
    low, high = min(plotted), max(plotted)
    if high - low <= 1e-9 * max(1.0, abs(high)):  # a constant series: a visible band around it
        pad = max(abs(high) * 0.05, 0.05)
        axes.set_ylim(low - pad, high + pad)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.4g}"))
    first, last = (_date(row.history[0][0]), _date(row.history[-1][0]))
    axes.set_xticks([0, len(xs) - 1, new_x], [first, last, "new"], fontsize=7)
    axes.tick_params(axis="y", labelsize=7)
    axes.margins(x=0.08, y=0.15)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "autovalidate"}):
        figure.savefig(buffer, format="svg")
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]


def _date(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%d")
