"""benchmarks/contained_in.py: a suite's is_contained_in against a hand-written query."""

from __future__ import annotations

import json

from benchmarks.contained_in import ROOT, main


def test_the_quick_run_measures_this_checkout_and_both_methods_agree(capsys):
    main(["--quick"])
    out = ROOT / "benchmarks" / "work" / "quick-results"
    report = json.loads((out / "contained_in.json").read_text())
    assert [r["allowed_values"] for r in report["rows"]] == [1_000, 10_000]
    for row in report["rows"]:
        suite, hand = row["suite"], row["hand_written"]
        # the measured package is this checkout's, not whatever the cwd puts first
        assert suite["package"].startswith(str(ROOT))
        # membership in C0000000..C0000999 of codes drawn from 0..2,000,000
        assert 0 < suite["share"] == hand["share"] < 0.01
        assert suite["seconds"] > 0 and suite["peak_bytes"] > 0
        assert "suite_on_spark" not in row
    assert "| 10,000 |" in (out / "contained_in.md").read_text()
