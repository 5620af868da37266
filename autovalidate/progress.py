"""Progress of long work as log lines, for output that is not a terminal (CI, ``nohup``, a pipe).

At a terminal the CLI draws a progress bar that redraws itself in place; in a
log file such a bar is either nothing or thousands of lines. :class:`PhaseLines`
writes a line such as ``[  12.3 s] enumerate patterns: 17/32 tasks`` instead:
one at the first update, then at most one every ``every`` seconds, when the
phase or its counts changed, and one every ``heartbeat`` seconds while nothing
changes, so a stalled phase still says it is alive.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["PhaseLines"]


class PhaseLines:
    """A progress callback that writes throttled lines: phase, counts, elapsed seconds.

    Parameters
    ----------
    write
        Called with each line (no newline at its end).
    unit
        What the counts count (``"tasks"``, ``"columns"``).
    every
        Least seconds between two lines.
    heartbeat
        Seconds after which an unchanged state is written again.
    clock
        Seconds, monotonic; the elapsed time counts from the callback's creation.
    """

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        unit: str = "",
        every: float = 5.0,
        heartbeat: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self._unit = unit
        self._every = every
        self._heartbeat = heartbeat
        self._clock = clock
        self._started = clock()
        self._last: tuple[str, int | None, int | None] | None = None
        self._last_at = float("-inf")
        self._lock = threading.Lock()

    def __call__(self, phase: str, completed: int | None = None, total: int | None = None) -> None:
        """Report the current phase and its counts; write a line if one is due."""
        with self._lock:
            now = self._clock()
            state = (phase, completed, total)
            since = now - self._last_at
            if since < self._every or (state == self._last and since < self._heartbeat):
                return
            self._last, self._last_at = state, now
            self._write(self.line(now - self._started, phase, completed, total))

    def line(self, elapsed: float, phase: str, completed: int | None, total: int | None) -> str:
        """``[  12.3 s] phase: completed/total unit``; the counts only when a total is known."""
        counts = f": {completed or 0:,}/{total:,} {self._unit}".rstrip() if total else ""
        return f"[{elapsed:7.1f} s] {phase}{counts}"
