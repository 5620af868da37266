"""Lists: a varying number of items of one format, solved as a column of items.

Look-alike machine columns (language weights ``en-gb:0.25,fr-fr:0.5``,
tag lists ``T1190; T1078``) in a small real index (local writer, Parquet,
DuckDB), whose first tenth holds shorter lists than the rest.
"""

from __future__ import annotations

import random
from collections import Counter

import duckdb
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import autovalidate
from autovalidate.index.reader import PatternIndex
from autovalidate.index.state import write_local_index
from autovalidate.patterns.render import spell_segments
from autovalidate.patterns.tokens import tokenize
from autovalidate.solver.fmdv import solve
from autovalidate.solver.lists import _SHAPE_KIND, _spaced, list_items

LANGUAGES = ["en-gb", "fr-fr", "de-de", "es-es", "it-it", "pt-br", "nl-nl", "sv-se"]
WEIGHTS = ["0.25", "0.5", "1.0", "0.125", "0.75"]


def _weights(rng: random.Random, rows: int, most: int) -> list[str]:
    """A column of language-weight lists of 1 to ``most`` items."""
    return [
        ",".join(
            f"{lang}:{rng.choice(WEIGHTS)}" for lang in rng.sample(LANGUAGES, rng.randint(1, most))
        )
        for _ in range(rows)
    ]


def list_separator(values: Counter[str]) -> str | None:
    """The separator :func:`list_items` finds with no tolerance, or None."""
    found = list_items(values)
    return None if found is None else found[0]


@pytest.fixture(scope="module")
def lists_index(tmp_path_factory):
    rng = random.Random(3)
    # list columns whose lists grow later, the items as columns of their own,
    # and numbers (impure fixed widths)
    columns = [_weights(rng, 20, 2) + _weights(rng, 180, 5) for _ in range(30)]
    columns += [
        [f"{rng.choice(LANGUAGES)}:{rng.choice(WEIGHTS)}" for _ in range(200)] for _ in range(30)
    ]
    columns += [[str(rng.randint(1, 99_999)) for _ in range(200)] for _ in range(20)]
    out = tmp_path_factory.mktemp("lists") / "index"
    write_local_index(columns, out, budget=200_000)
    with PatternIndex.open(out) as index:
        yield index


def test_a_list_of_key_weight_items_repeats_the_item_pattern(lists_index):
    train = _weights(random.Random(7), 60, 3)
    solution = solve(train, lists_index, method="fmdv-vh")
    assert solution is not None
    *item, unit = solution.segments
    assert unit.optional and unit.repeat >= 2 and unit.hypothesis.pattern.startswith(",")
    assert solution.fpr <= 0.15
    for later in ("en-gb:0.5", "sv-se:0.125,nl-nl:1.0,de-de:0.25,fr-fr:0.5"):
        assert regex.fullmatch(solution.regex, later), later
    # another separator, an item without its weight, an empty item: not the format
    for drifted in ("en-gb:0.5;fr-fr:0.25", "en-gb:0.5,fr-fr", "en-gb:0.5,,fr-fr:0.25"):
        assert not regex.fullmatch(solution.regex, drifted), drifted


def test_the_list_cut_is_only_tried_by_vertical_cut_methods(lists_index):
    train = _weights(random.Random(7), 60, 3)
    for method in ("fmdv", "fmdv-h"):
        solution = solve(train, lists_index, method=method)
        assert solution is None or not any(s.repeat > 1 for s in solution.segments), method


def test_the_separator_is_the_symbol_whose_items_share_a_format():
    weights = Counter(["en-gb:0.25,fr-fr:0.5", "de-de:1.0", "it-it:0.5,es-es:0.25,sv-se:1.0"])
    assert list_separator(weights) == ","
    tags = Counter(["T1190; T1078", "T1190", "T1003; T1552; T1005"])
    assert list_separator(tags) == "; "
    dashed = Counter(["TA0005 - TA0002", "TA0002", "TA0006 - TA0007 - TA0009"])
    assert list_separator(dashed) == " - "


def test_numbers_with_and_without_a_point_or_a_sign_are_items_of_one_format():
    # a weight written 1 beside 0.25, a signed -1 beside 20004: one item format
    # each (<num>), as the look-alikes have them (issue 29, item 3)
    weights = Counter(["en-gb:0.25,fr-fr:1", "de-de:1", "it-it:0.5,es-es:0.25,sv-se:1"])
    assert list_separator(weights) == ","
    records = Counter(["3#1#-1#-1#20004#-1", "20004#-1", "7#0#-1#12", "-1#-1#-1"])
    assert list_separator(records) == "#"
    # a word of letters and one of letters and digits are one kind, as alignment reads them
    assert list_separator(Counter(["web01,db", "cache2", "db,web02,queue"])) == ","
    # a word beside a number is still another shape: not one item format
    assert list_separator(Counter(["a,1", "b,c,2", "d"])) is None


