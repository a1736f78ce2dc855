"""Members only some answers carry, held to the response models: what
pipelines/serving/live.py adds to a verify answer when ``cache=false`` checks the live tiles
again (the answers with every other member are held over HTTP in
tests/e2e/test_api_conformance.py)."""

from __future__ import annotations

from pipelines.api import models
from pipelines.live.tiles import WarnClusterRule, warn_cluster


def test_the_warn_cluster_evidence_a_live_refresh_adds_is_declared() -> None:
    rule = WarnClusterRule.from_row(2, "email,web_presence")
    tiles = {
        "domain": ("N/A", "No domain found => N/A"),
        "web_presence": ("FAIL", "No site found => FAIL"),
        "address": ("WARN", "x"),
        "phone": ("WARN", "y"),
    }
    evidence = warn_cluster(tiles, rule)
    assert evidence is not None
    risk = {"score": 70.0, "level": "high", "flags": ["WARN_CLUSTER"], "identity_failures": []}
    parsed = models.Risk.model_validate({**risk, "warn_cluster": evidence})
    assert parsed.warn_cluster is not None and parsed.warn_cluster.warn_count == 2
    assert "warn_cluster" in models.Risk.model_json_schema()["properties"]


def test_a_live_tile_carries_when_it_was_checked() -> None:
    tile = {
        "status": "FAIL", "reason": "r", "detail": None, "sources": [], "weight": 4,
        "checked_live_at": "2026-11-22T03:15:00Z",
    }  # fmt: skip
    assert models.Tile.model_validate(tile).checked_live_at == "2026-11-22T03:15:00Z"
