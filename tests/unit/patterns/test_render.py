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


@pytest.mark.parametrize("bad", ["<digit>", "<bogus>+", "<digit>{0}", "abc\\", "<digit"])
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