def test_a_list_of_integer_and_decimal_weights_gets_one_number_item(lists_index):
    rng = random.Random(11)
    train = [
        ",".join(
            f"{lang}:{rng.choice(['0.25', '1', '0.5', '2'])}"
            for lang in rng.sample(LANGUAGES, rng.randint(1, 3))
        )
        for _ in range(60)
    ]
    solution = solve(train, lists_index, method="fmdv-vh")
    assert solution is not None
    *item, unit = solution.segments
    assert unit.repeat >= 2 and unit.hypothesis.pattern.startswith(",")
    for later in ("nl-nl:0.125", "sv-se:3,de-de:0.75"):
        assert regex.fullmatch(solution.regex, later), later
    assert not regex.fullmatch(solution.regex, "en-gb:one,fr-fr:1")


def test_no_separator_for_prose_fixed_counts_or_empty_items():
    prose = Counter(["Red, green and blue", "Blue", "Green, red, and more"])
    assert list_separator(prose) is None  # items with words
    fixed = Counter(["a-b", "c-d", "e-f"])
    assert list_separator(fixed) is None  # every value has one '-': alignment's case
    empty = Counter(["a,b", "a,,b", "a"])
    assert list_separator(empty) is None


def test_a_separator_spaced_in_some_values_only_is_not_a_spaced_one():
    mixed = Counter(["T1190; T1078", "T1190;T1003", "T1005"])
    assert list_separator(mixed) is None  # split at ';', items start with a space


def test_within_theta_a_value_that_breaks_the_list_does_not_make_the_column_prose():
    # one tactic list of twenty with a trailing space (an item holding a space)
    tactics = Counter(["TA0005 - TA0002", "TA0002", "TA0006 - TA0007 - TA0009"] * 6)
    tactics["TA0009 - TA0010 "] += 1
    tactics["TA0001 - TA0003"] += 1
    assert list_separator(tactics) is None  # no tolerance: the odd value makes it prose
    sep, lists = list_items(tactics, 0.1)
    assert sep == " - "
    assert "TA0009 - TA0010 " not in lists and sum(lists.values()) == 19
    # beyond theta, the values are not lists of one format
    assert list_items(tactics, 0.04) is None
    # an item of another first kind counts against theta alike
    mixed = Counter(["T1190; T1078", "T1190", "T1003; T1552; T1005"] * 3 + ["T1565; 1078"])
    assert list_items(mixed, 0.0) is None
    sep, lists = list_items(mixed, 0.1)
    assert sep == "; " and "T1565; 1078" not in lists


def test_a_horizontal_cut_method_leaves_theta_of_broken_lists_non_conforming(lists_index):
    train = _weights(random.Random(7), 60, 3)
    train[5] = "en-gb:0.5, fr-fr:0.25"  # a space after the comma: an item with a space
    vh = solve(train, lists_index, method="fmdv-vh")
    assert vh is not None and any(s.repeat > 1 for s in vh.segments)
    assert not regex.fullmatch(vh.regex, train[5])
    assert regex.fullmatch(vh.regex, "sv-se:0.125,nl-nl:1.0,de-de:0.25,fr-fr:0.5")
    assert vh.retained == pytest.approx(59 / 60)
    # without a horizontal cut every value must conform: no list
    v = solve(train, lists_index, method="fmdv-v")
    assert v is None or not any(s.repeat > 1 for s in v.segments)


def _item_shapes(value: str, sep: str) -> set[tuple[str, ...]]:
    return {tuple(_SHAPE_KIND.get(t.kind, t.kind) for t in tokenize(i)) for i in value.split(sep)}


def _strict_separator(values: Counter[str]) -> str | None:
    """The list rule with no tolerance, written out plainly: every value must keep the list.

    Items of one whole shape first; where no separator has them, items of one first kind.
    """
    return _plain_separator(values, whole=True) or _plain_separator(values, whole=False)


