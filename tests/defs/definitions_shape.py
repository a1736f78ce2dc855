"""The shape of the code location that a refactoring must keep: every asset key, every
check, each job's selection (assets and checks) and the edges out of the tables the Python
assets write (``raw``, ``meta``, ``live``: the dbt sources' keys).

``definitions_shape.json`` holds it as it was on main before the sources were declared once
(issue 22 item 4; recorded from main at 82c805c, which the branch then matched exactly).
A deliberate change (a renamed or removed asset, check or job) rewrites it:

    .venv/bin/python -m tests.defs.definitions_shape --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import dagster as dg

SHAPE_FILE = Path(__file__).with_name("definitions_shape.json")
PYTHON_WRITTEN = ("raw", "meta", "live")


def shape(defs: dg.Definitions) -> dict[str, Any]:
    graph = defs.resolve_asset_graph()
    keys = graph.get_all_asset_keys()
    jobs = {}
    for job in defs.get_repository_def().get_all_jobs():
        if job.name.startswith("__"):  # Dagster's implicit asset job
            continue
        layer = job.asset_layer
        jobs[job.name] = {
            "assets": sorted(k.to_user_string() for k in layer.selected_asset_keys),
            "checks": sorted(c.to_user_string() for c in layer.asset_graph.asset_check_keys),
        }
    edges = sorted(
        f"{parent.to_user_string()} -> {key.to_user_string()}"
        for key in keys
        for parent in graph.get(key).parent_keys
        if parent.path[0] in PYTHON_WRITTEN
    )
    return {
        "asset_keys": sorted(k.to_user_string() for k in keys),
        "checks": sorted(c.to_user_string() for c in graph.asset_check_keys),
        "jobs": jobs,
        "edges_from_python_tables": edges,
    }


if __name__ == "__main__":
    from pipelines.definitions import defs

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.defs.definitions_shape --write")
    SHAPE_FILE.write_text(json.dumps(shape(defs), indent=1, sort_keys=True) + "\n")
    print(f"wrote {SHAPE_FILE}")
