"""``autovalidate validate``: check a file against a constraint suite."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from autovalidate.checks.levels import CheckLevel
from autovalidate.cli.common import (
    EXIT_FAILED,
    JUNIT_OPTION,
    console,
    handle_errors,
    local_input,
    parse_pairs,
    parse_rename,
    print_json,
    replace_atomically,
    require_rows,
    styled,
    write_atomically,
    wrote,
)
from autovalidate.errors import ColumnNotFoundError


@handle_errors
def validate(
    file: str = typer.Argument(..., metavar="FILE", help="CSV/TSV or Parquet file (a new batch)."),
    constraints: Path = typer.Option(
        ..., "--constraints", "-c", help="Suite JSON from `autovalidate suggest --out`."
    ),
    repository: Path = typer.Option(
        None,
        "--repository",
        "-r",
        help="Metrics repository (a .duckdb file or a directory) for has_no_anomalies constraints.",
    ),
    rename: list[str] = typer.Option(
        [],
        "--rename",
        metavar="SUITE_COLUMN=FILE_COLUMN",
        help="SUITE_COLUMN=FILE_COLUMN: check the suite's column on the file's column of "
        "another name (repeatable), e.g. --rename ZipCode=zip.",
    ),
    reference: list[str] = typer.Option(
        [],
        "--reference",
        metavar="NAME=PATH",
        help="NAME=PATH: the reference data the suite's has_referential_integrity and "
        "has_no_drift constraints name NAME (repeatable), a CSV/TSV (read as text) or "
        "Parquet file, e.g. --reference countries=country-codes.csv.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    html: Path = typer.Option(
        None,
        "--html",
        help="Also write a self-contained HTML report of the run to this file.",
    ),
    failed_rows: Path = typer.Option(
        None,
        "--failed-rows",
        help="Also write the rows that break a row-level constraint (patterns, completeness, "
        "containment, ranges) to this Parquet file, with a column _broken_constraints "
        "naming the constraints each broke.",
    ),
    junit: Path = JUNIT_OPTION,
) -> None:
    """Validate FILE against every check of a suite, in shared scans (VerificationSuite).

    CSV files are read as text exactly as written. A suite may hold Deequ
    constraints and Auto-Validate pattern constraints; for failing pattern
    constraints a few non-conforming values are shown. --html writes the run
    as one HTML page (checks, constraints, each pattern constraint's regex,
    segments, fractions, drift test and examples). --failed-rows writes the
    rows of FILE (its own columns, also with --rename) that break a row-level
    constraint, whether or not the constraint failed on the batch, as Parquet
    with a list column _broken_constraints; constraints on the whole batch
    (uniqueness, size, means) have no rows to write. --junit writes a JUnit
    XML report: a test suite per check, a test case per constraint, a
    failure per failed constraint of an Error-level check. --reference binds
    a reference name of the suite to a file, read into memory before the
    suite runs (a suite names its references and never holds a path).

    Exit codes: 0 every Error-level check passed (Warning-level failures are
    reported), 1 an Error-level check failed, 2 error (a column the suite
    reads is missing from FILE: use --rename when it has another name).
    """
    from autovalidate import pipeline
    from autovalidate.checks.spec import ConstraintSuite
    from autovalidate.engines import open_engine

    suite = ConstraintSuite.load(constraints)
    repo = None
    if repository is not None:
        from autovalidate.repository import open_repository

        repo = open_repository(repository)
    renamed = parse_rename(rename)
    references = _read_references(reference)
    # the suite's SQL runs on DuckDB databases with no file access but FILE's (run_checks')
    with local_input(file) as path, open_engine(path, sandbox=True) as engine:
        require_rows(engine, path)
        try:
            result = pipeline.validate(
                engine,  # the one engine on FILE: checks, examples and --failed-rows share it
                suite,
                repository=repo,
                rename=renamed,
                examples_of_passing=html is not None,
                references=references,
            )
        except ColumnNotFoundError as exc:
            raise _with_rename_hint(exc, renamed, list(engine.schema())) from exc
        rows = result.rows()
        if failed_rows is not None:
            replace_atomically(failed_rows, lambda tmp: result.write_invalid_rows(tmp, engine))
    if html is not None or junit is not None:
        from autovalidate.report import render_html, render_junit, validation_report

        report = validation_report(suite, result.verification, rows, Path(file))
        if html is not None:
            write_atomically(html, render_html(report))
        if junit is not None:
            write_atomically(junit, render_junit(report))
    if as_json:
        print_json({**result.to_dict(), "file": str(Path(file))})  # the input as given
    else:
        _print_table(rows)
        console.print(f"status: {result.status.value}", highlight=False)
        wrote(html, junit, failed_rows)
    if not result.passed:
        raise typer.Exit(EXIT_FAILED)


def _with_rename_hint(
    exc: ColumnNotFoundError, renamed: dict[str, str], columns: list[str]
) -> ColumnNotFoundError:
    """``exc`` saying which ``--rename`` checks the suite's column on one of FILE's ``columns``.

    The closest of FILE's columns no other ``--rename`` reads; else the form of
    the option. ``exc`` as it is for a column of another table (a ``--reference``).
    """
    if not set(exc.available) <= {*columns, *renamed}:
        return exc
    inverse = {file_column: suite_column for suite_column, file_column in renamed.items()}
    # a --rename naming a column FILE lacks: the suite's column is the pair's left side
    suite_column = inverse.get(exc.column, exc.column) if exc.column not in columns else exc.column
    candidate = next((c for c in exc.closest if c in columns and c not in inverse), None)
    if candidate is None:
        hint = (
            f"to check it on a column of another name: --rename "
            f"{shlex.quote(suite_column + '=')}FILE_COLUMN"
        )
    else:
        hint = (
            f"to check the suite's {suite_column!r} on {candidate!r}: --rename "
            f"{shlex.quote(f'{suite_column}={candidate}')}"
        )
    return ColumnNotFoundError(exc.column, exc.available, hint=hint)


def _read_references(pairs: list[str]) -> dict[str, Any]:
    """``["countries=codes.csv"]`` -> ``{"countries": <the file as an Arrow table>}``.

    Each file is read as ``validate`` reads FILE (CSV as text), into memory.

    Raises
    ------
    ParameterError
        If a pair has no ``=`` or an empty side, or a name is given twice.
    DataSourceError
        If a file cannot be read.
    """
    from autovalidate.engines.io import read_table

    paths = parse_pairs("--reference", pairs, "NAME=PATH", "{!r} given twice")
    return {name: read_table(path) for name, path in paths.items()}


#: Widest the check column gets, and narrowest the constraint column, in characters.
MAX_CHECK_WIDTH, MIN_LABEL_WIDTH = 24, 16
#: The words of the status column ("warning" is the widest).
STATUSES = ("passed", "FAILED", "warning")


def _shown(value: Any) -> str:
    """A constraint's metric value as the table shows it."""
    return f"{value:.4g}" if isinstance(value, float) else ("" if value is None else str(value))


