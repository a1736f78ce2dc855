"""`bvs ledger import` of a large file prints a summary, not every row (issue 36, item 4):
a 50,000-row file printed one 3.3 MB JSON line. The counts, the first rows to review and
the details file's path are printed; the file holds everything the import found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BVS = str(Path(sys.executable).with_name("bvs"))


def test_a_large_import_prints_a_summary_and_writes_the_details(tmp_path: Path) -> None:
    rows = ["Supplier Ref,ABN,Supplier Name"]
    rows += [f"S{i},{'12345678901' if i % 2 else ''},Widgets {i} Pty Ltd" for i in range(5_000)]
    rows += ["Total,,"]
    ledger = tmp_path / "suppliers.csv"
    ledger.write_text("\n".join(rows) + "\n")
    done = subprocess.run(
        [BVS, "ledger", "import", str(ledger), "--customer", "acme"],
        env={**os.environ, "BVS_DATA_DIR": str(tmp_path / "data"), "CI": "true"},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

    assert len(done.stdout) < 4_000 and done.stdout.count("\n") == 1
    summary = json.loads(done.stdout)
    assert (summary["rows"], summary["verified"], summary["resolved_by_name"]) == (5_000, 0, 0)
    assert summary["needs_review_count"] == 5_000
    assert [r["line"] for r in summary["needs_review"]] == [2, 3, 4, 5, 6]
    assert summary["ignored_count"] == 1 and summary["ignored"][0]["line"] == 5_002
    details = Path(summary["details"])
    assert details.parent == tmp_path / "data" / "ledgers" / "acme" / "_imports"
    assert str(details) in done.stderr and "5,000 to review" in done.stderr

    found = json.loads(details.read_text())
    assert len(found["needs_review"]) == 5_000 and found["needs_review"][-1]["line"] == 5_001
    assert found["ignored"] == summary["ignored"]
    assert {k: v for k, v in found.items() if k not in ("needs_review", "ignored")} == {
        k: v
        for k, v in summary.items()
        if k not in ("needs_review", "ignored", "needs_review_count", "ignored_count", "details")
    }
