"""DataType, patterns and lengths on DuckDB."""

from __future__ import annotations

import pyarrow as pa
import pytest

from autovalidate.metrics import DataType, MaxLength, MinLength, PatternConformance, PatternMatch
from autovalidate.metrics.strings import DataTypeHistogram
from tests.deequ_support import arrow, run, states, value


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("42", "Integral"),
        ("-7", "Integral"),
        ("+ 7", "Integral"),
        ("007", "Integral"),
        ("1.5", "Fractional"),
        ("-0.25", "Fractional"),
        ("1e5", "Fractional"),
        ("2.5E-3", "Fractional"),
        ("true", "Boolean"),
        ("false", "Boolean"),
        ("True", "String"),
        ("1.", "String"),
        (".5", "String"),
        ("", "String"),
        ("12 oz", "String"),
        ("1,000", "String"),
        ("٣", "String"),  # a non-ASCII digit is not a digit in Java or RE2
    ],
)
def test_data_type_classifies_text_like_deequ(text, kind):
    dist = value(arrow({"v": [text]}), DataType("v"))
    assert dist.absolute(kind) == 1
    assert sum(v.absolute for v in dist.values.values()) == 1


def test_data_type_counts_nulls_as_unknown_and_leaves_filtered_rows_out():
    data = arrow({"v": ["1", None, "x", "2.0", None], "keep": [1, 1, 1, 1, 0]})
    dist = value(data, DataType("v"))
    assert {k: v.absolute for k, v in dist.values.items()} == {
        "Unknown": 2,
        "Fractional": 1,
        "Integral": 1,
        "Boolean": 0,
        "String": 1,
    }
    assert dist.ratio("Unknown") == pytest.approx(0.4)
    assert value(data, DataType("v", where="keep = 1")).absolute("Unknown") == 1


def test_data_type_of_typed_columns_reads_their_text():
    data = arrow({"i": [1, 2], "f": [1.5, 2.0], "b": [True, False]})
    assert value(data, DataType("i")).absolute("Integral") == 2
    assert value(data, DataType("f")).absolute("Fractional") == 2
    assert value(data, DataType("b")).absolute("Boolean") == 2


def test_data_type_state_merges_by_addition():
    a, b = DataTypeHistogram(1, 2, 3, 4, 5), DataTypeHistogram(10, 20, 30, 40, 50)
    assert a.merge(b) == DataTypeHistogram(11, 22, 33, 44, 55)
    assert DataTypeHistogram.from_dict(a.to_dict()) == a


def test_pattern_match_is_a_full_match_over_all_rows():
    data = arrow({"zip": ["12345", "1234", "123456", "abcde", None]})
    # only "12345" matches in full; "123456" contains a match but is not one; the null counts as no
    assert value(data, PatternMatch("zip", r"[0-9]{5}")) == pytest.approx(1 / 5)
    assert value(data, PatternMatch("zip", r"[0-9]{4,6}")) == pytest.approx(3 / 5)


def test_pattern_match_has_no_implicit_multiline_anchors():
    data = arrow({"s": ["ab\n", "ab"]})
    assert value(data, PatternMatch("s", "ab")) == 0.5


def test_pattern_conformance_counts_non_null_values_only():
    data = arrow({"zip": ["12345", "1234", None, "54321", None]})
    assert value(data, PatternConformance("zip", r"[0-9]{5}")) == {
        "num_matching": 2.0,
        "num_values": 3.0,
    }
    all_null = arrow({"zip": [None, None]}, {"zip": pa.string()})
    context, found = states(all_null, [PatternConformance("zip", "x")])
    assert found[PatternConformance("zip", "x")] is not None  # zero counts, not the empty state
    assert context.metric(PatternConformance("zip", "x")).value == {
        "num_matching": 0.0,
        "num_values": 0.0,
    }


def test_lengths_count_code_points():
    data = arrow({"s": ["a", "hé", "👨‍👩‍👧", None]})
    assert value(data, MinLength("s")) == 1.0
    assert value(data, MaxLength("s")) == 5.0  # five code points, one grapheme
    assert value(data, MaxLength("s", where="s <> '👨‍👩‍👧'")) == 2.0
    assert (
        run(data, [MinLength("s", where="s IS NULL")])
        .metric(MinLength("s", where="s IS NULL"))
        .error
    )
