"""The end-to-end sample, written once at collection so planted cases can parametrise tests.

`bvs sample` (seed 11, 3,000 ABNs) lists what it planted in `_sample/planted.json`; the
planted verification cases become one test each, named by the case id and the SPEC row it
implements. The `world` fixture copies this landing folder and runs the pipeline on it.
`make test` runs two workers, and one of them runs every test of this folder, on the one
pipeline world, while the other takes the rest of the suite (tests/conftest.py).
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

AS_OF = "2026-11-20"

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


@pytest.fixture(scope="session")
def pipeline_world(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> dict:
    """`bvs run` once on a copy of the sample: the data folder, its environment, the run."""
    root = tmp_path_factory.mktemp("e2e")
    data = root / "data"
    env = {
        **os.environ,
        "BVS_DATA_DIR": str(data),
        "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
        "DAGSTER_HOME": str(root / "dagster_home"),
        "CI": "true",
    }
    shutil.copytree(sample_dir, data / "landing")
    bvs = str(Path(sys.executable).with_name("bvs"))
    first = subprocess.run(
        [bvs, "run", "--as-of", AS_OF], env=env, capture_output=True, text=True, timeout=900
    )
    assert first.returncode == 0, first.stdout + first.stderr
    planted = json.loads((data / "landing" / "_sample" / "planted.json").read_text())
    return {"data": data, "env": env, "first": first, "planted": planted}
