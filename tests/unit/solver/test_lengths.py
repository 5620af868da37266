"""Run-length lower bounds (autovalidate.solver.lengths), on a real local index."""

from __future__ import annotations

import random

import pytest
import regex

from autovalidate.errors import ParameterError
from autovalidate.patterns.render import bounded_pattern, pattern_regex
from autovalidate.solver.dp import SegmentChoice
from autovalidate.solver.fmdv import SolverParams, solve
from autovalidate.solver.lengths import bound_runs
from autovalidate.solver.search import Hypothesis

BOUNDED = SolverParams(max_fpr=0.2, min_cov=1, max_shortfall=0.05)
UNBOUNDED = SolverParams(max_fpr=0.2, min_cov=1, max_shortfall=0.0)


def lengths_corpus() -> list[list[str]]:
    """Counters that only grow (a run never gets shorter) and words in random order."""
    rng = random.Random(3)
    cols = []
    for _ in range(120):  # 3-4 digit counters: the prefix's shortest run is 3
        start, step = rng.randint(100, 700), rng.randint(3, 40)
        cols.append([str(start + step * i) for i in range(60)])
    for _ in range(120):  # words of 2-8 letters: a prefix often misses the shortest
        cols.append([rng.choice(["ox", "cat", "horse", "zebra", "elephant"]) for _ in range(60)])
    return cols


@pytest.fixture(scope="module")
def lengths_index(tmp_path_factory):
    from autovalidate.index.reader import PatternIndex
    from autovalidate.index.state import write_local_index

    out = tmp_path_factory.mktemp("lengths") / "index"
    write_local_index(lengths_corpus(), out)
    with PatternIndex.open(out) as idx:
        yield idx


def test_counters_get_a_lower_bound_the_corpus_justifies(lengths_index):
    train = ["120", "157", "1094", "2031", "480"]
    s = solve(train, lengths_index, params=BOUNDED)
    assert s is not None and s.pattern == "<digit>{3,}"
    assert all(regex.fullmatch(s.regex, v) for v in train)
    assert regex.fullmatch(s.regex, "123456")
    # a truncated or unpadded value no longer passes
    assert not regex.fullmatch(s.regex, "12") and not regex.fullmatch(s.regex, "7")
    # the bound's shortfall is part of the estimate, and within r
    unbounded = solve(train, lengths_index, params=UNBOUNDED)
    assert unbounded is not None and unbounded.pattern == "<digit>+"
    assert unbounded.fpr <= s.fpr <= BOUNDED.max_fpr


def test_words_whose_corpus_columns_run_shorter_get_no_bound(lengths_index):
    s = solve(["cat", "horse", "zebra", "cat"], lengths_index, params=BOUNDED)
    assert s is not None and s.pattern == "<lower>+"


def test_one_distinct_value_sets_no_bound(lengths_index):
    branch = (SegmentChoice(0, 0, Hypothesis("<digit>+", 0.01, 100)),)
    # one text shows no variation of its length: nothing to bound from
    (same,) = bound_runs([branch], ["1094"], lengths_index, 0.2, 0.05)
    assert same == branch
    ((bounded,),) = bound_runs([branch], ["1094", "120"], lengths_index, 0.2, 0.05)
    assert bounded.hypothesis.pattern == "<digit>{3,}" and bounded.hypothesis.fpr > 0.01
    # no room left under r: no bound
    assert bound_runs([branch], ["1094", "120"], lengths_index, 0.01, 0.05) == (branch,)


def test_a_repeated_segment_is_read_in_every_occurrence(lengths_index):
    head = SegmentChoice(0, 0, Hypothesis("<digit>+", 0.01, 100))
    items = Hypothesis(",<digit>+", 0.01, 0, evidence="positions")
    branch = (head, SegmentChoice(1, 2, items, optional=True, repeat=4))
    # the one short first item is in a list of three: its value has the
    # repeated segment twice
    texts = ["1094", "120", "1094,2031", "5,1200,1300"]
    (bounded,) = bound_runs([branch], texts, lengths_index, 0.2, 0.05)
    rx = pattern_regex([(s.hypothesis.pattern, s.most) for s in bounded])
    assert all(regex.fullmatch(rx, t) for t in texts), [s.hypothesis.pattern for s in bounded]
    # a run of the second occurrence bounds the segment as much as the first's
    short_later = ["1094", "120", "1094,2031", "1200,3000,4"]
    (bounded,) = bound_runs([branch], short_later, lengths_index, 0.2, 0.05)
    rx = pattern_regex([(s.hypothesis.pattern, s.most) for s in bounded])
    assert all(regex.fullmatch(rx, t) for t in short_later)


def test_bounded_pattern_writes_each_run_its_bound():
    assert bounded_pattern("<upper>+-<digit>+", [3, 1]) == "<upper>{3,}-<digit>+"
    assert bounded_pattern("\\+<digit>+<digit>{2}", [2]) == "\\+<digit>{2,}<digit>{2}"
    assert bounded_pattern("<num>x", []) == "<num>x"
    with pytest.raises(ValueError):
        bounded_pattern("<digit>+", [2, 2])


def test_max_shortfall_must_be_a_fraction(lengths_index):
    with pytest.raises(ParameterError):
        solve(["1"], lengths_index, params=SolverParams(max_shortfall=1.5))
