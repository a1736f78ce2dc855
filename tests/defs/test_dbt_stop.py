"""The weekly dbt build starts dbt before the unchanged models' outputs are yielded
(pipelines/defs/transform/dbt.py); a run stopped meanwhile stops dbt too (``_stop``)."""

import signal
import subprocess
import sys
import time

from pipelines.defs.transform.dbt import _stop

# A child that says it is ready, then sleeps; with IGNORE it outlives SIGINT.
CHILD = """
import signal, sys, time
if sys.argv[1] == "IGNORE":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(60)
"""


def _child(mode: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD, mode], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def test_a_command_is_interrupted_as_dbt_expects() -> None:
    process = _child("DEFAULT")
    started = time.monotonic()
    _stop(process, timeout=30)
    # ended by the interrupt (an uncaught KeyboardInterrupt ends Python by SIGINT), not a kill
    assert process.returncode == -signal.SIGINT
    assert time.monotonic() - started < 10


def test_a_command_that_ignores_the_interrupt_is_killed_after_the_timeout() -> None:
    process = _child("IGNORE")
    _stop(process, timeout=0.5)
    assert process.returncode == -9


def test_a_command_that_ended_is_left_as_it_was() -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    _stop(process)
    assert process.returncode == 0
