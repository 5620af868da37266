"""Vertical cuts priced by positions: what the corpus says of generalizing a record's parts.

Each test builds a small real index (local writer, Parquet, DuckDB) from a
corpus of look-alike machine-generated columns, in time order, whose first
tenth shows less than the rest (one date, one prefix, short lists), and asks
for the pattern of a new column of the same kind.
"""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from dataclasses import replace

import pytest
import regex

from autovalidate.index.reader import PatternIndex
from autovalidate.index.state import write_local_index
from autovalidate.solver.fmdv import SolverParams, solve


def _numbers(rng: random.Random) -> list[str]:
    """A numeric column of mixed widths: as columns, fixed-width digit runs are impure."""
    return [str(rng.randint(1, 99_999)) for _ in range(200)]


def _index(tmp_path, columns: list[list[str]]) -> PatternIndex:
    out = tmp_path / "index"
    write_local_index(columns, out, budget=200_000)
    return PatternIndex.open(out)


def _hourly(rng: random.Random, days: int) -> list[str]:
    """An hourly log, minutes and seconds always 00: its first tenth is one day."""
    start = rng.randint(1, 20)
    return [
        f"2017-{rng.randint(1, 9):02d}-{start + h // 24:02d} {h % 24:02d}:00:00"
        for h in range(24 * days)
    ]


@pytest.fixture(scope="module")
def logs_index(tmp_path_factory):
    rng = random.Random(1)
    columns = [_hourly(rng, 8) for _ in range(40)] + [_numbers(rng) for _ in range(40)]
    with _index(tmp_path_factory.mktemp("logs"), columns) as index:
        yield index


def test_a_timestamp_whose_first_tenth_repeats_its_minutes_gets_a_constraint(logs_index):
    # 14 hours of one day: year, month, day, minutes and seconds each one text
    train = [f"2019-03-05 {h:02d}:00:00" for h in range(14)]
    solution = solve(train, logs_index, method="fmdv-vh")
    assert solution is not None
    assert any(s.hypothesis.evidence == "positions" for s in solution.segments)
    for later in ("2019-03-06 23:00:00", "2020-11-30 00:00:00"):
        assert regex.fullmatch(solution.regex, later), later
    # lost padding, another separator, a cut-off time: formats the column never had
    for drifted in ("2019-3-6 23:00:00", "2019/03/06 23:00:00", "2019-03-06 23:00"):
        assert not regex.fullmatch(solution.regex, drifted), drifted
    # the paper prices each part by the columns of its pattern: the minutes "00" as a
    # column of numbers (mixed widths in this corpus), and one text conditions nothing,
    # so its cut keeps only "digits", and lost padding passes
    paper = solve(train, logs_index, method="fmdv-vh", params=SolverParams(generalize=False))
    assert paper is None or regex.fullmatch(paper.regex, "2019-3-6 23:00:00")


def _key(prefix: str, i: int) -> str:
    return f"{prefix}|{prefix}-{i:06d}"


def _keys(rng: random.Random) -> list[str]:
    """Composite keys whose first part is one 8-hex text at first, 7-hex texts later."""
    first = "".join(rng.choice("0123456789ABCDEF") for _ in range(8))
    later = ["".join(rng.choice("0123456789ABCDEF") for _ in range(7)) for _ in range(30)]
    return [_key(first, i) for i in range(20)] + [_key(rng.choice(later), i) for i in range(180)]


def test_a_width_shown_by_one_repeated_text_is_not_fixed_where_the_corpus_saw_it_change(tmp_path):
    rng = random.Random(2)
    with _index(
        tmp_path, [_keys(rng) for _ in range(40)] + [_numbers(rng) for _ in range(40)]
    ) as index:
        train = [_key("2000A1F3", i) for i in range(30)]
        solution = solve(train, index, method="fmdv-vh")
        assert solution is not None
        assert regex.fullmatch(solution.regex, _key("2000A1F", 31))  # seven hex digits later
        assert not regex.fullmatch(solution.regex, "2000A1F3-2000A1F3|000031")


def _versions(rng: random.Random) -> list[str]:
    """Four-part version numbers, their first part always one digit."""
    return [".".join(str(rng.randint(0, 60 if k else 9)) for k in range(4)) for _ in range(200)]


def _sorted_addresses(rng: random.Random) -> list[str]:
    """IPv4 addresses in address order: a first tenth of one-digit first octets, then two."""
    return [
        f"{8 + i // 15}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        for i in range(200)
    ]


