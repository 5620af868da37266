"""A small real index of a synthetic corpus (local writer, real Parquet, real DuckDB)."""

import random

import pytest

from autovalidate.index.reader import PatternIndex
from autovalidate.index.state import write_local_index


def corpus() -> list[list[str]]:
    rng = random.Random(7)
    cols: list[list[str]] = []
    for _ in range(30):  # dates, always MM/DD/YYYY
        cols.append(
            [
                f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(1990, 2020)}"
                for _ in range(50)
            ]
        )
    for _ in range(30):  # times HH:MM:SS
        cols.append(
            [
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
                for _ in range(50)
            ]
        )
    for _ in range(30):  # decimals with one digit after the point
        cols.append([f"{rng.randint(0, 9)}.{rng.randint(0, 9)}" for _ in range(50)])
    for _ in range(30):  # camel-case status words
        cols.append([rng.choice(["OnBooking", "Cancelled", "Closed", "Open"]) for _ in range(50)])
    for _ in range(20):  # comma-separated numbers (Fig. 9), some with a '-' special value
        col = [",".join(str(rng.randint(0, 99)) for _ in range(3)) for _ in range(50)]
        cols.append(col)
    for _ in range(20):  # 2-digit and 3-digit numbers mixed: <digit>{2} is impure
        cols.append([str(rng.randint(10, 999)) for _ in range(50)])
    for _ in range(20):  # upper-case 3-letter codes
        cols.append(
            ["".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3)) for _ in range(50)]
        )
    return cols


@pytest.fixture(scope="session")
def small_index(tmp_path_factory):
    out = tmp_path_factory.mktemp("idx") / "index"
    write_local_index(corpus(), out, budget=200_000)
    with PatternIndex.open(out) as idx:
        yield idx
