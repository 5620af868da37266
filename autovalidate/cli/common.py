"""What every command shares: consoles, exit codes, JSON output and the one-line error policy."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from autovalidate.errors import AutovalidateError, ParameterError

__all__ = [
    "EXIT_ERROR",
    "EXIT_FAILED",
    "EXIT_OK",
    "console",
    "err_console",
    "fail",
    "handle_errors",
    "parse_rename",
    "print_json",
    "styled",
]

#: The command succeeded and every check passed.
EXIT_OK = 0
#: Validation ran and a check failed (or drift was found).
EXIT_FAILED = 1
#: Usage or infrastructure error: bad arguments, missing file or column,
#: unreadable or incompatible index, engine failure.
EXIT_ERROR = 2

# Markup is off: data, column names, paths and regexes are printed as written
# (a `[/]` in a value would crash rich, and `[final]` would vanish). Styled
# words go through :func:`styled`.
console = Console(markup=False)
err_console = Console(stderr=True, markup=False)

F = TypeVar("F", bound=Callable[..., Any])


def styled(text: str, style: str) -> Text:
    """``text`` shown in ``style`` (``"green"``, ``"bold red"``), never read as markup."""
    return Text(text, style=style)


def print_json(data: Any) -> None:
    """Write ``data`` as JSON on stdout (machine output, nothing else on stdout)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit with code 2."""
    err_console.print(styled("error:", "bold red"), message, highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_ERROR)


def parse_rename(pairs: list[str]) -> dict[str, str]:
    """``["ZipCode=zip"]`` -> ``{"ZipCode": "zip"}`` (suite column -> file column).

    Raises
    ------
    ParameterError
        If a pair has no ``=`` or an empty side, or a suite column is renamed twice.
    """
    mapping: dict[str, str] = {}
    for pair in pairs:
        suite_column, sep, file_column = pair.partition("=")
        if not (sep and suite_column and file_column):
            raise ParameterError(f"--rename {pair!r}: expected SUITE_COLUMN=FILE_COLUMN")
        if suite_column in mapping:
            raise ParameterError(f"--rename: column {suite_column!r} renamed twice")
        mapping[suite_column] = file_column
    return mapping


def handle_errors(fn: F) -> F:
    """Turn errors into one line on stderr and exit code 2, never a traceback.

    Set ``AUTOVALIDATE_DEBUG=1`` to see the traceback of an unexpected error.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except AutovalidateError as exc:
            fail(_one_line(exc))
        except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
            if os.environ.get("AUTOVALIDATE_DEBUG"):
                raise
            fail(
                f"unexpected {type(exc).__name__}: {_one_line(exc)} "
                "(AUTOVALIDATE_DEBUG=1 shows more)"
            )

    return wrapper  # type: ignore[return-value]


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
