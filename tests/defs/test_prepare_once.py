"""The dbt manifest is parsed by one process at a time, and not again by one that waited
while another parsed it (pipelines/defs/transform/project.py, ``once``: what Dagster's
private ``run_with_concurrent_update_guard`` did)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from pipelines.defs.transform.project import once


def test_a_waiter_does_not_parse_again_and_a_later_caller_does(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text("old")
    time.sleep(0.01)  # the rewrite's mtime is newer than the file's
    parses: list[str] = []
    started = threading.Event()

    def slow_parse() -> None:
        started.set()
        time.sleep(0.5)
        manifest.write_text("new")
        parses.append("first")

    first = threading.Thread(target=once, args=(manifest, slow_parse))
    first.start()
    assert started.wait(5)
    once(manifest, lambda: parses.append("second"))  # waits for the first, then skips
    first.join()
    assert parses == ["first"] and manifest.read_text() == "new"
    once(manifest, lambda: parses.append("third"))  # nobody parsed while it waited
    assert parses == ["first", "third"]
