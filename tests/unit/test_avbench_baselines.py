"""AV-bench baselines and counting: the rules their sources state, on small hand-made columns."""

from __future__ import annotations

import pytest
import regex

from benchmarks.avbench.methods.deequ import DeequCategorical, DeequFractional, deequ_type
from benchmarks.avbench.methods.grok import GrokMethod, grok_library
from benchmarks.avbench.methods.pwheel import PWheelMethod
from benchmarks.avbench.methods.tfdv import MAX_STRING_DOMAIN_SIZE, infer_string_domain
from benchmarks.avbench.protocol import Case, Rule, RuleCounter, score


def test_deequ_type_follows_determine_type():
    assert deequ_type(["1", "-2", "+ 3"]) == "Integral"
    assert deequ_type(["1", "2.5"]) == "Fractional"
    assert deequ_type(["true", "1"]) == "String"
    assert deequ_type(["true", "false"]) == "Boolean"


def test_deequ_categorical_applies_up_to_a_tenth_of_singleton_entries():
    repeated = [f"v{k}" for k in range(9) for _ in range(5)]
    rule = DeequCategorical().fit(repeated + ["once"])  # 1 singleton of 10 entries
    assert rule is not None and rule.values == frozenset({*(f"v{k}" for k in range(9)), "once"})
    assert rule.decision == "strict"
    assert DeequCategorical().fit(repeated + ["once", "twice"]) is None  # 2 of 11 > 0.1


def test_deequ_categorical_needs_a_histogram():
    many = [f"id{k}" for k in range(121) for _ in range(2)]  # > 120 distinct: no histogram
    assert DeequCategorical().fit(many) is None
    assert DeequCategorical().fit(["1.5", "2.5"] * 10) is None  # Fractional: rules ignore it


def test_deequ_fractional_top_categories_and_wald_bound():
    train = ["a"] * 50 + ["b"] * 40 + ["c"] * 5 + ["d"] * 5
    rule = DeequFractional().fit(train)
    assert rule is not None and rule.values == frozenset({"a", "b"})
    # p = 0.9, n = 100: 0.9 - 1.96 * sqrt(0.09 / 100) = 0.8412, truncated to 0.84
    assert rule.decision == "min_fraction" and rule.min_fraction == 0.84
    assert DeequFractional().fit(["a"] * 50 + ["b"] * 50) is None  # top categories cover all


def test_tfdv_string_domain_limit():
    assert infer_string_domain([str(k) for k in range(MAX_STRING_DOMAIN_SIZE)]) is not None
    assert infer_string_domain([str(k) for k in range(MAX_STRING_DOMAIN_SIZE + 1)]) is None


def test_pwheel_structure_matches_a_regular_column():
    train = [f"2019-{m:02d}-{d:02d}" for m in range(1, 13) for d in (3, 17)]
    rule = PWheelMethod().fit(train)
    assert not rule.match_anything
    rx = regex.compile(rule.regex)
    assert all(rx.fullmatch(v) for v in train)
    assert rx.fullmatch("hello") is None


def test_pwheel_leaves_a_rare_outlier_unmatched():
    train = [f"2019-{m:02d}-{d:02d}" for m in range(1, 13) for d in (3, 17)] + ["unknown"]
    rx = regex.compile(PWheelMethod().fit(train).regex)
    assert rx.fullmatch("2019-05-03") and rx.fullmatch("unknown") is None  # a discrepancy


@pytest.fixture(scope="module")
def grok(lake_mini):
    return GrokMethod(grok_library(lake_mini))


def test_grok_most_specific_pattern_wins(grok):
    rule = grok.fit(["10.0.0.1", "192.168.1.20", "8.8.8.8"])
    assert rule.description == "%{IPV4}" and rule.dialect == "python"
    assert grok.fit(["hello world", "two words"]).description in ("%{DATA}", "%{GREEDYDATA}")
    assert grok.fit(["hello world", "two words"]).match_anything


def test_counting_re2_and_python_paths_agree():
    cases = [
        Case(
            0, "s", "t:0", 0, "a", ("A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8", "I9", "J0"), 1
        ),
        Case(1, "s", "t:1", 0, "b", ("x", "y", "A1", "zz", "B2", "q", "w", "e", "r", "t"), 1),
    ]
    rx = r"\A(?:[A-Z][0-9])\z"
    rules = [Rule("regex", "re2", regex=rx), Rule("regex", "py", regex=rx, dialect="python")]
    counter = RuleCounter(cases)
    counts = counter.count(rules)
    re2, py = counts[rules[0].key()], counts[rules[1].key()]
    assert re2 == py
    assert re2.bad_full == [0, 8] and re2.bad_test == [0, 7] and re2.n_test == [9, 9]
    scores = score(cases, [rules[0], None], counts)
    assert (scores[0].precision, scores[0].recall) == (1, 1.0)  # fails column 1: recall 1/1
    assert (scores[1].precision, scores[1].recall) == (1, 0.0)  # abstention
    counter.close()
