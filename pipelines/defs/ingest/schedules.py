"""The schedules of the register and market pipeline, off until turned on in the UI: the
weekly register refresh (the registers publish weekly) and the daily market refresh (prices
and short positions, every trading day)."""

from __future__ import annotations

import dagster as dg

from ..jobs import everything, market_daily

weekly_refresh = dg.ScheduleDefinition(
    name="weekly_register_refresh",
    job=everything,
    cron_schedule="0 6 * * 2",  # Tuesday 06:00 Brisbane: after the ABR's weekly extract
    execution_timezone="Australia/Brisbane",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Every Tuesday morning: load new register extracts, rebuild, publish.",
)

daily_market_refresh = dg.ScheduleDefinition(
    name="daily_market_refresh",
    job=market_daily,
    cron_schedule="0 19 * * 1-5",  # 19:00 Brisbane on trading days: after the close
    execution_timezone="Australia/Brisbane",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Every trading day: load the day's short positions and prices, rescore, publish, alert.",
)
