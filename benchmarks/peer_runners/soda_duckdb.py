"""Soda Core (SodaCL) on DuckDB or Spark: the file as a view, one scan of checks written in SodaCL.

The option ``spark`` registers a Spark DataFrame (``common.spark_session``,
local[2], started inside the timed part as autovalidate-spark's) as a
temporary view for Soda's ``spark_df`` data source.
"""

from common import arguments, report
from soda.scan import Scan

checks, fmt, path, backend = arguments()


def sodacl(spec):
    """One SodaCL check, named after the benchmark check."""
    kind, c = spec["kind"], spec.get("column")
    if kind == "rows_min":
        line, config = f"row_count >= {spec['min']}", {}
    elif kind == "not_null":
        line, config = f"missing_count({c}) = 0", {}
    elif kind == "unique":
        line, config = f"duplicate_count({c}) = 0", {}
    elif kind == "completeness_min":
        line, config = f"missing_percent({c}) <= {round((1 - spec['min']) * 100, 6)}", {}
    elif kind == "range":
        config = {}
        if spec.get("min") is not None:
            config["valid min"] = spec["min"]
        if spec.get("max") is not None:
            config["valid max"] = spec["max"]
        line = f"invalid_count({c}) = 0"
    elif kind == "in_set":
        line, config = f"invalid_count({c}) = 0", {"valid values": spec["values"]}
    elif kind == "regex_mostly":
        limit = round((1 - spec["mostly"]) * 100, 6)
        line, config = f"invalid_percent({c}) <= {limit}", {"valid regex": f"^(?:{spec['regex']})$"}
    else:
        fn = {
            "min_between": "min",
            "max_between": "max",
            "mean_between": "avg",
            "stddev_between": "stddev_pop",
            "median_between": "percentile",
        }[spec["kind"]]
        arg = f"{c}, 0.5" if fn == "percentile" else c
        bounds = f"between {spec['min']} and {spec['max']}"
        if backend == "spark" and fn in ("stddev_pop", "percentile"):
            # not metrics of Soda's Spark source: a user-defined metric (its own query)
            metric = f"{c}_{fn}"
            line = f"{metric} {bounds}"
            config = {f"{metric} query": f"SELECT {fn}({arg}) FROM orders"}
        else:
            line, config = f"{fn}({arg}) {bounds}", {}
    return line, {"name": spec["id"], **config}


def run():
    import json

    scan = Scan()
    if backend == "spark":
        from common import spark_frame, spark_session

        spark = spark_session()
        spark_frame(spark, fmt, path).createOrReplaceTempView("orders")
        scan.set_data_source_name("spark_df")
        scan.add_spark_session(spark, data_source_name="spark_df")
    else:
        import duckdb

        con = duckdb.connect()
        reader = "read_parquet" if fmt == "parquet" else "read_csv"
        con.execute(f"CREATE VIEW orders AS SELECT * FROM {reader}('{path}')")
        scan.set_data_source_name("duckdb")
        scan.add_duckdb_connection(con)
    lines = ["checks for orders:"]
    for spec in checks:
        line, config = sodacl(spec)
        lines.append(f"  - {line}:")
        lines += [f"      {k}: {json.dumps(v)}" for k, v in config.items()]
    scan.add_sodacl_yaml_str("\n".join(lines) + "\n")
    scan.execute()
    results = scan.get_scan_results()
    verdicts, values = {}, {}
    for c in results["checks"]:
        verdicts[c["name"]] = c["outcome"] == "pass"
        value = c.get("diagnostics", {}).get("value")
        values[c["name"]] = value if isinstance(value, (int, float)) else None
    errors = [log["message"] for log in results["logs"] if log["level"] == "ERROR"]
    if errors:
        raise SystemExit("soda errors: " + "; ".join(errors))
    return verdicts, values


report(run)
