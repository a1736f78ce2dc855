"""The `bvs` command as a shell user meets it, without a pipeline run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BVS = str(Path(sys.executable).with_name("bvs"))


def test_a_command_whose_reader_has_gone_ends_without_a_traceback(tmp_path: Path) -> None:
    """`bvs status | head -1`: the reader closes the pipe; bvs ends as a pipe writer does
    (128 + SIGPIPE), with nothing on stderr."""
    proc = subprocess.Popen(
        [BVS, "status"],
        env={**os.environ, "BVS_DATA_DIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before bvs writes (it takes most of a second to start)
    errors = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, errors
    assert errors == ""


def test_sample_as_of_dates_the_extracts_two_days_before(tmp_path: Path) -> None:
    """`bvs sample --as-of D` writes a sample whose extracts are of D - 2 days and whose
    planted cases are built around D; `--as-of` with `--extract-date` is refused."""
    out = tmp_path / "landing"
    env = {**os.environ, "BVS_DATA_DIR": str(tmp_path), "CI": "true"}
    done = subprocess.run(
        [BVS, "sample", "--out", str(out), "--scale", "100", "--as-of", "2027-03-01"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    planted = json.loads((out / "_sample" / "planted.json").read_text())
    assert (planted["extract_date"], planted["as_of"]) == ("2027-02-27", "2027-03-01")
    assert "extracts of 2027-02-27, as of 2027-03-01" in done.stdout
    both = subprocess.run(
        [BVS, "sample", "--out", str(tmp_path / "x"), "--as-of", "today", "--extract-date", "2027-01-01"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert both.returncode == 2
    assert "not both" in both.stderr


def _bvs(args: list[str], data: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BVS_DATA_DIR": str(data), "CI": "true"}
    return subprocess.run(
        [BVS, *args], env=env, capture_output=True, text=True, timeout=300, check=False, **kwargs
    )  # type: ignore[call-overload]


def test_a_key_for_a_customer_nobody_knows_is_refused_and_list_shows_the_customer(
    tmp_path: Path,
) -> None:
    """Issue 36, item 4: `bvs keys create --customer acmee` (a typing error) used to succeed
    and bind a key to nothing; it is refused (exit 2) naming the known customers, and `bvs
    keys list` shows each key's customer."""
    data = tmp_path / "data"
    for customer in ("acme", "harbour-health"):
        folder = data / "landing" / "ledgers" / customer
        folder.mkdir(parents=True)
        (folder / "suppliers.csv").write_text("ABN,Supplier Name\n51824753556,Acme Pty Ltd\n")

    refused = _bvs(["keys", "create", "--name", "acme-robot", "--plan", "enterprise",
                    "--customer", "acmee"], data)  # fmt: skip
    assert refused.returncode == 2 and refused.stdout == ""
    message = json.loads(refused.stderr)["message"]
    assert "no customer 'acmee'" in message
    assert "acme, harbour-health" in message and "Did you mean 'acme'?" in message

    made = _bvs(["keys", "create", "--name", "acme-robot", "--plan", "enterprise",
                 "--customer", "acme"], data)  # fmt: skip
    assert made.returncode == 0 and made.stdout.startswith("bvs_"), made.stderr
    assert _bvs(["keys", "create", "--name", "me"], data).returncode == 0

    listed = _bvs(["keys", "list"], data)
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split() == [
        "KEY",
        "ID",
        "NAME",
        "OWNER",
        "PLAN",
        "CUSTOMER",
        "STATE",
        "TODAY",
        "TOTAL",
    ]
    cells = {row.split()[1]: row.split() for row in rows}
    assert cells["acme-robot"][4] == "acme" and cells["me"][4] == "-"
