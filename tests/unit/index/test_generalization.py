"""The generalization statistics: how formats held from a column's first tenth to its rest."""

from __future__ import annotations

import random

import pytest

from autovalidate.index.generalization import (
    FAIL_SHARE,
    PRIOR_COLUMNS,
    GeneralizationStats,
    PositionKey,
    ShapeKey,
    SignatureKey,
    diversity_stratum,
    encode_signature,
    option_class,
)


def test_option_classes_and_strata():
    assert option_class("00", constant=True) == ("constant", 0)
    assert option_class("<digit>{2}") == ("<digit>{k}", 2)
    assert option_class("<digit>{4}") == ("<digit>{k}", 3)
    assert option_class("<hex-lower>{12}") == ("<hex-lower>{k}", 9)
    assert option_class("<digit>+") == ("<digit>+", 0)
    assert option_class("<num>") == ("<num>", 0)
    assert option_class("<upper>{1}<lower>{5}") == ("title{k}", 5)
    assert option_class("<upper>{1}<lower>+") == ("title+", 0)
    assert option_class("<digit>{1}<lower>{1}<digit>{2}") == ("shape{k}", 3)
    assert option_class("<digit>+<letter>+") == ("shape+", 0)
    assert option_class("-<digit>{2}.<digit>{2}") == ("signed{k}", 3)
    assert [diversity_stratum(d) for d in (1, 2, 3, 4, 10, 11, 500)] == [0, 1, 1, 2, 2, 3, 3]


def _hourly(start_hour: int, hours: int) -> list[str]:
    """A time-ordered log: one value per hour, minutes and seconds always 00."""
    return [f"2017-12-01 {h % 24:02d}:00:00" for h in range(start_hour, start_hour + hours)]


def test_a_constant_position_that_changes_later_fails_and_its_width_holds():
    stats = GeneralizationStats()
    # the first tenth shows one minute text, "00"; later minutes are 15, 30, 45
    values = ["2017-12-01 07:00:00"] * 10 + [f"2017-12-01 07:{m:02d}:00" for m in (15, 30, 45)] * 30
    stats.add_column(values)
    constant = PositionKey("D", "constant", 0, 0)
    width = PositionKey("D", "<digit>{k}", 2, 0)
    # the minutes position (one text) broke its constant in 100% of the later values
    # the year, month, day, hour and seconds positions (one text each) kept theirs
    n, share, failed = stats.positions[constant]
    assert n == 6 and failed == 1 and share == pytest.approx(1.0)
    # every two-digit position kept its width
    n, share, failed = stats.positions[width]
    assert n == 5 and share == 0 and failed == 0
    # all later values have the training tenth's signature
    ((key, (n, share, failed)),) = stats.shapes.items()
    assert key == ShapeKey(0, 0, True) and share == 0


def test_a_fixed_width_that_grows_later_fails_in_its_stratum():
    stats = GeneralizationStats()
    # sorted ids: one-digit first octets in the first tenth, two and three digits later
    values = [f"{a}.{b}.0.0" for a in range(1, 10) for b in range(2)]
    values += [f"{a}.{b}.0.0" for a in range(10, 250, 3) for b in range(2)]
    stats.add_column(values)
    # the first tenth (18 values) shows the first octets 1 to 9: stratum 4-10
    first = PositionKey("D", "<digit>{k}", 1, diversity_stratum(9))
    assert first in stats.positions
    _, share, failed = stats.positions[first]
    assert share > FAIL_SHARE and failed >= 1
    assert stats.positions[PositionKey("D", "<digit>+", 0, first.stratum)][2] == 0


def test_new_shapes_later_count_against_the_training_shapes():
    stats = GeneralizationStats()
    values = ["ORD-2021-000001"] * 20 + ["ORD-2021-000002 (void)"] * 100 + ["ORD-2021-000003"] * 80
    stats.add_column(values)
    ((key, (n, share, failed)),) = stats.shapes.items()
    assert key.stratum == 0 and not key.spaced and key.signatures == 0
    assert share == pytest.approx(100 / 180) and failed == 1


def test_columns_too_short_or_of_one_token_say_nothing():
    stats = GeneralizationStats()
    stats.add_column(["1:2"] * 9)
    stats.add_column(["Berlin", "Paris"] * 50)  # one-token values: FPR_T's business
    stats.add_column([None, "NA", "", "-"] * 30)
    assert not stats.positions and not stats.shapes


def _corpus(seed: int, n: int) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        fmt = rng.choice(["{a:02d}:{b:02d}", "{a}-{b}", "X{a}/{b:03d}", "{a}.{b} {w}"])
        word = rng.choice(["kg", "m", "Box"])
        out.append(
            [fmt.format(a=rng.randint(0, 99), b=rng.randint(0, 999), w=word) for _ in range(40)]
        )
    return out


