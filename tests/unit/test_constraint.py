import json

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from autovalidate import PatternConstraint, suggest_pattern
from autovalidate.checks.spec import load_suite, suite_to_json
from autovalidate.engines.duckdb import DuckDBEngine
from autovalidate.errors import (
    ColumnNotFoundError,
    ConstraintFormatError,
    EmptyColumnError,
    ParameterError,
)
from autovalidate.pattern_constraint import Segment


def make(test="fisher", train_n=100, train_bad=2) -> PatternConstraint:
    return PatternConstraint(
        regex=r"\A(?:[0-9]{2}\-\p{Lu}{2})\z",
        pattern="<digit>{2}-<upper>{2}",
        segments=(Segment("<digit>{2}-<upper>{2}", r"[0-9]{2}\-\p{Lu}{2}", 0.0, 9),),
        fpr=0.0,
        method="fmdv-vh",
        test=test,
        alpha=0.01,
        train_n=train_n,
        train_nonconforming=train_bad,
        column="code",
    )


def test_counts_ignore_nulls_and_report_examples():
    c = make()
    res = c.validate(["12-AB", None, "1-AB", "99-ZZ", float("nan"), "xx"])
    assert (res.n_values, res.n_nonconforming) == (4, 2)
    assert res.examples == ("1-AB", "xx")
    assert res.nonconforming_fraction == 0.5 and not res.passed


def test_duckdb_counts_and_examples_in_one_scan_the_smallest_first():
    c = make()
    values = ["12-AB", "zz", None, "1-AB", "NA", "99-ZZ", "b", "a", "zz", "c", "d"]
    engine = DuckDBEngine(pa.table({"code": pa.array(values, pa.string())}))
    res = c.validate(engine)
    assert engine.stats.queries == 1
    engine.close()
    assert (res.n_values, res.n_nonconforming) == (9, 7)
    assert res.examples == ("1-AB", "a", "b", "c", "d")
    assert c.validate(values, examples=2).examples == ("1-AB", "a")
    assert c.validate(values, examples=0).examples == ()
    assert c.validate(["12-AB", "99-ZZ", "NA"]).examples == ()
    with pytest.raises(ValueError, match="examples"):
        c.validate(values, examples=-1)


def test_same_counts_on_every_local_data_type(tmp_path):
    c = make()
    values = ["12-AB", "1-AB", None, "99-ZZ", "12-ab"] * 20
    df = pd.DataFrame({"code": values, "other": range(100)})
    csv = tmp_path / "b.csv"
    df.to_csv(csv, index=False)
    parquet = tmp_path / "b.parquet"
    df.to_parquet(parquet)
    con = duckdb.connect()
    results = [
        c.validate(values),
        c.validate(pd.Series(values)),
        c.validate(pa.array(values)),
        c.validate(df),
        c.validate(pa.Table.from_pandas(df)),
        c.validate(str(csv)),
        c.validate(parquet),
        c.validate(con.from_df(df)),  # a relation runs on its own connection
    ]
    assert {(r.n_values, r.n_nonconforming) for r in results} == {(80, 40)}


def test_csv_values_are_read_as_written(tmp_path):
    # "007" must stay "007" (no type sniffing) for pattern checks
    csv = tmp_path / "z.csv"
    csv.write_text("zip\n007\n012\n123\n")
    c = PatternConstraint(
        r"\A(?:[0-9]{3})\z",
        "<digit>{3}",
        (Segment("<digit>{3}"),),
        0.0,
        "fmdv",
        "strict",
        0.01,
        3,
        0,
        "zip",
    )
    assert c.validate(csv).passed


def test_strict_and_fisher_decisions():
    strict = make(test="strict", train_bad=0)
    assert not strict.evaluate_counts(1, 1000).passed
    tolerant = make(test="fisher", train_n=100, train_bad=2)
    assert tolerant.evaluate_counts(25, 1000).passed  # 2.5% vs 2%
    assert not tolerant.evaluate_counts(300, 1000).passed


def test_missing_column(tmp_path):
    with pytest.raises(ColumnNotFoundError) as exc:
        make().validate(pd.DataFrame({"x": ["1"]}))
    assert "code" in str(exc.value) and "x" in str(exc.value)