def _plain_separator(values: Counter[str], whole: bool) -> str | None:
    best = None
    for char in sorted({c for v in values for c in v if not c.isalnum() and not c.isspace()}):
        if len({v.count(char) for v in values}) < 2:
            continue
        before = all(_spaced(v, char, -1) for v in values)
        after = all(_spaced(v, char, 1) for v in values)
        sep = " " * before + char + " " * after
        items = {item for v in values for item in v.split(sep)}
        if any(not item or any(c.isspace() for c in item) for item in items):
            continue
        shapes = {tuple(_SHAPE_KIND.get(t.kind, t.kind) for t in tokenize(item)) for item in items}
        if len({shape if whole else shape[:1] for shape in shapes}) != 1:
            continue

        if not whole and not any(len(_item_shapes(v, sep)) > 1 for v in values):
            continue
        key = (-sum(v.count(sep) for v in values), sep)
        best = key if best is None or key < best else best
    return None if best is None else best[1]


_ITEMS = st.sampled_from(["ab", "Cd", "12", "a1", "x.y", "7-8", "a b", ""])


@st.composite
def _columns(draw: st.DrawFn) -> list[str]:
    """Lists of one separator (spaced or not, as drawn), some values joined with another."""
    seps = st.sampled_from([",", "; ", " - ", "-", ";", " ;", "."])
    main = draw(seps)
    items = st.lists(_ITEMS, min_size=1, max_size=4)
    values = [main.join(draw(items)) for _ in range(draw(st.integers(2, 6)))]
    for _ in range(draw(st.integers(0, 2))):
        values.append(draw(seps).join(draw(items)))
    return values


@settings(max_examples=400, deadline=None)
@given(_columns())
def test_with_no_tolerance_every_value_must_keep_the_list(values):
    counts = Counter(values)
    found = list_items(counts)
    assert (None if found is None else found[0]) == _strict_separator(counts)
    if found is not None:
        assert found[1] == counts  # no value left out


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="a; -,", max_size=12), st.sampled_from(";-,"), st.sampled_from([-1, 1]))
def test_spaced_is_every_occurrence_next_to_a_space(value, char, side):
    """Counting pairs equals looking beside every occurrence (what it replaced, for speed)."""
    beside = all(
        0 <= i + side < len(value) and value[i + side] == " "
        for i, c in enumerate(value)
        if c == char
    )
    assert _spaced(value, char, side) == beside


def test_items_with_an_optional_part_are_a_list_of_one_item_format():
    # T1190 beside T1565.001: no separator's items have one whole shape; they share a first kind
    techniques = Counter(["T1190; T1565.001", "T1078", "T1003.008; T1552.001; T1059"])
    assert list_separator(techniques) == "; "
    # unless one list holds both shapes, each value is a format: two date formats, not a list
    assert list_separator(Counter(["2024-01-02", "1/2/2024", "2024-11-28", "12/3/2024"])) is None
    assert list_separator(Counter(["T1190; T1078", "T1565.001", "T1003.008"])) is None
    # the sub-technique is an optional part of the repeated unit (the default index: a
    # small corpus has no evidence for these items)
    rng = random.Random(11)
    train = [
        "; ".join(
            f"T{rng.randint(1001, 1600)}" + (f".{rng.randint(1, 12):03d}" * (rng.random() < 0.3))
            for _ in range(rng.choice([1, 1, 2, 3]))
        )
        for _ in range(100)
    ]
    with autovalidate.open_default_index() as index:
        solution = solve(train, index, method="fmdv-vh")
    assert solution is not None
    *item, unit = solution.segments
    assert unit.repeat >= 2 and [most for _, most in unit.parts] == [0, 1], unit
    assert unit.parts[0][0].startswith("; ") and unit.parts[1][0].startswith(".")
    assert unit.hypothesis.pattern == spell_segments(unit.parts)
    for later in ("T1059", "T1059.002; T1003", "T1003; T1552.001; T1059.004"):
        assert regex.fullmatch(solution.regex, later), later
    for drifted in ("T1059.; T1003", "T1059..002", "T1059;T1003", "T1059; ; T1003"):
        assert not regex.fullmatch(solution.regex, drifted), drifted


@pytest.mark.parametrize(
    "item",
    [
        lambda rng: "".join(rng.choice("abcdeFGHIJ") for _ in range(rng.randint(2, 6))),
        lambda rng: f"{rng.randint(0, 9999):04d}",
    ],
    ids=["words of both cases", "four digits"],
)
def test_a_long_list_gets_no_rule_that_duckdb_cannot_compile(item):
    """Lists of 200-480 items: the bound copies the item past RE2's limits (size, 1,000)."""
    rng = random.Random(4)
    train = [",".join(item(rng) for _ in range(rng.randint(200, 480))) for _ in range(40)]
    with autovalidate.open_default_index() as index:
        solution = solve(train, index, method="fmdv-vh")
    if solution is not None:  # a rule, then one DuckDB runs
        duckdb.connect().execute("SELECT regexp_full_match('', ?)", [solution.regex]).fetchall()
