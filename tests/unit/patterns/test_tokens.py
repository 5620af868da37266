from autovalidate.patterns.tokens import Token, tokenize


def kinds(value: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(value)]


def test_paper_fig2_timestamp_tokens():
    assert kinds("9/12/2019 12:01:32 PM") == [
        ("D", "9"),
        ("S", "/"),
        ("D", "12"),
        ("S", "/"),
        ("D", "2019"),
        ("S", " "),
        ("D", "12"),
        ("S", ":"),
        ("D", "01"),
        ("S", ":"),
        ("D", "32"),
        ("S", " "),
        ("L", "PM"),
    ]


def test_decimal_is_one_number_token_but_dotted_chains_are_not():
    assert kinds("0.1") == [("N", "0.1")]
    assert kinds("1.2.3") == [("D", "1"), ("S", "."), ("D", "2"), ("S", "."), ("D", "3")]
    assert kinds("a.1.2")[0] == ("L", "a")
    assert [k for k, _ in kinds("12.5.a")] == ["D", "S", "D", "S", "L"]


def test_sign_attaches_only_at_start_or_after_a_symbol():
    assert kinds("-12.5") == [("N", "-12.5")]
    assert kinds("x -5") == [("L", "x"), ("S", " "), ("N", "-5")]
    assert kinds("2019-03-01") == [("D", "2019"), ("S", "-"), ("D", "03"), ("S", "-"), ("D", "01")]
    assert kinds("a-12") == [("L", "a"), ("S", "-"), ("D", "12")]
    assert kinds("1.-5")[-1] == ("D", "5")  # after '.', a dash is a symbol


def test_alphanumeric_runs_align_across_hex_ids_and_guids():
    a = tokenize("3f2504e0-4f89-11d3-9a0c-0305e82c3301")
    b = tokenize("12345678-aaaa-1234-ffff-000000000000")
    assert len(a) == len(b) == 9
    assert [t.kind for t in a[::2]] == ["M"] * 5
    assert b[2] == Token("L", "aaaa")


def test_unicode_letters_and_non_ascii_digits():
    assert kinds("é1a 😀") == [("M", "é1a"), ("S", " "), ("S", "😀")]
    assert kinds("中文") == [("L", "中文")]
    assert kinds("٣") == [("S", "٣")]  # Arabic-Indic digit: not an ASCII digit, not a letter


def test_empty_value_has_no_tokens():
    assert tokenize("") == ()
