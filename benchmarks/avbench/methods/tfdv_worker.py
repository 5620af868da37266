"""Run inside the TFDV venv: statistics and schema inference for many training columns at once.

Usage: ``python tfdv_worker.py TRAIN.json DOMAINS.json MAX_STRING_DOMAIN_SIZE``.
``TRAIN.json`` maps a feature name to its training values; ``DOMAINS.json``
gets, per feature, the values its inferred schema admits (a ``StringDomain``,
or a ``BoolDomain``'s true/false strings) or ``null`` where TFDV inferred no
domain.  Columns of different lengths share one
DataFrame, padded with missing values (TFDV counts a missing value as absent,
not as a value).  Only the standard library, pandas and TFDV are imported.
"""

import json
import sys


def main() -> None:
    """Read the columns, run TFDV once, write the string domains."""
    import pandas as pd
    import tensorflow_data_validation as tfdv

    train_path, out_path, max_size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(train_path) as f:
        columns = json.load(f)
    frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()})
    stats = tfdv.generate_statistics_from_dataframe(frame)
    schema = tfdv.infer_schema(stats, max_string_domain_size=max_size)
    out: dict[str, list[str] | None] = {}
    for name in columns:
        feature = tfdv.get_feature(schema, name)
        if feature.HasField("bool_domain"):  # strings "true"/"false": values outside fail
            b = feature.bool_domain
            out[name] = [v for v in (b.true_value, b.false_value) if v]
        elif feature.HasField("domain"):
            out[name] = list(tfdv.get_domain(schema, name).value)
        elif feature.HasField("string_domain"):
            out[name] = list(feature.string_domain.value)
        else:
            out[name] = None
    with open(out_path, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