def test_a_width_the_training_shows_one_text_of_is_not_fixed_by_corpus_columns_alone(tmp_path):
    # corpus: version numbers (pure under <digit>{1}.<digit>+.<digit>+.<digit>+, so the
    # paper's cut keeps the one-digit first part) and sorted addresses, whose one-digit
    # first octets grew to two digits after their first tenth
    rng = random.Random(5)
    columns = [_versions(rng) for _ in range(40)] + [_sorted_addresses(rng) for _ in range(40)]
    columns += [_numbers(rng) for _ in range(20)]
    train = [f"{1 + i // 50}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.0" for i in range(100)]
    with _index(tmp_path, columns) as index:
        solution = solve(train, index, method="fmdv-vh")
        # the position statistics are what decide it: without them the width stays
        paper = solve(train, index, method="fmdv-vh", params=SolverParams(generalize=False))
    assert solution is not None
    assert regex.fullmatch(solution.regex, "12.3.4.5")  # a later address
    assert not regex.fullmatch(solution.regex, "1.2.3")
    assert paper is not None and paper.pattern.startswith("<digit>{1}."), paper


def _ids(rng: random.Random) -> list[str]:
    """Underscore-joined names whose later values have more parts than the first tenth's."""
    words = [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 6)))
        for _ in range(40)
    ]
    short = ["_".join(rng.sample(words, rng.randint(2, 3))) for _ in range(20)]
    long = ["_".join(rng.sample(words, rng.randint(2, 5))) for _ in range(180)]
    return short + long


def test_a_list_longer_than_training_showed_is_accepted_where_the_corpus_saw_lists_grow(tmp_path):
    rng = random.Random(3)
    columns = [_ids(rng) for _ in range(40)] + [_numbers(rng) for _ in range(40)]
    with _index(tmp_path, columns) as index:
        train = ["ab_cd", "ab_cd_ef", "xy_zz", "pq_rs_tu", "mn_op", "kl_mn_op"] * 3
        solution = solve(train, index, method="fmdv-vh")
        assert solution is not None
        repeated = [s for s in solution.segments if s.repeat > 1]
        assert repeated and repeated[0].hypothesis.pattern.startswith("_")
        assert regex.fullmatch(solution.regex, "ab_cd_ef_gh_ij")  # five parts: training had 3
        assert not regex.fullmatch(solution.regex, "ab-cd")
        assert not regex.fullmatch(solution.regex, "ab_cd_")
        # bounded: never match-anything
        assert not regex.fullmatch(solution.regex, "_".join(["ab"] * 500))
        # without the position statistics, the units stay as many as training had
        paper = solve(
            train, index, method="fmdv-vh", params=replace(SolverParams(), generalize=False)
        )
        assert paper is None or not regex.fullmatch(paper.regex, "ab_cd_ef_gh_ij")


HEX = "0123456789abcdef"


def _run(rng: random.Random, alphabet: str, k: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(k))


def _drifting_keys(rng: random.Random) -> list[str]:
    """GUID-shaped keys whose first tenth happens to be hex, the rest any letter or digit."""
    alnum = string.digits + string.ascii_lowercase
    return [
        "-".join(_run(rng, HEX if i < 20 else alnum, k) for k in (8, 4, 4, 4, 12))
        for i in range(200)
    ]


def test_parts_the_corpus_has_columns_of_keep_their_class_beside_the_position_pricing(tmp_path):
    # corpus: bare hex codes of 8, 4 and 12 digits (evidence for the paper's cut of a
    # GUID), and GUID-shaped keys that were hex only in their first tenth (the positions
    # say a hex position may break later); the paper's cut is the more specific
    rng = random.Random(3)
    columns = [[_run(rng, HEX, k) for _ in range(200)] for k in (8, 4, 12) for _ in range(15)]
    columns += [_drifting_keys(rng) for _ in range(30)] + [_numbers(rng) for _ in range(30)]
    train = ["-".join(_run(rng, HEX, k) for k in (8, 4, 4, 4, 12)) for _ in range(40)]
    with _index(tmp_path, columns) as index:
        solution = solve(train, index, method="fmdv-vh")
    assert solution is not None
    assert solution.pattern.startswith("<hex-lower>{8}-<hex-lower>{4}-"), solution.pattern
    assert not regex.fullmatch(solution.regex, "035cef0g-ab5b-4870-8a2d-3fffb2002a86")


def _commits(rng: random.Random) -> list[str]:
    """``<branch>@<sha1>`` references: a 40-hex-digit part that keeps its width and case."""
    branches = ["main", "dev", "release"]
    return [f"{rng.choice(branches)}@{_run(rng, HEX, 40)}" for _ in range(200)]


