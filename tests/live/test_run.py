"""`bvs run` with the live checks on, against the loopback providers of conftest.py, where some
suppliers' domains make a provider answer oddly (issue 35 item 1): RDAP answering a list or
`events` as an object, certificate transparency answering `[1, "x", null]`, a Retry-After of
999999999999, and truncated DNS answers whose TCP retry closes early, answers another
question or is malformed. The run publishes its snapshot and each of those suppliers' tiles
says why it is N/A; the other suppliers are checked as usual.

Two real pipeline runs on a small sample (the planted cases' ABNs, a ledger of their own):
the slowest test of this folder, about two minutes.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines.serving.verify import verify
from pipelines.settings import get_settings
from pipelines.warehouse.snapshot import current_snapshot
from tests.live.conftest import LiveWorld
from tests.live.servers import reply, rr
from tests.live.test_dns import A_10, tcp_reply
from tests.live.test_pipeline import live_env

BVS = str(Path(sys.executable).with_name("bvs"))
AS_OF = "2026-11-20"  # the fixed sample's as-of date

# domain -> (the tile that says why, words of its reason; for certificate transparency, the
# domain tile's detail)
ODD = {
    "rdaplist.com.au": ("domain", "the RDAP answer is a list, not an object"),
    "rdapevents.com.au": ("domain", "'events' is an object, not a list"),
    "ctodd.com.au": ("certificate_transparency", "is a number, not an object"),
    "tcpeof.crafted.test": ("email", "EOFError"),
    "tcpotherid.crafted.test": ("email", "an answer to another question"),
    "tcpjunk.crafted.test": ("email", "malformed answer"),
}
CONTROL = "good.com.au"
# A Retry-After of 999999999999 from the RDAP server rate limits that server (every .com.au
# domain of the loopback world) for the hour the limit is believed: the second run's supplier,
# so that the first run's odd answers are read, not passed over.
LATER = ("rdaphuge.com.au", "domain", "rate limiting")

# truncated UDP answers (TC) whose TCP retry fails three ways
TCP_RETRIES = {
    "tcpeof.crafted.test": lambda q: struct.pack("!H", 200) + b"\x00" * 20,
    "tcpotherid.crafted.test": tcp_reply(
        lambda q: reply(
            q, rr(b"\xc0\x0c", "A", A_10), qid=(int.from_bytes(q[:2], "big") + 1) % 65536
        )
    ),
    "tcpjunk.crafted.test": tcp_reply(lambda q: reply(q, rr(b"\xc0\x0c", "A", A_10), tail=b"junk")),
}


@pytest.fixture
def crafted_dns(live_world: LiveWorld) -> Iterator[None]:
    for name, tcp in TCP_RETRIES.items():
        live_world.dns.crafted[(name, "A")] = lambda q: reply(q, tc=True)
        live_world.dns.crafted_tcp[(name, "A")] = tcp
    yield
    for name in TCP_RETRIES:
        live_world.dns.crafted.pop((name, "A"), None)
        live_world.dns.crafted_tcp.pop((name, "A"), None)


def _sample(landing: Path) -> list[str]:
    """A small sample's landing folder with one ledger: a supplier per odd domain and one
    control, each the ABN of a planted company. Returns the ABNs in that order."""
    done = subprocess.run([BVS, "sample", "--out", str(landing), "--scale", "300", "--seed", "5"],
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    import json

    cases = json.loads((landing / "_sample" / "planted.json").read_text())["cases"]
    companies = [c for c in cases if c.get("acn") and c.get("in_abr", True)]
    abns = [c["abn"] for c in companies[: len(ODD) + 1]]
    shutil.rmtree(landing / "ledgers")
    (landing / "ledgers" / "odd-co").mkdir(parents=True)
    lines = ["supplier_ref,abn,supplier_name,domain,email,state,postcode"]
    for i, (abn, domain) in enumerate(zip(abns, [*ODD, CONTROL], strict=True)):
        lines.append(f"S{i},{abn},Supplier {i} Pty Ltd,{domain},accounts@{domain},QLD,4000")
    (landing / "ledgers" / "odd-co" / "suppliers.csv").write_text("\n".join(lines) + "\n")
    abn = companies[len(ODD) + 1]["abn"]
    return [*abns, abn]


@pytest.mark.slow
def test_bvs_run_publishes_when_providers_answer_oddly_and_says_why(
    tmp_path: Path, live_world: LiveWorld, crafted_dns: None
) -> None:
    data = tmp_path / "data"
    *abns, later_abn = _sample(data / "landing")
    env = {
        **os.environ,
        **live_env(live_world, data),
        "BVS_WAREHOUSE": str(data / "warehouse.duckdb"),
        "DAGSTER_HOME": str(tmp_path / "dagster_home"),
        "BVS_LIVE_DNS_TIMEOUT": "2",
        "CI": "true",
    }
    done = subprocess.run([BVS, "run", "--as-of", AS_OF], env=env, capture_output=True,
                          text=True, timeout=900, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    snapshot = current_snapshot(get_settings(data_dir=data))
    assert snapshot is not None, done.stdout
    with duckdb.connect(str(snapshot.path), read_only=True) as con:
        answers = {abn: verify(con, abn, as_of=dt.date.fromisoformat(AS_OF)) for abn in abns}
    for abn, (domain, (check, words)) in zip(abns, ODD.items(), strict=False):
        tiles = answers[abn]["checks"]
        if check == "certificate_transparency":
            detail = tiles["domain"]["detail"] or {}
            assert words in str(detail.get("certificate_transparency")), (domain, detail)
        else:
            tile = tiles[check]
            assert tile["status"] == "N/A" and words in tile["reason"], (domain, tile["reason"])
    control = answers[abns[-1]]["checks"]
    assert control["web_presence"]["status"] == "PASS", control["web_presence"]["reason"]
    assert control["domain"]["status"] != "N/A", control["domain"]["reason"]

    # a supplier whose registry answers 429 with a Retry-After past any date: the next run
    # publishes too, and its domain tile says the registry is rate limiting
    domain, check, words = LATER
    with (data / "landing" / "ledgers" / "odd-co" / "suppliers.csv").open("a") as ledger:
        ledger.write(f"S9,{later_abn},Supplier 9 Pty Ltd,{domain},accounts@{domain},QLD,4000\n")
    again = subprocess.run([BVS, "run", "--as-of", AS_OF], env=env, capture_output=True,
                           text=True, timeout=900, check=False)  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    newer = current_snapshot(get_settings(data_dir=data))
    assert newer is not None and newer.path != snapshot.path
    with duckdb.connect(str(newer.path), read_only=True) as con:
        tile = verify(con, later_abn, as_of=dt.date.fromisoformat(AS_OF))["checks"][check]
    assert tile["status"] == "N/A" and words in tile["reason"], (domain, tile["reason"])
