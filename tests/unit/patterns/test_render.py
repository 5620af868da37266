import pytest
import regex

from autovalidate.errors import ParameterError
from autovalidate.patterns.render import parse_pattern, pattern_regex, render_body


def test_rendering_is_anchored_full_match():
    rx = pattern_regex("<digit>{2}")
    assert rx == r"\A(?:[0-9]{2})\z"
    assert regex.fullmatch(rx, "12")
    assert not regex.search(rx, "12\n")  # \z, unlike $, refuses a trailing newline
    assert not regex.search(rx, "123")


def test_literals_are_escaped_portably():
    assert render_body("a.b") == r"a\.b"
    assert render_body("x y") == "x y"
    assert render_body("\t") == r"\x09"
    assert render_body("é") == "é"


def test_optional_segments():
    rx = pattern_regex([("<digit>{2}:<digit>{2}", False), (":<digit>{2}", True)])
    assert regex.fullmatch(rx, "12:30") and regex.fullmatch(rx, "12:30:45")
    assert not regex.fullmatch(rx, "12:30:")


@pytest.mark.parametrize(
    "bad", ["<digit>", "<bogus>+", "<digit>{0}", "abc\\", "<digit", "<digit>{1,}", "<digit>{,3}"]
)
def test_malformed_patterns_are_refused(bad):
    with pytest.raises(ParameterError):
        parse_pattern(bad)


def test_patterns_read_as_words():
    from autovalidate.patterns.render import describe_pattern

    assert describe_pattern("<digit>{5}") == "5 digits"
    assert describe_pattern("<digit>{5}-<digit>{4}") == "5 digits '-' 4 digits"
    assert describe_pattern("<hex-lower>{8}") == "8 lowercase hex digits"
    assert describe_pattern("ID<digit>+") == "'ID' 1+ digits"
    assert describe_pattern([("<upper>{2}", False), ("-<digit>{1}", True)]) == (
        "2 uppercase letters ['-' 1 digit]"
    )


def test_a_lower_bound_reads_renders_and_reads_as_words():
    from autovalidate.patterns.render import Element, describe_pattern

    assert parse_pattern("<digit>{3,}-") == [
        Element("class", "digit", "3,"),
        Element("literal", "-"),
    ]
    rx = pattern_regex("<upper>{1}<lower>{3,}")
    assert rx == r"\A(?:\p{Lu}\p{Ll}{3,})\z"
    assert regex.fullmatch(rx, "Rome") and regex.fullmatch(rx, "Berlin")
    assert not regex.fullmatch(rx, "Ber")
    assert describe_pattern("<digit>{3,}") == "3+ digits"


def test_run_lengths_split_a_value_by_the_pattern_runs():
    from autovalidate.patterns.render import run_lengths

    assert run_lengths("<upper>+-<digit>+", "ORD-00471") == (3, 5)
    assert run_lengths("<digit>{4}-<digit>+", "2021-7") == (1,)
    assert run_lengths("<digit>{4}", "2021") == ()
    with pytest.raises(ParameterError):
        run_lengths("<digit>+", "12a")
