"""pandera on pandas or polars: built-in column checks where they exist, dataset checks otherwise.

Row-wise rules (non-null, unique, range, set, a regex for every value) are
pandera's own checks; rules on a statistic or a fraction (row count, mean,
standard deviation, median, a fraction of non-nulls or of matches) are custom
checks that return one boolean for the column. Validation is lazy: every
check runs, and the failed ones are read from the errors.
"""

from common import arguments, report

checks, fmt, path, backend = arguments()

if backend == "polars":
    import pandera.polars as pa
    import polars as pl
else:
    import pandas as pd
    import pandera.pandas as pa


def column_checks(spec):
    """(column, nullable, unique, [checks]) contributed by one benchmark check."""
    kind, c, name = spec["kind"], spec.get("column"), spec["id"]
    if kind == "not_null":
        return c, False, False, []
    if kind == "unique":
        return c, True, True, []
    if kind == "range":
        lo, hi = spec.get("min"), spec.get("max")
        if lo is not None and hi is not None:
            check = pa.Check.in_range(lo, hi, name=name)
        else:
            check = pa.Check.ge(lo, name=name)
        return c, True, False, [check]
    if kind == "in_set":
        return c, True, False, [pa.Check.isin(spec["values"], name=name)]
    if kind == "regex_mostly" and spec["mostly"] == 1.0:
        return c, True, False, [pa.Check.str_matches(f"(?:{spec['regex']})$", name=name)]
    return c, True, False, [pa.Check(statistic(spec), name=name)]


def statistic(spec):
    """A custom check of one boolean on the column (pandas Series or polars PolarsData)."""
    kind = spec["kind"]
    lo, hi = spec.get("min"), spec.get("max")
    if backend == "polars":

        def f(data):
            s = data.lazyframe.select(pl.col(data.key)).collect().to_series()
            return _test(kind, spec, s, lo, hi)
    else:

        def f(s):
            return _test(kind, spec, s, lo, hi)

    return f


def _test(kind, spec, s, lo, hi):
    if kind == "completeness_min":
        return (len(s) - s.null_count() if backend == "polars" else s.notna().sum()) / len(s) >= lo
    if kind == "regex_mostly":
        if backend == "polars":
            matched = s.str.contains(f"^(?:{spec['regex']})$").fill_null(False).mean()
        else:
            matched = s.str.fullmatch(spec["regex"]).fillna(False).mean()
        return matched >= spec["mostly"]
    value = {
        "min_between": lambda: s.min(),
        "max_between": lambda: s.max(),
        "mean_between": lambda: s.mean(),
        "stddev_between": lambda: s.std(ddof=0) if backend == "polars" else s.std(ddof=0),
        "median_between": lambda: s.median(),
    }[kind]()
    return lo <= value <= hi


def run():
    columns, frame_checks = {}, []
    for spec in checks:
        if spec["kind"] == "rows_min":
            n = spec["min"]
            if backend == "polars":

                def enough(d, n=n):
                    return d.lazyframe.select(pl.len()).collect().item() >= n

                frame_checks.append(pa.Check(enough, name=spec["id"]))
            else:
                frame_checks.append(pa.Check(lambda df, n=n: len(df) >= n, name=spec["id"]))
            continue
        c, nullable, unique, extra = column_checks(spec)
        entry = columns.setdefault(c, {"nullable": True, "unique": False, "checks": [], "ids": {}})
        entry["nullable"] &= nullable
        entry["unique"] |= unique
        entry["checks"] += extra
        for check in extra:  # errors name a built-in check by its description
            entry["ids"][str(check.error or check.name)] = spec["id"]
        if not nullable:
            entry["ids"]["not_nullable"] = spec["id"]
        if unique:
            entry["ids"]["field_uniqueness"] = spec["id"]
    schema = pa.DataFrameSchema(
        {
            c: pa.Column(nullable=e["nullable"], unique=e["unique"], checks=e["checks"])
            for c, e in columns.items()
        },
        checks=frame_checks,
    )
    if backend == "polars":
        frame = pl.read_parquet(path) if fmt == "parquet" else pl.read_csv(path)
    else:
        frame = pd.read_parquet(path) if fmt == "parquet" else pd.read_csv(path)
    failed = set()
    try:
        schema.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as errors:
        failed = _failed(errors, columns)
    return {s["id"]: s["id"] not in failed for s in checks}, {}


def _failed(errors, columns):
    """Check ids of the failures, from the errors' summary of (column, check)."""
    failed = set()
    cases = errors.failure_cases
    if backend == "polars":
        rows = cases.select(["column", "check"]).unique().iter_rows()
    else:
        rows = cases[["column", "check"]].drop_duplicates().itertuples(index=False)
    for column, check in rows:
        check = str(check)
        ids = columns.get(column, {}).get("ids", {})
        if check in ids:
            failed.add(ids[check])
        else:
            failed.add(check.split("(")[0])
    return failed


report(run)
