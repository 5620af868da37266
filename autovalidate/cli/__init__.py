"""The ``autovalidate`` command line (typer), one module per command.

Exit codes, for every command:

* 0: the command succeeded and every check passed;
* 1: validation ran and a check failed (or drift was found, or a batch was
  rejected);
* 2: usage or infrastructure error (bad arguments, missing file or column,
  empty column, unreadable or incompatible index, engine failure), reported
  as one line on stderr.
"""

from __future__ import annotations

import typer

from autovalidate.cli import export, index, metrics, suggest, validate, validate_batch
from autovalidate.cli.common import HELP_SETTINGS, Command

app = typer.Typer(
    name="autovalidate",
    help="Infer and check data-validation constraints for data lakes and pipelines.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    **HELP_SETTINGS,
)
app.add_typer(index.app, name="index")
app.add_typer(metrics.app, name="metrics")
app.command("suggest", cls=Command)(suggest.suggest)
app.command("validate", cls=Command)(validate.validate)
app.command("validate-batch", cls=Command)(validate_batch.validate_batch_command)
app.command("export", cls=Command)(export.export)


def main() -> None:
    """Entry point of the ``autovalidate`` console script."""
    app()
