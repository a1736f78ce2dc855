"""The ``bvs`` command's entry point (``pyproject.toml``): the command line of
``pipelines.cli``, ended without the interpreter's teardown (``pipelines.processes.exit_now``:
1.7 s of a command that imported Dagster)."""

from __future__ import annotations


def main() -> None:
    from pipelines.cli import main as run
    from pipelines.processes import exit_now

    exit_now(run())
