"""The as-of date ("today" for every age and recency rule): where dbt takes it from, and that
a new date does not make dbt parse the project again (macros/as_of_date.sql)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

from test_dbt_build import run_dbt

INLINE = ("--inline", "select {{ bvs.as_of_date() }} as as_of")


def _compiled(work: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = run_dbt("compile", work / "missing.duckdb", work, *INLINE, *args, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _parse_log(work: Path) -> str:
    """What dbt said about parsing in its last command."""
    log = (work / "logs" / "dbt.log").read_text()
    last = log[log.rindex("Running with dbt=") :]
    return "\n".join(line for line in last.splitlines() if "pars" in line.lower())


def test_the_as_of_date_comes_from_the_var_then_the_environment_then_brisbane_today(
    tmp_path: Path,
) -> None:
    env = {"BVS_AS_OF": ""}
    today = dt.datetime.now(ZoneInfo("Australia/Brisbane")).date()
    assert f"cast('{today.isoformat()}' as date)" in _compiled(tmp_path, env=env)

    env = {"BVS_AS_OF": "2026-01-02"}
    assert "cast('2026-01-02' as date)" in _compiled(tmp_path, env=env)
    # a new date in the environment keeps the parse (the daily run's case)
    env = {"BVS_AS_OF": "2026-01-03"}
    assert "cast('2026-01-03' as date)" in _compiled(tmp_path, env=env)
    assert "no changes found, skipping parsing" in _parse_log(tmp_path)

    # --vars wins over the environment (a dbt unit test's vars, a hand-run reproduction)
    out = _compiled(tmp_path, "--vars", '{"as_of": "2025-05-05"}', env=env)
    assert "cast('2025-05-05' as date)" in out

    # a malformed date fails, naming it
    result = run_dbt(
        "compile", tmp_path / "missing.duckdb", tmp_path, *INLINE, env={"BVS_AS_OF": "23/11/2026"}
    )
    assert result.returncode != 0
    assert "as_of must be a date YYYY-MM-DD, got '23/11/2026'" in result.stdout + result.stderr
