"""One typed settings object. Every value has a ``BVS_`` environment variable and a safe default.

Read lazily (``get_settings()``), never at import time, and passed to what needs it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

from pydantic import Field, SecretStr
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
    # DuckDB's memory while a source loads, instead of duckdb_memory_limit: parse workers
    # write Parquet parts and DuckDB only reads them back for the checks, whose hash tables
    # (a key's uniqueness) spill beyond it, so a load's memory does not grow with its input.
    # 512 MB: the 20 M-record ABR extract's checks took the same time as with 8 GB and 1.5 GB
    # less memory (docs/architecture.md, "The ABR parser").
    load_memory_limit: str = Field(default="512MB")
    # Spill space DuckDB may use beyond memory (loads and dbt models). A query that needs
    # more fails with a clear error, keeping the last good data, instead of filling the disk.
    duckdb_temp_limit: str = Field(default="40GB")
    duckdb_threads: int = Field(default=0, ge=0, description="0 = DuckDB's default")
    # Models dbt builds at once. Each query already uses every core; two at once overlap the
    # small ones, one at a time lets the warehouse reuse a replaced table's blocks before the
    # next one is written: at 2 M, one rebuild grew the file 1.26 times instead of 1.39 for
    # 6 % more wall time (docs/weekly-refresh.md, "Disk").
    dbt_threads: int = Field(default=2, ge=1)
    # A second writer of the warehouse (another run, whatever started it) waits this long for
    # the writer lock, then refuses naming the holder (pipelines/warehouse/lock.py).
    writer_wait_seconds: float = Field(default=60.0, ge=0)
    snapshots_kept: int = Field(default=3, ge=1)
    # Publishing flushes the snapshot files it writes this often (seconds; 0: only at the
    # end), so the machine never holds GBs of unwritten data
    # (pipelines/warehouse/snapshot/flush.py).
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
    # A whole-project dbt build skips the models, seeds, snapshots and tests whose inputs
    # (code, sources' loads, the as-of date where read) are those they were last built from
    # (pipelines/dbt_versions.py). false: every build rebuilds everything.
    dbt_skip_unchanged: bool = Field(default=True)
    # Supplier ledgers' run history (pipelines/ledgers/store.py): every nightly run's results,
    # changes and the ledger file it read. Not rebuildable from landing files, so it lives
    # outside the warehouse and the serving snapshots. Default <data_dir>/ledgers.
    ledger_dir: Path | None = Field(default=None)
    # DuckDB's memory for a nightly ledger run (its inputs, dbt models and history), instead
    # of duckdb_memory_limit: a run's joins spill to disk beyond it, so a night of ten
    # ledgers needs no more memory than this bound. 4 GB: at 2 GB a night of 1,000,000
    # suppliers spilled its way to 137 s and twice the CPU (docs/ledgers.md, "Speed").
    ledger_memory_limit: str = Field(default="4GB")
    # Progress lines on a terminal; quiet when not a TTY or when CI is set.
    progress: bool | None = Field(default=None)

    # Live checks (pipelines/live, docs/live-checks.md): domain age (RDAP), e-mail (MX, SPF,
    # DMARC), DNS blocklists, web presence, certificate transparency, trust and reviews.
    live_checks: bool = Field(
        default=True, description="false: every live tile is N/A 'Not run: live checks are off'"
    )
    # DNS resolvers as "ip" or "ip:port", comma-separated (default: the system's).
    live_resolvers: str | None = Field(default=None)
    live_dns_timeout: float = Field(default=2.0, gt=0)
    # Domain blocklist zones (DNSBL), comma-separated; answers in 127.255.255.0/24 are the
    # zone's rate-limit or error codes and never a listing (docs/rules.md).
    live_blocklist_zones: str = Field(default="dbl.spamhaus.org,multi.surbl.org,multi.uribl.com")
    live_rdap_bootstrap_url: str = Field(default="https://data.iana.org/rdap/dns.json")
    # The .au registry's RDAP service (used for .au names whatever the bootstrap says).
    live_rdap_au_url: str = Field(default="https://rdap.cctld.au/rdap/")
    # Certificate-transparency search: {domain} is replaced (a crt.sh-style JSON answer).
    live_ct_url: str = Field(default="https://crt.sh/?q=%25.{domain}&output=json")
    # Providers that need a key (JSON objects {"url": ..., "key": ...}); unset: the tile is
    # N/A "provider not configured". Reviews: a JSON list of {"name", "url", "key"}. Secret:
    # masked wherever the settings are printed or logged.
    live_scam_rating: SecretStr | None = Field(default=None)
    live_review_platforms: SecretStr | None = Field(default=None)
    live_phone_provider: SecretStr | None = Field(default=None)
    live_street_view_provider: SecretStr | None = Field(default=None)
    live_http_timeout: float = Field(default=5.0, gt=0)
    live_review_timeout: float = Field(default=6.0, gt=0)  # docs/live-checks.md
    live_cache_ttl_hours: float = Field(default=24.0, ge=0)  # docs/api.md
    live_cache_path: Path | None = Field(
        default=None, description="default <data_dir>/live/cache.sqlite"
    )
    # Domains checked at once, and per provider: concurrent requests and requests per second.
    live_workers: int = Field(default=64, ge=1)
    # Worker processes a pipeline run's live checks are shared among (the checks are CPU
    # under the GIL: one process uses one core); the limits above are divided among them.
    live_processes: int = Field(default=2, ge=1)
    live_provider_limits: str | None = Field(
        default=None, description='JSON {"rdap": {"concurrency": 8, "per_second": 10}}'
    )
    # Before a batch, one DNS query for this name: no answer means no network, and every
    # live tile is N/A at once instead of each lookup timing out ("" skips the probe).
    live_probe_name: str = Field(default="iana.org")
    # Wall-clock budget of one pipeline run's live checks (seconds); what is left is N/A
    # "Not run" and is checked on the next run (the cache keeps what finished).
    live_budget_seconds: float = Field(default=600.0, gt=0)
    # Test settings: connect to private/loopback addresses, web ports, a CA bundle.
    live_allow_private: bool = Field(default=False)
    live_https_port: int = Field(default=443, gt=0)
    live_http_port: int = Field(default=80, gt=0)
    live_ca_bundle: Path | None = Field(default=None)

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
    def live_cache(self) -> Path:
        return self.live_cache_path or (self.data_dir / "live" / "cache.sqlite")

    @property
    def state_database_url(self) -> str:
        return self.state_url or f"sqlite:///{self.state_dir / 'bvs.sqlite'}"

    def for_ledger_runs(self) -> Settings:
        """These settings with DuckDB bounded to ``ledger_memory_limit``."""
        return self.model_copy(update={"duckdb_memory_limit": self.ledger_memory_limit})


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
