"""AV-bench format drift: each mutation kind on hand examples, the shape filter, the scoring."""

from __future__ import annotations

import math
import random

import pytest

from benchmarks.avbench import drift
from benchmarks.avbench.protocol import Case, Rule, full_match_verdicts


def _rng() -> random.Random:
    return random.Random(0)


def test_shape_keeps_case_digits_and_symbols():
    assert drift.shape("Ab-09_z ") == "Aa-99_a "
    assert drift.shape("") == ""


def test_separator_swap_replaces_every_occurrence_of_one_separator():
    out = drift.separator_swap("0_18877_4_0", _rng())
    assert out is not None and "_" not in out and len(out) == len("0_18877_4_0")
    assert out.replace(out[1], "_") == "0_18877_4_0"
    assert drift.separator_swap("abc123", _rng()) is None


def test_lost_padding_strips_leading_zeros_of_one_run():
    assert drift.lost_padding("007", _rng()) == "7"
    assert drift.lost_padding("2021-03-04", _rng()) in {"2021-3-04", "2021-03-4"}
    assert drift.lost_padding("00", _rng()) == "0"
    assert drift.lost_padding("1203", _rng()) is None


def test_case_swap():
    assert drift.case_swap("a3f9", _rng()) == "A3F9"
    assert drift.case_swap("Berlin", _rng()) == "bERLIN"
    assert drift.case_swap("123-45", _rng()) is None


def test_truncation_keeps_the_first_half():
    assert drift.truncation("ABCDEF", _rng()) == "ABC"
    assert drift.truncation("12345", _rng()) == "12"
    assert drift.truncation("x", _rng()) is None


def test_whitespace_adds_one_leading_or_trailing_space():
    outs = {drift.whitespace("abc", random.Random(seed)) for seed in range(20)}
    assert outs == {" abc", "abc "}


def test_digit_to_letter_uses_a_look_alike():
    assert drift.digit_to_letter("0", _rng()) == "O"
    out = drift.digit_to_letter("a15", _rng())
    assert out in {"al5", "a1S"}
    assert drift.digit_to_letter("abc", _rng()) is None


def test_decimal_comma_only_between_digits():
    assert drift.decimal_comma("3.14", _rng()) == "3,14"
    assert drift.decimal_comma("1.5 and 2.25", _rng()) == "1,5 and 2,25"
    assert drift.decimal_comma("www.example.com", _rng()) is None
    assert drift.decimal_comma("v1.", _rng()) is None


def test_quoted_wraps_in_one_kind_of_quote():
    out = drift.quoted("abc", _rng())
    assert out in {'"abc"', "'abc'"}


def test_field_dropped_and_repeated():
    assert drift.field_dropped("a-b-c", _rng()) in {"b-c", "a-c", "a-b"}
    assert drift.field_repeated("a-b-c", _rng()) in {"a-a-b-c", "a-b-b-c", "a-b-c-c"}
    assert drift.field_dropped("abc", _rng()) is None
    assert drift.field_repeated("abc", _rng()) is None


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2021-03-04", "04-03-2021"),
        ("2021/12/31 10:00:00", "31/12/2021 10:00:00"),
        ("31/12/2021", "2021/12/31"),
        ("12.31.2021", "2021.31.12"),
        ("at 2021-3-4T00:00", "at 4-3-2021T00:00"),
    ],
)
def test_date_order_reorders_common_forms(value, expected):
    assert drift.date_order(value, _rng()) == expected


@pytest.mark.parametrize("value", ["2021-13-40", "12345-01-02", "1-2-3", "v2021.1.1.0"])
def test_date_order_needs_a_plausible_date(value):
    assert drift.date_order(value, _rng()) is None


def test_every_kind_is_named_and_returns_a_string_or_none():
    assert len(drift.KINDS) >= 11
    for name, mutate in drift.KINDS.items():
        assert mutate.__name__ == name
        for value in ("", "x", "2021-03-04", "AB-007_x.5"):
            out = mutate(value, _rng())
            assert out is None or isinstance(out, str)


