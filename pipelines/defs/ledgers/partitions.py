"""Ledger runs are partitioned by day and customer: one run re-verifies one customer's
ledgers as of one date. Customers are dynamic partitions, added when their ledgers land."""

from __future__ import annotations

import dagster as dg

from pipelines.settings import BRISBANE

CUSTOMERS = dg.DynamicPartitionsDefinition(name="ledger_customers")

ledger_partitions = dg.MultiPartitionsDefinition(
    {
        "date": dg.DailyPartitionsDefinition(
            start_date="2024-01-01", timezone=str(BRISBANE), end_offset=1
        ),
        "customer": CUSTOMERS,
    }
)


def partition_key(customer: str, date: str) -> dg.MultiPartitionKey:
    return dg.MultiPartitionKey({"customer": customer, "date": date})
