"""``autovalidate validate``: check a file against a constraint suite."""

from __future__ import annotations

from pathlib import Path

import duckdb
import typer
from rich.table import Table

from autovalidate.cli.common import EXIT_FAILED, console, handle_errors, print_json
from autovalidate.suite import load_suite


@handle_errors
def validate(
    file: Path = typer.Argument(..., help="CSV/TSV or Parquet file (a new batch)."),
    constraints: Path = typer.Option(
        ..., "--constraints", "-c", help="Suite JSON from `autovalidate suggest --out`."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Validate FILE against every constraint of a suite.

    Exit codes: 0 every constraint passed, 1 a constraint failed, 2 error.
    """
    suite = load_suite(constraints)
    con = duckdb.connect()
    try:
        results = [c.validate(str(file), c.column, con=con) for c in suite]
    finally:
        con.close()
    passed = all(r.passed for r in results)
    if as_json:
        print_json({"file": str(file), "passed": passed, "results": [r.to_dict() for r in results]})
    else:
        table = Table("column", "status", "non-conforming", "p-value", "examples")
        for r in results:
            status = "[green]passed[/]" if r.passed else "[bold red]FAILED[/]"
            p = "" if r.drift.p_value is None else f"{r.drift.p_value:.3g}"
            table.add_row(
                str(r.column),
                status,
                f"{r.n_nonconforming:,}/{r.n_values:,} ({r.nonconforming_fraction:.2%})",
                p,
                ", ".join(repr(e) for e in r.examples),
            )
        console.print(table)
        for r in results:
            console.print(r.message, highlight=False)
    if not passed:
        raise typer.Exit(EXIT_FAILED)