def test_json_round_trip_and_suites(tmp_path):
    c = make()
    assert PatternConstraint.from_dict(json.loads(c.to_json())) == c
    path = tmp_path / "suite.json"
    path.write_text(suite_to_json([c, make(test="chi2")]))
    loaded = load_suite(path)
    assert loaded[0] == c and loaded[1].test == "chi2"
    single = tmp_path / "one.json"
    single.write_text(c.to_json())
    assert load_suite(single) == [c]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(kind="other"),
        lambda d: d.update(version=99),
        lambda d: d.update(test="bogus"),
        lambda d: d.update(regex="(unclosed"),
        lambda d: d.update(train_nonconforming=5, train_n=1),
        lambda d: d.update(unexpected=1),
    ],
)
def test_malformed_constraints(mutate):
    d = make().to_dict()
    mutate(d)
    with pytest.raises(ConstraintFormatError):
        PatternConstraint.from_dict(d)


def test_suggest_records_training_nonconformity(small_index):
    train = [f"{i % 97},{(i * 7) % 89},{(i * 3) % 71}" for i in range(99)] + ["x"]
    c = suggest_pattern(train, small_index, method="fmdv-h", r=0.2, m=5, column="triples")
    assert c is not None and c.train_n == 100 and c.train_nonconforming == 1
    assert c.test == "fisher" and c.column == "triples"
    assert c.validate(train).passed


def test_null_tokens_are_neither_learned_nor_counted(small_index):
    triples = [f"{i % 97},{(i * 7) % 89},{(i * 3) % 71}" for i in range(99)]
    # a column that starts with rows of NA, as some of the lake's do
    train = ["NA"] * 30 + triples + ["-", "", "  ", "null"]
    c = suggest_pattern(train, small_index, method="fmdv", r=0.2, m=5)
    assert c is not None and c.train_n == 99 and c.train_nonconforming == 0
    assert "<upper>" not in c.pattern and "NA" not in c.pattern
    batch = c.validate(triples[:50] + ["NA", "N/A", "None", " ", None])
    assert batch.passed and batch.n_values == 50 and batch.n_nonconforming == 0
    # configurable: with no null tokens, "NA" is a value, and a non-conforming one
    strict = suggest_pattern(triples, small_index, method="fmdv", r=0.2, m=5, null_tokens=())
    assert strict is not None and strict.null_tokens == ()
    assert not strict.validate(triples[:50] + ["NA"]).passed
    assert PatternConstraint.from_dict(strict.to_dict()) == strict


def test_a_large_column_is_sampled_and_says_so(small_index):
    triples = [f"{i % 97},{(i * 7) % 89},{(i * 3) % 71}" for i in range(2000)]
    train = triples + ["x"] * 40  # 2% non-conforming, wherever the sample falls
    c = suggest_pattern(train, small_index, method="fmdv-h", r=0.2, m=5, max_values=500)
    assert c is not None and c.params["inferred_from"] == 500
    # the training counts, which the drift test uses, cover every value
    assert c.train_n == 2040 and c.train_nonconforming == 40
    again = suggest_pattern(train, small_index, method="fmdv-h", r=0.2, m=5, max_values=500)
    assert again == c  # a seeded sample: the same column, the same constraint
    assert PatternConstraint.from_dict(c.to_dict()) == c
    whole = suggest_pattern(train, small_index, method="fmdv-h", r=0.2, m=5, max_values=None)
    assert whole is not None and "inferred_from" not in whole.params
    assert whole.pattern == c.pattern
    with pytest.raises(ParameterError, match="max_values"):
        suggest_pattern(train, small_index, max_values=0)


def test_a_column_of_null_tokens_gets_no_constraint(small_index):
    assert suggest_pattern(["NA", "-", "N/A", " "] * 30, small_index) is None


def test_suggest_refuses_empty_columns(small_index):
    with pytest.raises(EmptyColumnError):
        suggest_pattern([None, None], small_index)


@pytest.mark.parametrize(
    "regex",
    [
        r"\A(?:[0-9]{2}\-\p{L}{2})\z",  # a looser class than the pattern's
        r"\A(?:(a|aa)+)\z",  # catastrophic backtracking in a backtracking engine
        r"\A(?:([0-9])\1\-\p{Lu}{2})\z",  # a back-reference, which RE2 rejects
    ],
)
def test_a_regex_that_is_not_its_patterns_rendering_is_refused(regex):
    doc = json.loads(make().to_json())
    doc["regex"] = regex
    with pytest.raises(ConstraintFormatError, match="renders to"):
        PatternConstraint.from_dict(doc)


