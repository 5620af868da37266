from autovalidate.patterns.tokens import Token, identifier_tokens, token_class, tokenize


def kinds(value: str, lexer=tokenize) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in lexer(value)]


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


def identifiers(value: str) -> list[tuple[str, str]]:
    return kinds(value, identifier_tokens)


def test_identifier_runs_take_rfc3986_unreserved_symbols_inside_them():
    assert identifiers("https://www.aarp.org/en-ae/careem_bike~1/") == [
        ("U", "https"),
        ("S", ":"),
        ("S", "/"),
        ("S", "/"),
        ("U", "www.aarp.org"),
        ("S", "/"),
        ("U", "en-ae"),
        ("S", "/"),
        ("U", "careem_bike~1"),
        ("S", "/"),
    ]
    assert identifiers("mary.k@acme.org") == [("U", "mary.k"), ("S", "@"), ("U", "acme.org")]
    # a number's sign and a path's leading dot belong to the run; a space never does
    assert identifiers("-5 .git") == [("U", "-5"), ("S", " "), ("U", ".git")]
    assert token_class("U", "www.aarp.org") == "U"


def test_unreserved_symbols_without_a_letter_or_digit_stay_symbols():
    assert identifiers("a -- b") == [
        ("U", "a"),
        ("S", " "),
        ("S", "-"),
        ("S", "-"),
        ("S", " "),
        ("U", "b"),
    ]
    assert identifiers("...") == [("S", ".")] * 3
    assert identifiers("中文-٣") == [("U", "中文-"), ("S", "٣")]  # a non-ASCII digit is a symbol
    assert identifier_tokens("") == ()


def test_identifier_tokens_concatenate_back_to_the_value():
    for value in ["\\\\host-12\\share\\20170102\\file.html", "a..b//c?d=e&f", " x_y ", "😀a.b"]:
        assert "".join(t.text for t in identifier_tokens(value)) == value
