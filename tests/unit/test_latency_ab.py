"""benchmarks/latency_ab.py: two commits timed in their own worktrees, on the same columns."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from benchmarks.latency_ab import ROOT, main

DEFAULT_INDEX = ROOT / "autovalidate" / "data" / "default-index"


def test_the_same_commit_twice_gives_the_same_suggestions_from_its_worktree(
    tmp_path, lake_mini, capsys
):
    work, out = tmp_path / "work", tmp_path / "out"
    args = ["HEAD", "HEAD", "--index", str(DEFAULT_INDEX), "--lake", str(lake_mini)]
    args += ["--rounds", "2", "--calls", "1", "--columns", "4"]
    try:
        assert main([*args, "--work", str(work), "--out", str(out)]) == 0
    finally:
        for tree in work.glob("*/"):
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT)
    report = json.loads((out / "latency_ab.json").read_text())
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert report["revisions"] == {"base": head, "head": head}
    assert report["rules_identical"] is True and report["max_fpr_difference"] == 0.0
    assert report["deterministic"] == {"base": True, "head": True}
    for role in ("base", "head"):
        assert len(report["least_ms"][role]) == report["columns"] == 4
        assert all(ms > 0 for ms in report["least_ms"][role])
        assert len(report["per_round_p95_ms"][role]) == 2
    # every worker timed the package of its own worktree, not this checkout's
    runs = [json.loads(p.read_text()) for p in sorted(work.glob("*-*.json"))]
    assert len(runs) == 4
    assert {Path(r["package"]).parents[1] for r in runs} == {work / head[:12]}
    assert "| base `" in (out / "latency_ab.md").read_text()


def test_an_unknown_revision_or_a_missing_index_is_a_usage_error(tmp_path, capsys):
    index = ["--index", str(DEFAULT_INDEX), "--work", str(tmp_path / "w")]
    assert main(["no-such-revision-xyz", *index, "--out", str(tmp_path)]) == 2
    assert "unknown revision 'no-such-revision-xyz'" in capsys.readouterr().err
    assert main(["HEAD", "--index", str(tmp_path / "none"), "--out", str(tmp_path)]) == 2
    assert "no index at" in capsys.readouterr().err
    assert not list(tmp_path.glob("latency_ab.*"))
