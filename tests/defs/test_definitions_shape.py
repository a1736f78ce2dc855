"""Declaring each source once (issue 22 item 4) changed no asset key, check, job selection
or dbt source edge: the code location holds the one recorded in definitions_shape.json.

Assets, checks and edges added since the recording are not compared (other work adds them,
and test_definitions.EXPECTED_KEYS lists the keys on purpose); everything recorded must
still be there, and each job must select exactly the recorded assets and checks among the
recorded ones.
"""

from __future__ import annotations

import json

from pipelines.definitions import defs
from tests.defs.definitions_shape import SHAPE_FILE, shape

RECORDED = json.loads(SHAPE_FILE.read_text())
NOW = shape(defs)
HINT = "if on purpose: .venv/bin/python -m tests.defs.definitions_shape --write"


def test_every_recorded_asset_and_check_is_still_defined() -> None:
    assert set(RECORDED["asset_keys"]) <= set(NOW["asset_keys"]), HINT
    assert set(RECORDED["checks"]) <= set(NOW["checks"]), HINT


def test_each_job_selects_what_it_selected() -> None:
    assert set(RECORDED["jobs"]) <= set(NOW["jobs"])
    keys, checks = set(RECORDED["asset_keys"]), set(RECORDED["checks"])
    for name, recorded in RECORDED["jobs"].items():
        now = NOW["jobs"][name]
        assert set(now["assets"]) & keys == set(recorded["assets"]), (name, HINT)
        assert set(now["checks"]) & checks == set(recorded["checks"]), (name, HINT)


def test_the_dbt_sources_join_the_same_python_assets() -> None:
    keys = set(RECORDED["asset_keys"])
    now = {edge for edge in NOW["edges_from_python_tables"] if set(edge.split(" -> ")) <= keys}
    assert now == set(RECORDED["edges_from_python_tables"]), HINT
