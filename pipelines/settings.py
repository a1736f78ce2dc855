"""One typed settings object. Every value has a ``BVS_`` environment variable and a safe default.

Read lazily (``get_settings()``), never at import time, and passed to what needs it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DBT_PROJECT_DIR = PROJECT_ROOT / "dbt_project"
BRISBANE = ZoneInfo("Australia/Brisbane")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BVS_", extra="ignore")

    data_dir: Path = Field(
        default=PROJECT_ROOT / "data",
        description="Holds landing/, the warehouse, serving snapshots and API state.",
    )
    warehouse_path: Path | None = Field(
        default=None,
        description="The warehouse DuckDB file (default: <data_dir>/warehouse.duckdb).",
    )
    dbt_project_dir: Path = Field(default=DBT_PROJECT_DIR)
    # Loads: a load whose row count moves more than this share against the previous
    # successful load of the same table is refused (blocking check).
    max_row_drift: float = Field(default=0.25, ge=0)
    # Parallel parse workers for the big XML extract (processes); 0 = number of cores.
    parse_workers: int = Field(default=0, ge=0)
    # Records per Arrow batch handed from the parsers to DuckDB.
    batch_rows: int = Field(default=100_000, gt=0)
    duckdb_memory_limit: str = Field(default="8GB")
    # Spill space DuckDB may use beyond memory (loads and dbt models). A query that needs
    # more fails with a clear error, keeping the last good data, instead of filling the disk.
    duckdb_temp_limit: str = Field(default="40GB")
    duckdb_threads: int = Field(default=0, ge=0, description="0 = DuckDB's default")
    # A second writer of the warehouse (another run, whatever started it) waits this long for
    # the writer lock, then refuses naming the holder (pipelines/warehouse/lock.py).
    writer_wait_seconds: float = Field(default=60.0, ge=0)
    snapshots_kept: int = Field(default=3, ge=1)
    # Publishing flushes the snapshot files it writes this often (seconds; 0: only at the
    # end), so the machine never holds GBs of unwritten data (pipelines/warehouse/snapshot.py).
    publish_flush_seconds: float = Field(default=0.25, ge=0)
    # DuckDB threads for publishing a snapshot (0: the pipeline's own). On a machine that also
    # serves the API, fewer threads than cores leave the API a core (docs/api.md).
    publish_threads: int = Field(default=0, ge=0)
    # Where watches and alerts live (SQLAlchemy URL). Default: a SQLite file under
    # <data_dir>/state/; a deployment points it at a database server.
    state_url: str | None = Field(default=None)
    # Where the API's rate counters are counted (pipelines/state/counters.py): a folder on a
    # memory filesystem. Default /dev/shm/bvs-counters (the state folder without /dev/shm).
    counters_dir: Path | None = Field(default=None)
    # API: per-plan limit overrides as JSON ({"enterprise": {"per_minute": 6000}}), how many
    # rendered verify responses each worker keeps (cache=true), and worker processes.
    plan_limits: str | None = Field(default=None)
    api_cache_entries: int = Field(default=10_000, ge=0)
    api_workers: int = Field(default=2, ge=1)
    # Bytes of each snapshot the API reads into memory before serving it (the verify lookup,
    # then the DuckDB file: pipelines/serving/preload.py). Default: half the machine's
    # memory; 0: none.
    api_preload_bytes: int | None = Field(default=None, ge=0)
    # The Unix socket of a warm dbt (`bvs dbt-server`, pipelines/dbt_server.py). Set, the
    # pipeline's dbt commands run in it; unset or not running, each starts dbt itself.
    dbt_server: Path | None = Field(default=None)
    # Supplier ledgers' run history (pipelines/ledgers/store.py): every nightly run's results,
    # changes and the ledger file it read. Not rebuildable from landing files, so it lives
    # outside the warehouse and the serving snapshots. Default <data_dir>/ledgers.
    ledger_dir: Path | None = Field(default=None)
    # Progress lines on a terminal; quiet when not a TTY or when CI is set.
    progress: bool | None = Field(default=None)

    @property
    def landing_dir(self) -> Path:
        return self.data_dir / "landing"

    @property
    def warehouse(self) -> Path:
        return self.warehouse_path or (self.data_dir / "warehouse.duckdb")

    @property
    def serving_dir(self) -> Path:
        return self.data_dir / "serving"

    @property
    def state_dir(self) -> Path:
        return self.data_dir / "state"

    @property
    def ledgers_dir(self) -> Path:
        return self.ledger_dir or (self.data_dir / "ledgers")

    @property
    def state_database_url(self) -> str:
        return self.state_url or f"sqlite:///{self.state_dir / 'bvs.sqlite'}"


def get_settings(**overrides: object) -> Settings:
    """Build settings from the environment (and explicit overrides). Paths are made absolute."""
    settings = Settings(**overrides)  # type: ignore[arg-type]
    settings.data_dir = settings.data_dir.expanduser().resolve()
    if settings.warehouse_path is not None:
        settings.warehouse_path = settings.warehouse_path.expanduser().resolve()
    if settings.ledger_dir is not None:
        settings.ledger_dir = settings.ledger_dir.expanduser().resolve()
    settings.dbt_project_dir = settings.dbt_project_dir.expanduser().resolve()
    return settings


def today_in_brisbane() -> dt.date:
    return dt.datetime.now(BRISBANE).date()
