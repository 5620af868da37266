"""A verification suite with every kind of constraint on real tables, on DuckDB and on Spark.

The tables: the dirty ``beers`` table of ../shared/dirty-clean (real formatting
errors: "12.0 oz" / "12.0 OZ." / "12.0 ounce", "0.09%", "N/A") and the CISA
known-exploited-vulnerabilities table of the shared lake. Each is read once by
DuckDB into Arrow and handed to both engines, so both see the same typed data;
the two engines must give identical results.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pytest

from autovalidate.checks import (
    Check,
    CheckLevel,
    CheckStatus,
    ConstrainableDataType,
    VerificationResult,
    VerificationSuite,
)
from autovalidate.engines.duckdb import new_connection
from tests.deequ_support import PatternDecision, same_value

pytestmark = pytest.mark.spark

US_STATES = (
    "AK AL AR AZ CA CO CT DC DE FL GA HI IA ID IL IN KS KY LA MA MD ME MI MN MO MS MT NC ND NE "
    "NH NJ NM NV NY OH OK OR PA RI SC SD TN TX UT VA VT WA WI WV WY"
).split()


@dataclass(frozen=True)
class _StrictRule:
    """Pattern rule test double: no non-conforming value allowed."""

    regex: str
    null_tokens: tuple[str, ...] = ()

    def evaluate_counts(self, n_nonconforming: int, n_values: int) -> PatternDecision:
        fraction = n_nonconforming / n_values if n_values else 0.0
        return PatternDecision(
            n_nonconforming == 0, f"{n_nonconforming} of {n_values} do not conform", fraction
        )


@pytest.fixture(scope="module")
def beers(dirty_clean) -> pa.Table:
    path = dirty_clean / "beers" / "dirty.csv"
    sql = f"""
        SELECT *, TRY_CAST(rtrim(abv, '%') AS DOUBLE) AS abv_value
        FROM read_csv('{path}', header = true)
    """
    return new_connection().sql(sql).to_arrow_table()


def _beer_checks() -> list[Check]:
    identity = (
        Check(CheckLevel.ERROR, "beers: identity and size")
        .is_complete("id")
        .is_unique("id")
        .has_uniqueness(["brewery_id", "beer_name"], lambda u: u > 0.9)
        .has_distinctness("style", lambda d: d < 0.1)
        .has_unique_value_ratio("style", lambda r: 0 < r < 1)
        .has_count_distinct("state", lambda n: n == 51)
        .has_approx_count_distinct("city", lambda n: abs(n - 475) <= 0.05 * 475)
        .has_size(lambda n: n == 2410)
        .is_positive("id")
        .is_non_negative("brewery_id")
        .has_min("id", lambda v: v >= 1)
        .has_max("index", lambda v: v == 2410)
        .has_sum("index", lambda v: v == 2410 * 2411 / 2)
        .has_mean("brewery_id", lambda v: 0 < v < 600)
        .has_standard_deviation("id", lambda v: v > 0)
        .has_correlation("index", "id", lambda c: -1 <= c <= 1)
    )
    values = (
        Check(CheckLevel.WARNING, "beers: values")
        .is_complete("abv")  # fails: 62 beers have no abv
        .has_completeness("abv", lambda c: c > 0.95)
        .is_contained_in("state", US_STATES)
        .is_in_range("abv_value", 0.0, 0.2)
        .is_less_than("brewery_id", "id", lambda f: f > 0.5)
        .satisfies("ibu <> 'N/A'", "ibu is known", lambda f: f > 0.9)  # fails: 42 % are "N/A"
        .has_approx_quantile("abv_value", 0.5, lambda q: 0.05 <= q <= 0.06)
        .has_exact_quantile("abv_value", 0.5, lambda q: 0.05 <= q <= 0.06)
        .has_interquartile_range("abv_value", lambda iqr: 0 < iqr < 0.05)
        .has_range("abv_value", lambda r: 0 < r < 0.2, where="abv_value > 0")
        .has_entropy("style", lambda h: h > 2)
        .has_mutual_information("city", "state", lambda mi: mi > 1)
        .has_histogram_values("state", lambda d: d.number_of_bins == 52 and d.ratio("CO") > 0.05)
        .has_pattern("ounces", r"[0-9]+\.0 oz\.?", lambda f: f > 0.9)  # fails: "OZ.", "ounce"
        .has_pattern("ounces", r"[0-9]+\.0 (oz\.?|OZ\.|ounce)( Alumi-Tek)?", lambda f: f > 0.9)
        .has_data_type("abv", ConstrainableDataType.FRACTIONAL, lambda f: f > 0.9)  # fails: "0.09%"
        .has_data_type("ibu", ConstrainableDataType.INTEGRAL, lambda f: f > 0.9)  # fails: "N/A"
        .has_min_length("state", lambda n: n == 2)
        .has_max_length("beer_name", lambda n: n < 100)
        .satisfies_pattern_constraint("state", _StrictRule(r"\A(?:[A-Z]{2})\z"))
        .satisfies_pattern_constraint("abv", _StrictRule(r"\A(?:0\.[0-9]+)\z"))  # fails: "0.09%"
    )
    return [identity, values]


def _verify(data: Any, checks: list[Check]) -> VerificationResult:
    return VerificationSuite().on_data(data).add_checks(checks).run()


def _assert_identical(duck: VerificationResult, spark: VerificationResult) -> None:
    assert spark.check_results_as_rows() == duck.check_results_as_rows()
    assert spark.status is duck.status
    for d, s in zip(duck.check_results, spark.check_results, strict=True):
        for dc, sc in zip(d.constraint_results, s.constraint_results, strict=True):
            assert (dc.metric is None) == (sc.metric is None)
            if dc.metric is not None:
                assert same_value(dc.metric.value, sc.metric.value, rel=1e-12), dc.constraint
            assert same_value(dc.value, sc.value, rel=1e-12) or dc.value == sc.value, dc.constraint


@pytest.fixture(scope="module")
def beer_results(spark, beers):
    checks = _beer_checks()
    return _verify(beers, checks), _verify(spark.createDataFrame(beers), checks)


def test_beers_suite_identical_on_duckdb_and_spark(beer_results):
    _assert_identical(*beer_results)


def test_beers_suite_finds_the_real_errors(beer_results, beers):
    duck, _ = beer_results
    identity, values = duck.check_results
    assert identity.status is CheckStatus.SUCCESS
    assert values.status is CheckStatus.WARNING and duck.status is CheckStatus.WARNING
    failed = [str(c.constraint) for c in values.constraint_results if c.message is not None]
    assert failed == [
        "CompletenessConstraint(Completeness(abv,None))",
        "ComplianceConstraint(Compliance(ibu is known,ibu <> 'N/A',None,[]))",
        r"PatternMatchConstraint(ounces, [0-9]+\.0 oz\.?)",
        "DataTypeConstraint(DataType(abv,None), Fractional)",
        "DataTypeConstraint(DataType(ibu,None), Integral)",
        r"PatternConstraint(abv, \A(?:0\.[0-9]+)\z)",
    ]
    abv = [v for v in beers["abv"].to_pylist() if v is not None]
    assert values.constraint_results[0].metric.value == len(abv) / beers.num_rows
    nonconforming = sum(re.fullmatch(r"0\.[0-9]+", v) is None for v in abv)
    assert nonconforming > 0
    assert values.constraint_results[-1].details == {
        "passed": False,
        "nonconforming_fraction": nonconforming / len(abv),
    }


def test_beers_suite_shares_scans_on_both_engines(beer_results):
    duck, spark = beer_results
    # id; brewery_id+beer_name; style; state; city+state; the text of state; abv_value as a
    # double (the exact quantile's and the interquartile range's, one for both)
    groupings = 7
    # on Spark two aggregations: the compiled aggregates, and in a job of their own those
    # Spark runs interpreted (the HyperLogLog codes' collect_set, percentile_approx)
    assert spark.metrics.stats.scans == 2 + groupings
    aggregations = [line for line in spark.metrics.stats.log if line.startswith("scan: aggregate")]
    assert aggregations == ["scan: aggregate 45", "scan: aggregate 2"]
    # DuckDB reads the columns of the groupings once (holds them) and groups them there:
    # the four whose analyzers only aggregate their frequencies in one GROUPING SETS
    # query, the mutual information's, the histogram's and the quantiles' each in their own
    assert duck.metrics.stats.scans == 1 + 1
    grouped = [line for line in duck.metrics.stats.log if line.startswith("query: group ")]
    assert grouped[0] == "query: group sets id;brewery_id,beer_name;style;state"
    assert len(grouped) == groupings - 4 + 1


@pytest.fixture(scope="module")
def lake_table(lake_mini) -> pa.Table:
    """The CISA known-exploited-vulnerabilities table, reassembled from its lake rows."""
    table_id = "cisagov/kev-data:known_exploited_vulnerabilities.csv"
    rows = (
        new_connection()
        .execute(
            f"SELECT column_name, values FROM read_parquet('{lake_mini}/*.parquet') "
            "WHERE table_id = ? ORDER BY column_position",
            [table_id],
        )
        .fetchall()
    )
    assert rows, f"{table_id} is not in the lake"
    return pa.table({name: pa.array(values, pa.string()) for name, values in rows})


def test_lake_table_suite_identical_on_duckdb_and_spark(spark, lake_table):
    check = (
        Check(CheckLevel.ERROR, "known exploited vulnerabilities")
        .is_complete("cveID")
        .is_unique("cveID")
        .has_pattern("cveID", r"CVE-[0-9]{4}-[0-9]{4,}")
        .satisfies_pattern_constraint(
            "dateAdded", _StrictRule(r"\A(?:[0-9]{4}-[0-9]{2}-[0-9]{2})\z")
        )
        .is_less_than("dateAdded", "dueDate", lambda f: f > 0.99)
        .is_contained_in("knownRansomwareCampaignUse", ["Known", "Unknown"])
        .has_entropy("vendorProject", lambda h: h > 3)
        .has_data_type("cwes", ConstrainableDataType.STRING, lambda f: f == 1.0)
        .has_max_length("shortDescription", lambda n: n < 2000)
        .has_approx_count_distinct("product", lambda n: n > 100)
        .has_completeness("notes", lambda c: c > 0.5)
    )
    duck = _verify(lake_table, [check])
    spark_result = _verify(spark.createDataFrame(lake_table), [check])
    _assert_identical(duck, spark_result)
    assert duck.status is CheckStatus.SUCCESS, duck.check_results_as_rows()
    entropy = duck.check_results[0].constraint_results[6].metric.value
    assert 3 < entropy <= math.log(lake_table.num_rows)