def test_statistics_add_up_across_parts_of_a_corpus_and_survive_their_rows():
    corpus = _corpus(3, 60)
    whole, left, right = GeneralizationStats(), GeneralizationStats(), GeneralizationStats()
    for i, col in enumerate(corpus):
        whole.add_column(col)
        (left if i % 2 else right).add_column(col)
    merged = left.merge(right)
    assert merged.positions.keys() == whole.positions.keys()
    for key, sums in whole.positions.items():
        assert merged.positions[key] == pytest.approx(sums)
    assert merged.signature_shapes.keys() == whole.signature_shapes.keys()
    # the signature statistics split the shape statistics' columns by signature
    assert sum(n for n, _, _ in whole.signature_shapes.values()) == sum(
        n for n, _, _ in whole.shapes.values()
    )
    assert GeneralizationStats.from_rows(whole.rows()) == whole


def test_position_risk_pools_a_thin_key_with_its_class():
    stats = GeneralizationStats()
    # the class <digit>{k} of kind D: 98 positions that held, 2 (width 1) that failed
    stats.positions[PositionKey("D", "<digit>{k}", 2, 3)] = [98, 0.0, 0]
    stats.positions[PositionKey("D", "<digit>{k}", 1, 0)] = [2, 0.4, 2]
    rate = 2 / 100
    assert stats.position_risk("D", "<digit>{2}", False, 50) == pytest.approx(
        (0 + PRIOR_COLUMNS * rate) / (98 + PRIOR_COLUMNS)
    )
    assert stats.position_risk("D", "<digit>{1}", False, 1) == pytest.approx(
        (2 + PRIOR_COLUMNS * rate) / (2 + PRIOR_COLUMNS)
    )
    # a class the corpus never showed is never free
    assert stats.position_risk("L", "<upper>+", False, 3) == 1.0
    assert stats.shape_risk(3, 1, ("D", "S:", "D")) == 1.0


def test_a_thin_class_that_never_failed_borrows_its_familys_rate():
    stats = GeneralizationStats()
    # kind M: a well-evidenced class that failed at 10 of 100 positions, and a class
    # of 3 positions (fixed-width upper-case hex) that never failed
    stats.positions[PositionKey("M", "shape{k}", 5, 3)] = [100, 5.0, 10]
    stats.positions[PositionKey("M", "<hex-upper>{k}", 9, 3)] = [3, 0.0, 0]
    # a free-width class: no width to break, so the fixed widths' failures are not its own
    stats.positions[PositionKey("M", "<alphanum>+", 0, 3)] = [50, 0.0, 0]
    kind = 10 / 103  # the fixed-width classes of the kind
    thin = (0 + PRIOR_COLUMNS * kind) / (3 + PRIOR_COLUMNS)
    # a width and stratum of the thin class the corpus never showed: the class's shrunk rate
    risk = stats.position_risk("M", "<hex-upper>{8}", False, 1)
    assert risk == pytest.approx(thin) and risk > 0.05
    # where the class has positions of its own, they weigh in beside that rate
    assert stats.position_risk("M", "<hex-upper>{12}", False, 20) == pytest.approx(
        (0 + PRIOR_COLUMNS * thin) / (3 + PRIOR_COLUMNS)
    )
    assert stats.position_risk("M", "<alphanum>+", False, 1) == 0.0


def test_a_shape_counts_a_repeated_unit_once_but_not_words():
    from autovalidate.index.generalization import signature
    from autovalidate.patterns.tokens import tokenize

    def shape(v):
        return signature(tokenize(v))

    assert shape("a_b_c") == shape("ab_c") == shape("x_y_z_w")
    assert shape("a_b") != shape("a-b") and shape("a_b") != shape("a_1")
    assert shape("one two three") != shape("one two")  # words are not a list


def test_lists_that_grow_later_are_counted_against_each_bound():
    from autovalidate.index.generalization import RepeatKey, repeat_bound

    stats = GeneralizationStats()
    # the first tenth: 1 or 2 underscores; later up to 4 (past 2, within 2 * 2 + 1)
    values = ["a_b", "a_b_c"] * 10 + ["a_b_c_d_e"] * 60 + ["a_b"] * 120
    stats.add_column(values)
    assert [repeat_bound(2, b) for b in range(3)] == [2, 5, 29]
    n, share, failed = stats.repeats[RepeatKey(2, 0)]
    assert (n, failed) == (1, 1) and share == pytest.approx(60 / 180)
    assert stats.repeats[RepeatKey(2, 1)] == [1, 0.0, 0]
    # a list growing is not a new shape
    ((_, (_, new_shape, _)),) = stats.shapes.items()
    assert new_shape == 0
    assert stats.repeat_risk(2, 0) > stats.repeat_risk(2, 1)


