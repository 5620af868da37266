"""The vertical-cut DP equals brute force over all segmentations (Eq. 8-11)."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.solver.dp import SegmentChoice, best_segmentation, segmentation_key
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
                optional = draw(st.booleans()) if draw(st.integers(0, 4)) == 0 else False
                choices[(s, e)] = SegmentChoice(s, e, Hypothesis(f"p{s}_{e}", fpr, cov), optional)
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
