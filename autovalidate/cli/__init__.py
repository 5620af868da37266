"""The ``autovalidate`` command line (typer), one module per command.

Exit codes, for every command:

* 0: the command succeeded and every check passed;
* 1: validation ran and a check failed (or drift was found);
* 2: usage or infrastructure error (bad arguments, missing file or column,
  unreadable or incompatible index, engine failure).
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="autovalidate",
    help="Infer and check data-validation constraints for data lakes and pipelines.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def main() -> None:
    """Entry point of the ``autovalidate`` console script."""
    app()