def _print_table(rows: list[dict[str, Any]]) -> None:
    """One line per constraint; messages and examples of the failing ones below the table.

    The metric column says what each value is: a Deequ metric (Completeness,
    Compliance: the fraction of rows meeting the constraint; Size: rows) or,
    for a pattern constraint, the fraction of values that are non-conforming.
    """
    from autovalidate.checks.constraints import ConstraintStatus

    headers = ("check", "constraint", "status", "metric", "value")
    metrics = [row.get("metric") or "" for row in rows]
    values = [_shown(row["value"]) for row in rows]
    # each column's content width: rich shrinks no column that does not wrap, and
    # crops a table wider than the console, status and value first; so the check
    # and constraint columns get what the status, metric and value leave
    widths = [
        min(MAX_CHECK_WIDTH, max([len(headers[0]), *(len(row["check"]) for row in rows)])),
        0,
        max([len(headers[2]), *map(len, STATUSES)]),
        max([len(headers[3]), *map(len, metrics)]),
        max([len(headers[4]), *map(len, values)]),
    ]
    rules = 3 * len(headers) + 1  # each column: 2 of padding and 1 of rule; one rule more
    widths[1] = max(MIN_LABEL_WIDTH, console.width - rules - sum(widths))
    table = Table(*headers)
    for column, width in zip(table.columns, widths, strict=True):
        column.no_wrap, column.overflow, column.max_width = True, "ellipsis", width
    for i in (2, 3, 4):
        table.columns[i].min_width = widths[i]
    for row, metric, shown in zip(rows, metrics, values, strict=True):
        if row["constraint_status"] == ConstraintStatus.SUCCESS.value:
            status = styled(STATUSES[0], "green")
        elif row["check_level"] == CheckLevel.ERROR.value:
            status = styled(STATUSES[1], "bold red")  # an Error-level check
        else:
            status = styled(STATUSES[2], "yellow")  # a Warning-level check: exit 0
        table.add_row(row["check"], row["label"], status, metric, shown)
    console.print(table)
    for row in rows:
        if row["passed"]:
            continue
        console.print(
            styled(
                STATUSES[1] if row["check_level"] == CheckLevel.ERROR.value else STATUSES[2], "bold"
            ),
            f"{row['label']}: {row['constraint_message']}",
            soft_wrap=True,
        )
        if row.get("examples"):
            shown_examples = ", ".join(repr(e) for e in row["examples"])
            console.print(f"  non-conforming examples: {shown_examples}", soft_wrap=True)
