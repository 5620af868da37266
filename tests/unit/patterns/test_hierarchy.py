import random
import uuid

import regex
from hypothesis import given
from hypothesis import strategies as st

from autovalidate.patterns.hierarchy import (
    escape_literal,
    generalizations,
    options,
    representative,
    representatives,
)
from autovalidate.patterns.render import pattern_regex
from autovalidate.patterns.tokens import Token, tokenize


def patterns_of(value: str) -> set[str]:
    import itertools

    return {"".join(p) for p in itertools.product(*(options(t) for t in tokenize(value)))}


def test_paper_fig5_patterns_of_9_07():
    # §2.1: P("9:07") contains these (the paper's <digit> is our <digit>{1})
    p = patterns_of("9:07")
    for expected in [
        "<digit>{1}:<digit>{2}",
        "<digit>+:<digit>{2}",
        "<digit>{1}:<digit>+",
        "<num>:<digit>+",
        "9:<digit>{2}",
    ]:
        assert expected in p
    assert "<all>" not in p and ".*" not in p


def test_paper_fig5_seven_generalizations_of_a_digit():
    # Const("9"), <digit>{1}, <digit>+, <num>, <alphanum>{1}, <alphanum>+ (and <all> excluded),
    # plus version 2's hexadecimal digit of either case
    assert set(options(Token("D", "9"))) - {"<hex-lower>{1}", "<hex-upper>{1}"} == {
        "9",
        "<digit>{1}",
        "<digit>+",
        "<num>",
        "<alphanum>{1}",
        "<alphanum>+",
    }


def test_case_classes_for_upper_and_lower_only():
    assert "<upper>{2}" in options(Token("L", "PM"))
    assert "<lower>{2}" in options(Token("L", "pm"))
    mixed = options(Token("L", "pM"))
    assert not any("upper" in o or "lower" in o for o in mixed)
    # a title-case word keeps its case: Berlin is not bERLIN
    title = generalizations(Token("L", "Berlin"))
    assert title.parents["Berlin"] == ("<upper>{1}<lower>{5}",)
    assert set(title.parents["<upper>{1}<lower>{5}"]) == {"<upper>{1}<lower>+", "<letter>{6}"}
    rx = pattern_regex("<upper>{1}<lower>+")
    assert regex.fullmatch(rx, "Yes") and not regex.fullmatch(rx, "yES")


def test_arrows_go_up_in_level_and_options_match_their_token():
    for value in [
        "2019",
        "PM",
        "Mar",
        "4f89",
        "BEEF",
        "A1b",
        "Grp2",
        "-12.50",
        "/",
        "中文",
        "a<b{c+",
    ]:
        for tok in tokenize(value):
            g = generalizations(tok)
            for o in g.options:
                assert regex.fullmatch(pattern_regex(o), tok.text), (tok, o)
                for parent in g.parents[o]:
                    assert g.level[parent] < g.level[o]


def test_a_symbol_is_only_its_own_literal():
    # hierarchy v2: no <symbol> class, so a separator swap never conforms
    assert options(Token("S", "_")) == ("_",)
    assert "<symbol>" not in patterns_of("0_18877_4_0")
    rx = [pattern_regex(p) for p in patterns_of("0_18")]
    assert rx and not any(regex.fullmatch(r, "0-18") for r in rx)


def test_hex_classes_keep_case_and_length():
    guid_group = options(Token("M", "3f2504e0"))
    assert "<hex-lower>{8}" in guid_group and "<hex-upper>{8}" not in guid_group
    # a group of digits only is hexadecimal of either case
    assert {"<hex-lower>{4}", "<hex-upper>{4}"} <= set(options(Token("D", "1234")))
    assert "<hex-upper>{4}" in options(Token("L", "BEEF"))
    assert not any("hex" in o for o in options(Token("M", "3g25")))
    assert not any("hex" in o for o in options(Token("M", "3Fa5")))
    rx = pattern_regex("<hex-lower>{8}")
    assert regex.fullmatch(rx, "0123abcd")
    assert not regex.fullmatch(rx, "0123ABCD") and not regex.fullmatch(rx, "0123abc")


def test_mixed_runs_split_letters_into_runs_of_one_case():
    assert "<upper>{1}<lower>{2}<digit>{1}" in options(Token("M", "Grp2"))


def test_mixed_runs_keep_the_case_of_their_letter_runs():
    opts = options(Token("M", "AB12cd"))
    assert "<upper>{2}<digit>{2}<lower>{2}" in opts and "<upper>+<digit>+<lower>+" in opts
    g = generalizations(Token("M", "AB12cd"))
    assert g.parents["<upper>{2}<digit>{2}<lower>{2}"] == (
        "<letter>{2}<digit>{2}<letter>{2}",
        "<upper>+<digit>+<lower>+",
    )


def test_parent_is_a_superset_on_sample_strings():
    samples = ["12", "2019", "ab", "AB", "Ab", "a1", "1a2", "-3", "1.5", "x", "-", "é", "ÉÉ"]
    samples += ["1f", "1F", "fe", "FE", "a1B", "A1b", "ff12", "Abc", "aBC", "Grp2", "gRP2"]
    for value in [
        "12",
        "AB",
        "ab",
        "a1",
        "1.5",
        "-",
        "fe",
        "FE",
        "1f",
        "A1b",
        "ff12",
        "Abc",
        "Grp2",
    ]:
        g = generalizations(tokenize(value)[0])
        for o in g.options:
            child = regex.compile(pattern_regex(o))
            for parent in g.parents[o]:
                par = regex.compile(pattern_regex(parent))
                for s in samples:
                    if child.fullmatch(s):
                        assert par.fullmatch(s), (o, parent, s)


def test_escaping_keeps_literals_apart_from_classes():
    assert escape_literal("<digit>{2}+\\") == "\\<digit>\\{2}\\+\\\\"
    rx = pattern_regex(escape_literal("<num>"))
    assert regex.fullmatch(rx, "<num>") and not regex.fullmatch(rx, "12")


def _without_constant(token: Token):
    g = generalizations(token)
    const = escape_literal(token.text)
    return (
        set(g.options) - {const},
        {o: ps for o, ps in g.parents.items() if o != const},
        {o: lv for o, lv in g.level.items() if o != const},
    )


TOKEN_TEXT = st.text(alphabet="0123456789abcdefgxyzABCDEFGXYZéÉß-+._:/ ", min_size=1, max_size=12)


@given(TOKEN_TEXT)
def test_a_representative_has_the_same_options_but_the_constant(text):
    for token in tokenize(text):
        rep = representative(token)
        assert rep.kind == token.kind and len(rep.text) == len(token.text)
        assert _without_constant(rep) == _without_constant(token)


def test_representatives_are_few_for_many_ids():
    rng = random.Random(1)
    parts = {
        str(uuid.UUID(int=rng.getrandbits(128))).split("-")[1] for _ in range(5000)
    }  # 4 hex characters
    assert len(parts) > 3000
    tokens = [t for p in parts for t in tokenize(p)]
    assert representatives(tokens) == {representative(t) for t in tokens}
    assert len(representatives(tokens)) <= 2**4 + 1


@given(st.lists(st.text("0189abefgzABEFGZ", min_size=4, max_size=4), min_size=2, max_size=2))
def test_an_option_two_tokens_share_has_the_same_parents_and_level_in_both(texts):
    # the solver intersects the hierarchies of a position's tokens (search._slot)
    a, b = (generalizations(t) for text in texts for t in tokenize(text))
    for o in set(a.parents) & set(b.parents):
        assert (a.parents[o], a.level[o]) == (b.parents[o], b.level[o]), o
