"""``autovalidate export``: a suite in the format of another data-quality tool."""

from __future__ import annotations

import enum
import re
from pathlib import Path

import typer

from autovalidate.cli.common import (
    console,
    err_console,
    handle_errors,
    parse_rename,
    print_json,
    styled,
    write_atomically,
    write_stdout,
)
from autovalidate.wording import counted


class Target(str, enum.Enum):
    """The formats of :data:`autovalidate.export.TARGETS` (a test checks they agree)."""

    GX = "gx"
    SODA = "soda"
    DQDL = "dqdl"
    DBT = "dbt"
    PANDERA = "pandera"


def _default_name(suite: Path) -> str:
    """The suite file's stem as an identifier (``hospital-zip.json`` -> ``hospital_zip``)."""
    name = re.sub(r"\W+", "_", suite.stem).strip("_")
    return name or "data"


@handle_errors
def export(
    suite: Path = typer.Argument(
        ..., metavar="SUITE", help="Suite JSON from `autovalidate suggest --out`."
    ),
    to: Target = typer.Option(..., "--to", "-t", help="Target format."),
    out: Path = typer.Option(
        None, "--out", "-o", help="Write the export here (default: standard output)."
    ),
    name: str = typer.Option(
        None,
        "--name",
        "-n",
        help="The table, model or suite name the export refers to "
        "(default: the suite file's name).",
    ),
    rename: list[str] = typer.Option(
        [],
        "--rename",
        metavar="SUITE_COLUMN=TARGET_COLUMN",
        help="SUITE_COLUMN=TARGET_COLUMN: the column's name in the target's data (repeatable).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print what was exported and skipped as JSON (with the text)."
    ),
) -> None:
    """Export SUITE to Great Expectations, Soda, AWS Glue DQDL, dbt or pandera.

    Each target gets its own regex dialect and anchoring (the mapping and every
    approximation are stated in the file); a tolerant pattern rule's Fisher test
    becomes the target's fixed threshold. Constraints a target cannot express
    are listed as skipped, with the reason, on stderr (and in the file).

    Exit codes: 0 exported (also with skipped constraints), 2 error.
    """
    from autovalidate.checks.spec import ConstraintSuite
    from autovalidate.export import export_suite
    from autovalidate.export.base import shorten

    loaded = ConstraintSuite.load(suite)
    result = export_suite(
        loaded, to.value, name=name or _default_name(suite), rename=parse_rename(rename)
    )
    if out is not None:
        write_atomically(out, result.text)
    if as_json:
        print_json(
            {
                "suite": str(suite),
                **result.to_dict(),
                "out": None if out is None else str(out),
                "text": result.text if out is None else None,
            }
        )
        return
    if out is None:
        write_stdout(result.text)
    for s in result.skipped:
        err_console.print(
            styled("skipped", "yellow"),
            f"{s.check}: {shorten(s.constraint, 80)}: {s.reason}",
            soft_wrap=True,
        )
    if out is not None:
        console.print(
            styled("wrote", "green"),
            f"{out}: {counted(result.exported, 'constraint')} for {to.value}, "
            f"{len(result.skipped)} skipped",
        )
