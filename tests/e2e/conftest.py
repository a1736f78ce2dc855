"""The end-to-end sample, written once at collection so planted cases can parametrise tests.

`bvs sample` (seed 11, 3,000 ABNs) lists what it planted in `_sample/planted.json`; the
planted verification cases become one test each, named by the case id and the SPEC row it
implements. The `world` fixture copies this landing folder and runs the pipeline on it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

BVS = str(Path(sys.executable).with_name("bvs"))
SCALE = "3000"
SEED = "11"


def sample_landing(config: pytest.Config) -> Path:
    """The landing folder written by `bvs sample` for this session (written on first use)."""
    cached = config.stash.get(_SAMPLE, None)
    if cached is not None:
        return cached
    root = Path(tempfile.mkdtemp(prefix="bvs-e2e-sample-"))
    landing = root / "landing"
    result = subprocess.run(
        [BVS, "sample", "--out", str(landing), "--scale", SCALE, "--seed", SEED],
        env={**os.environ, "BVS_DATA_DIR": str(root), "CI": "true"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"bvs sample failed: {result.stdout}{result.stderr}")
    config.stash[_SAMPLE] = landing
    return landing


_SAMPLE = pytest.StashKey[Path]()


def planted(config: pytest.Config) -> dict:
    return json.loads((sample_landing(config) / "_sample" / "planted.json").read_text())


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "planted_case" not in metafunc.fixturenames:
        return
    cases = [
        case
        for case in planted(metafunc.config)["cases"]
        if case.get("check") or case.get("flags") or case.get("not_flags")
    ]
    metafunc.parametrize(
        "planted_case", cases, ids=[f"{case['id']} | {case['spec']}" for case in cases]
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    landing = config.stash.get(_SAMPLE, None)
    if landing is not None:
        shutil.rmtree(landing.parent, ignore_errors=True)


@pytest.fixture(scope="session")
def sample_dir(request: pytest.FixtureRequest) -> Path:
    """The session's sample landing folder (read-only: copy it before running on it)."""
    return sample_landing(request.config)
