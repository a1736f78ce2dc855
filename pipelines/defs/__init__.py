"""Dagster wiring only: assets, checks, schedules, sensors, resources. Logic lives elsewhere."""
