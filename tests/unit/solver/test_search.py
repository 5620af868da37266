"""The top-down search finds every pattern the whole lookup finds (solver/search.py)."""

import itertools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autovalidate.patterns.tokens import tokenize
from autovalidate.solver import search as search_module
from autovalidate.solver.search import SegmentSpace, search

VALUES = st.lists(
    st.sampled_from(
        ["03/01/2019", "12/30/1999", "07:05:59", "3.5", "0.1", "OnBooking", "Closed", "ABC", "12"]
        + ["12,7,99", "5,40,3", "XYZ", "450", "ORD-12", "ORD-450"]
    ),
    min_size=1,
    max_size=4,
)


def _spaces(values: list[str]) -> list[SegmentSpace]:
    rows_by_length: dict[int, list[tuple]] = {}
    for v in values:
        tokens = tuple(tokenize(v))
        rows_by_length.setdefault(len(tokens), []).append(tokens)
    spaces = [SegmentSpace.of(rows) for rows in rows_by_length.values()]
    return [s for s in spaces if s is not None]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=VALUES, min_cov=st.sampled_from([1, 5]))
def test_top_down_finds_what_the_whole_lookup_finds(small_index, values, min_cov):
    monkeypatch = pytest.MonkeyPatch()
    try:
        found = {}
        for budget in (10**9, 0):
            monkeypatch.setattr(search_module, "WHOLE_LOOKUP_BUDGET", budget)
            spaces = _spaces(values)
            search(spaces, small_index, min_cov=min_cov)
            found[budget] = [
                (
                    {p: st for p, st in s.found.items() if st.cov >= min_cov},
                    {p: (s.level[p], s.free(p), s.freeable(p)) for p in s.found},
                )
                for s in spaces
            ]
            if budget:  # whole spaces: a pattern's masks read off its options
                for s in spaces:
                    for p in s.found:
                        assert s.free(p) == _free_mask(s, p)
                        assert s.free(p) & ~s.freeable(p) == 0
        whole, top_down = found[10**9], found[0]
        assert [f for f, _ in whole] == [f for f, _ in top_down]
        for (f, known_whole), (_, known_top) in zip(whole, top_down, strict=True):
            assert {p: known_whole[p] for p in f} == {p: known_top[p] for p in f}
    finally:
        monkeypatch.undo()


def _free_mask(space: SegmentSpace, pattern: str) -> int:
    """The slots whose option in ``pattern`` is a one-case letter class of any length."""
    options = list(itertools.product(*(sorted(slot.options) for slot in space.slots)))
    chosen = options[space.node[pattern]]  # node numbers follow all_patterns' order
    assert "".join(chosen) == pattern
    return sum(1 << i for i, o in enumerate(chosen) if re.fullmatch(r"<(upper|lower)>\+", o))


def test_the_comparison_is_not_vacuous(small_index):
    spaces = _spaces(["03/01/2019", "12/30/1999"])
    search(spaces, small_index, min_cov=5)
    assert "<digit>{2}/<digit>{2}/<digit>{4}" in spaces[0].found


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=st.lists(VALUES, min_size=1, max_size=3).map(lambda vs: [v for x in vs for v in x]))
def test_pruning_futile_patterns_changes_no_solution(small_index, values):
    from autovalidate.index.stats import FprPrior
    from autovalidate.solver.fmdv import solve

    pruned = solve(values, small_index)
    monkeypatch = pytest.MonkeyPatch()
    try:
        monkeypatch.setattr(FprPrior, "futile_below", lambda self, n, max_fpr: 0.0)
        unpruned = solve(values, small_index)
    finally:
        monkeypatch.undo()
    assert (pruned and (pruned.pattern, pruned.fpr)) == (
        unpruned and (unpruned.pattern, unpruned.fpr)
    )
