"""Great Expectations' ``tests/test_definitions`` cases, as data (not a test module).

Each GX dataset is re-typed as a table (``gx_`` and the expectation's short name; a
column ``i`` holds the row order where GX relies on it); each test becomes the
``Check`` calls of the mapping table in docs/deequ.md and GX's ``success``. Tests GX
runs only on some backends, tests of GX's own argument errors and of its result formats
are left out. GX's map expectations ignore nulls and compare the passing fraction with
``mostly``; ours count a null as passing where the check says so.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.unit.peers.support import C, Differs, ge

OK, NO = "Success", "Failure"


def between(low: float | None, high: float | None) -> Callable[[float], bool]:
    """GX's ``min_value``/``max_value``: inclusive, a missing bound is open."""
    return lambda v: (low is None or v >= low) and (high is None or v <= high)


def rows(**columns: list) -> list[tuple]:
    return list(zip(*columns.values(), strict=True))


TABLES: dict[str, tuple[str, list[tuple]]] = {
    "gx_in_set": (
        "w string, x bigint, y double, z string",
        rows(w=["AK", "HI", "PR"], x=[1, 2, 4], y=[1.1, 2.2, 5.5], z=["hello", "jello", "mello"]),
    ),
    "gx_pair_in_set": (
        "w int, x int, y string, z int, a int, b int",
        rows(
            w=[2, 3, 4, 5, 6, 7, 8, 9, 10, None],
            x=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            y=["1", "2", "3", "4", "5", "6", "7", "8", "9", "abc"],
            z=[1, 2, 3, 4, 5, None, None, None, None, None],
            a=[1, 1, 1, 1, 1, 2, 2, 2, 2, None],
            b=[1, 2, 1, 2, 1, 2, 1, 2, 1, None],
        ),
    ),
    "gx_unique": (
        "a string, c int, n int, unique int, mult_dup string",
        rows(
            a=["2", "2", "2", None],
            c=[1, 1, 2, None],
            n=[None, None, 2, None],
            unique=[1, 2, 3, None],
            mult_dup=["1", "1", "2", "2"],
        ),
    ),
    "gx_unique_names": ("`0` int, _c0 int", rows(**{"0": [1, 2, 3, 4], "_c0": [1, 2, 3, 4]})),
    "gx_lengths": (
        "s1 string, s2 string, s3 string",
        rows(
            s1=["smart", "silly", "sassy", "slimy", "sexy"],
            s2=["cool", "calm", "collected", "casual", "creepy"],
            s3=["cool", "calm", "collected", "casual", None],
        ),
    ),
    "gx_increasing": (
        "i int, x int, y int, a int, b int",
        rows(
            i=list(range(10)),
            x=[2, 3, 4, 5, 6, 7, 8, 9, 10, None],
            y=[1, 1, 1, 2, 2, 2, 3, 3, 3, 4],
            a=[None, 0, None, None, 1, None, None, 2, None, None],
            b=[None, 0, None, None, 2, None, None, 1, None, None],
        ),
    ),
    "gx_mean": (
        "x float, y int, z int, n int",
        rows(x=[2.0, 5.0], y=[1, 2], z=[0, 10], n=[0, None]),
    ),
    "gx_empty": ("empty_column int", []),
    "gx_median": ("a int, b int, c int", rows(a=[1, 2, 3, 4], b=[1, 2, 2, 3], c=[5, 7, 6, None])),
    "gx_distinct": (
        "dist1 int, dist2 int, dist3 int, dist4 int",
        rows(
            dist1=[1, 2, 3, 4, 5, 6, 7, 8],
            dist2=[1, 2, 3, 4, 5, None, None, None],
            dist3=[2, 2, 2, 2, 5, 6, 7, 8],
            dist4=[1, 1, 1, 1, None, None, None, None],
        ),
    ),
    "gx_json": (
        "a string, b string, c int, d string",
        rows(
            a=[f'{{"a":{k}}}' for k in range(1, 11)],
            b=[f'{{"a":{k}}}' for k in range(1, 6)] + [None] * 5,
            c=[2, 3, 4, 5, 6, 7, 8, 9, 10, None],
            d=[*"abcdefghi", None],
        ),
    ),
    "gx_not_null": (
        "one_null int, three_null int, no_null string, all_null string",
        rows(
            one_null=[4, 5, None, 7],
            three_null=[None, None, None, 5],
            no_null=["a", "b", "c", "d"],
            all_null=[None, None, None, None],
        ),
    ),
    "gx_stdev": (
        "dist1 int, dist2 int, zero int, missing int",
        rows(dist1=[1, 1, 3], dist2=[-1, 0, 1], zero=[0, 0, 0], missing=[-1, 1, None]),
    ),
    "gx_regex": (
        "a string, b string, c string, `column_name with space` string",
        rows(
            a=["aaa", "abb", "acc", "add", "bee"],
            b=["aaa", "abb", "acc", "bdd", None],
            c=[None] * 5,
            **{"column_name with space": ["aaa", "abb", "acc", "add", "bee"]},
        ),
    ),
    "gx_aggregates": (
        "w int, x int, y int",
        rows(
            w=[1, 2, 3, 4, 5, 5, 4, 3, 2, 1],
            x=[2, 3, 4, 5, 6, 7, 8, 9, None, None],
            y=[1, 1, 1, 2, 2, 2, 3, 3, 3, 4],
        ),
    ),
}

