import random
from dataclasses import replace

import pytest
import regex

from autovalidate.errors import ParameterError
from autovalidate.index.reader import PatternIndex
from autovalidate.index.state import write_local_index
from autovalidate.solver.fmdv import SolverParams, solve

LOOSE = SolverParams(max_fpr=0.2, min_cov=5, theta=0.1, tau=8)


def test_fmdv_generalizes_dates_from_the_corpus(small_index):
    # Fig. 2(a)-like: the training values are all from one month, the pattern is not
    train = ["03/01/2019", "03/02/2019", "03/15/2019", "03/30/2019"]
    s = solve(train, small_index, method="fmdv", params=LOOSE)
    assert s is not None
    assert "03" not in s.pattern and "2019" not in s.pattern
    assert regex.fullmatch(s.regex, "04/01/2020")
    assert not regex.fullmatch(s.regex, "2020-04-01")


def test_fmdv_rejects_a_narrow_pattern_with_corpus_impurity(small_index):
    # two-digit values only, but the corpus has columns mixing 2 and 3 digits
    s = solve(["12", "45", "78", "33"], small_index, method="fmdv", params=LOOSE)
    assert s is None or s.pattern != "<digit>{2}"


def test_paper_fig8_composite_column_needs_vertical_cuts(small_index):
    # Fig. 8: "[0.1|02/18/2015 00:00:00||OnBooking]": 18 tokens here, wider than tau.
    # The paper prices each segment by its FPR_T (generalize=False): this corpus has
    # the words as columns, but no value with words among other tokens, so the
    # position statistics have no evidence for a word inside a record
    train = [
        f"[0.{d}|02/1{d}/2015 0{d}:00:00||{w}]"
        for d, w in zip(range(1, 9), ["OnBooking", "Cancelled", "Closed", "Open"] * 2, strict=True)
    ]
    paper = replace(LOOSE, generalize=False)
    assert solve(train, small_index, method="fmdv", params=paper) is None
    s = solve(train, small_index, method="fmdv-v", params=paper)
    assert s is not None and len(s.segments) > 1
    for v in train:
        assert regex.fullmatch(s.regex, v)
    assert not regex.fullmatch(s.regex, "[0.1|02/18/2015||OnBooking]")


def test_paper_fig9_special_values_need_horizontal_cuts(small_index):
    # §4 Example 1: 99% "<digit>+,<digit>+,<digit>+" and a "-" special value
    train = [f"{i % 97},{(i * 7) % 89},{(i * 3) % 71}" for i in range(99)] + ["-"]
    assert solve(train, small_index, method="fmdv", params=LOOSE) is None
    s = solve(train, small_index, method="fmdv-h", params=LOOSE)
    assert s is not None and s.retained == pytest.approx(0.99)
    assert regex.fullmatch(s.regex, "5,6,7") and not regex.fullmatch(s.regex, "-")
    # theta = 0 tolerates nothing
    strict = SolverParams(max_fpr=0.2, min_cov=5, theta=0.0)
    assert solve(train, small_index, method="fmdv-h", params=strict) is None


def test_optional_segment_from_alignment(small_index):
    train = ["12:30:45", "01:02:03", "10:11"] * 3
    s = solve(train, small_index, method="fmdv-v", params=SolverParams(max_fpr=1.0, min_cov=1))
    if s is not None:  # the corpus may lack evidence for the short form
        for v in train:
            assert regex.fullmatch(s.regex, v)
        assert not regex.fullmatch(s.regex, "")


def test_objectives_differ_on_generality(small_index):
    train = ["ABC", "XYZ", "QRS", "DEF"]
    general = solve(
        train, small_index, method="fmdv", params=SolverParams(objective="fpr", min_cov=5)
    )
    specific = solve(
        train, small_index, method="fmdv", params=SolverParams(objective="coverage", min_cov=5)
    )
    assert general is not None and specific is not None
    g, s = general.segments[0].hypothesis, specific.segments[0].hypothesis
    assert s.cov <= g.cov and g.fpr <= s.fpr
    assert regex.fullmatch(specific.regex, "KLM") and not regex.fullmatch(specific.regex, "KLMN")


def test_no_match_anything_for_natural_language(small_index):
    train = ["the quick brown fox", "jumps", "over the lazy dog", "and runs away quickly"]
    assert solve(train, small_index, method="fmdv-vh", params=LOOSE) is None


