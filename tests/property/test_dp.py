"""The vertical-cut DP equals brute force over all segmentations (Eq. 8-11).

With a slack, it stays within its FPR budget and is never less specific.
"""

import dataclasses
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.solver.dp import (
    SegmentChoice,
    best_segmentation,
    beyond_budget,
    segmentation_key,
    specificity_key,
)
from autovalidate.solver.search import Hypothesis


@st.composite
def instances(draw):
    width = draw(st.integers(1, 7))
    tau = draw(st.integers(1, 4))
    choices = {}
    for s in range(width):
        for e in range(s, min(width, s + tau)):
            if draw(st.booleans()):
                fpr = draw(st.sampled_from([0.0, 0.001, 0.01, 0.02, 0.05, 0.1, 0.3]))
                cov = draw(st.integers(1, 50))
                level = draw(st.integers(0, 4 * (e - s + 1)))
                optional = draw(st.booleans()) if draw(st.integers(0, 4)) == 0 else False
                hypothesis = Hypothesis(f"p{s}_{e}", fpr, cov, level)
                choices[(s, e)] = SegmentChoice(s, e, hypothesis, optional)
    r = draw(st.sampled_from([0.0, 0.02, 0.1, 1.0]))
    return width, choices, r


def brute_force(width, choices, r):
    best = None
    for cuts in itertools.product([False, True], repeat=width - 1):
        bounds = [0] + [i + 1 for i, c in enumerate(cuts) if c] + [width]
        segs = []
        for a, b in zip(bounds, bounds[1:], strict=False):
            if (a, b - 1) not in choices:
                break
            segs.append(choices[(a, b - 1)])
        else:
            if all(s.optional for s in segs):
                continue
            if segmentation_key(segs)[0] > r:
                continue
            if best is None or segmentation_key(segs) < segmentation_key(best):
                best = segs
    return best


@settings(max_examples=300, deadline=None)
@given(instances())
def test_dp_equals_brute_force(instance):
    width, choices, r = instance
    got = best_segmentation(width, choices, max_fpr=r)
    want = brute_force(width, choices, r)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert segmentation_key(got) == segmentation_key(want)
        assert got[0].start == 0 and got[-1].end == width - 1
        assert all(a.end + 1 == b.start for a, b in zip(got, got[1:], strict=False))


def _valid(segs, width):
    assert segs[0].start == 0 and segs[-1].end == width - 1
    assert all(a.end + 1 == b.start for a, b in zip(segs, segs[1:], strict=False))
    assert not all(s.optional for s in segs)


@settings(max_examples=300, deadline=None)
@given(instances(), st.sampled_from([0.0, 0.001, 0.01, 0.05, 0.2]))
def test_the_slack_stays_within_its_budget_and_is_never_less_specific(instance, slack):
    width, choices, r = instance
    least = best_segmentation(width, choices, max_fpr=r)
    got = best_segmentation(width, choices, max_fpr=r, slack=slack)
    if least is None:
        assert got is None
        return
    assert got is not None
    _valid(got, width)
    fpr = segmentation_key(got)[0]
    assert fpr <= min(r, segmentation_key(least)[0] + slack) + 1e-12
    assert specificity_key(got) <= specificity_key(least)  # -level first: at least as deep
    if slack == 0.0:
        assert got == least


def test_the_slack_prefers_the_deeper_segmentation_of_a_guid_part():
    loose = Hypothesis("<alphanum>+-", 0.00007, 18, 0)
    tight = Hypothesis("<hex-lower>{8}", 0.0003, 170, 2)
    choices = {
        (0, 1): SegmentChoice(0, 1, loose),
        (0, 0): SegmentChoice(0, 0, tight),
        (1, 1): SegmentChoice(1, 1, Hypothesis("-", 0.0, 0)),
    }
    assert best_segmentation(2, choices, max_fpr=0.15) == [choices[(0, 1)]]
    deeper = best_segmentation(2, choices, max_fpr=0.15, slack=0.01)
    assert deeper == [choices[(0, 0)], choices[(1, 1)]]
    assert best_segmentation(2, choices, max_fpr=0.15, slack=0.0001) == [choices[(0, 1)]]


@settings(max_examples=300, deadline=None)
@given(
    instances(),
    st.floats(0.0, 1.2, allow_nan=False),
    st.sampled_from([0.0, 1e-13, 4e-13, 6e-13, 1e-9]),
    st.sampled_from([0.0, 0.001, 0.01]),
)
def test_a_shape_risk_beyond_the_budget_leaves_no_segmentation(instance, shape, above, slack):
    """What lets the solver skip pricing a cut by positions (``_segmentation``).

    The cut's first segment carries the shape risk; where ``beyond_budget``
    says it exceeds the budget, no segmentation is feasible, with or without
    a slack, rounding included (``above``: shapes a hair above the budget).
    """
    width, choices, r = instance
    shape = r + above if above else shape
    shaped = [dataclasses.replace(c, shape=shape) if c.start == 0 else c for c in choices.values()]
    if beyond_budget(shape, r):
        assert best_segmentation(width, shaped, max_fpr=r, slack=slack) is None
    elif shape <= r and any(
        c.start == 0 and c.end == width - 1 and not c.optional and c.cost <= r for c in shaped
    ):
        assert best_segmentation(width, shaped, max_fpr=r, slack=slack) is not None


def test_beyond_budget_compares_as_the_dp_rounds():
    assert beyond_budget(0.05 + 1e-9, 0.05)
    assert not beyond_budget(0.05, 0.05)
    assert not beyond_budget(0.05 + 1e-15, 0.05)  # rounds to the budget: the DP admits it
