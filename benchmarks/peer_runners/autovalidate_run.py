"""autovalidate: one Check per benchmark check, run as one suite on DuckDB or Spark local[2]."""

import os
import sys

from common import arguments, report

if "AUTOVALIDATE_ROOT" in os.environ:  # started by peers.py; imported from a checkout otherwise
    sys.path.insert(0, os.environ["AUTOVALIDATE_ROOT"])
from autovalidate import Check, CheckLevel, VerificationSuite  # noqa: E402


def between(lo, hi):
    return lambda v: v is not None and lo <= v <= hi


def check_of(spec):
    kind, c = spec["kind"], spec.get("column")
    check = Check(CheckLevel.ERROR, spec["id"])
    if kind == "rows_min":
        return check.has_size(lambda n: n >= spec["min"])
    if kind == "not_null":
        return check.is_complete(c)
    if kind == "unique":
        return check.is_unique(c)
    if kind == "completeness_min":
        return check.has_completeness(c, lambda f: f >= spec["min"])
    if kind == "range":
        lo = spec["min"] if spec.get("min") is not None else float("-inf")
        hi = spec["max"] if spec.get("max") is not None else float("inf")
        return check.is_in_range(c, lo, hi)
    if kind == "in_set":
        return check.is_contained_in(c, spec["values"])
    if kind == "regex_mostly":
        return check.has_pattern(c, spec["regex"], lambda f: f >= spec["mostly"])
    assertion = between(spec["min"], spec["max"])
    if kind == "min_between":
        return check.has_min(c, assertion)
    if kind == "max_between":
        return check.has_max(c, assertion)
    if kind == "mean_between":
        return check.has_mean(c, assertion)
    if kind == "stddev_between":
        return check.has_standard_deviation(c, assertion)
    return check.has_approx_quantile(c, 0.5, assertion)


def main():
    checks, fmt, path, engine = arguments()

    def run():
        data = path
        if engine == "spark":
            from autovalidate.engines.spark_session import local_session

            spark = local_session("peers", master="local[2]")
            reader = spark.read
            data = (
                reader.parquet(path)
                if fmt == "parquet"
                else reader.csv(path, header=True, inferSchema=True)
            )
        suite = VerificationSuite().on_data(data).add_checks([check_of(s) for s in checks])
        result = suite.run()
        verdicts, values = {}, {}
        for r in result.check_results:
            verdicts[r.check.description] = r.status.value == "Success"
            (c,) = r.constraint_results
            values[r.check.description] = c.value if isinstance(c.value, (int, float)) else None
        return verdicts, values

    report(run)


if __name__ == "__main__":
    main()
