"""A provider's odd answer is the tile's N/A with the reason, never an error: RDAP that
answers a list, ``events`` that is an object, a date that is no date, certificate
transparency answering ``[1, "x", null]``, a Retry-After of 999999999999 seconds or of the
year 2099, a scam rating that is not a number — against the servers of conftest.py."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pipelines.live.checker import LiveChecker
from tests.live.conftest import LiveWorld
from tests.live.test_tiles import tiles_for

HOUR = dt.timedelta(hours=1)

ODD = [
    ("rdaplist.com.au", "domain", "Not run: the RDAP lookup failed (the RDAP answer is a list, not an object) => N/A"),
    ("rdapevents.com.au", "domain", "Not run: the RDAP lookup failed ('events' is an object, not a list) => N/A"),
    ("rdapdate.com.au", "domain", "Not run: the RDAP lookup failed (the registration date 'last Tuesday' is not a date) => N/A"),
    ("scamodd.com.au", "trust", "Not run: the scam rating failed (the scam rating's 'score' is a string, not a number); clean on all blocklists (PASS needs the scam rating too) => N/A"),
]  # fmt: skip


@pytest.mark.parametrize(("domain", "check", "reason"), ODD, ids=[o[0] for o in ODD])
def test_an_odd_answer_is_the_tiles_not_run_with_the_reason(
    make_checker: Callable[..., LiveChecker], domain: str, check: str, reason: str
) -> None:
    tiles = tiles_for(make_checker(), domain=domain)
    assert (tiles[check].status, tiles[check].reason) == ("N/A", reason)
    # the other tiles are checked as usual
    assert tiles["web_presence"].status == "PASS" and tiles["email"].status == "PASS"


def test_certificate_search_answering_numbers_and_nulls_is_reported_in_the_detail(
    make_checker: Callable[..., LiveChecker],
) -> None:
    t = tiles_for(make_checker(), domain="ctodd.com.au")["domain"]
    assert t.status == "PASS"  # certificate transparency only corroborates the age
    assert t.detail["certificate_transparency"] == {
        "not_run": "the certificate search's answer[0] is a number, not an object"
    }


@pytest.mark.parametrize("domain", ["rdaphuge.com.au", "rdap2099.com.au"])
def test_a_retry_after_of_years_is_believed_for_an_hour_at_most(
    make_checker: Callable[..., LiveChecker], domain: str
) -> None:
    """Retry-After: 999999999999 (seconds) and Wed, 21 Oct 2099: the tile's countdown ends
    within the hour, and a restarted checker (the same cache) holds no longer."""
    checker = make_checker()
    t = tiles_for(checker, domain=domain)["domain"]
    assert t.status == "N/A" and t.rate_limited is not None
    retry_at = dt.datetime.fromisoformat(t.rate_limited.replace("Z", "+00:00"))
    assert retry_at <= dt.datetime.now(dt.UTC) + HOUR
    again = tiles_for(make_checker(), domain=domain, abn="53004085616")["domain"]
    assert again.rate_limited is not None
    assert dt.datetime.fromisoformat(again.rate_limited.replace("Z", "+00:00")) <= retry_at


def test_bvs_live_check_reports_odd_answers_instead_of_a_traceback(
    tmp_path: Path, live_world: LiveWorld, make_checker: Callable[..., LiveChecker]
) -> None:
    checker = make_checker()
    found = {d: checker.check_domain(d) for d in ("rdapevents.com.au", "rdaphuge.com.au", "ctodd.com.au")}  # fmt: skip
    assert (
        found["rdapevents.com.au"]["rdap"]["not_run"] == "rdap: 'events' is an object, not a list"
    )
    assert found["rdaphuge.com.au"]["rdap"]["not_run"] == "rdap: rate limited"
    assert found["ctodd.com.au"]["certificate_transparency"]["not_run"].startswith("ct: the certificate search's answer[0]")  # fmt: skip
    assert all(f["web"]["live"] for f in found.values())
    # the command itself, as a person debugging a tile runs it
    from tests.live.test_pipeline import live_env

    env = {**os.environ, **live_env(live_world, tmp_path)}
    done = subprocess.run([str(Path(sys.executable).parent / "bvs"), "live-check", "rdaplist.com.au"],
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rdap"]["not_run"] == "rdap: the RDAP answer is a list, not an object"  # fmt: skip
