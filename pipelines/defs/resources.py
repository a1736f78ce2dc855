"""The one resource every asset takes: settings and the run's as-of date."""

from __future__ import annotations

import datetime as dt

import dagster as dg

from pipelines.settings import Settings, get_settings, today_in_brisbane

POOL = "duckdb"  # every asset that writes the warehouse: one at a time, across runs


class BvsResource(dg.ConfigurableResource):
    """Where the data lives and which day "today" is for age and recency rules."""

    data_dir: str | None = None  # default: BVS_DATA_DIR, else data/
    as_of: str | None = None  # YYYY-MM-DD; default: today in Australia/Brisbane

    def settings(self) -> Settings:
        return get_settings(data_dir=self.data_dir) if self.data_dir else get_settings()

    def as_of_date(self) -> dt.date:
        return dt.date.fromisoformat(self.as_of) if self.as_of else today_in_brisbane()
