"""The dbt the project runs: this environment's own, and ``bvs-dbt``, the ``dbt`` Dagster
starts (``DbtCliResource``), which dies with the run that started it.

``bvs-dbt ARGS`` asks the kernel to stop it when its parent dies
(``pipelines.processes.die_with_parent``), then becomes this environment's ``dbt ARGS``
(``exec``): the same process, output, artifacts and exit code as ``dbt`` itself, so a run
killed outright leaves no dbt writing the warehouse. It imports only the standard library
and ``pipelines.processes`` (it starts in about 30 ms).

Each dbt command pays dbt's own start (importing dbt-core and the DuckDB adapter, about 2
to 4 s of CPU): a warm dbt that forked each command from a loaded process was measured
against it and removed (docs/decisions/dbt-server-and-versions.md).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path


def dbt_executable(name: str = "dbt") -> str:
    """This environment's ``name`` (``dbt``, or ``bvs-dbt``), else its ``dbt``.

    The one place the project finds dbt. It looks beside the running Python's environment
    (``sys.prefix``; ``sys.executable`` may be a resolved symlink out of it), not on
    ``PATH``, so ``.venv/bin/dagster dev`` from a shell that never activated the
    environment runs this environment's dbt; outside an environment, the ``dbt`` on PATH.
    """
    for candidate in dict.fromkeys((name, "dbt")):
        path = Path(sys.prefix) / "bin" / candidate
        if path.exists():
            return str(path)
    return shutil.which("dbt") or "dbt"


def main(argv: Sequence[str] | None = None) -> int:
    """``bvs-dbt ARGS``: ``dbt ARGS``, tied to the process that started it (SIGTERM when
    it dies, which the exec'd dbt inherits)."""
    from pipelines.processes import die_with_parent

    die_with_parent(signal.SIGTERM)
    args = list(sys.argv[1:] if argv is None else argv)
    dbt = dbt_executable()
    os.execv(dbt, [dbt, *args])  # noqa: S606  (this environment's dbt, the caller's arguments)
    return 1  # not reached
