"""Validation runs in linear time on adversarial values (issue 10).

Every regex that can run is the rendering of a pattern (a loaded constraint
whose regex differs is refused), and validation runs it with RE2 (DuckDB),
whose time is linear in the value's length. Patterns here are drawn from the
generalization hierarchy of random values; each is run against 100 KB values
built to make a backtracking engine try every split: long runs of characters
its classes accept, ending in one that no class accepts.

The bound per value is generous (seconds, where RE2 needs about a
millisecond): it catches exponential or quadratic blow-up (a quadratic scan
of 100 KB is 10^10 steps), not a slow machine.
"""

from __future__ import annotations

import itertools
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autovalidate import PatternConstraint
from autovalidate.pattern_constraint import Segment
from autovalidate.patterns.hierarchy import options
from autovalidate.patterns.render import pattern_regex, render_body
from autovalidate.patterns.tokens import tokenize

SIZE = 100_000
BOUND_S = 5.0
tokens_text = st.text(alphabet="aZ09-_:. é", min_size=1, max_size=10)


def _constraint(pattern_parts: list[str]) -> PatternConstraint:
    return PatternConstraint(
        regex=pattern_regex([(p, False) for p in pattern_parts]),
        pattern="".join(pattern_parts),
        segments=tuple(Segment(p, render_body(p)) for p in pattern_parts),
        fpr=0.0,
        method="fmdv-vh",
        test="fisher",
        alpha=0.01,
        train_n=100,
        train_nonconforming=0,
    )


def _adversarial(value: str) -> list[str]:
    """100 KB values: the value's characters repeated, then a character nothing matches."""
    body = (value * (SIZE // max(1, len(value)) + 1))[:SIZE]
    return [body + "\x00", "a" * SIZE + "\x00", "0" * SIZE + "-", "a0" * (SIZE // 2) + "!"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=tokens_text, pick=st.integers(min_value=0, max_value=10**6))
def test_rendered_patterns_validate_100kb_values_within_a_bound(value, pick):
    tokens = tokenize(value)
    combos = list(itertools.islice(itertools.product(*(options(t) for t in tokens)), 500))
    pattern = "".join(combos[pick % len(combos)])
    constraint = PatternConstraint.from_dict(_constraint([pattern]).to_dict())  # loads: re-rendered
    for adversarial in _adversarial(value):
        started = time.perf_counter()
        result = constraint.validate([adversarial])
        elapsed = time.perf_counter() - started
        assert result.n_values == 1
        assert elapsed < BOUND_S, (pattern, elapsed)