def test_shape_risk_backs_off_from_signature_to_class_to_stratum():
    stats = GeneralizationStats()
    stats.shapes[ShapeKey(0, 0, True)] = [10, 2.0, 2]
    stats.shapes[ShapeKey(3, 0, False)] = [10, 0.0, 0]
    stamp, words, ratio = ("D", "S-", "D", "S ", "D"), ("W", "S ", "W"), ("D", "S:", "D")
    for shape, stratum, sums in (
        (stamp, 0, [4, 0.0, 0]),
        (words, 0, [6, 2.0, 2]),
        (ratio, 3, [10, 0.0, 0]),
    ):
        stats.signature_shapes[SignatureKey(encode_signature(shape), stratum, 0)] = sums
    a = PRIOR_COLUMNS * 2.0 / 20  # pseudo-columns at the mean share
    spaced = (2.0 + a) / (10 + PRIOR_COLUMNS)  # the stratum's rate
    # the class (no word, spaced) observed 0 new-shape share where its stratum expected 4 x spaced
    by_class = (0 + a) / (4 * spaced + a)
    by_signature = (0 + a) / (4 * spaced * by_class + a)
    assert stats.shape_risk(1, 1, stamp) == pytest.approx(spaced * by_class * by_signature)
    assert stats.shape_risk(1, 1, words) > spaced > stats.shape_risk(1, 1, stamp)
    # a signature the corpus never had takes its class's ratio; a class it never had, none
    unseen = ("D", "S/", "D", "S ", "D")
    assert stats.shape_risk(1, 1, unseen) == pytest.approx(spaced * by_class)
    unspaced = (0 + a) / (0 + PRIOR_COLUMNS)  # a stratum without columns: the mean share
    assert stats.shape_risk(1, 1, ("W", "S-", "W")) == pytest.approx(unspaced)
    # a one-token value, or statistics without signatures (no column of two tokens): the stratum
    assert stats.shape_risk(1, 1, ("D",)) == pytest.approx(unspaced)
    stats.signature_shapes.clear()
    stats.__dict__.pop("_ratios")
    assert stats.shape_risk(1, 1, stamp) == pytest.approx(spaced)


def test_identifier_shapes_count_a_new_skeleton_not_new_inner_symbols():
    stats = GeneralizationStats()
    slugs = [f"https://example.org/{w}/" for w in ("a-b", "c_d", "e.f", "g", "h-i-j")]
    # later paths change their inner symbols (a new token shape) but not the skeleton
    stats.add_column(slugs * 2 + [f"https://example.org/{i}~x_{i}/" for i in range(90)])
    ((key, (n, share, failed)),) = stats.identifier_shapes.items()
    assert key == ShapeKey(diversity_stratum(5), 0, False) and n == 1  # one skeleton
    assert share == 0.0 and failed == 0
    ((_, (_, fine_share, _)),) = stats.shapes.items()
    assert fine_share == 1.0  # every later value is a new shape to the fine lexer
    # a query string later is a new skeleton
    other = GeneralizationStats()
    other.add_column(slugs * 2 + [f"https://example.org/p?id={i}" for i in range(90)])
    ((_, (_, share, failed)),) = other.identifier_shapes.items()
    assert share == 1.0 and failed == 1


def test_identifier_shapes_skip_single_identifiers_and_survive_rows_and_merges():
    lone = GeneralizationStats()
    lone.add_column(["www.a.org", "b-c.net"] * 20)  # one identifier each: <unreserved>+ alone
    assert not lone.identifier_shapes
    assert lone.identifier_shape_risk(10, 1, False) == 1.0  # no statistics: never free
    corpus = [[f"{a}/{b}" for b in range(30)] for a in ("x", "y-z", "p.q")]
    corpus.append([f"k{i}/{i}" if i < 20 else f"k{i}:{i}" for i in range(40)])
    whole, left, right = GeneralizationStats(), GeneralizationStats(), GeneralizationStats()
    for i, col in enumerate(corpus):
        whole.add_column(col)
        (left if i % 2 else right).add_column(col)
    assert left.merge(right).identifier_shapes == whole.identifier_shapes
    assert GeneralizationStats.from_rows(whole.rows()) == whole
    # the estimate pools a key with the mean over every key
    (key,) = [k for k, (_, share, _) in whole.identifier_shapes.items() if share == 0]
    n, share, _ = whole.identifier_shapes[key]
    mean = sum(s for _, s, _ in whole.identifier_shapes.values()) / sum(
        c for c, _, _ in whole.identifier_shapes.values()
    )
    assert key == ShapeKey(diversity_stratum(3), 0, False) and n == 3
    assert whole.identifier_shape_risk(3, 1, False) == pytest.approx(
        (share + PRIOR_COLUMNS * mean) / (n + PRIOR_COLUMNS)
    )
