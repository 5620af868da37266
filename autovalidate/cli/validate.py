"""``autovalidate validate``: check a file against a constraint suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from autovalidate.checks.check import CheckLevel, CheckStatus
from autovalidate.checks.constraints import ConstraintResult, ConstraintStatus
from autovalidate.checks.verification import VerificationResult
from autovalidate.cli.common import (
    EXIT_FAILED,
    console,
    handle_errors,
    parse_rename,
    print_json,
    reading,
    require_rows,
    styled,
)
from autovalidate.export.base import constraint_label
from autovalidate.metrics.base import plain
from autovalidate.pattern_constraint import PatternConstraint
from autovalidate.repository import open_repository
from autovalidate.suite import ConstraintSuite

_LABEL_WIDTH = 70


@handle_errors
def validate(
    file: Path = typer.Argument(..., help="CSV/TSV or Parquet file (a new batch)."),
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
        help="SUITE_COLUMN=FILE_COLUMN: check the suite's column on the file's column of "
        "another name (repeatable), e.g. --rename ZipCode=zip.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Validate FILE against every check of a suite, in shared scans (VerificationSuite).

    CSV files are read as text exactly as written. A suite may hold Deequ
    constraints and Auto-Validate pattern constraints; for failing pattern
    constraints a few non-conforming values are shown.

    Exit codes: 0 every Error-level check passed (Warning-level failures are
    reported), 1 an Error-level check failed, 2 error (a column the suite
    reads is missing from FILE: use --rename when it has another name).
    """
    suite = ConstraintSuite.load(constraints)
    repo = None if repository is None else open_repository(repository)
    renamed = parse_rename(rename)
    with reading(file):
        require_rows(file)
        result = suite.run(str(file), repository=repo, rename=renamed)
        rows = _rows(suite, result, file, renamed)
    passed = result.status is not CheckStatus.ERROR
    if as_json:
        print_json(
            {"file": str(file), "passed": passed, "status": result.status.value, "results": rows}
        )
    else:
        _print_table(rows)
        console.print(f"status: {result.status.value}", highlight=False)
    if not passed:
        raise typer.Exit(EXIT_FAILED)


def _print_table(rows: list[dict[str, Any]]) -> None:
    """One line per constraint; messages and examples of the failing ones below the table."""
    table = Table("check", "constraint", "status", "value")
    for column in table.columns:
        column.no_wrap, column.overflow = True, "ellipsis"
    table.columns[2].min_width, table.columns[3].min_width = 7, 5
    for row in rows:
        if row["constraint_status"] == ConstraintStatus.SUCCESS.value:
            status = styled("passed", "green")
        elif row["check_level"] == CheckLevel.ERROR.value:
            status = styled("FAILED", "bold red")  # an Error-level check
        else:
            status = styled("warning", "yellow")  # a Warning-level check: exit 0
        value = row["value"]
        shown = (
            f"{value:.4g}" if isinstance(value, float) else ("" if value is None else str(value))
        )
        table.add_row(row["check"], row["label"], status, shown)
    console.print(table)
    for row in rows:
        if row["passed"]:
            continue
        console.print(
            styled("FAILED" if row["check_level"] == CheckLevel.ERROR.value else "warning", "bold"),
            f"{row['label']}: {row['constraint_message']}",
            soft_wrap=True,
        )
        if row.get("examples"):
            shown_examples = ", ".join(repr(e) for e in row["examples"])
            console.print(f"  non-conforming examples: {shown_examples}", soft_wrap=True)


def _rows(
    suite: ConstraintSuite, result: VerificationResult, file: Path, rename: dict[str, str]
) -> list[dict[str, Any]]:
    """One row per constraint; pattern constraints also give their validation result's fields."""
    rows = []
    for spec, check_result in zip(suite.checks, result.check_results, strict=True):
        for constraint, outcome in zip(
            spec.constraints, check_result.constraint_results, strict=True
        ):
            row: dict[str, Any] = {
                "check": spec.description,
                "check_level": spec.level.value,
                "constraint": str(outcome.constraint),
                "label": constraint_label(constraint, _LABEL_WIDTH),
                "constraint_status": outcome.status.value,
                "constraint_message": outcome.message or "",
                "passed": outcome.status is ConstraintStatus.SUCCESS,
                "value": plain(outcome.value),
            }
            if isinstance(constraint, PatternConstraint):
                row.update(_pattern_fields(constraint, outcome, file, rename))
            elif outcome.details is not None:
                row["details"] = dict(outcome.details)
            rows.append(row)
    return rows


def _pattern_fields(
    constraint: PatternConstraint, outcome: ConstraintResult, file: Path, rename: dict[str, str]
) -> dict[str, Any]:
    """The pattern validation result, with non-conforming examples for a failure."""
    fields = dict(outcome.details or {})
    if outcome.status is ConstraintStatus.FAILURE and outcome.details is not None:
        # one more scan, for failures only: the counting ran in the shared scan
        column = constraint.column or ""
        fields["examples"] = list(
            constraint.validate(str(file), rename.get(column, column)).examples
        )
        fields["message"] = outcome.message
    return fields