ANALYZER_CASES: list = []

SEARCH = Differs(NO, "regex-full-match")

CHECK_CASES: list[C] = [
    # expect_column_median_to_be_between: the exact quantile at 0.5 (GX's median averages
    # the middle two values, as linear interpolation does)
    C("gx", "gx_median", "has_exact_quantile", ("a", 0.5, between(2.5, 2.5)), {}, OK),
    C("gx", "gx_median", "has_exact_quantile", ("a", 0.5, between(None, 3)), {}, OK),
    C("gx", "gx_median", "has_exact_quantile", ("a", 0.5, between(2, None)), {}, OK),
    C("gx", "gx_median", "has_exact_quantile", ("b", 0.5, between(5, 5)), {}, NO),
    C("gx", "gx_median", "has_exact_quantile", ("b", 0.5, between(None, 1)), {}, NO),
    C("gx", "gx_median", "has_exact_quantile", ("b", 0.5, between(2.5, None)), {}, NO),
    C("gx", "gx_median", "has_exact_quantile", ("c", 0.5, between(6, 6)), {}, OK),
    C("gx", "gx_median", "has_exact_quantile", ("c", 0.5, between(7, 7)), {}, NO),
    C("gx", "gx_median", "has_exact_quantile", ("c", 0.5, between(None, None)), {}, OK),
    C("gx", "gx_empty", "has_exact_quantile", ("empty_column", 0.5, between(0, 0)), {}, NO),
    # expect_column_pair_values_to_be_in_set (GX's default: a row of two nulls is ignored;
    # its ignore_row_if="either_value_is_missing" is our where)
    C(
        "gx",
        "gx_pair_in_set",
        "is_pair_contained_in",
        ("x", "x", [[i, i] for i in range(1, 11)]),
        {},
        OK,
    ),
    C(
        "gx",
        "gx_pair_in_set",
        "is_pair_contained_in",
        ("x", "z", [[i, i] for i in range(1, 6)]),
        {"where": "x IS NOT NULL AND z IS NOT NULL"},
        OK,
    ),
    C(
        "gx",
        "gx_pair_in_set",
        "is_pair_contained_in",
        ("x", "z", [[i, i] for i in range(1, 6)]),
        {},
        NO,
    ),
    C(
        "gx",
        "gx_pair_in_set",
        "is_pair_contained_in",
        ("a", "b", [[1, 1], [2, 2], [2, 1], [1, 2]]),
        {},
        OK,
    ),
    # expect_column_values_to_be_in_set
    C("gx", "gx_in_set", "is_contained_in", ("x", [1, 2, 4]), {}, OK),
    C("gx", "gx_in_set", "is_contained_in", ("x", [2, 4]), {}, NO),
    C("gx", "gx_in_set", "is_contained_in", ("z", ["hello", "jello", "mello"]), {}, OK),
    C("gx", "gx_in_set", "is_contained_in", ("z", ["hello", "jello"]), {}, NO),
    C("gx", "gx_in_set", "is_contained_in", ("x", [3]), {}, NO),
    C("gx", "gx_in_set", "is_contained_in", ("y", [1.1, 2.2, 5.5]), {}, OK),
    C("gx", "gx_in_set", "is_contained_in", ("y", [1.11, 2.22, 5.51]), {}, NO),
    C("gx", "gx_in_set", "is_contained_in", ("w", ["HI", "PR", "AK"]), {}, OK),
    C(
        "gx",
        "gx_empty",
        "is_contained_in",
        ("empty_column", [1, 2]),
        {},
        OK,
        Differs(NO, "empty-table"),
    ),
    # expect_column_values_to_be_unique
    C("gx", "gx_unique", "is_unique", ("unique",), {}, OK),
    C("gx", "gx_unique", "is_unique", ("a",), {}, NO),
    C("gx", "gx_unique", "has_uniqueness", ("c", ge(0.3)), {}, OK),
    C("gx", "gx_unique", "has_uniqueness", ("c", ge(0.4)), {}, NO),
    C("gx", "gx_unique", "is_unique", ("n",), {}, OK),
    C("gx", "gx_unique", "is_unique", ("c",), {}, NO),
    C("gx", "gx_unique", "is_unique", ("mult_dup",), {}, NO),
    C("gx", "gx_unique_names", "is_unique", ("0",), {}, OK),
    C("gx", "gx_unique_names", "is_unique", ("_c0",), {}, OK),
    # expect_column_value_lengths_to_be_between: min and max length together
    C(
        "gx",
        "gx_lengths",
        "has_min_length",
        ("s1", ge(4)),
        {},
        OK,
        also=(("has_max_length", ("s1", between(None, 5))),),
    ),
    C(
        "gx",
        "gx_lengths",
        "has_min_length",
        ("s2", ge(4)),
        {},
        NO,
        also=(("has_max_length", ("s2", between(None, 8))),),
    ),
    C(
        "gx",
        "gx_lengths",
        "has_min_length",
        ("s2", ge(5)),
        {},
        NO,
        also=(("has_max_length", ("s2", between(None, 9))),),
    ),
    C("gx", "gx_lengths", "has_max_length", ("s1", between(None, 5)), {}, OK),
    C("gx", "gx_lengths", "has_min_length", ("s1", ge(4)), {}, OK),
    C(
        "gx",
        "gx_lengths",
        "has_min_length",
        ("s1", ge(1)),
        {},
        NO,
        also=(("has_max_length", ("s1", between(None, 0))),),
    ),
    C(
        "gx",
        "gx_lengths",
        "has_min_length",
        ("s3", ge(4)),
        {},
        OK,
        also=(("has_max_length", ("s3", between(None, 9))),),
    ),
    # expect_column_values_to_be_increasing, in the row order
    C("gx", "gx_increasing", "is_increasing", ("x", "i"), {}, OK),
    C("gx", "gx_increasing", "is_increasing", ("y", "i"), {}, OK),
    C("gx", "gx_increasing", "is_increasing", ("y", "i"), {"strictly": True}, NO),
    C("gx", "gx_increasing", "is_increasing", ("a", "i"), {}, OK),
    C("gx", "gx_increasing", "is_increasing", ("b", "i"), {}, NO),
    # expect_column_mean_to_be_between
    C("gx", "gx_mean", "has_mean", ("x", between(2, 5)), {}, OK),
    C("gx", "gx_mean", "has_mean", ("x", between(1, 2)), {}, NO),
    C("gx", "gx_mean", "has_mean", ("y", between(1.5, 1.5)), {}, OK),
    C("gx", "gx_mean", "has_mean", ("y", between(4, 4)), {}, NO),
    C("gx", "gx_mean", "has_mean", ("z", between(5, 5)), {}, OK),
    C("gx", "gx_mean", "has_mean", ("z", between(13, 14)), {}, NO),
    C("gx", "gx_mean", "has_mean", ("n", between(0, 0)), {}, OK),
    C("gx", "gx_mean", "has_mean", ("x", between(None, None)), {}, OK),
    C("gx", "gx_empty", "has_mean", ("empty_column", between(0, 1)), {}, NO),
    # expect_column_unique_value_count_to_be_between
    C("gx", "gx_distinct", "has_count_distinct", ("dist1", between(0, 10)), {}, OK),
    C("gx", "gx_distinct", "has_count_distinct", ("dist2", between(0, 10)), {}, OK),
    C("gx", "gx_distinct", "has_count_distinct", ("dist3", between(None, 10)), {}, OK),
    C("gx", "gx_distinct", "has_count_distinct", ("dist4", between(2, None)), {}, NO),
    C("gx", "gx_distinct", "has_count_distinct", ("dist1", between(None, None)), {}, OK),
    # expect_column_proportion_of_unique_values_to_be_between
    C("gx", "gx_distinct", "has_distinctness", ("dist1", between(0.5, 1)), {}, OK),
    C("gx", "gx_distinct", "has_distinctness", ("dist2", between(0.5, 1)), {}, OK),
    C("gx", "gx_distinct", "has_distinctness", ("dist3", between(0.6, 0.7)), {}, OK),
    C("gx", "gx_distinct", "has_distinctness", ("dist4", between(0.3, None)), {}, NO),
    # expect_column_values_to_be_json_parseable
    C("gx", "gx_json", "is_valid_json", ("a",), {}, OK),
    C("gx", "gx_json", "is_valid_json", ("b", ge(0.75)), {}, OK),
    C("gx", "gx_json", "is_valid_json", ("c",), {}, NO, Differs(OK, "json-of-numbers")),
    C("gx", "gx_json", "is_valid_json", ("d",), {}, NO),
    # expect_column_values_to_not_be_null
    C("gx", "gx_not_null", "is_complete", ("no_null",), {}, OK),
    C("gx", "gx_not_null", "is_complete", ("all_null",), {}, NO),
    C("gx", "gx_not_null", "has_completeness", ("one_null", ge(0.7)), {}, OK),
    C("gx", "gx_not_null", "is_complete", ("one_null",), {}, NO),
    C("gx", "gx_not_null", "has_completeness", ("one_null", ge(0.8)), {}, NO),
    C("gx", "gx_not_null", "has_completeness", ("no_null", ge(0.9)), {}, OK),
    C("gx", "gx_not_null", "is_complete", ("three_null",), {}, NO),
    # expect_column_stdev_to_be_between: GX's is the sample standard deviation
    C("gx", "gx_stdev", "has_standard_deviation", ("dist1", between(0.5, 1.5)), {}, OK),
    C(
        "gx",
        "gx_stdev",
        "has_standard_deviation",
        ("dist1", between(0, 1)),
        {},
        NO,
        Differs(OK, "population-stdev"),
    ),
    C("gx", "gx_stdev", "has_standard_deviation", ("zero", between(0, 0)), {}, OK),
    C(
        "gx",
        "gx_stdev",
        "has_standard_deviation",
        ("dist2", between(1, None)),
        {},
        OK,
        Differs(NO, "population-stdev"),
    ),
    C("gx", "gx_stdev", "has_standard_deviation", ("dist2", between(None, 1)), {}, OK),
    C("gx", "gx_stdev", "has_standard_deviation", ("dist2", between(1.5, None)), {}, NO),
    C("gx", "gx_stdev", "has_standard_deviation", ("dist2", between(None, 0.5)), {}, NO),
    C(
        "gx",
        "gx_stdev",
        "has_standard_deviation",
        ("missing", between(1, 1)),
        {},
        NO,
        Differs(OK, "population-stdev"),
    ),
    # expect_column_values_to_match_regex: GX searches, has_pattern matches the whole value
    C("gx", "gx_regex", "has_pattern", ("a", "^a", ge(0.9)), {}, NO),
    C("gx", "gx_regex", "has_pattern", ("a", "^a", ge(0.8)), {}, OK, SEARCH),
    C("gx", "gx_regex", "has_pattern", ("a", "^a.*", ge(0.8)), {}, OK),
    C("gx", "gx_regex", "has_pattern", ("column_name with space", "^a.*", ge(0.8)), {}, OK),
    C("gx", "gx_regex", "has_pattern", ("a", "^a", ge(0.7)), {}, OK, SEARCH),
    C("gx", "gx_regex", "has_pattern", ("b", "^a.*", ge(0.8)), {}, NO),
    C("gx", "gx_regex", "has_pattern", ("b", "^a.*", ge(0.75)), {}, OK, Differs(NO, "regex-nulls")),
    C("gx", "gx_regex", "has_pattern", ("c", "^a.*"), {}, OK, Differs(NO, "regex-nulls")),
    C(
        "gx",
        "gx_regex",
        "has_pattern",
        ("b", "[ab]{1}[a-d]{2}"),
        {},
        OK,
        Differs(NO, "regex-nulls"),
    ),
    C("gx", "gx_regex", "has_pattern", ("a", "b", ge(0.4)), {}, OK, SEARCH),
    # expect_column_sum_to_be_between, expect_column_max_to_be_between
    C("gx", "gx_aggregates", "has_sum", ("w", between(30, 30)), {}, OK),
    C("gx", "gx_aggregates", "has_sum", ("w", between(40, 50)), {}, NO),
    C("gx", "gx_aggregates", "has_sum", ("w", between(20, 40)), {}, OK),
    C("gx", "gx_aggregates", "has_sum", ("x", between(30, None)), {}, OK),
    C("gx", "gx_aggregates", "has_sum", ("w", between(50, None)), {}, NO),
    C("gx", "gx_aggregates", "has_sum", ("y", between(None, 20)), {}, NO),
    C("gx", "gx_aggregates", "has_max", ("w", between(4, 6)), {}, OK),
    C("gx", "gx_aggregates", "has_max", ("w", between(None, 4)), {}, NO),
    C("gx", "gx_aggregates", "has_max", ("w", between(0, 5)), {}, OK),
    C("gx", "gx_aggregates", "has_max", ("x", between(3, None)), {}, OK),
    C("gx", "gx_aggregates", "has_max", ("w", between(50, None)), {}, NO),
    C("gx", "gx_empty", "has_max", ("empty_column", between(0, 0)), {}, NO),
]
