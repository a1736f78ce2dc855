"""Declaring each source once (issue 22 item 4) changed no asset key, check, job selection
or dbt source edge: the code location is the one recorded in definitions_shape.json."""

from __future__ import annotations

import json

from pipelines.definitions import defs
from tests.defs.definitions_shape import SHAPE_FILE, shape


def test_definitions_keep_their_shape() -> None:
    expected = json.loads(SHAPE_FILE.read_text())
    actual = shape(defs)
    for part in expected:
        assert actual[part] == expected[part], (
            f"{part} changed; if on purpose: .venv/bin/python -m tests.defs.definitions_shape --write"
        )