def test_a_one_token_hash_the_corpus_has_no_column_of_backs_off_to_its_position(tmp_path):
    # corpus: hashes only inside records, never a column of bare hashes, so
    # <hex-lower>{40} has no corpus column (no FPR_T); the positions of records say
    # such a part keeps its class and width
    rng = random.Random(4)
    columns = [_commits(rng) for _ in range(40)] + [_numbers(rng) for _ in range(40)]
    train = [_run(rng, HEX, 40) for _ in range(30)]
    with _index(tmp_path, columns) as index:
        assert "<hex-lower>{40}" not in index.lookup(["<hex-lower>{40}"])
        solution = solve(train, index, method="fmdv-vh")
        paper = solve(train, index, method="fmdv-vh", params=SolverParams(generalize=False))
    assert solution is not None and solution.pattern == "<hex-lower>{40}", solution
    assert solution.segments[0].hypothesis.evidence == "positions"
    assert regex.fullmatch(solution.regex, _run(rng, HEX, 40))
    # a truncated hash, an upper-case one and a longer digest: formats it never had
    for drifted in (_run(rng, HEX, 39), _run(rng, HEX, 40).upper(), _run(rng, HEX, 64)):
        assert not regex.fullmatch(solution.regex, drifted), drifted
    # the paper prices the value by its pattern's columns alone: none for the hash's
    # width, so at most a general class stands, and the truncated hash passes
    assert paper is None or regex.fullmatch(paper.regex, _run(rng, HEX, 39))


def _stalled_log(rng: random.Random) -> list[str]:
    """A log whose first tenth is one timestamp repeated (the first hour), then one per minute."""
    day = f"2018-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return [f"{day} 07:00:00"] * 20 + [
        f"{day} {7 + m // 60:02d}:{m % 60:02d}:{rng.randint(0, 59):02d}" for m in range(180)
    ]


def _stalled_names(rng: random.Random) -> list[str]:
    """A name column whose first tenth is one two-word name, later names of one to three words."""
    words = ["North", "Harbor", "Office", "Central", "Depot", "West", "Field"]
    later = [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(180)]
    return ["North Harbor"] * 20 + later


@pytest.fixture(scope="module")
def stalled_index(tmp_path_factory):
    rng = random.Random(7)
    columns = [_stalled_log(rng) for _ in range(25)] + [_stalled_names(rng) for _ in range(25)]
    columns += [_numbers(rng) for _ in range(25)]
    with _index(tmp_path_factory.mktemp("stalled"), columns) as index:
        yield index


def test_a_repeated_timestamp_gets_the_shape_risk_of_timestamps_not_of_its_stratum(stalled_index):
    # a constant training tenth, spaced: its stratum mixes timestamps (whose later
    # values keep the shape) with names (whose later values gain and lose words)
    model = stalled_index.generalization
    stamp = ("D", "S-", "D", "S ", "D", "S:", "D")
    words = ("W", "S ", "W")
    stratum = model._shape_risk(0, 0, True)
    assert stratum > 0.05  # the budget (max_position_risk): the stratum alone abstains
    assert model.shape_risk(1, 1, stamp) < 0.05 < stratum < model.shape_risk(1, 1, words)
    train = ["2021-11-02 19:00:00"] * 40
    solution = solve(train, stalled_index, method="fmdv-vh")
    assert solution is not None
    for later in ("2021-11-02 19:01:07", "2022-01-31 23:59:59"):
        assert regex.fullmatch(solution.regex, later), later
    for drifted in ("2021-11-02T19:01:07", "2021-11-02 19:01", "19:01:07 2021-11-02"):
        assert not regex.fullmatch(solution.regex, drifted), drifted
    # the same constant name stays without a constraint: its signature's corpus columns changed
    assert solve(["North Harbor"] * 40, stalled_index, method="fmdv-vh") is None


_SCORES = ["15-30", "15-40", "30-40", "Deuce", "Ad-in", "40-30", "30-30", "Ad-out", "0-15", "40-15"]
_SUGGEST = """
import json, random, sys
from autovalidate import suggest_pattern
rng = random.Random(3)
values = [rng.choice(json.loads(sys.argv[1])) for _ in range(40)]
c = suggest_pattern(values)
print(json.dumps([c.pattern, c.fpr, [(s.pattern, s.fpr) for s in c.segments]]))
"""


def test_a_position_of_several_token_kinds_is_priced_the_same_in_every_process():
    """``30`` and ``Ad`` share an aligned position: its risk must not depend on set order.

    The risk was the one of whichever token a frozenset yielded first, so the
    FPRs of the tennis scores changed with ``PYTHONHASHSEED`` (four seeds gave
    four outputs); now the largest risk over the kinds prices the position.
    """
    outputs = set()
    for seed in ("0", "1", "2", "3"):
        out = subprocess.run(
            [sys.executable, "-c", _SUGGEST, json.dumps(_SCORES)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        assert out.returncode == 0, out.stderr[-2000:]
        outputs.add(out.stdout)
    assert len(outputs) == 1, outputs