def test_mutations_are_deterministic_and_drop_shapes_the_column_has():
    column = ["AB-001", "AB-002", "ab-003", "AB-010"] * 10
    first = drift.mutations(3, column[4:], column)
    assert first == drift.mutations(3, column[4:], column)
    assert first["case_swap"] == []  # ab-003's shape is in the column
    assert all(drift.shape(v) not in {"AA-999", "aa-999"} for vs in first.values() for v in vs)
    assert first["lost_padding"] and first["quoted"]
    assert len(drift.sample(3, column)) == drift.SAMPLE_SIZE


def test_drift_recall_squashes_abstentions_and_own_test_failures():
    values = tuple(f"AB-{k:03d}" for k in range(1, 41))
    case = Case(0, "s", "t", 0, "c", values, 4)
    strict = Rule("regex", "AB-ddd", regex=r"AB-[0-9]{3}")
    loose = Rule("regex", "any", regex=r".*", match_anything=True)
    report, per_case = drift.drift_recall(
        [case],
        {"strict": [strict], "loose": [loose], "none": [None], "failed": [strict]},
        {"strict": [1], "loose": [1], "none": [1], "failed": [0]},
    )
    s = report["methods"]["strict"]["all"]
    assert s["kinds"]["case_swap"] == 1.0 and s["kinds"]["quoted"] == 1.0
    assert 0.0 < s["total"] <= 1.0
    assert report["methods"]["loose"]["all"]["total"] == 0.0
    assert report["methods"]["none"]["all"]["total"] == 0.0
    assert report["methods"]["none"]["with_rule"]["cases"] == 0
    assert math.isnan(report["methods"]["none"]["with_rule"]["total"])
    assert report["methods"]["failed"]["with_rule"]["total"] == 0.0
    assert math.isnan(report["methods"]["strict"]["all"]["kinds"]["decimal_comma"])
    assert per_case["strict"][0] == s["total"]


def test_full_match_verdicts_in_every_dialect():
    re2 = Rule("regex", "d", regex=r"[0-9]+")
    py = Rule("regex", "d", regex=r"(?>[0-9]+)", dialect="python")
    words = Rule("dictionary", "w", values=frozenset({"a"}))
    ok = full_match_verdicts([(re2, "12"), (re2, "1a"), (py, "3"), (words, "a"), (words, "b")])
    assert ok[(re2.key(), "12")] and not ok[(re2.key(), "1a")]
    assert ok[(py.key(), "3")]
    assert ok[(words.key(), "a")] and not ok[(words.key(), "b")]


def test_real_errors_learn_on_the_first_tenth_and_count_error_cells(tmp_path):
    from benchmarks.avbench import real_errors

    table = tmp_path / "t"
    table.mkdir()
    codes = [f"A{k:02d}" for k in range(20)]
    dirty = list(codes)
    dirty[5], dirty[6], dirty[7] = "a05", "", "A07 "  # case, missing, whitespace
    (table / "clean.csv").write_text("code,empty\n" + "".join(f"{c},\n" for c in codes))
    (table / "dirty.csv").write_text("Code,Empty\n" + "".join(f"{d},\n" for d in dirty))
    columns = real_errors.load_columns(tmp_path, ["t"])
    assert [c.name for c in columns] == ["code", "empty"] and columns[1].case is None
    case = columns[0].case
    assert case is not None and case.train == ["A00", "A01"] and len(case.test) == 18
    assert columns[0].errors == ("a05", None, "A07 ")
    strict = Rule("regex", "Ad", regex=r"A[0-9]{2}")
    report = real_errors.evaluate(columns, {"strict": [strict], "none": [None]})
    assert report["error_cells"] == 3 and report["empty_error_cells"] == 1
    s = report["methods"]["strict"]
    assert (s["columns_with_rule"], s["false_alarms"], s["dirty_batches_failed"]) == (1, 0, 1)
    assert s["error_cells_flagged"] == 2 and s["error_cells_flagged_fraction"] == 2 / 3
    assert s["error_cells_flagged_fraction_of_nonempty"] == 1.0
    assert report["methods"]["none"]["error_cells_flagged"] == 0
