"""benchmarks/exact_quantile.py: the exact quantile's cost beside the approximate one's."""

from __future__ import annotations

import json

from benchmarks.exact_quantile import METHODS, ROOT, main


def test_the_quick_run_measures_this_checkout_and_the_exact_value_is_numpys():
    main(["--quick"])
    out = ROOT / "benchmarks" / "work" / "quick-results"
    report = json.loads((out / "exact_quantile.json").read_text())
    assert report["rows"] == 100_000 and set(report["columns"]) == {"x", "k"}
    for found in report["columns"].values():
        for method in METHODS:
            run = found[method]
            # the measured package is this checkout's, not whatever the cwd puts first
            assert run["package"].startswith(str(ROOT))
            assert run["seconds"] > 0 and run["peak_bytes"] > 0
        assert found["has_exact_quantile"]["value"] == found["numpy"]
    assert "| `x` | 100,000 | `has_exact_quantile` |" in (out / "exact_quantile.md").read_text()
