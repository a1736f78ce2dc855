"""The dbt manifest and partial parse `bvs run` prepares (pipelines/dbt.py)."""

import os
from pathlib import Path

from pipelines.dbt import partial_parse_path, prepare_manifest
from pipelines.settings import DBT_PROJECT_DIR, get_settings

MODEL = DBT_PROJECT_DIR / "models" / "marts" / "core" / "entities.sql"


def test_a_project_file_only_touched_keeps_the_partial_parse_and_the_next_run_starts(
    tmp_path: Path,
) -> None:
    # a data folder of its own: its own profile, so its own partial parse
    settings = get_settings(data_dir=tmp_path)
    manifest = prepare_manifest(settings)
    partial = partial_parse_path(settings)
    assert manifest.exists() and partial.exists()

    # a checkout or a stash gives a file a new time and the same content: dbt finds nothing
    # to parse again and writes no partial parse (this used to fail the run's start)
    before = MODEL.stat()
    try:
        os.utime(MODEL)  # now: newer than the partial parse just written
        touched = MODEL.stat().st_mtime
        assert touched > partial.stat().st_mtime
        assert prepare_manifest(settings) == manifest
        assert partial.stat().st_mtime >= touched  # marked current: no parse next time
    finally:
        os.utime(MODEL, ns=(before.st_atime_ns, before.st_mtime_ns))
        partial.unlink(missing_ok=True)
