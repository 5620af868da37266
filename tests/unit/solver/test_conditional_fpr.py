"""FPR_T conditioned on the training column (FprPrior.estimate), through the solver."""

import random

import pytest

from autovalidate.index.reader import PatternIndex
from autovalidate.index.state import write_local_index
from autovalidate.solver.fmdv import SolverParams, solve

# the choice among the hierarchy's patterns, before any run-length bound (test_lengths.py)
PARAMS = SolverParams(max_fpr=0.2, min_cov=1, theta=0.0, tau=8, max_shortfall=0.0)


def _indexed(tmp_path_factory, name: str, columns: list[list[str]]):
    """The index of ``columns``, open while the module's tests run."""
    out = tmp_path_factory.mktemp(name) / "index"
    write_local_index(columns, out)
    with PatternIndex.open(out) as index:
        yield index


def _unconditioned(train: list[str], index: PatternIndex):
    """FMDV with the shrunk Eq. 4 alone (``condition=False``)."""
    return solve(
        train, index, method="fmdv", params=SolverParams(**{**PARAMS.__dict__, "condition": False})
    )


@pytest.fixture(scope="module")
def zip_index(tmp_path_factory):
    """10 columns of 5-digit codes, 20 of numbers 3 to 6 digits wide, 10 of 2020-MM-DD dates
    and 20 of dates over 2019-2021."""
    rng = random.Random(7)

    def digits(k: int) -> str:
        return str(rng.randint(10 ** (k - 1), 10**k - 1))

    def date(year: int) -> str:
        return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"

    columns = [[digits(5) for _ in range(100)] for _ in range(10)]
    columns += [[digits(rng.randint(3, 6)) for _ in range(100)] for _ in range(20)]
    columns += [[date(2020) for _ in range(100)] for _ in range(10)]
    columns += [[date(rng.randint(2019, 2021)) for _ in range(100)] for _ in range(20)]
    yield from _indexed(tmp_path_factory, "zip", columns)


def test_many_distinct_codes_keep_their_width_that_the_corpus_average_would_lose(zip_index):
    # <digit>{5}: FPR_T (Eq. 4) ~ 0.5 over the corpus (the mixed-width columns),
    # but 30 distinct 5-digit values are unlikely from a column of mixed widths
    rng = random.Random(1)
    train = [str(rng.randint(10000, 99999)) for _ in range(30)]
    conditioned = solve(train, zip_index, method="fmdv", params=PARAMS)
    assert conditioned is not None and conditioned.pattern == "<digit>{5}"
    unconditioned = _unconditioned(train, zip_index)
    assert unconditioned is not None and unconditioned.pattern == "<digit>+"


def test_one_distinct_value_is_no_evidence(zip_index):
    # the first text makes the hypotheses: a column of one repeated code is not conditioned on
    train = ["12345"] * 30
    s = solve(train, zip_index, method="fmdv", params=PARAMS)
    assert s is not None and s.pattern == "<digit>+"


def test_a_constant_is_not_conditioned_on(zip_index):
    # 30 distinct dates of 2020: the year is a value of this batch, not the format;
    # half of the corpus's columns with 2020-dates have other years too
    rng = random.Random(2)
    train = [f"2020-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" for _ in range(30)]
    s = solve(train, zip_index, method="fmdv", params=PARAMS)
    assert s is not None and "2020" not in s.pattern
    assert s.pattern == "<digit>{4}-<digit>{2}-<digit>{2}"


@pytest.fixture(scope="module")
def grade_index(tmp_path_factory):
    """10 columns of codes 12345-A with a grade letter, 20 where half the values have no grade."""
    rng = random.Random(11)

    def code(grade: bool) -> str:
        return f"{rng.randint(10000, 99999)}" + (f"-{rng.choice('ABC')}" if grade else "")

    columns = [[code(True) for _ in range(100)] for _ in range(10)]
    columns += [[code(rng.random() < 0.5) for _ in range(100)] for _ in range(20)]
    yield from _indexed(tmp_path_factory, "grade", columns)


def _graded(order: str) -> list[str]:
    """30 distinct codes, graded A or B: interleaved at random, in two blocks, or sorted."""
    rng = random.Random(3)
    codes = [(str(rng.randint(10000, 99999)), rng.choice("AB")) for _ in range(30)]
    if order == "blocks":  # a time-ordered batch: the grade moves on once
        codes.sort(key=lambda c: c[1])
    values = [f"{digits}-{grade}" for digits, grade in codes]
    return sorted(values) if order == "sorted" else values


def test_a_position_that_changes_row_after_row_is_evidence(grade_index):
    # two grades only, but drawn again and again: 30 codes in their own order
    # condition the estimate as 30 independent values would
    s = solve(_graded("random"), grade_index, method="fmdv", params=PARAMS)
    assert s is not None and s.pattern == "<digit>{5}-<upper>{1}"


@pytest.mark.parametrize("order", ["blocks", "sorted"])
def test_a_position_that_changes_with_the_order_is_not(grade_index, order):
    # the same values as a batch whose grade changes once, or sorted (their order
    # made by their values): two distinct grades are all the evidence there is
    s = solve(_graded(order), grade_index, method="fmdv", params=PARAMS)
    assert s is None or s.pattern != "<digit>{5}-<upper>{1}"


@pytest.fixture(scope="module")
def prefix_index(tmp_path_factory):
    """10 columns of ABC-12345 codes (one prefix each), 20 where half the values lack the prefix."""
    rng = random.Random(13)

    def prefix() -> str:
        return "".join(rng.choice("ABCDEFGHJK") for _ in range(rng.randint(2, 4)))

    def code(p: str | None) -> str:
        return (f"{p}-" if p else "") + str(rng.randint(10000, 99999))

    columns = []
    for _ in range(10):
        p = prefix()
        columns.append([code(p) for _ in range(100)])
    half = [[code(prefix() if rng.random() < 0.5 else None) for _ in range(100)] for _ in range(20)]
    columns += half
    yield from _indexed(tmp_path_factory, "prefix", columns)


def test_a_constant_prefix_does_not_take_the_evidence_of_the_numbers_behind_it(prefix_index):
    # 30 distinct order numbers behind one prefix: <upper>+ claims nothing about
    # the prefix that one text could not show, so the 30 numbers condition the
    # estimate (the corpus's half-prefixed columns are unlikely models of them);
    # <upper>{3} claims the prefix's width, which one text cannot evidence
    rng = random.Random(4)
    train = [f"ORD-{rng.randint(10000, 99999)}" for _ in range(30)]
    s = solve(train, prefix_index, method="fmdv", params=PARAMS)
    assert s is not None and s.pattern == "<upper>+-<digit>{5}"
    unconditioned = _unconditioned(train, prefix_index)
    assert unconditioned is None or unconditioned.pattern != "<upper>+-<digit>{5}"
