"""The ``autovalidate`` command line (typer), one module per command.

Exit codes, for every command:

* 0: the command succeeded and every check passed;
* 1: validation ran and a check failed (or drift was found, or a batch was
  rejected);
* 2: usage or infrastructure error (bad arguments, missing file or column,
  a ``suggest --column`` column with no non-null value, unreadable or
  incompatible index, engine failure), reported as one line on stderr;
* 141: the reader of stdout closed it before the command wrote all its output
  (``| head``), as a shell reports a command SIGPIPE killed; nothing on stderr.
"""

from __future__ import annotations

import typer

from autovalidate.cli import export, index, metrics, suggest, validate, validate_batch
from autovalidate.cli.common import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_OUTPUT_CLOSED,
    HELP_SETTINGS,
    Command,
    OutputClosed,
    closed_output,
    fail_line,
    output_closed,
)

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


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``autovalidate`` console script; exits with the command's code.

    A usage error (a missing option or argument, an unknown command or
    option, a bad value, an unreadable file argument) is one line on stderr,
    ``error: ...`` with the command, and exit code 2, as every other error:
    not click's usage text and boxed message. Without arguments the help is
    shown (exit 2, as before).

    When the reader of stdout closes it before the command wrote all its
    output (``| head``), the command stops silently with exit code 141
    (:data:`~autovalidate.cli.common.EXIT_OUTPUT_CLOSED`, what a shell reports
    for a command SIGPIPE killed), never 1, which means a check failed.
    """
    import sys

    try:
        code = _run(argv)
        sys.stdout.flush()
    except OutputClosed:
        code = EXIT_OUTPUT_CLOSED
    except BrokenPipeError:  # the last flush, or a print outside a command
        closed_output(sys.stdout)
        code = EXIT_OUTPUT_CLOSED
    except SystemExit as exc:
        if not isinstance(exc.__context__, BrokenPipeError):
            raise
        # click's own writes (--help) on a closed stdout: it exits 1 itself
        closed_output(sys.stdout)
        code = EXIT_OUTPUT_CLOSED
    if output_closed() and code in (EXIT_OK, EXIT_FAILED):
        code = EXIT_OUTPUT_CLOSED  # a progress thread met the closed stdout
    sys.exit(code)


def _run(argv: list[str] | None) -> int:
    """Run the command line ``argv``; its exit code."""
    import sys

    from typer.exceptions import Abort, TyperException

    try:
        code = app(args=argv, standalone_mode=False)
    except Abort:  # Ctrl-C at a prompt
        fail_line("aborted")
        return EXIT_ERROR
    except TyperException as exc:  # click's usage errors: UsageError, BadParameter, ...
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            sys.stdout.write(ctx.get_help() + "\n")  # no arguments: the help, as before
            return EXIT_ERROR
        error = exc
        message = getattr(error, "format_message", lambda: str(error))()
        fail_line(f"{ctx.command_path}: {message}" if ctx is not None else message)
        return EXIT_ERROR
    return code if isinstance(code, int) else EXIT_OK
