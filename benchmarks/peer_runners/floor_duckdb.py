"""The floor: one hand-written DuckDB query computing every check's number, then the verdicts."""

import duckdb
from common import arguments, report

checks, fmt, path, _ = arguments()


def q(c):
    return '"' + c.replace('"', '""') + '"'


def lit(v):
    return "'" + str(v).replace("'", "''") + "'"


def number(check):
    """SQL of the one number a check compares (a count of violations, a fraction, a statistic)."""
    kind, c = check["kind"], q(check.get("column", ""))
    if kind == "rows_min":
        return "count(*)"
    if kind == "not_null":
        return f"count(*) - count({c})"
    if kind == "unique":
        return f"count({c}) - count(DISTINCT {c})"
    if kind == "completeness_min":
        return f"count({c}) / count(*)"
    if kind == "range":
        parts = [f"{c} < {check['min']}"] if check.get("min") is not None else []
        parts += [f"{c} > {check['max']}"] if check.get("max") is not None else []
        return f"count_if({' OR '.join(parts)})"
    if kind == "in_set":
        return f"count_if({c} NOT IN ({', '.join(lit(v) for v in check['values'])}))"
    if kind == "regex_mostly":
        return f"avg(CASE WHEN regexp_full_match({c}, {lit(check['regex'])}) THEN 1 ELSE 0 END)"
    fn = {
        "min_between": "min",
        "max_between": "max",
        "mean_between": "avg",
        "stddev_between": "stddev_pop",
        "median_between": "median",
    }[kind]
    return f"{fn}({c})"


def passed(check, value):
    kind = check["kind"]
    if kind == "rows_min":
        return value >= check["min"]
    if kind in ("not_null", "unique", "range", "in_set"):
        return value == 0
    if kind == "completeness_min":
        return value >= check["min"]
    if kind == "regex_mostly":
        return value >= check["mostly"]
    return check["min"] <= value <= check["max"]


def run():
    con = duckdb.connect()
    source = f"read_parquet({lit(path)})" if fmt == "parquet" else f"read_csv({lit(path)})"
    row = con.sql(f"SELECT {', '.join(number(c) for c in checks)} FROM {source}").fetchall()[0]
    values = {c["id"]: v for c, v in zip(checks, row, strict=True)}
    return {c["id"]: bool(passed(c, values[c["id"]])) for c in checks}, values


report(run)
