"""The scale-lake generator (benchmarks/scale_lake.py) on lake-mini: seeded, schema, shapes."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from benchmarks.scale_lake import ColumnPerturbation, generate, iter_rows

FACTOR = 3


def _shape(value: str) -> str:
    """Character classes: digit, hex/other letter by case; any other character is itself."""
    out = []
    for ch in value:
        if ch.isascii() and ch.isdigit():
            out.append("9")
        elif ch.isascii() and ch.isalpha():
            hexletter = ch.lower() in "abcdef"
            out.append(("H" if hexletter else "A") if ch.isupper() else ("h" if hexletter else "a"))
        else:
            out.append(ch)
    return "".join(out)


@pytest.fixture(scope="module")
def scaled(lake_mini, tmp_path_factory):
    root = tmp_path_factory.mktemp("scale")
    first = generate(lake_mini, FACTOR, root / "a", seed=7, max_file_mb=4)
    again = generate(lake_mini, FACTOR, root / "b", seed=7, max_file_mb=4)
    other = generate(lake_mini, 2, root / "c", seed=8)
    return root, first, again, other


def test_same_seed_same_lake_other_seed_other_values(scaled):
    root, first, again, _ = scaled
    assert first["files"] == again["files"]
    for name in first["files"]:
        assert pq.read_table(root / "a" / name).equals(pq.read_table(root / "b" / name))
    a = {(r["table_id"], r["column_position"]): r["values"] for r in iter_rows(root / "a")}
    c = {(r["table_id"], r["column_position"]): r["values"] for r in iter_rows(root / "c")}
    shared = [k for k in c if ":scale1/" in k[0]]
    assert shared and any(a[k] != c[k] for k in shared)


def test_schema_layout_and_size_factor(scaled, lake_mini):
    root, first, _, _ = scaled
    base_files = sorted(lake_mini.glob("*.parquet"))
    schema = pq.read_schema(base_files[0])
    files = sorted((root / "a").glob("*.parquet"))
    assert [f.name for f in files] == first["files"]
    assert len(files) > 1  # bounded files: 4 MB of Arrow data each
    for f in files:
        assert f.name.startswith("lake-mini-") and pq.read_schema(f).equals(schema)
    base_rows = sum(pq.read_metadata(f).num_rows for f in base_files)
    rows = sum(pq.read_metadata(f).num_rows for f in files)
    assert rows == FACTOR * base_rows == first["columns"]
    assert first["values_stored"] == FACTOR * first["base_values_stored"]
    ids = [(r["table_id"], r["column_position"]) for r in iter_rows(root / "a")]
    assert len(set(ids)) == len(ids)


def test_perturbed_values_keep_their_shape_and_lake_invariants(scaled, lake_mini):
    root, *_ = scaled
    base = {(r["table_id"], r["column_position"]): r for r in iter_rows(lake_mini)}
    changed = total = 0
    for row in iter_rows(root / "a"):
        source, rest = row["table_id"].split(":", 1)
        if not rest.startswith("scale"):
            assert row == base[(row["table_id"], row["column_position"])]  # replica 0: as is
            continue
        original = base[(f"{source}:{rest.split('/', 1)[1]}", row["column_position"])]
        for key in ("source", "column_name", "row_count", "column_position"):
            assert row[key] == original[key]
        assert len(row["values"]) == len(original["values"]) == min(row["row_count"], 1000)
        for new, old in zip(row["values"], original["values"], strict=True):
            assert (new is None) == (old is None)
            if old is not None:
                total += 1
                changed += new != old
                assert _shape(new) == _shape(old), (old, new)
        assert len(set(row["values"])) <= len(set(original["values"]))
    assert changed > 0.3 * total  # constants vary; words and punctuation stay


def test_dates_shift_and_ids_keep_their_classes():
    p = ColumnPerturbation(12345)
    shifted = p("2019-12-31T08:15:00Z")
    assert shifted is not None and shifted.endswith("T08:15:00Z")
    assert shifted != "2019-12-31T08:15:00Z"
    assert p("2019-12-31T08:15:00Z") == shifted  # a function of the value
    guid = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    assert _shape(p(guid) or "") == _shape(guid)
    assert p("Berlin") == "Berlin" and p(None) is None
    assert p("0042") is not None and p("0042").startswith("00")
