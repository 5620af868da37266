"""An inferred Auto-Validate constraint as a constraint of a Deequ check, on both engines."""

from __future__ import annotations

import pandas as pd
import pytest

from autovalidate import Check, CheckLevel, VerificationSuite, suggest_pattern

pytestmark = pytest.mark.spark


def test_inferred_pattern_in_a_verification_suite(small_index, spark):
    train = [f"{i % 97},{(i * 7) % 89},{(i * 3) % 71}" for i in range(99)] + ["x"]
    rule = suggest_pattern(train, small_index, method="fmdv-h", r=0.2, m=5, column="triples")
    assert rule is not None and rule.train_nonconforming == 1
    good = pd.DataFrame({"triples": train * 3 + [None], "n": range(301)})
    bad = pd.DataFrame({"triples": train[:50] + ["bad"] * 50, "n": range(100)})

    def verify(data):
        check = (
            Check(CheckLevel.ERROR, "ingest")
            .satisfies_pattern_constraint("triples", rule)
            .is_complete("n")
        )
        return VerificationSuite().on_data(data).add_check(check).run()

    for engine_data in (good, spark.createDataFrame(good)):
        result = verify(engine_data)
        assert result.status.value == "Success"
        rows = result.check_results_as_rows()
        assert rows[0]["constraint_status"] == "Success"
    for engine_data in (bad, spark.createDataFrame(bad)):
        result = verify(engine_data)
        assert result.status.value == "Error"
        row = next(r for r in result.check_results_as_rows() if "Pattern" in r["constraint"])
        assert row["constraint_status"] == "Failure"
        local = rule.validate(bad)
        assert not local.passed and local.n_nonconforming == 50
