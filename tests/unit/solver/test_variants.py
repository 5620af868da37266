"""Retained sets and segment planning: linear constructions, same results as the per-row ones."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from autovalidate.patterns.hierarchy import escape_literal
from autovalidate.patterns.tokens import token_class, tokenize
from autovalidate.solver.alignment import align
from autovalidate.solver.plan import PlanMemo, plan_segments
from autovalidate.solver.search import SegmentSpace
from autovalidate.solver.variants import MAX_VARIANTS, Row, Variant, group_rows, retained_sets


def _rows(values: list[str]) -> tuple[list[Row], int]:
    counts = Counter(values)
    rows = []
    for value, weight in counts.items():
        tokens = tokenize(value)
        if tokens:
            signature = tuple(token_class(t.kind, t.text) for t in tokens)
            rows.append(Row(value, tokens, weight, signature))
    return rows, sum(counts.values())


def _reference(rows: list[Row], n: int, theta: float) -> list[Variant]:
    """The former construction: drop each rare group by list membership (quadratic)."""
    groups: dict[tuple[str, ...], list[Row]] = {}
    for row in rows:
        groups.setdefault(row.signature, []).append(row)
    ordered = sorted(groups.items(), key=lambda kv: (-sum(r.weight for r in kv[1]), kv[0]))
    variants: list[Variant] = []
    kept = [r for _, g in ordered for r in g]
    total = sum(r.weight for r in kept)
    for drop in range(len(ordered)):
        retained = total / n
        if 1.0 - retained > theta + 1e-12 or not kept or len(variants) == MAX_VARIANTS:
            break
        variants.append(Variant(kept, retained))
        dropped = ordered[len(ordered) - 1 - drop][1]
        kept = [r for r in kept if r not in dropped]
        total -= sum(r.weight for r in dropped)
    return variants


VALUE = st.text(alphabet="aZ9-.|: ", min_size=0, max_size=6)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(VALUE, min_size=1, max_size=40), theta=st.sampled_from([0.0, 0.1, 0.5]))
def test_variants_match_the_brute_force_reference(values, theta):
    rows, n = _rows(values)
    variants, signatures = retained_sets(rows, n, theta)
    expected = _reference(rows, n, theta)
    assert [(v.rows, v.retained) for v in variants] == [(v.rows, v.retained) for v in expected]
    assert len(signatures) == len({r.signature for r in rows})


def test_many_rare_groups_are_dropped_in_order():
    values = ["12"] * 90 + ["a-1", "b.2", "c|3", "d:4", "Q"] * 2
    rows, n = _rows(values)
    variants, _ = retained_sets(rows, n, 0.1)
    assert [v.retained for v in variants] == [(100 - 2 * k) / 100 for k in range(6)]
    assert [len(v.rows) for v in variants] == [len(v.rows) for v in _reference(rows, n, 0.1)]


def _reference_plan(variant: Variant, *, tau, alignment, signatures, ordered=()) -> None:
    """The former planning: every segment gathers the distinct token rows of every row.

    And its evidence: per column, the larger of the distinct tokens and their
    runs along ``ordered``, least over the columns that are not all symbols.
    """
    rows = variant.rows
    present = {r.signature for r in rows}
    keep = [i for i, sig in enumerate(signatures) if sig in present]
    alignment = alignment.restrict(keep)
    position_of = dict(zip([signatures[i] for i in keep], alignment.positions, strict=True))
    variant.width = alignment.width
    for s in range(alignment.width):
        for e in range(s, min(alignment.width, s + tau)):
            sub_rows = set()
            absent = False
            valid = True
            for row in rows:
                cols = position_of[row.signature][s : e + 1]
                tokens_here = [c for c in cols if c is not None]
                if not tokens_here:
                    absent = True
                elif len(tokens_here) != len(cols):
                    valid = False
                    break
                else:
                    sub_rows.add(row.value_tokens[tokens_here[0] : tokens_here[-1] + 1])
            if not valid or not sub_rows:
                continue
            if not absent and len(sub_rows) == 1:
                (only,) = sub_rows
                if all(t.kind == "S" for t in only):
                    variant.delimiters[(s, e)] = escape_literal("".join(t.text for t in only))
            space = SegmentSpace.of(list(sub_rows))
            if space is not None:
                variant.segments[(s, e)] = (space, absent)
                present = {r.signature for r in rows}
                in_segment = [
                    r.value_tokens[position_of[r.signature][s] : position_of[r.signature][e] + 1]
                    for r in ordered
                    if r.signature in present and position_of[r.signature][s] is not None
                ]
                evidence: list[int | None] = []
                for c in range(e - s + 1):
                    distinct = {tokens[c] for tokens in sub_rows}
                    if all(t.kind == "S" for t in distinct):
                        evidence.append(None)  # a symbol position evidences nothing
                        continue
                    texts = [tokens[c] for tokens in in_segment]
                    runs = sum(1 for k, t in enumerate(texts) if k == 0 or t != texts[k - 1])
                    evidence.append(max(len(distinct), runs if len(distinct) <= 101 else 0))
                variant.evidence[(s, e)] = tuple(evidence)


def _shape(variant: Variant):
    return (
        variant.width,
        dict(variant.delimiters),
        dict(variant.evidence),
        {
            seg: (absent, [(slot.options, slot.roots, slot.levels) for slot in space.slots])
            for seg, (space, absent) in variant.segments.items()
        },
    )


ID_LIKE = st.builds(
    lambda parts, seps: "".join(p + s for p, s in zip(parts, seps, strict=False)),
    st.lists(
        st.sampled_from(["12", "2019", "ab", "X9", "3.5", "Mar", "a1b2"]), min_size=1, max_size=5
    ),
    st.lists(st.sampled_from(["-", ":", "|", " ", "T", ""]), min_size=0, max_size=5),
)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(ID_LIKE, min_size=1, max_size=30), tau=st.sampled_from([2, 4, 8]))
def test_plan_matches_the_per_row_reference(values, tau):
    rows, n = _rows(values)
    row_of = {r.value: r for r in rows}
    ordered = [row_of[v] for v in values if v in row_of]
    variants, signatures = retained_sets(rows, n, 0.5)
    if not variants:
        return
    weights: Counter[tuple[str, ...]] = Counter()
    for r in rows:
        weights[r.signature] += r.weight
    alignment = align(signatures, [weights[sig] for sig in signatures])
    memo = PlanMemo()  # shared by the retained sets, as _solve_format shares it
    spaces: set[int] = set()
    for variant in variants:
        fast, shared, slow = (
            Variant(variant.rows, variant.retained),
            Variant(variant.rows, variant.retained),
            Variant(variant.rows, variant.retained),
        )
        plan_segments(fast, tau=tau, alignment=alignment, signatures=signatures, ordered=ordered)
        plan_segments(
            shared,
            tau=tau,
            alignment=alignment,
            signatures=signatures,
            memo=memo,
            ordered=ordered,
        )
        _reference_plan(slow, tau=tau, alignment=alignment, signatures=signatures, ordered=ordered)
        assert _shape(fast) == _shape(slow)
        assert _shape(shared) == _shape(slow)
        spaces.update(id(space) for space, _ in shared.segments.values())
    # the retained sets' segments with the same tokens are one space (searched once)
    assert spaces == {id(space) for space in memo.spaces.values() if space is not None}


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.text(alphabet="aZeE x9+-.,:/|_T\u00e9\u00df\u0661", min_size=0, max_size=12),
        min_size=1,
        max_size=20,
    )
)
def test_rows_by_shape_equal_rows_by_tokenize(values):
    """Tokens cut at the offsets of a value's shape are the lexer's own tokens.

    This holds while tokenize looks at character classes only (letter, digit,
    each symbol); a lexer rule on particular letters would fail here.
    """
    counts = Counter(values)
    expected, _ = _rows(values)
    assert group_rows(counts) == expected


def test_rows_by_shape_on_real_lake_values(lake_mini):
    import pyarrow.parquet as pq

    table = pq.read_table(next(lake_mini.glob("*.parquet")), columns=["values"])
    values = [v for col in table.column(0).to_pylist()[::7] for v in col[:50] if v is not None]
    assert len(values) > 5_000
    expected, _ = _rows(values)
    assert group_rows(Counter(values)) == expected
