"""`make run` a newcomer can read (issue 37, item 8): each step says one line and where its
log is; the output goes to the log; a failed step shows the log's tail and fails; VERBOSE=1
shows everything. The whole `make run` takes minutes, so its pieces are held here: the
Makefile's ``logged`` steps (through ``make sample``, the real target) and the short
summaries (pipelines/status.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from pipelines.status import ledger_lines, short_status_lines

ROOT = Path(__file__).resolve().parents[1]
SCREEN_LINES = 40  # the most `make run` may print


def _make(target: str, data: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VERBOSE", "BVS_WAREHOUSE", "MAKEFLAGS")}  # fmt: skip
    env["BVS_DATA_DIR"] = str(data)
    args = ["make", "-s", "--no-print-directory", "-C", str(ROOT), target]
    args += [f"{k}={v}" for k, v in variables.items()]
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)


def test_the_sample_step_says_one_line_and_its_counts_go_to_the_log(tmp_path: Path) -> None:
    done = _make("sample", tmp_path / "data", SCALE="500")
    assert done.returncode == 0, done.stderr
    log = tmp_path / "data" / "logs" / "make-sample.log"
    screen = (done.stdout + done.stderr).splitlines()
    assert screen == [f"writing sample data, scale 500 (log: {log})"]
    counts = log.read_text()
    assert "wrote sample landing data to" in counts and "  abr.records: " in counts
    assert len(counts.splitlines()) > SCREEN_LINES  # what used to fill the screen


def test_a_failed_step_shows_the_logs_tail_and_fails(tmp_path: Path) -> None:
    done = _make("sample", tmp_path / "data", SCALE="many")
    log = tmp_path / "data" / "logs" / "make-sample.log"
    assert done.returncode != 0
    assert (
        f"FAILED (2): writing sample data, scale many; the last 40 lines of {log}:" in done.stderr
    )
    assert "argument --scale: invalid int value: 'many'" in done.stderr  # the tail, on screen
    assert "invalid int value" in log.read_text()


def test_verbose_shows_everything_and_still_writes_the_log(tmp_path: Path) -> None:
    done = _make("sample", tmp_path / "data", SCALE="500", VERBOSE="1")
    assert done.returncode == 0, done.stderr
    assert "  abr.records: " in done.stdout
    assert "abr.records: " in (tmp_path / "data" / "logs" / "make-sample.log").read_text()


def _status(sources: list[dict[str, object]]) -> dict[str, object]:
    marts: dict[str, int | None] = {f"marts.match_{i}": 10 for i in range(20)}
    marts |= {"marts.entities": 20_226, "marts.verifications": 20_226, "marts.tiles": None}
    return {
        "warehouse": "/data/warehouse.duckdb",
        "sources": sources,
        "marts": marts,
        "snapshot": {"snapshot_id": "s1", "as_of": "2026-11-29", "path": "/data/serving/s1.duckdb"},
    }


def _source(name: str, status: str = "loaded", stale: bool = False) -> dict[str, object]:
    return {"source": name, "status": status, "stale": stale, "quarantined": 3,
            "extract_date": "2026-11-27" if status == "loaded" else None}  # fmt: skip


def test_the_run_summary_is_a_few_lines_and_names_the_sources_in_trouble() -> None:
    sources = [_source(f"s{i}") for i in range(25)]
    lines = short_status_lines(_status(sources), published=True)
    assert len(lines) <= 8
    assert "  sources: 25 of 25 loaded, extracts of 2026-11-27; 75 rows quarantined" in lines[1]
    assert "register matches: 200 rows" in "\n".join(lines)
    sources[3] = _source("gazette", "failed (previous data kept)")
    sources[4] = _source("abr", stale=True)
    lines = short_status_lines(_status(sources), published=False)
    assert "    gazette: failed (previous data kept)" in lines
    assert "    abr: loaded, STALE" in lines
    assert "23 of 25 loaded" not in lines[1] and "24 of 25 loaded" in lines[1]
    assert lines[-2].startswith("serving snapshot (current, not republished by this run)")


def test_a_ledger_runs_json_summary_is_one_line_in_words() -> None:
    summary = {"customer": "harbour-health", "ledger": "suppliers", "suppliers": 1240,
               "by_resolution": {"verified": 1224, "resolved_by_name": 3, "needs_review": 13},
               "by_risk_level": {"low": 758, "high": 473, "unverified": 9},
               "unverified": [{"line": 25, "reason": "x" * 2000}], "changes": 0, "alerts": 2}  # fmt: skip
    out = list(
        ledger_lines(["bvs ledger run: the full output goes to /x.log\n", json.dumps(summary)])
    )
    assert out == [
        "bvs ledger run: the full output goes to /x.log",
        "  harbour-health/suppliers: 1,240 suppliers, 1,224 verified, 13 to review;"
        " risk low 758, high 473, unverified 9; 0 changes, 2 alerts",
    ]
