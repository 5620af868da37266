"""``autovalidate validate-batch``: accept or reject a new batch against its metrics history."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table
from rich.text import Text

from autovalidate.cli.common import (
    EXIT_FAILED,
    JUNIT_OPTION,
    console,
    handle_errors,
    local_input,
    print_json,
    styled,
    write_atomically,
    wrote,
)
from autovalidate.cli.metrics import REPOSITORY_HELP, parse_tags

if TYPE_CHECKING:
    from autovalidate.anomaly.base import AnomalyDetectionStrategy


class StrategyName(str, enum.Enum):
    """Strategies the command offers."""

    EXPONENTIAL_SMOOTHING = "exponential-smoothing"
    ONLINE_NORMAL = "online-normal"
    BATCH_NORMAL = "batch-normal"


def _strategy(name: StrategyName, confidence: float, deviations: float) -> AnomalyDetectionStrategy:
    from autovalidate.anomaly import (
        BatchNormalStrategy,
        ExponentialSmoothingStrategy,
        OnlineNormalStrategy,
    )

    if name is StrategyName.EXPONENTIAL_SMOOTHING:
        return ExponentialSmoothingStrategy(confidence)
    if name is StrategyName.ONLINE_NORMAL:
        return OnlineNormalStrategy(deviations, deviations)
    return BatchNormalStrategy(deviations, deviations)


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


@handle_errors
def validate_batch_command(
    file: Path = typer.Argument(
        ..., metavar="FILE", help="CSV/TSV or Parquet file: the new batch."
    ),
    repository: Path = typer.Option(..., "--repository", "-r", help=REPOSITORY_HELP),
    dataset: str = typer.Option(..., "--dataset", "-d", help="The dataset's name."),
    tag: list[str] = typer.Option(
        None,
        "--tag",
        "-t",
        metavar="KEY=VALUE",
        help="Only history with this KEY=VALUE tag, repeatable.",
    ),
    strategy: StrategyName = typer.Option(
        StrategyName.EXPONENTIAL_SMOOTHING, "--strategy", help="Anomaly detection strategy."
    ),
    confidence: float = typer.Option(
        0.9,
        "--confidence",
        min=0.0,
        max=1.0,
        help="Prediction interval of exponential smoothing (Redyuk et al.: 0.9).",
    ),
    deviations: float = typer.Option(
        3.0, "--deviations", min=0.0, help="Standard deviations for the normal strategies."
    ),
    min_history: int = typer.Option(
        3, "--min-history", min=1, help="Fewest earlier values a statistic needs."
    ),
    record: bool = typer.Option(
        False, "--record", help="Record the batch's statistics when it is accepted."
    ),
    date: str = typer.Option(
        None, "--date", help="With --record: the batch's date (ISO 8601; default: now, UTC)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the decision as JSON."),
    html: Path = typer.Option(
        None,
        "--html",
        help="Also write a self-contained HTML report (each statistic's history and forecast "
        "interval as a chart) to this file.",
    ),
    junit: Path = JUNIT_OPTION,
) -> None:
    """Accept or reject FILE by forecasts of its column statistics (Redyuk et al. 2020).

    Every statistic the dataset's history tracks (completeness and approximate
    distinct count of each column; mean, standard deviation, minimum and
    maximum of numeric columns) is forecast from its history; by default by
    exponential smoothing with a 90 % prediction interval. The batch is
    accepted iff each statistic lies in its interval. Record earlier batches
    with `autovalidate metrics record`. --junit writes a JUnit XML report:
    a test case per statistic, a failure where it is rejected or missing.

    Exit codes: 0 accepted, 1 rejected, 2 error (also: too little history).
    """
    from autovalidate.anomaly.batches import record_batch, validate_batch
    from autovalidate.report import batch_report, render_html, render_junit
    from autovalidate.repository import ResultKey, open_repository

    tags = parse_tags(tag)
    repo = open_repository(repository)
    # a stream (a FIFO) is copied once: the batch is read twice (validated, recorded)
    with local_input(str(file)) as path:
        result = validate_batch(
            str(path),
            repo,
            dataset,
            strategy=_strategy(strategy, confidence, deviations),
            tags=tags,
            min_history=min_history,
        )
        if html is not None or junit is not None:
            history = repo.load().for_dataset(dataset).with_tag_values(tags or {}).get()
            report = batch_report(file, result, history)
            if html is not None:
                write_atomically(html, render_html(report))
            if junit is not None:
                write_atomically(junit, render_junit(report))
        recorded = None
        if record and result.accepted:
            recorded = ResultKey.at(dataset, date, tags)
            record_batch(str(path), repo, recorded)
        if as_json:
            print_json(
                {
                    "file": str(file),
                    **result.to_dict(),
                    "recorded": None if recorded is None else recorded.to_dict(),
                }
            )
        else:
            table = Table(
                "column", "statistic", "value", "forecast", "interval", "history", "status"
            )
            for s in result.statistics:
                colour = {"accepted": "green", "not checked": "yellow"}.get(s.status, "bold red")
                interval = "" if s.lower is None else f"[{_number(s.lower)}, {_number(s.upper)}]"
                table.add_row(
                    s.column,
                    s.name,
                    _number(s.value),
                    _number(s.expected),
                    interval,
                    str(s.history),
                    styled(s.status, colour),
                )
            console.print(table)
            verdict = (
                styled("accepted", "green") if result.accepted else styled("rejected", "bold red")
            )
            reasons = ", ".join(f"{s.name}({s.column})" for s in result.rejecting)
            console.print(
                Text.assemble(
                    f"{file}: ",
                    verdict,
                    f" against {result.history_results} earlier batches"
                    + (f"; outside the interval: {reasons}" if reasons else ""),
                )
            )
            if recorded is not None:
                console.print(f"recorded at {recorded.date.isoformat()}")
            wrote(html, junit)
    if not result.accepted:
        raise typer.Exit(EXIT_FAILED)
