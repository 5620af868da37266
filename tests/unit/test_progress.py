"""Progress lines off a terminal: a line per phase, throttled, with counts and elapsed time."""

from __future__ import annotations

from autovalidate.progress import PhaseLines


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _lines(**kwargs):
    clock, written = Clock(), []
    return PhaseLines(written.append, unit="tasks", clock=clock, **kwargs), clock, written


def test_the_first_update_writes_its_phase_counts_and_elapsed_seconds():
    lines, clock, written = _lines()
    clock.now += 2.5
    lines("enumerate patterns", 17, 32)
    assert written == ["[    2.5 s] enumerate patterns: 17/32 tasks"]


def test_at_most_one_line_every_few_seconds_and_only_for_news():
    lines, clock, written = _lines(every=5.0, heartbeat=60.0)
    lines("read lake", 0, 4)
    for step in range(1, 9):  # an update every second, the counts moving
        clock.now += 1.0
        lines("read lake", step, 40)
    assert len(written) == 2 and written[1].endswith("read lake: 5/40 tasks")
    clock.now += 10.0
    lines("merge and write")  # a new phase, no total: no counts
    assert written[-1] == "[   18.0 s] merge and write"
    for _ in range(11):  # nothing new: quiet, until the heartbeat
        clock.now += 5.0
        lines("merge and write")
    assert len(written) == 3
    clock.now += 5.0
    lines("merge and write")
    assert len(written) == 4 and written[-1] == "[   78.0 s] merge and write"


def test_counts_use_thousands_separators():
    lines, _, written = _lines()
    lines("enumerate patterns", 1500, 12000)
    assert written == ["[    0.0 s] enumerate patterns: 1,500/12,000 tasks"]
