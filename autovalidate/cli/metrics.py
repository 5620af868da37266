"""``autovalidate metrics record`` and ``autovalidate metrics history``."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import typer
from rich.table import Table

from autovalidate.cli.common import HELP_SETTINGS, Command, console, handle_errors, print_json
from autovalidate.errors import ParameterError
from autovalidate.wording import counted

app = typer.Typer(
    help="Record the statistics of a batch in a metrics repository and show their history.",
    no_args_is_help=True,
    **HELP_SETTINGS,
)

REPOSITORY_HELP = (
    "Metrics repository: a DuckDB file (.duckdb or .db, the embedded default) or a directory "
    "of JSON/Parquet files; created on the first record."
)


def parse_tags(tags: list[str] | None) -> dict[str, str]:
    """``["k=v", ...]`` as a dict.

    Raises
    ------
    ParameterError
        If an item has no ``=`` or an empty key.
    """
    out: dict[str, str] = {}
    for item in tags or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ParameterError(f"--tag expects KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def _date_text(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc).isoformat()


@app.command("record", cls=Command)
@handle_errors
def record(
    file: Path = typer.Argument(
        ..., metavar="FILE", help="CSV/TSV or Parquet file: one batch of the dataset."
    ),
    repository: Path = typer.Option(..., "--repository", "-r", help=REPOSITORY_HELP),
    dataset: str = typer.Option(..., "--dataset", "-d", help="The dataset's name."),
    date: str = typer.Option(
        None, "--date", help="The date the batch describes (ISO 8601; default: now, UTC)."
    ),
    tag: list[str] = typer.Option(
        None,
        "--tag",
        "-t",
        metavar="KEY=VALUE",
        help="KEY=VALUE tag of the result key, repeatable (partition...).",
    ),
    file_format: str = typer.Option(
        "json", "--format", help="For a directory repository: json or parquet files."
    ),
    avh: bool = typer.Option(
        False,
        "--avh",
        help="Also record what `validate-batch --strategy avh` draws on: row count, "
        "text lengths and histograms of low-cardinality columns.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print what was recorded as JSON."),
) -> None:
    """Record the statistics of FILE as the next point of the dataset's time series.

    Completeness and approximate distinct count of every column; mean,
    standard deviation, minimum and maximum of numeric columns (Redyuk et al.
    2020). Saving again under the same dataset, date and tags replaces the
    earlier result.

    Exit codes: 0 recorded, 2 error.
    """
    from autovalidate.monitor.avh_batches import record_avh_batch
    from autovalidate.monitor.batches import record_batch
    from autovalidate.repository import ResultKey, open_repository

    key = ResultKey.at(dataset, date, parse_tags(tag))
    repo = open_repository(repository, file_format=file_format)
    metrics = (record_avh_batch if avh else record_batch)(str(file), repo, key)
    saved = {str(a): m for a, m in metrics.items() if m.error is None}
    if as_json:
        print_json(
            {
                "repository": str(repository),
                "key": key.to_dict(),
                "metrics": [{"analyzer": a, **m.to_dict()} for a, m in saved.items()],
            }
        )
        return
    table = Table("column", "statistic", "value", title=f"recorded {dataset} at {key.date}")
    for metric in saved.values():
        value = metric.value
        shown = (
            f"{value:.6g}"
            if isinstance(value, (int, float))
            else f"histogram of {getattr(value, 'number_of_bins', '?')} values"
        )
        table.add_row(metric.instance, metric.name, shown)
    console.print(table)


@app.command("history", cls=Command)
@handle_errors
def history(
    repository: Path = typer.Option(..., "--repository", "-r", help=REPOSITORY_HELP),
    dataset: str = typer.Option(..., "--dataset", "-d", help="The dataset's name."),
    tag: list[str] = typer.Option(
        None,
        "--tag",
        "-t",
        metavar="KEY=VALUE",
        help="Only results with this KEY=VALUE tag, repeatable.",
    ),
    after: str = typer.Option(None, "--after", help="Only results dated at or after (ISO 8601)."),
    before: str = typer.Option(
        None, "--before", help="Only results dated at or before (ISO 8601)."
    ),
    metric: str = typer.Option(
        None, "--metric", help="Only this metric, e.g. Completeness or Mean."
    ),
    column: str = typer.Option(None, "--column", "-c", help="Only metrics of this column."),
    as_json: bool = typer.Option(False, "--json", help="Print the history as JSON."),
) -> None:
    """List the dataset's recorded metrics, oldest first.

    Exit codes: 0 done (also when nothing matches), 2 error.
    """
    from autovalidate.metrics.base import plain
    from autovalidate.repository import open_repository

    loader = (
        open_repository(repository).load().for_dataset(dataset).with_tag_values(parse_tags(tag))
    )
    if after is not None:
        loader = loader.after(after)
    if before is not None:
        loader = loader.before(before)
    rows = []
    for result in loader.get():
        for key, m in result.metrics.items():
            if (metric is None or m.name == metric) and (column is None or m.instance == column):
                rows.append(
                    {
                        "date": _date_text(result.result_key.dataset_date),
                        "dataset_date": result.result_key.dataset_date,
                        "tags": dict(result.result_key.tags),
                        "analyzer": result.description(key),
                        "column": m.instance,
                        "metric": m.name,
                        "value": plain(m.value),
                    }
                )
    if as_json:
        print_json({"repository": str(repository), "dataset": dataset, "history": rows})
        return
    table = Table("date", "tags", "column", "metric", "value", title=f"history of {dataset}")
    for row in rows:
        value = row["value"]
        table.add_row(
            row["date"],
            ", ".join(f"{k}={v}" for k, v in row["tags"].items()),
            row["column"],
            row["metric"],
            f"{value:.6g}" if isinstance(value, float) else str(value),
        )
    console.print(table)
    console.print(counted(len(rows), "value"))
