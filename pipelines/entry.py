"""The ``bvs`` command's entry point (``pyproject.toml``), kept apart from ``pipelines.cli``
so that it decides before importing anything heavy.

``bvs ledger run`` goes to the warm server when ``BVS_DBT_SERVER`` names one
(``pipelines/dbt_server.py``): Dagster and dagster-dbt are already imported there, about 5 s
of a nightly run (docs/ledgers.md, "Speed"). Without a server, or with one of another
checkout, the command runs here. Every command then ends without the interpreter's teardown
(``pipelines.processes.exit_now``: 1.7 s of a command that imported Dagster).
"""

from __future__ import annotations

import sys


def main() -> None:
    from pipelines.dbt_server import PACKAGE, WARM_BVS_COMMANDS, hand_over
    from pipelines.processes import exit_now

    args = sys.argv[1:]
    code = None
    if tuple(args[:2]) in WARM_BVS_COMMANDS:
        code = hand_over("bvs", args, package=str(PACKAGE))
    if code is None:
        from pipelines.cli import main as run

        code = run()
    exit_now(code)
