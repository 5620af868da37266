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

from autovalidate.errors import AutovalidateError

__all__ = [
    "EXIT_ERROR",
    "EXIT_FAILED",
    "EXIT_OK",
    "console",
    "err_console",
    "fail",
    "handle_errors",
    "print_json",
]

#: The command succeeded and every check passed.
EXIT_OK = 0
#: Validation ran and a check failed (or drift was found).
EXIT_FAILED = 1
#: Usage or infrastructure error: bad arguments, missing file or column,
#: unreadable or incompatible index, engine failure.
EXIT_ERROR = 2

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def print_json(data: Any) -> None:
    """Write ``data`` as JSON on stdout (machine output, nothing else on stdout)."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit with code 2."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_ERROR)


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
