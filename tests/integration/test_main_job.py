"""The README's first command, examples/main_job.sh, with its output to a file (issue 31).

On lake-mini instead of the full lake (minutes, not a quarter of an hour), and
with its output going to a file as in CI, `nohup` or `| tee`: the index build
says how far it is in progress lines, and the dirty batch fails for the reason
the README gives, its zip typos.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.spark


def test_main_job_to_a_file_shows_progress_and_fails_the_dirty_zips(lake_mini, tmp_path):
    log = tmp_path / "main_job.log"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "LAKE": str(lake_mini),
        "INDEX": str(tmp_path / "lake-index"),
        "SUITE": str(tmp_path / "hospital-zip.json"),
        "COLUMNS": "100",
    }
    with log.open("w") as out:
        res = subprocess.run(
            ["bash", "examples/main_job.sh"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=900,
        )
    text = log.read_text()
    assert res.returncode == 0, text[-3000:]
    progress = re.findall(r"^\[ *\d+\.\d s\] (.+)$", text, flags=re.M)
    assert progress[0].startswith("starting Spark (its log: "), text
    assert any(re.fullmatch(r"enumerate patterns: \d+/\d+ tasks", p) for p in progress), text
    assert re.search(r"^built .+ after \d+\.\d s starting Spark$", text, flags=re.M), text
    assert "status: Success" in text  # the clean batch
    failure = re.search(
        r"^FAILED pattern\('ZipCode', (.+?)\): 'ZipCode': failed: (.+)$", text, re.M
    )
    assert failure, text
    assert re.match(r"3\.00% non-conforming vs 0\.00% in training \(fisher p=", failure.group(2))
    assert "non-conforming examples: 'x5957'" in text and "status: Error" in text
    assert text.rstrip().endswith(
        "main job done: the dirty batch failed its ZipCode pattern (exit 1 from validate)"
    )
