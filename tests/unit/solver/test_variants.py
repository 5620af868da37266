"""The horizontal cut's retained sets: linear construction, same result as the quadratic one."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.patterns.tokens import tokenize
from autovalidate.solver.alignment import token_class
from autovalidate.solver.fmdv import MAX_VARIANTS, _Row, _Variant, _variants


def _rows(values: list[str]) -> tuple[list[_Row], int]:
    counts = Counter(values)
    rows = []
    for value, weight in counts.items():
        tokens = tokenize(value)
        if tokens:
            rows.append(_Row(tokens, weight, tuple(token_class(t.kind, t.text) for t in tokens)))
    return rows, sum(counts.values())


def _reference(rows: list[_Row], n: int, theta: float) -> list[_Variant]:
    """The former construction: drop each rare group by list membership (quadratic)."""
    groups: dict[tuple[str, ...], list[_Row]] = {}
    for row in rows:
        groups.setdefault(row.signature, []).append(row)
    ordered = sorted(groups.items(), key=lambda kv: (-sum(r.weight for r in kv[1]), kv[0]))
    variants: list[_Variant] = []
    kept = [r for _, g in ordered for r in g]
    total = sum(r.weight for r in kept)
    for drop in range(len(ordered)):
        retained = total / n
        if 1.0 - retained > theta + 1e-12 or not kept or len(variants) == MAX_VARIANTS:
            break
        variants.append(_Variant(kept, retained))
        dropped = ordered[len(ordered) - 1 - drop][1]
        kept = [r for r in kept if r not in dropped]
        total -= sum(r.weight for r in dropped)
    return variants


VALUE = st.text(alphabet="aZ9-.|: ", min_size=0, max_size=6)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(VALUE, min_size=1, max_size=40), theta=st.sampled_from([0.0, 0.1, 0.5]))
def test_variants_match_the_brute_force_reference(values, theta):
    rows, n = _rows(values)
    variants, signatures = _variants(rows, n, theta)
    expected = _reference(rows, n, theta)
    assert [(v.rows, v.retained) for v in variants] == [(v.rows, v.retained) for v in expected]
    assert len(signatures) == len({r.signature for r in rows})


def test_many_rare_groups_are_dropped_in_order():
    values = ["12"] * 90 + ["a-1", "b.2", "c|3", "d:4", "Q"] * 2
    rows, n = _rows(values)
    variants, _ = _variants(rows, n, 0.1)
    assert [v.retained for v in variants] == [(100 - 2 * k) / 100 for k in range(6)]
    assert [len(v.rows) for v in variants] == [len(v.rows) for v in _reference(rows, n, 0.1)]
