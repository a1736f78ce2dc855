"""The `bvs` command as a shell user meets it, without a pipeline run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BVS = str(Path(sys.executable).with_name("bvs"))


def test_a_command_whose_reader_has_gone_ends_without_a_traceback(tmp_path: Path) -> None:
    """`bvs status | head -1`: the reader closes the pipe; bvs ends as a pipe writer does
    (128 + SIGPIPE), with nothing on stderr."""
    proc = subprocess.Popen(
        [BVS, "status"],
        env={**os.environ, "BVS_DATA_DIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before bvs writes (it takes most of a second to start)
    errors = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, errors
    assert errors == ""


def test_sample_as_of_dates_the_extracts_two_days_before(tmp_path: Path) -> None:
    """`bvs sample --as-of D` writes a sample whose extracts are of D - 2 days and whose
    planted cases are built around D; `--as-of` with `--extract-date` is refused."""
    out = tmp_path / "landing"
    env = {**os.environ, "BVS_DATA_DIR": str(tmp_path), "CI": "true"}
    done = subprocess.run(
        [BVS, "sample", "--out", str(out), "--scale", "100", "--as-of", "2027-03-01"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    planted = json.loads((out / "_sample" / "planted.json").read_text())
    assert (planted["extract_date"], planted["as_of"]) == ("2027-02-27", "2027-03-01")
    assert "extracts of 2027-02-27, as of 2027-03-01" in done.stdout
    both = subprocess.run(
        [BVS, "sample", "--out", str(tmp_path / "x"), "--as-of", "today", "--extract-date", "2027-01-01"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert both.returncode == 2
    assert "not both" in both.stderr
