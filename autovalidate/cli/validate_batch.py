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
    printable,
    styled,
    write_atomically,
    wrote,
)
from autovalidate.cli.metrics import REPOSITORY_HELP, parse_tags

if TYPE_CHECKING:
    from autovalidate.anomaly.base import AnomalyDetectionStrategy
    from autovalidate.monitor.avh_batches import AVHProgram
    from autovalidate.monitor.batches import BatchValidationResult
    from autovalidate.repository import ResultKey


class StrategyName(str, enum.Enum):
    """Strategies the command offers."""

    EXPONENTIAL_SMOOTHING = "exponential-smoothing"
    ONLINE_NORMAL = "online-normal"
    BATCH_NORMAL = "batch-normal"
    AVH = "avh"


def _strategy(name: StrategyName, confidence: float, deviations: float) -> AnomalyDetectionStrategy:
    """The forecasting strategy of a name (not ``avh``, which programs constraints)."""
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
    fpr: float = typer.Option(
        0.01,
        "--fpr",
        min=0.0,
        max=1.0,
        help="With --strategy avh: budget delta on the false-positive rate of the program "
        "(a fraction in (0, 1]).",
    ),
    zero_variance: str = typer.Option(
        "rank",
        "--zero-variance",
        help="With --strategy avh: how a metric that never varied in the history is bounded: "
        "rank (bounds that hold: 'stays equal' costs (n-1)^(n-1)/n^n, about 1/(e n), for n "
        "equal values; the default) or plugin (sample "
        "deviation 0 taken at face value: 'stays equal' at any bound; not a guarantee).",
    ),
    program: Path = typer.Option(
        None,
        "--program",
        help="With --strategy avh: run this pinned program (saved with --save-program) "
        "instead of programming one.",
    ),
    save_program: Path = typer.Option(
        None, "--save-program", help="With --strategy avh: write the program to this file."
    ),
    save_suite: Path = typer.Option(
        None,
        "--save-suite",
        help="With --strategy avh: also write the program's constraints on batch values as a "
        "suite for `autovalidate validate --suite` (differences and distances need "
        "--program).",
    ),
    reference: Path = typer.Option(
        None,
        "--reference",
        help="With --strategy avh and no --program: a clean batch (typically the newest "
        "recorded one, never FILE) to make the synthetic issues from.",
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

    --strategy avh programs constraints instead (Tu et al., KDD 2023): from
    the history recorded with `metrics record --avh`, it chooses metrics and
    bounds whose false-positive rate sums to at most --fpr (Chebyshev and
    Cantelli bounds, union bound), catching as many synthetic issues of the
    clean --reference batch as it can; --save-program pins the program,
    --save-suite writes its constraints on batch values as a suite, and
    --program runs a pinned program.

    Exit codes: 0 accepted, 1 rejected, 2 error (also: too little history).
    """
    from autovalidate.monitor.avh_batches import (
        AVHProgram,
        read_text_frame,
        record_avh_batch,
        validate_batch_avh,
    )
    from autovalidate.monitor.batches import validate_batch
    from autovalidate.report import batch_report, render_html, render_junit
    from autovalidate.repository import ResultKey, open_repository

    tags = parse_tags(tag)
    repo = open_repository(repository)
    # a stream (a FIFO) is copied once: the AVH path reads the batch twice (validated, recorded)
    avh = strategy is StrategyName.AVH
    if not avh and (program or save_program or save_suite or reference):
        raise typer.BadParameter(
            "--program, --save-program, --save-suite and --reference need --strategy avh"
        )
    if avh and program is None and reference is None:
        raise typer.BadParameter("--strategy avh needs --reference (a clean batch) or --program")
    if avh and not 0.0 < fpr <= 1.0:
        raise typer.BadParameter(f"--fpr must be in (0, 1], got {fpr}")
    if zero_variance not in ("rank", "plugin"):
        raise typer.BadParameter(f"--zero-variance must be rank or plugin, got {zero_variance!r}")
    chosen = None
    with local_input(str(file)) as path:
        if avh:
            result, chosen = validate_batch_avh(
                str(path),
                repo,
                dataset,
                delta=fpr,
                program=None if program is None else AVHProgram.load(program),
                reference=None if reference is None else read_text_frame(reference),
                tags=tags,
                zero_variance="plugin" if zero_variance == "plugin" else "rank",
            )
            if save_program is not None:
                write_atomically(save_program, chosen.to_json())
            if save_suite is not None:
                from autovalidate.checks.avh_suite import program_suite

                suite, _ = program_suite(chosen)
                write_atomically(save_suite, suite.to_json() + "\n")
        else:
            result = validate_batch(
                str(path),
                repo,
                dataset,
                strategy=_strategy(strategy, confidence, deviations),
                tags=tags,
                min_history=min_history,
            )
        if html is not None or junit is not None:
            history = result.history or tuple(
                repo.load().for_dataset(dataset).with_tag_values(tags or {}).get()
            )
            report = batch_report(file, result, history)
            if html is not None:
                write_atomically(html, render_html(report))
            if junit is not None:
                write_atomically(junit, render_junit(report))
        recorded = None
        if record and result.accepted:
            recorded = ResultKey.at(dataset, date, tags)
            if avh:
                record_avh_batch(str(path), repo, recorded)
            else:  # the statistics and the history the decision already read
                result.record(repo, recorded)
        if as_json:
            print_json(
                {
                    "file": str(file),
                    **result.to_dict(),
                    **({} if chosen is None else {"program": chosen.to_dict()}),
                    "recorded": None if recorded is None else recorded.to_dict(),
                }
            )
        elif chosen is not None:
            _print_program(chosen, result)
            _print_verdict(file, result, recorded)
            wrote(html, junit, save_program, save_suite)
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
            _print_verdict(file, result, recorded)
            wrote(html, junit)
    if not result.accepted:
        raise typer.Exit(EXIT_FAILED)


def _print_verdict(file: Path, result: BatchValidationResult, recorded: ResultKey | None) -> None:
    verdict = styled("accepted", "green") if result.accepted else styled("rejected", "bold red")
    reasons = result.reasons()
    console.print(
        Text.assemble(
            printable(f"{file}: "),
            verdict,
            printable(
                f" against {result.history_results} earlier batches"
                + (f"; {reasons}" if reasons else "")
            ),
        )
    )
    if recorded is not None:
        console.print(f"recorded at {recorded.date.isoformat()}")


def _print_program(program: AVHProgram, result: BatchValidationResult) -> None:
    """The program's constraints with their bounds and budget shares, and the batch's values."""
    table = Table(
        "column",
        "metric",
        "value",
        "constraint",
        "bound",
        "FPR bound",
        "share of budget",
        "status",
        title=f"AVH program: {len(program.constraints)} constraints, FPR bound "
        f"{program.fpr_bound:.4g} <= delta {program.delta:g}; "
        f"synthetic issues caught {program.covered}/{program.issues}",
    )
    for c, s in zip(program.constraints, result.statistics, strict=True):
        i = c.interval
        low = "" if s.lower is None else f"{_number(s.lower)} <= "
        high = "" if s.upper is None else f" <= {_number(s.upper)}"
        colour = "green" if s.status == "accepted" else "bold red"
        table.add_row(
            s.column,
            s.name,
            _number(s.value),
            f"{low}x{high}",
            i.bound,
            f"{i.fpr:.4g}",
            f"{c.share:.0%}",
            styled(s.status, colour),
        )
    console.print(table)
