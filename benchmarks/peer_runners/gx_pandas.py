"""Great Expectations 1.x on pandas or Spark: one expectation per check, one validation of a batch.

The option ``spark`` validates a Spark DataFrame (``common.spark_session``,
local[2]); the session starts inside the timed part, as autovalidate-spark's.
"""

import great_expectations as gx
import great_expectations.expectations as gxe
import pandas as pd
from common import arguments, report, spark_frame, spark_session

checks, fmt, path, backend = arguments()


def expectation(spec):
    kind, c = spec["kind"], spec.get("column")
    if kind == "rows_min":
        return gxe.ExpectTableRowCountToBeBetween(min_value=spec["min"])
    if kind == "not_null":
        return gxe.ExpectColumnValuesToNotBeNull(column=c)
    if kind == "unique":
        return gxe.ExpectColumnValuesToBeUnique(column=c)
    if kind == "completeness_min":
        return gxe.ExpectColumnValuesToNotBeNull(column=c, mostly=spec["min"])
    if kind == "range":
        return gxe.ExpectColumnValuesToBeBetween(
            column=c, min_value=spec.get("min"), max_value=spec.get("max")
        )
    if kind == "in_set":
        return gxe.ExpectColumnValuesToBeInSet(column=c, value_set=spec["values"])
    if kind == "regex_mostly":  # GX searches: anchor for a full match
        return gxe.ExpectColumnValuesToMatchRegex(
            column=c, regex=f"^(?:{spec['regex']})$", mostly=spec["mostly"]
        )
    cls = {
        "min_between": gxe.ExpectColumnMinToBeBetween,
        "max_between": gxe.ExpectColumnMaxToBeBetween,
        "mean_between": gxe.ExpectColumnMeanToBeBetween,
        "stddev_between": gxe.ExpectColumnStdevToBeBetween,
        "median_between": gxe.ExpectColumnMedianToBeBetween,
    }[kind]
    return cls(column=c, min_value=spec["min"], max_value=spec["max"])


def run():
    context = gx.get_context(mode="ephemeral")
    if backend == "spark":
        frame = spark_frame(spark_session(), fmt, path)
        source = context.data_sources.add_spark("peers")
    else:
        frame = pd.read_parquet(path) if fmt == "parquet" else pd.read_csv(path)
        source = context.data_sources.add_pandas("peers")
    asset = source.add_dataframe_asset("orders")
    batch_definition = asset.add_batch_definition_whole_dataframe("all")
    suite = context.suites.add(gx.ExpectationSuite(name="peers"))
    ids = {}
    for spec in checks:
        e = suite.add_expectation(expectation(spec))
        ids[e.id] = spec["id"]
    batch = batch_definition.get_batch(batch_parameters={"dataframe": frame})
    result = batch.validate(suite)
    verdicts, values = {}, {}
    for r in result.results:
        check_id = ids[r.expectation_config.id]
        verdicts[check_id] = bool(r.success)
        observed = r.result.get("observed_value")
        if observed is None and "unexpected_percent" in r.result:
            observed = r.result["unexpected_percent"]
        values[check_id] = observed if isinstance(observed, (int, float)) else None
    return verdicts, values


report(run)
