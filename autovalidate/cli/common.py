"""What every command shares: consoles, exit codes, JSON output and the one-line error policy."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar

import typer
from rich.console import Console, ConsoleDimensions
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand

from autovalidate.errors import AutovalidateError, DataSourceError, ParameterError
from autovalidate.wording import printable, shortened

if TYPE_CHECKING:
    from autovalidate.engines import Engine

__all__ = [
    "EXIT_ERROR",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_OUTPUT_CLOSED",
    "HELP_SETTINGS",
    "JUNIT_OPTION",
    "Command",
    "OutputClosed",
    "closed_output",
    "console",
    "err_console",
    "fail",
    "fail_line",
    "handle_errors",
    "local_input",
    "output_closed",
    "parse_pairs",
    "parse_rename",
    "print_json",
    "printable",
    "progress",
    "replace_atomically",
    "require_rows",
    "styled",
    "write_atomically",
    "write_stdout",
    "wrote",
]

#: The command succeeded and every check passed.
EXIT_OK = 0
#: Validation ran and a check failed (or drift was found).
EXIT_FAILED = 1
#: Usage or infrastructure error: bad arguments, missing file or column,
#: unreadable or incompatible index, engine failure.
EXIT_ERROR = 2
#: The reader of stdout (or stderr) closed it before the command wrote all its
#: output (``| head``): 128 + SIGPIPE, the code a shell reports for a command
#: SIGPIPE killed. Not 1: a cut output is not a failed check.
EXIT_OUTPUT_CLOSED = 141


class OutputClosed(BaseException):  # noqa: N818 - an event, as KeyboardInterrupt
    """The reader of stdout or stderr closed it: the command stops, exit code 141.

    A ``BaseException``, as ``KeyboardInterrupt``: no ``except Exception``
    on the way (:func:`handle_errors`'s included) turns it into an error.
    When it is raised the stream already points at ``/dev/null``, so nothing
    written afterwards (the interpreter's last flush included) fails again.
    """


#: Whether an output stream was closed by its reader during this run (a
#: progress thread stops at it without raising in the main thread).
_closed: list[bool] = [False]


def output_closed() -> bool:
    """Whether stdout or stderr was closed by its reader during this run."""
    return _closed[0]


def closed_output(stream: Any) -> OutputClosed:
    """Point ``stream``'s descriptor at ``/dev/null``; the exception that ends the command.

    As the Python documentation recommends for ``BrokenPipeError`` (the
    "Note on SIGPIPE" of the ``signal`` module): the descriptor is replaced,
    not SIGPIPE's disposition, which would kill the process on a broken
    socket too (Spark's).
    """
    _closed[0] = True
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stream.fileno())
    os.close(devnull)
    return OutputClosed()


def write_stdout(text: str) -> None:
    """Write ``text`` on stdout and flush it.

    Raises
    ------
    OutputClosed
        If the reader closed stdout (``| head``).
    """
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise closed_output(sys.stdout) from None


#: The console width when the output is not a terminal and ``COLUMNS`` is not set:
#: a CI log, a file or a pipe keeps each line whole (rich would cut at 80).
OFF_TERMINAL_WIDTH = 4096


class _Console(Console):
    """A rich console that shows every string it is given through :func:`printable`.

    Rich renders a ``str`` (a ``print`` argument, a table cell) through
    ``render_str``; styled text is made by :func:`styled`, which does the same.
    Rich's own styling and cursor codes are not strings given to it, and stay.

    Its width is the terminal's; off a terminal (a CI log, ``| grep``, ``>
    file``) it is :data:`OFF_TERMINAL_WIDTH`, where rich would take 80 and cut
    table cells (``pattern('ZipCode…``); ``COLUMNS`` sets it in both cases.
    """

    @property
    def size(self) -> ConsoleDimensions:
        """The console's width and height, the width :data:`OFF_TERMINAL_WIDTH` off a terminal."""
        size = super().size
        if self._width is None and "COLUMNS" not in self._environ and not self.is_terminal:
            return ConsoleDimensions(OFF_TERMINAL_WIDTH, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size  # as rich's own setter

    def render_str(self, text: str, **kwargs: Any) -> Text:
        """The rich text of ``text``, its control characters escaped."""
        return super().render_str(printable(text), **kwargs)

    def on_broken_pipe(self) -> None:
        """Stop the command with :class:`OutputClosed` (exit 141), not rich's exit code 1.

        Rich's own handler exits with 1, which reads as a failed check.
        """
        self.quiet = True
        raise closed_output(self.file)


# Markup is off: data, column names, paths and regexes are printed as written
# (a `[/]` in a value would crash rich, and `[final]` would vanish), control
# characters escaped. Styled words go through :func:`styled`.
console = _Console(markup=False)
err_console = _Console(stderr=True, markup=False)

F = TypeVar("F", bound=Callable[..., Any])

#: Every ``typer.Typer`` of the CLI: plain help, whose options show a value's kind
#: (``--out <path>``) but nothing after a flag (rich help printed ``--help <bool>``).
HELP_SETTINGS: dict[str, Any] = {"rich_markup_mode": None}


class Command(TyperCommand):
    """A command whose usage line names its arguments as written: ``FILE``, not ``{file}``.

    Typer marks a required argument with braces; ``[...]`` (optional) stays.
    """

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """The usage line's pieces, a required argument without its braces."""
        pieces = super().collect_usage_pieces(ctx)
        return [re.sub(r"^\{(.+)\}((?:\.\.\.)?)$", r"\1\2", piece) for piece in pieces]


def styled(text: str, style: str) -> Text:
    """``text`` shown in ``style`` (``"green"``, ``"bold red"``), never read as markup.

    Its control characters are escaped (:func:`printable`).
    """
    return Text(printable(text), style=style)


def field_table() -> Table:
    """A two-column table of named fields whose values fold onto more lines, never cut.

    A pattern, a regex or a path is copied from this output: an ellipsis in
    it would hand the reader something that is not the value.
    """
    table = Table(show_header=False, box=None)
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    return table


class Update(Protocol):
    """``update(phase, completed=None, total=None)``, as :func:`progress` yields it."""

    def __call__(self, phase: str, completed: int | None = None, total: int | None = None) -> None:
        """Show ``phase`` and, when ``total`` is known, ``completed`` of ``total``."""


@contextmanager
def progress(
    first: str | None, *, unit: str, enabled: bool = True, off_terminal: bool = True
) -> Iterator[Update]:
    """Show the progress of long work on stdout; yield the callback that updates it.

    At a terminal: a progress bar (phase, bar, percentage, elapsed time) that
    disappears when the work ends. Elsewhere (CI, ``nohup``, ``| tee``, a file),
    when ``off_terminal``: throttled lines with the phase, its counts in
    ``unit`` and the elapsed seconds (:class:`autovalidate.progress.PhaseLines`),
    refreshed from a background thread so a long phase keeps reporting. Nothing
    when not ``enabled`` (``--json``: stdout is for the JSON alone). ``first`` is the
    phase shown from the start; ``None`` shows nothing before the first update.
    """
    if not enabled or not (off_terminal or console.is_terminal):

        def ignore(phase: str, completed: int | None = None, total: int | None = None) -> None:
            pass

        yield ignore
        return
    if console.is_terminal:
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        with Progress(
            TextColumn("{task.description}", style="bold", markup=False),
            BarColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as bar:
            task = bar.add_task(first or "", total=None)

            def draw(phase: str, completed: int | None = None, total: int | None = None) -> None:
                bar.update(task, description=phase, completed=completed or 0, total=total)

            yield draw
        return
    import threading

    from autovalidate.progress import PhaseLines

    lines = PhaseLines(lambda line: console.print(line, highlight=False, soft_wrap=True), unit=unit)
    latest: list[Any] = [first, None, None]
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(0.5):
            if latest[0] is not None:
                try:
                    lines(*latest)
                except OutputClosed:  # main() exits 141 when the work ends
                    return

    def update(phase: str, completed: int | None = None, total: int | None = None) -> None:
        latest[:] = [phase, completed, total]
        lines(phase, completed, total)

    if first is not None:
        update(first)
    ticker = threading.Thread(target=tick, name="progress-lines", daemon=True)
    ticker.start()
    try:
        yield update
    finally:
        stop.set()
        ticker.join()


def wrote(*paths: Path | None) -> None:
    """Say ``wrote PATH`` for each file a command wrote (``None``: an output not asked for).

    Every file a command writes is named, not only ``--out``'s: ``--html``,
    ``--junit`` and ``--failed-rows`` wrote silently.
    """
    for path in paths:
        if path is not None:
            console.print(f"wrote {path}", highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Write ``data`` as JSON on stdout (machine output, nothing else on stdout)."""
    write_stdout(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


#: Most characters of an error line: a message quoting a hostile input (a column
#: name of 10 MB in a suite) is cut, saying how much was left out.
MAX_MESSAGE = 2000


def fail_line(message: str) -> None:
    """Print ``error: message`` on stderr, on one line (whitespace runs become one space).

    A message longer than :data:`MAX_MESSAGE` characters is cut there.
    """
    text = shortened(" ".join(message.split()), MAX_MESSAGE)
    err_console.print(styled("error:", "bold red"), text, highlight=False, soft_wrap=True)


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit with code 2."""
    fail_line(message)
    raise typer.Exit(EXIT_ERROR)


#: A data argument that names a remote object, which the CLI does not read.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


@contextmanager
def local_input(file: str) -> Iterator[Path]:
    """The data file argument ``file`` as a local path that can be read more than once.

    A URL (``s3://bucket/x.csv``) is refused naming it as given (a ``Path``
    would print ``s3:/bucket/x.csv``). A file that can be read only once (a
    FIFO, ``/dev/stdin``, a shell's ``<(zcat x.gz)``) is copied to a
    temporary file of the same name first, removed afterwards: commands read
    their input more than once (a check for rows, the validation scans, the
    examples), and a second open of a FIFO waits for a writer forever.

    Raises
    ------
    DataSourceError
        For a URL, or if the stream cannot be copied.
    """
    import shutil
    import stat
    import tempfile

    if _URL.match(file):
        raise DataSourceError(
            file,
            "a URL: the CLI reads local files; copy it here, or validate it where it "
            "lives with validate_spark or a DuckDB relation",
        )
    path = Path(file)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        yield path  # missing: the reader says so, naming it
        return
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="autovalidate-input-") as tmp:
        copy = Path(tmp) / path.name
        try:
            with open(path, "rb") as source, open(copy, "wb") as target:
                shutil.copyfileobj(source, target, 1 << 20)
        except OSError as exc:
            raise DataSourceError(file, f"cannot read: {exc.strerror or exc}") from exc
        try:
            yield copy
        except DataSourceError as exc:  # name the input given, not the copy
            if exc.path != str(copy):
                raise
            raise DataSourceError(file, str(exc)[len(str(copy)) + 2 :]) from exc


def require_rows(data: Path | Engine, file: Path) -> None:
    """Raise :class:`DataSourceError` unless ``data`` (``file``, or an engine on it) has a data row.

    Reads one row.
    """
    from autovalidate.engines import open_engine
    from autovalidate.metrics.expressions import lit

    with open_engine(data) as engine:
        if not engine.sample(lit(True), [lit(1)], 1):
            raise DataSourceError(str(file), "no data rows (a header only)")


#: ``--junit FILE`` of the commands that pass or fail (validate, validate-batch).
JUNIT_OPTION = typer.Option(
    None,
    "--junit",
    help="Also write the run as a JUnit XML test report (one test case per constraint or "
    "statistic) to this file, for CI servers.",
)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename.

    A reader never sees a half-written file, and a failed run leaves what was
    there before (nothing, or the previous version).

    Raises
    ------
    DataSourceError
        If the file cannot be written.
    """
    replace_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Have ``write`` fill a temporary file beside ``path``, then rename it to ``path``.

    As :func:`write_atomically`, for a writer that takes a path (a Parquet
    writer, say). The file gets the mode a plain ``open()`` would give it.

    Raises
    ------
    DataSourceError
        If the file cannot be written; what ``write`` raises, after the
        temporary file is removed.
    """
    import tempfile

    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            # mkstemp makes the file private (0600); give it the mode a plain open() would
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
            os.close(fd)
            write(Path(tmp))
            os.replace(tmp, target)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        if isinstance(exc, DataSourceError):
            raise
        raise DataSourceError(str(target), f"cannot write: {exc.strerror or exc}") from exc


def parse_rename(pairs: list[str]) -> dict[str, str]:
    """``["ZipCode=zip"]`` -> ``{"ZipCode": "zip"}`` (suite column -> file column).

    Raises
    ------
    ParameterError
        If a pair has no ``=`` or an empty side, or a suite column is renamed twice.
    """
    return parse_pairs("--rename", pairs, "SUITE_COLUMN=FILE_COLUMN", "column {!r} renamed twice")


def parse_pairs(option: str, pairs: list[str], form: str, twice: str) -> dict[str, str]:
    """An option's ``LEFT=RIGHT`` values as a dict, in order.

    ``form`` spells the expected value in the error (``NAME=PATH``); ``twice``
    formats the error for a left side given twice (``{!r}`` is that side).

    Raises
    ------
    ParameterError
        If a pair has no ``=`` or an empty side, or a left side is given twice.
    """
    mapping: dict[str, str] = {}
    for pair in pairs:
        left, sep, right = pair.partition("=")
        if not (sep and left and right):
            raise ParameterError(f"{option} {pair!r}: expected {form}")
        if left in mapping:
            raise ParameterError(f"{option}: " + twice.format(left))
        mapping[left] = right
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
