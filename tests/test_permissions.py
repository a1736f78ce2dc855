"""Customer data is its owner's alone (issue 36, item 6): what `bvs` writes is 0600 in 0700
folders, whatever the caller's umask (pipelines/permissions.py)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

BVS = str(Path(sys.executable).with_name("bvs"))


def _shared(root: Path) -> list[str]:
    """Every file or folder under ``root`` that a group or other users can read or enter."""
    found = []
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if mode & 0o077:
            found.append(f"{path.relative_to(root.parent)} {mode:o}")
    return found


def _bvs(args: list[str], data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BVS, *args],
        env={**os.environ, "BVS_DATA_DIR": str(data), "CI": "true"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=lambda: os.umask(0o022),  # a login shell's usual umask
    )


def test_an_import_and_a_key_leave_nothing_readable_by_others(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ledger = tmp_path / "suppliers.csv"
    ledger.write_text("ABN,Supplier Name\n51824753556,Acme Pty Ltd\n,Nobody Widgets\n")
    imported = _bvs(["ledger", "import", str(ledger), "--customer", "acme"], data)
    assert imported.returncode == 0, imported.stderr
    ledger.write_text("ABN,Supplier Name\n51824753556,Acme Pty Ltd\n")  # a replaced file too
    assert _bvs(["ledger", "import", str(ledger), "--customer", "acme"], data).returncode == 0
    key = _bvs(["keys", "create", "--name", "me"], data)
    assert key.returncode == 0, key.stderr

    written = [p for p in data.rglob("*") if p.is_file()]
    assert any(p.suffix == ".csv" for p in written) and any("replaced" in p.parts for p in written)
    assert _shared(data) == []


def test_the_dagster_code_location_sets_the_umask() -> None:
    """The Dagster code location (pipelines/definitions.py) runs the nightly runs: its
    process creates owner-only files too."""
    code = "import os; os.umask(0o022); import pipelines.definitions; print(oct(os.umask(0o022)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.strip() == "0o77"
