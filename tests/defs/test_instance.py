"""Dagster's SQLite storage during a ``bvs`` run: no disk sync per event, nothing lost."""

import sqlite3
from pathlib import Path

import dagster as dg
import pytest
from sqlalchemy import create_engine, text

from pipelines.defs.instance import quick_event_log


@dg.asset
def upstream() -> int:
    return 1


@dg.asset
def downstream(upstream: int) -> int:
    return upstream + 1


@pytest.fixture
def instance(tmp_path: Path):
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        yield instance


def _wal_files(home: Path) -> list[str]:
    return sorted(p.name for p in (home / "history" / "runs").glob("*.db-wal"))


def test_wal_connections_skip_the_sync_and_the_log_stays_until_the_end(tmp_path: Path) -> None:
    db = tmp_path / "events.db"
    setup = sqlite3.connect(db)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE t (x)")
    setup.commit()
    setup.close()
    with quick_event_log():
        engine = create_engine(f"sqlite:///{db}")
        with engine.begin() as conn:
            assert conn.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL
            conn.execute(text("INSERT INTO t VALUES (1)"))
        engine.dispose()  # no longer the last connection: the log is not checkpointed away
        assert (tmp_path / "events.db-wal").exists()
    assert not (tmp_path / "events.db-wal").exists()  # the keeper closed: checkpointed once
    check = sqlite3.connect(db)
    assert check.execute("SELECT x FROM t").fetchall() == [(1,)]
    check.close()
    # outside the block, connections are as SQLite makes them (FULL)
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2
    engine.dispose()


def test_a_file_not_in_wal_mode_is_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "plain.db"
    with quick_event_log():
        engine = create_engine(f"sqlite:///{db}")
        with engine.begin() as conn:
            assert conn.execute(text("PRAGMA synchronous")).scalar() == 2
        engine.dispose()


def test_a_run_inside_keeps_every_event(instance: dg.DagsterInstance, tmp_path: Path) -> None:
    with quick_event_log():
        result = dg.materialize([upstream, downstream], instance=instance)
        assert result.success
        assert _wal_files(tmp_path)  # held open by the keepers during the block
    assert _wal_files(tmp_path) == []
    records = instance.get_records_for_run(result.run_id).records
    kinds = {r.event_log_entry.dagster_event_type for r in records}
    assert dg.DagsterEventType.RUN_SUCCESS in kinds
    materialized = instance.fetch_materializations(dg.AssetKey("downstream"), limit=1).records
    assert materialized and materialized[0].run_id == result.run_id
