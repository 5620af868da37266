"""The analyzer codec: the suite format's analyzers as data, and the repository key."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import pandas as pd
import pytest

from autovalidate.errors import ConstraintFormatError
from autovalidate.metrics import (
    ApproxQuantiles,
    Completeness,
    Compliance,
    ReferentialIntegrity,
    Uniqueness,
)
from autovalidate.metrics import expressions as E
from autovalidate.metrics.codec import analyzer_from_dict, analyzer_key, analyzer_to_dict

POSITIVE = Compliance("positive", E.gt(E.col("a"), E.lit(0)))
POSITIVE_KEY = (
    '{"analyzer":"Compliance","instance_name":"positive","predicate":{"args":'
    '[{"expr":"Col","name":"a"},{"expr":"Lit","value":0}],"expr":"Call","fn":"gt"}}'
)


def test_the_key_is_the_analyzers_data_not_its_sql_text(monkeypatch):
    assert analyzer_key(POSITIVE) == POSITIVE_KEY
    text = str(POSITIVE)
    # a later release renders the comparison differently: the text changes, the key does not
    monkeypatch.setitem(E._SQL, "gt", lambda a: f"({a[1]} < {a[0]})")
    assert str(POSITIVE) != text
    assert analyzer_key(POSITIVE) == POSITIVE_KEY


def test_the_key_is_canonical_and_reads_back_as_the_analyzer():
    quantiles = ApproxQuantiles("price", (0.5, 0.9), where="qty > 0")
    key = analyzer_key(quantiles)
    assert key == json.dumps(json.loads(key), sort_keys=True, separators=(",", ":"))
    assert "relative_error" not in key  # at its default: a field added later keeps the key
    assert analyzer_from_dict(json.loads(key)) == quantiles
    assert analyzer_key(Uniqueness("a")) == analyzer_key(Uniqueness(["a"]))  # equal analyzers
    assert analyzer_key(Completeness("a")) != analyzer_key(Completeness("a", where="b > 0"))


def test_equal_analyzers_have_one_key_and_constants_of_another_type_are_not_equal():
    # 0, 0.0 and False compare equal in Python, but are three SQL literals and three keys
    ints, floats, bools = (Compliance("c", E.ge(E.col("a"), E.lit(v))) for v in (0, 0.0, False))
    assert len({analyzer_key(a) for a in (ints, floats, bools)}) == 3
    assert len({str(a) for a in (ints, floats, bools)}) == 3
    assert ints != floats and floats != bools and ints != bools
    assert len({ints, floats, bools}) == 3
    again = Compliance("c", E.ge(E.col("a"), E.lit(0)))
    assert again == ints and hash(again) == hash(ints)
    assert analyzer_key(again) == analyzer_key(ints)


def test_reference_data_is_named_not_keyed():
    frame = pd.DataFrame({"id": [1]})
    bound = ReferentialIntegrity("customer", frame, "id", reference_name="customers")
    assert json.loads(analyzer_key(bound)) == {
        "analyzer": "ReferentialIntegrity",
        "columns": ["customer"],
        "reference_columns": ["id"],
        "reference_name": "customers",
    }
    with pytest.raises(ConstraintFormatError, match="reference is a DataFrame"):
        analyzer_to_dict(bound)  # a suite names its reference; it holds no data


def test_the_suite_format_still_refuses_expression_objects():
    assert analyzer_to_dict(Completeness("a")) == {
        "analyzer": "Completeness",
        "column": "a",
        "where": None,
    }
    with pytest.raises(ConstraintFormatError, match="predicate is a Call"):
        analyzer_to_dict(POSITIVE)


def test_a_call_keeps_its_hash_but_never_carries_it_to_another_process():
    call = E.is_in(E.col("x"), [f"v{i}" for i in range(1000)])
    assert hash(call) == hash(call) == hash(E.is_in(E.col("x"), [f"v{i}" for i in range(1000)]))
    blob = pickle.dumps({call: 1})
    assert "_hash" not in pickle.loads(pickle.dumps(call)).__dict__
    # strings hash differently in a process with another seed: the key still finds its value
    reader = (
        "import pickle, sys; from autovalidate.metrics import expressions as E; "
        "d = pickle.loads(sys.stdin.buffer.read()); "
        "print(d[E.is_in(E.col('x'), [f'v{i}' for i in range(1000)])])"
    )
    out = subprocess.run(
        [sys.executable, "-c", reader],
        input=blob,
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "7"},
    )
    assert out.stdout.strip() == b"1"