def test_a_tampered_segment_regex_or_pattern_is_refused():
    doc = json.loads(make().to_json())
    doc["segments"][0]["regex"] = ".*"
    with pytest.raises(ConstraintFormatError, match="segment"):
        PatternConstraint.from_dict(doc)
    doc = json.loads(make().to_json())
    doc["segments"][0]["pattern"] = "<digit>{2}-<nope>{2}"
    with pytest.raises(ConstraintFormatError):
        PatternConstraint.from_dict(doc)


def test_pandas_missing_values_are_nulls():
    c = make()
    strings = pd.Series(["12-AB", pd.NA, "99-ZZ", None], dtype="string")
    assert (c.validate(strings).n_values, c.validate(strings).n_nonconforming) == (2, 0)
    digits = PatternConstraint.from_dict(
        {
            **json.loads(make().to_json()),
            "regex": r"\A(?:[0-9]+)\z",
            "pattern": "<digit>+",
            "segments": [{"pattern": "<digit>+", "regex": "[0-9]+", "optional": False}],
        }
    )
    ints = pd.Series([1, pd.NA, 30], dtype="Int64")
    result = digits.validate(ints)
    assert (result.n_values, result.n_nonconforming) == (2, 0) and result.passed
    frame = pd.DataFrame({"code": pd.Series(["12-AB", pd.NA], dtype="string")})
    assert (c.validate(frame).n_values, c.validate(frame).n_nonconforming) == (1, 0)


def test_a_pattern_constraint_added_to_a_check_is_adapted_or_refused_at_once():
    from autovalidate import Check, CheckLevel, VerificationSuite

    data = pd.DataFrame({"code": ["12-AB", "34-CD", "5-x"]})
    adapted = Check(CheckLevel.ERROR, "codes").add_constraint(make(test="strict", train_bad=0))
    direct = Check(CheckLevel.ERROR, "codes").satisfies_pattern_constraint(
        "code", make(test="strict", train_bad=0)
    )
    results = [VerificationSuite().on_data(data).add_check(c).run() for c in (adapted, direct)]
    assert [r.status.value for r in results] == ["Error", "Error"]
    anonymous = PatternConstraint.from_dict({**json.loads(make().to_json()), "column": None})
    with pytest.raises(TypeError, match="without a column"):
        Check(CheckLevel.ERROR, "x").add_constraint(anonymous)
    with pytest.raises(TypeError, match="not str"):
        Check(CheckLevel.ERROR, "x").add_constraint("is_complete")


def test_a_multi_format_constraint_round_trips_and_checks_its_formats(small_index):
    import random

    rng = random.Random(5)
    dates = [f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/2019" for _ in range(30)]
    times = [f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00" for _ in range(30)]
    c = suggest_pattern(dates + times, small_index, method="fmdv", r=0.2, m=5)
    assert c is not None and [s.branch for s in c.segments] == [0, 1]
    assert ", or " in c.description
    assert PatternConstraint.from_dict(c.to_dict()) == c
    assert c.validate(dates[:5] + times[:5]).passed
    assert not c.validate(["12-01-2019"]).passed
    d = c.to_dict()
    d["segments"][1]["branch"] = 2
    with pytest.raises(ConstraintFormatError):
        PatternConstraint.from_dict(d)


def test_examples_are_distinct_values(tmp_path):
    """A typo repeated in the batch is one example, not several copies (issue 31)."""
    from autovalidate.checks.spec import ConstraintSuite

    c = make()
    values = ["1-AB", "1-AB", "12-AB", "1-AB", "xx", "xx", "yy"]
    assert c.validate(values).examples == ("1-AB", "xx", "yy")  # in one scan, smallest first
    batch = tmp_path / "batch.csv"
    batch.write_text("code\n" + "".join(f"{v}\n" for v in values))
    suite = ConstraintSuite.from_dict(json.loads(suite_to_json([c])))
    (outcome,) = suite.run(str(batch)).check_results[0].constraint_results
    assert outcome.details["examples"] == ["1-AB", "xx", "yy"]  # the suite's query, batch order