def test_parameters_are_checked(small_index):
    with pytest.raises(ParameterError):
        solve(["a"], small_index, method="bogus")
    with pytest.raises(ParameterError):
        solve(["a"], small_index, params=SolverParams(tau=9))  # index was built with tau 8
    with pytest.raises(ParameterError):
        solve(["a"], small_index, params=SolverParams(theta=1.0))
    with pytest.raises(ParameterError):
        solve(["a"], small_index, params=SolverParams(objective="recall"))
    with pytest.raises(ParameterError, match="fpr_slack"):
        solve(["a"], small_index, params=SolverParams(fpr_slack=-0.01))


def test_a_column_of_two_formats_gets_a_bounded_disjunction(small_index):
    import random

    import regex

    rng = random.Random(3)
    dates = [f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/2019" for _ in range(30)]
    times = [f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00" for _ in range(30)]
    train = [v for pair in zip(dates, times, strict=True) for v in pair]
    s = solve(train, small_index, method="fmdv", params=LOOSE)
    assert s is not None and len(s.branches) == 2
    assert s.pattern.startswith("(") and ")|(" in s.pattern
    rx = regex.compile(s.regex)
    assert all(rx.fullmatch(v) for v in train)
    for drifted in ["12-01-2019", "12:01", "1/2/2019", "12:01:00 AM", "12/01/2019 12:01:00"]:
        assert not rx.fullmatch(drifted), drifted
    # the same values with the multi-format search off: no single pattern is feasible
    assert solve(train, small_index, method="fmdv", params=replace(LOOSE, max_branches=1)) is None
    with pytest.raises(ParameterError):
        solve(train, small_index, params=SolverParams(max_branches=4))


def test_a_single_value_is_no_format(small_index):
    dates = [f"{m:02d}/{d:02d}/2019" for m in range(1, 13) for d in (1, 15)]
    assert solve(dates + ["12:30:00"], small_index, method="fmdv", params=LOOSE) is None


def test_values_beyond_max_tokens_count_as_non_conforming(small_index):
    dates = [f"0{m}/1{d}/2019" for m in range(1, 10) for d in range(1, 3)]  # 18 values
    prose = " ".join(["word"] * 40)  # 79 tokens
    params = replace(LOOSE, max_tokens=64)
    s = solve([*dates, prose], small_index, method="fmdv-vh", params=params)
    assert s is not None and s.retained == pytest.approx(18 / 19)
    assert not regex.fullmatch(s.regex, prose)
    # more long values than theta allows: no constraint, not a pattern of the short ones
    longs = [prose, prose + " x", prose + " y"]  # 3 of 21 > theta
    assert solve([*dates, *longs], small_index, method="fmdv-vh", params=params) is None
    # within max_tokens, the same long value is the solver's to place
    wide = replace(LOOSE, max_tokens=100)
    assert solve([*dates, prose], small_index, method="fmdv-vh", params=wide) is not None
    with pytest.raises(ParameterError, match="max_tokens"):
        solve(dates, small_index, params=replace(LOOSE, max_tokens=4))


def _dates(rng, years, rows: int) -> list[str]:
    return [
        f"{rng.choice(years)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        for _ in range(rows)
    ]


@pytest.fixture(scope="module")
def years_index(tmp_path_factory):
    rng = random.Random(5)
    # time-ordered date columns over four years (a one-year first tenth, later years
    # after it), columns of one year, and two of that year and the year before
    columns = [
        sorted(_dates(rng, range(y, y + 4), 200)) for y in range(2005, 2021) for _ in range(2)
    ]
    columns += [_dates(rng, [2024], 200) for _ in range(8)]
    columns += [_dates(rng, [2024, 2023], 200) for _ in range(2)]
    out = tmp_path_factory.mktemp("years") / "index"
    write_local_index(columns, out, budget=200_000)
    with PatternIndex.open(out) as index:
        yield index


def test_a_segment_keeps_no_constant_far_above_the_least_fpr_of_its_generalizations(years_index):
    # the year constant 2024 is feasible (FPR_T about 0.11 < r) and the most specific
    # pattern, but <digit>{4} holds at FPR_T 0: within the slack, the cut keeps the width
    stats = years_index.lookup(["2024-<digit>{2}-<digit>{2}", "<digit>{4}-<digit>{2}-<digit>{2}"])
    constant = years_index.prior.estimate(stats["2024-<digit>{2}-<digit>{2}"])
    width = years_index.prior.estimate(stats["<digit>{4}-<digit>{2}-<digit>{2}"])
    assert constant <= SolverParams().max_fpr and constant > width + SolverParams().fpr_slack
    train = sorted(_dates(random.Random(7), [2024], 60))
    s = solve(train, years_index, method="fmdv-vh")
    assert s is not None
    assert "2024" not in s.pattern
    assert regex.fullmatch(s.regex, "2023-12-31")  # the next batch of a time-ordered column
    assert not regex.fullmatch(s.regex, "2023-12-3")
